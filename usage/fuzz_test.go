package usage

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
)

// The oracle: RFC 9651's Dictionary grammar (§3.2, with the limits of
// §4.2) written as one regular expression, independent of the parser. It
// cannot see whether the %xx escapes of a Display String form valid UTF-8;
// the parser may reject what it accepts for that reason only.
const (
	reKey  = `[a-z*][a-z0-9_.*-]*`
	reBare = `(?:-?[0-9]{1,12}\.[0-9]{1,3}` + // Decimal
		`|-?[0-9]{1,15}` + // Integer
		`|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"` + // String
		"|[A-Za-z*][!#$%&'*+.^_`|~0-9A-Za-z:/-]*" + // Token
		`|:(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?:` + // Byte Sequence
		`|\?[01]` + // Boolean
		`|@-?[0-9]{1,15}` + // Date
		`|%"(?:[\x20\x21\x23\x24\x26-\x7e]|%[0-9a-f]{2})*")` // Display String
	reParams = `(?:;[ ]*` + reKey + `(?:=` + reBare + `)?)*`
	reItem   = reBare + reParams
	reInner  = `\([ ]*(?:` + reItem + `(?:[ ]+` + reItem + `)*[ ]*)?\)` + reParams
	// A member: its key (group 1) and, when its value is a Bare Item, that
	// item (group 2).
	reMember = `(` + reKey + `)(?:=(` + reBare + `)` + reParams + `|=` + reInner + `|` + reParams + `)`
)

var (
	oracleDict   = regexp.MustCompile(`^[ ]*(?:` + reMember + `(?:[ \t]*,[ \t]*` + reMember + `)*[ \t]*)?$`)
	oracleMember = func() *regexp.Regexp {
		re := regexp.MustCompile(`^[ \t]*,?[ \t]*` + reMember)
		re.Longest()
		return re
	}()
)

// oracleParse returns whether s is a Dictionary and, if so, the canonical
// Content-Usage value of the statement it makes, built without the code
// under test. short reports that s may be one of the values that Parse
// reads with fewer labels outside the vocabulary (MaxExtraLabels): it
// names more than 2*MaxExtraLabels such labels and takes back more than
// MaxExtraLabels times a label it stated (a later member with a value that
// is not y or n).
func oracleParse(t *testing.T, s string) (want string, ok, short bool) {
	if !oracleDict.MatchString(s) {
		return "", false, false
	}
	last := map[string]string{} // key → its last value, if a Bare Item
	takenBack := 0
	for rest := strings.TrimLeft(s, " "); strings.Trim(rest, " \t") != ""; {
		m := oracleMember.FindStringSubmatchIndex(rest)
		if m == nil {
			t.Fatalf("oracle confused at %q of %q", rest, s)
		}
		key, val := rest[m[2]:m[3]], ""
		if m[4] >= 0 {
			val = rest[m[4]:m[5]]
		}
		if v, ok := last[key]; ok && (v == "y" || v == "n") && val != "y" && val != "n" {
			takenBack++
		}
		last[key] = val
		rest = rest[m[1]:]
	}
	named := 0
	for k := range last {
		if knownIndex(k) < 0 && len(k) <= MaxExtraLabelLen {
			named++
		}
	}
	short = named > 2*MaxExtraLabels && takenBack > MaxExtraLabels
	var out, extra []string
	for _, l := range knownLabels {
		if v := last[l]; v == "y" || v == "n" {
			out = append(out, l+"="+v)
		}
	}
	for k, v := range last {
		if knownIndex(k) < 0 && (v == "y" || v == "n") && len(k) <= MaxExtraLabelLen {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra[:min(len(extra), MaxExtraLabels)] {
		out = append(out, k+"="+last[k])
	}
	return strings.Join(out, ", "), true, short
}

// extraPrefix reports whether the statement got is want with fewer of its
// last labels outside the vocabulary, as Parse may read a value that
// oracleParse calls short: got's members are the first of want's, all
// those of the vocabulary's labels (which come first) among them.
func extraPrefix(got, want string) bool {
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ", ")
	}
	g, w := split(got), split(want)
	known := 0
	for known < len(w) && knownIndex(w[known][:len(w[known])-2]) >= 0 {
		known++
	}
	return len(g) >= known && len(g) <= len(w) && slices.Equal(g, w[:len(g)])
}

// Parse follows a bounded set of labels outside the vocabulary, yet reads
// them as sorting every member would (vocab-07 §6.5.1: the last value of a
// label counts): random values over more labels than it follows, with
// labels stated again, taken back and restated, against the oracle. Only
// the values the oracle calls short may keep fewer labels, and then the
// first ones.
func TestParseFollowsLabelsAsSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 4))
	values := []string{"y", "n", "x", `"y"`, ""}
	shortSeen, fellShort, exact := 0, 0, 0
	for range 500 {
		pool := 1 + rng.IntN(4*MaxExtraLabels)
		var b strings.Builder
		// Runs of members, each taking labels back at a rate of its
		// own: some mostly state, some mostly take back.
		for range 1 + rng.IntN(4) {
			takeBack := rng.IntN(5) // in 4
			for range rng.IntN(6 * MaxExtraLabels) {
				if b.Len() > 0 {
					b.WriteString(", ")
				}
				label := fmt.Sprintf("l%03d", rng.IntN(pool))
				if rng.IntN(50) == 0 {
					label = []string{TrainAI, Search, AIUse}[rng.IntN(3)]
				}
				b.WriteString(label)
				v := values[rng.IntN(2)]
				if rng.IntN(4) < takeBack {
					v = values[2+rng.IntN(3)]
				}
				if v != "" {
					b.WriteString("=" + v)
				}
			}
		}
		s := b.String()
		want, ok, short := oracleParse(t, s)
		require.True(t, ok, s)
		got := Parse(s).String()
		switch {
		case !short:
			exact++
			assert.Equal(t, want, got, s)
		case got != want:
			fellShort++
			fallthrough
		default:
			shortSeen++
			assert.True(t, extraPrefix(got, want), "%q:\n got %q\nwant %q or the first labels of it", s, got, want)
		}
	}
	t.Logf("%d values read exactly, %d that may keep fewer labels, %d that do", exact, shortSeen, fellShort)
	assert.Greater(t, exact, 300, "values read exactly")
	assert.Greater(t, shortSeen, 50, "values that may keep fewer labels")
	assert.Greater(t, fellShort, 5, "values that keep fewer labels")
}

// fuzzSeeds are Content-Usage and Content-Signal values: the drafts'
// examples, the Content-Signal shapes Cloudflare publishes, and values
// that exercise every kind of item. The corpus has no Content-Usage or
// Content-Signal line to add.
var fuzzSeeds = []string{
	"train-ai=n", "train-ai=y, search=n", "train-ai=n, search=y, ai-use=y",
	`train-ai=y, train-ai, search=n, search="n"`, "Train-ai=n", "train-ai;allow=n, train-ai=y",
	`train-ai;has;parameters="?";`, "bots=n, train-ai=y", `train-ai=n;reason="policy";v=2`,
	"train-ai=N, search=Y", "*.pdf train-ai=n", "*=n",
	"search=yes, ai-train=no", "search=yes,ai-train=no", "search=yes, ai-train=no, ai-input=no",
	"ai-train=yes, search=yes, ai-input=yes", "AI-Train = No ,, search=yes;v=1",
	`a=1, b=-2.5, c="s\"", d=tok:/x, e=:aGVsbG8=:, f=?0, g=@1659578233, h=%"f%c3%bc", i=(1 "x";p);q, j`,
	"a=%\"%c3%28\"", "a=(1 2", "\ta=1", "a=1\t, b=2 ", "",
}

// aiprefSeeds returns the Content-Usage values of aipref.json: header
// lines, and the values of Content-Usage lines of its robots.txt bodies
// with the path cut off.
func aiprefSeeds() []string {
	dir, ok := sharedtest.Lookup("conformance")
	if !ok {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "aipref.json"))
	if err != nil {
		return nil
	}
	var vs []struct {
		Robots string   `json:"robots"`
		Header []string `json:"header"`
	}
	if json.Unmarshal(b, &vs) != nil {
		return nil
	}
	var out []string
	for _, v := range vs {
		out = append(out, v.Header...)
		for _, l := range strings.Split(v.Robots, "\n") {
			k, val, ok := strings.Cut(l, ":")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), "content-usage") {
				continue
			}
			val = strings.TrimSpace(val)
			if strings.HasPrefix(val, "/") {
				if i := strings.IndexAny(val, " \t"); i >= 0 {
					val = strings.TrimLeft(val[i:], " \t")
				}
			}
			out = append(out, val)
		}
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, s := range append(fuzzSeeds, aiprefSeeds()...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Parse(s)
		err, ok := parseDictionary(s, nil)
		want, oracleOK, short := oracleParse(t, s)
		switch {
		case ok && !oracleOK:
			t.Fatalf("%q: parsed, but the grammar rejects it", s)
		case !ok && oracleOK && err.msg != "a display string is not UTF-8":
			t.Fatalf("%q: rejected (%v), but the grammar accepts it", s, err)
		case ok && short && !extraPrefix(p.String(), want):
			t.Fatalf("%q: Parse gives %q, not the oracle's %q or the first labels of it", s, p.String(), want)
		case ok && !short && p.String() != want:
			t.Fatalf("%q: Parse gives %q, the oracle %q", s, p.String(), want)
		case !ok && p != (Prefs{}):
			t.Fatalf("%q: not a Dictionary, yet Parse states %q", s, p)
		}
		if err.off < 0 || err.off > len(s) {
			t.Fatalf("%q: error offset %d out of range", s, err.off)
		}
		if back := Parse(p.String()); back != p {
			t.Fatalf("%q: String %q parses to %q", s, p.String(), back)
		}
		for l, v := range p.All() {
			if p.Get(l) != v || v == Unknown {
				t.Fatalf("%q: All yields %s=%v, Get gives %v", s, l, v, p.Get(l))
			}
		}
		ps := Validate(s)
		if (len(ps) > 0 && ps[0].Kind == Syntax) == ok {
			t.Fatalf("%q: Validate %v disagrees with the parser (ok=%v)", s, ps, ok)
		}
		spoiled := len(ps) > 0 && (ps[0].Kind == Syntax || ps[0].Kind == Empty)
		if WellFormed(s) == spoiled {
			t.Fatalf("%q: WellFormed is %v, but Validate says %v", s, !spoiled, ps)
		}
		for _, pr := range ps {
			if pr.Offset < 0 || pr.Offset > len(s) || pr.Message == "" {
				t.Fatalf("%q: bad problem %+v", s, pr)
			}
		}
	})
}

func FuzzParseSignal(f *testing.F) {
	for _, s := range append(fuzzSeeds, aiprefSeeds()...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, ps := ParseSignal(s)
		for _, v := range []Pref{sig.Search, sig.AIInput, sig.AITrain} {
			if v > No {
				t.Fatalf("%q: invalid preference %d", s, v)
			}
		}
		for _, pr := range ps {
			if pr.Offset < 0 || pr.Offset > len(s) || pr.Message == "" || pr.Kind == 0 {
				t.Fatalf("%q: bad problem %+v", s, pr)
			}
		}
		if first, fps := ParseSignalN(s, 1); first != sig || len(fps) != min(len(ps), 1) || len(fps) == 1 && fps[0] != ps[0] {
			t.Fatalf("%q: ParseSignalN(1) gives %+v with %v, ParseSignal %+v with %v", s, first, fps, sig, ps)
		}
		back, bps := ParseSignal(sig.String())
		if back != sig || sig != (Signal{}) && len(bps) > 0 {
			t.Fatalf("%q: String %q reads as %+v with %v", s, sig.String(), back, bps)
		}
		// A Dictionary without Strings means the same read either way, with
		// yes and no compared case-insensitively (ParseSignal's doc).
		if strings.Contains(s, `"`) {
			return
		}
		var want Signal
		if _, ok := parseDictionary(s, func(m sfMember) {
			i := slices.Index(signalKeys[:], m.key)
			if i < 0 {
				return
			}
			v := Unknown
			if !m.bare && m.value.kind == sfToken {
				switch strings.ToLower(m.value.raw) {
				case "yes":
					v = Yes
				case "no":
					v = No
				}
			}
			*want.field(i) = v
		}); ok && want != sig {
			t.Fatalf("%q: ParseSignal gives %+v, the Dictionary %+v", s, sig, want)
		}
	})
}
