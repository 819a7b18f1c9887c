package usage_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/usage"
)

const (
	Unknown = usage.Unknown
	Yes     = usage.Yes
	No      = usage.No
)

// headerVectors are the vectors of ../shared/conformance/aipref.json that
// are about Content-Usage values and header fields only (no robots.txt);
// TestAIPREFVectorsCovered checks that they are all here, as written there.
// Sources: aipref.json's "source" of each id; readings: aipref.md.
var headerVectors = []struct {
	id                     string
	header                 []string
	trainAI, search, aiUse usage.Pref
}{
	// attach-05 §1.2 (header example)
	{"att05-1.2-header", []string{"train-ai=n"}, No, Unknown, Unknown},
	// vocab-07 §6 (example)
	{"voc07-6-example", []string{"train-ai=y, search=n"}, Yes, No, Unknown},
	// vocab-07 §6.5.1: the last value of each key applies, and it is not a Token
	{"voc07-6.5.1-duplicate-non-tokens", []string{`train-ai=y, train-ai, search=n, search="n"`}, Unknown, Unknown, Unknown},
	// vocab-07 §6.5.1: an uppercase key fails the Dictionary
	{"voc07-6.5.1-uppercase-key", []string{"Train-ai=n"}, Unknown, Unknown, Unknown},
	// vocab-07 §6.5.1: "If the parsing of the Dictionary fails, preferences are unknown"
	{"voc07-6.5.1-uppercase-poisons-all", []string{"search=y, Train-ai=n"}, Unknown, Unknown, Unknown},
	// vocab-07 §6.5.1: "only the last value applies", even when more permissive
	{"voc07-6.5.1-last-wins", []string{"train-ai=n, train-ai=y"}, Yes, Unknown, Unknown},
	// vocab-07 §6.5.2: only the parameters of the selected member count
	{"voc07-6.5.2-params-of-selected", []string{"train-ai;allow=n, train-ai=y"}, Yes, Unknown, Unknown},
	// vocab-07 §6.5.2 example; the trailing ';' fails the Dictionary (RFC 9651 §4.2.3.2)
	{"voc07-6.5.2-params-unknown", []string{`train-ai;has;parameters="?";`}, Unknown, Unknown, Unknown},
	// vocab-07 §6.5: values that are not Tokens
	{"voc07-6.5-string-value", []string{`train-ai="n"`}, Unknown, Unknown, Unknown},
	// vocab-07 §6.5: a bare key is the Boolean true, not a Token
	{"voc07-6.5-bare-key", []string{"train-ai"}, Unknown, Unknown, Unknown},
	// vocab-07 §6.5: Tokens other than y or n
	{"voc07-6.5-other-tokens", []string{"train-ai=no, search=yes"}, Unknown, Unknown, Unknown},
	// vocab-07 §6.2: the Tokens are y and n, compared exactly
	{"voc07-6.2-token-case", []string{"train-ai=N, search=Y"}, Unknown, Unknown, Unknown},
	// vocab-07 §6.4: "any unknown labels MUST be ignored"
	{"voc07-6.4-unknown-label", []string{"bots=n, train-ai=y"}, Yes, Unknown, Unknown},
	// vocab-07 §6.4: "any unknown parameters MUST be ignored"
	{"voc07-6.4-unknown-params", []string{`train-ai=n;reason="policy";v=2`}, No, Unknown, Unknown},
	// vocab-07 §5: no fallback to broader categories; bots is not a label
	{"voc07-5-no-fallback", []string{"bots=n"}, Unknown, Unknown, Unknown},
	// vocab-07 §3: no statement
	{"voc07-3-no-statement-header", []string{}, Unknown, Unknown, Unknown},
	// vocab-08: the label ai-use
	{"voc08-ai-use", []string{"ai-use=n"}, Unknown, Unknown, No},
	// vocab-08 §4.3: Search overriding other categories does not rewrite their values
	{"voc08-search-does-not-rewrite-labels", []string{"train-ai=n, search=y"}, No, Yes, Unknown},
	// vocab-08 §6.1: the three labels
	{"voc08-three-labels", []string{"train-ai=n, ai-use=y, search=y"}, No, Yes, Yes},
	// attach-05 §2 and RFC 9651 §4.2: field lines are combined
	{"att05-2-header-lines", []string{"train-ai=y", "search=n"}, Yes, No, Unknown},
}

// wiredLater are the vectors of aipref.json that need robots.txt parsing
// and matching (robots.UsageBy); package usage cannot evaluate them, the root
// package's TestAIPREFVectors evaluates them with every other vector.
var wiredLater = []string{
	"att05-1.2-robots-root", "att05-1.2-robots-deep", "att05-1.2-both",
	"att05-3.4-other-test", "att05-3.4-other-never", "att05-3.4-other-ai-ok",
	"att05-3.4-examplebot-test", "att05-3.4-examplebot-never", "att05-3.4-examplebot-ai-ok",
	"att05-3.4-other-ai-ok-noslash", "att05-3.4-other-never-noslash", "att05-3.4-examplebot-lowercase-agent",
	"voc07-5.1-robots-and-header", "voc07-5.1-allow-and-unknown", "voc07-3-no-statement-robots",
	"att05-3-rule-ends-agent-run", "att05-3-rule-ends-agent-run-other", "att05-3-outside-group",
	"att05-3.1-disallowed-path", "att05-3.1-allowed-path",
	"att05-3.1-longest-a", "att05-3.1-longest-ab", "att05-3.1-longest-pathless",
	"att05-3.1-identical-paths-conflict", "att05-3.1-identical-paths-separate",
	"att05-3.1-wildcard-end", "att05-3.1-wildcard-end-query", "att05-3.1-percent-encoding",
	"att05-3.2-label-case-and-space", "att05-3.2-comment", "att05-3.2-path-needs-slash",
	"rfc9309-2.2.1-groups-merge", "rfc9309-2.2.1-specific-group-only", "rfc9309-2.2.1-no-group",
	"art-combined-public", "art-combined-internal", "art-combined-other",
	"art-cookbook5-research", "art-cookbook5-blog", "art-cookbook5-private",
}

func header(lines ...string) http.Header {
	h := http.Header{}
	for _, l := range lines {
		h.Add("Content-Usage", l)
	}
	return h
}

func TestAIPREFHeaderVectors(t *testing.T) {
	for _, v := range headerVectors {
		t.Run(v.id, func(t *testing.T) {
			p := usage.FromHeader(header(v.header...))
			assert.Equal(t, v.trainAI, p.Get(usage.TrainAI), "train-ai")
			assert.Equal(t, v.search, p.Get(usage.Search), "search")
			assert.Equal(t, v.aiUse, p.Get(usage.AIUse), "ai-use")
			if len(v.header) == 1 {
				// aipref.md: with one line, Parse gives the same answer.
				assert.Equal(t, p, usage.Parse(v.header[0]))
			}
		})
	}
}

// TestAIPREFVectorsCovered checks headerVectors and wiredLater against
// aipref.json itself: every vector is in exactly one of them, and the
// header vectors are copied exactly.
func TestAIPREFVectorsCovered(t *testing.T) {
	dir := sharedtest.Dir(t, "conformance")
	b, err := os.ReadFile(filepath.Join(dir, "aipref.json"))
	require.NoError(t, err)
	var vs []struct {
		ID     string            `json:"id"`
		Robots *string           `json:"robots"`
		Header []string          `json:"header"`
		Expect map[string]string `json:"expect"`
	}
	require.NoError(t, json.Unmarshal(b, &vs))
	require.Len(t, vs, len(headerVectors)+len(wiredLater))
	pref := map[string]usage.Pref{"y": Yes, "n": No, "unknown": Unknown}
	for _, v := range vs {
		if v.Robots != nil {
			assert.Contains(t, wiredLater, v.ID)
			continue
		}
		i := slices.IndexFunc(headerVectors, func(h struct {
			id                     string
			header                 []string
			trainAI, search, aiUse usage.Pref
		}) bool {
			return h.id == v.ID
		})
		if !assert.GreaterOrEqual(t, i, 0, "%s is missing from headerVectors", v.ID) {
			continue
		}
		h := headerVectors[i]
		assert.Equal(t, v.Header, h.header, v.ID)
		assert.Equal(t, pref[v.Expect["train-ai"]], h.trainAI, v.ID)
		assert.Equal(t, pref[v.Expect["search"]], h.search, v.ID)
		assert.Equal(t, pref[v.Expect["ai-use"]], h.aiUse, v.ID)
	}
}

func TestGetLabelsStandAlone(t *testing.T) {
	// vocab-07 §5 and aipref.md reading 15: each label keeps its own value;
	// no category falls back to or inherits from another.
	for _, tt := range []struct {
		value                  string
		trainAI, search, aiUse usage.Pref
	}{
		{"ai-use=n", Unknown, Unknown, No},
		{"ai-use=y", Unknown, Unknown, Yes},
		{"train-ai=n", No, Unknown, Unknown},
		{"search=n", Unknown, No, Unknown},
		{"search=y, ai-use=n", Unknown, Yes, No},
		{"ai-use=n, train-ai=y", Yes, Unknown, No},
	} {
		p := usage.Parse(tt.value)
		assert.Equal(t, tt.trainAI, p.Get(usage.TrainAI), tt.value)
		assert.Equal(t, tt.search, p.Get(usage.Search), tt.value)
		assert.Equal(t, tt.aiUse, p.Get(usage.AIUse), tt.value)
	}
}

func TestGetComparesExactly(t *testing.T) {
	p := usage.Parse("train-ai=n, search=y")
	for _, l := range []string{"Train-ai", "TRAIN-AI", "train-ai ", "train_ai", "trainai", "", "search=y"} {
		assert.Equal(t, Unknown, p.Get(l), "%q", l)
	}
}

func TestGetLabelsOutsideTheVocabulary(t *testing.T) {
	// vocab-07 §6.4: they change nothing for the vocabulary's labels, but a
	// later vocabulary's labels can be read before this package knows them.
	p := usage.Parse("future-label=n, bots=y, train-ai=y, zz=n")
	assert.Equal(t, Yes, p.Get(usage.TrainAI))
	assert.Equal(t, Unknown, p.Get(usage.Search))
	assert.Equal(t, No, p.Get("future-label"))
	assert.Equal(t, Yes, p.Get("bots"))
	assert.Equal(t, No, p.Get("zz"))
	assert.Equal(t, Unknown, p.Get("future"))
	assert.Equal(t, Unknown, p.Get("a"))
	assert.Equal(t, Unknown, p.Get("zzz"))

	// The same rules as for the known labels: last wins, only y and n count.
	p = usage.Parse(`x=n, x=y, w=y, w="y", v=y, v, u=yes, t=n;p=1, s=(y)`)
	assert.Equal(t, Yes, p.Get("x"))
	for _, l := range []string{"w", "v", "u", "s"} {
		assert.Equal(t, Unknown, p.Get(l), l)
	}
	assert.Equal(t, No, p.Get("t"))
	assert.Equal(t, "t=n, x=y", p.String())

	// One syntax error anywhere drops them too.
	assert.Equal(t, usage.Prefs{}, usage.Parse("future-label=n, Bad=y"))
}

func TestExtraLabelsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2*usage.MaxExtraLabels; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		// Written in reverse order: which are kept does not depend on it.
		b.WriteString("l" + string(rune('a'+(2*usage.MaxExtraLabels-1-i)/26)) + string(rune('a'+(2*usage.MaxExtraLabels-1-i)%26)) + "=n")
	}
	long := strings.Repeat("k", usage.MaxExtraLabelLen+1)
	fits := strings.Repeat("k", usage.MaxExtraLabelLen)
	p := usage.Parse(b.String() + ", train-ai=y, " + long + "=n, " + fits + "=y")
	assert.Equal(t, Yes, p.Get(usage.TrainAI))
	n := 0
	for l := range p.All() {
		if l != usage.TrainAI {
			n++
		}
	}
	assert.Equal(t, usage.MaxExtraLabels, n)
	assert.Equal(t, No, p.Get("laa"), "the first in byte order are kept")
	assert.Equal(t, Unknown, p.Get("lcl"), "the last in byte order are not")
	assert.Equal(t, Yes, p.Get(fits), "kept, as it sorts before the l… labels")
	assert.Equal(t, Unknown, p.Get(long))
}

// Parse follows at most 2*MaxExtraLabels labels outside the vocabulary at
// a time, so that a value of any size is read in bounded memory. The one
// answer that bound changes: a value that states more labels than that, then
// takes back more than MaxExtraLabels of the first ones, keeps the first of
// those it leaves stated, but fewer than MaxExtraLabels of them.
func TestExtraLabelsFollowedAreBounded(t *testing.T) {
	label := func(i int) string { return fmt.Sprintf("l%03d", i) }
	stated := func(from, to int, v string) []string {
		var ms []string
		for i := from; i < to; i++ {
			ms = append(ms, label(i)+v)
		}
		return ms
	}
	kept := func(p usage.Prefs) []string {
		var ls []string
		for l := range p.All() {
			ls = append(ls, l)
		}
		return ls
	}
	const followed = 2 * usage.MaxExtraLabels
	// Labels stated in reverse order, each then the first so far, and
	// labels restated: the last value counts, as if all were sorted.
	var ms []string
	for i := followed + 10; i >= 0; i-- {
		ms = append(ms, label(i)+"=n")
	}
	ms = append(ms, stated(0, followed+11, "=y")...)
	p := usage.Parse(strings.Join(ms, ", "))
	assert.Equal(t, stated(0, usage.MaxExtraLabels, ""), kept(p))
	assert.Equal(t, Yes, p.Get(label(0)))

	// Taking back MaxExtraLabels of the first labels: the next ones are
	// still followed.
	ms = append(stated(0, followed+1, "=y"), stated(0, usage.MaxExtraLabels, "")...)
	p = usage.Parse(strings.Join(ms, ", "))
	assert.Equal(t, stated(usage.MaxExtraLabels, 2*usage.MaxExtraLabels, ""), kept(p))

	// One more: the label after the followed ones was let go when it was
	// stated, so one label fewer is kept than the value leaves stated.
	ms = append(stated(0, followed+1, "=y"), stated(0, usage.MaxExtraLabels+1, "")...)
	p = usage.Parse(strings.Join(ms, ", "))
	assert.Equal(t, stated(usage.MaxExtraLabels+1, followed, ""), kept(p), "l%03d is not kept", followed)
	assert.Equal(t, Unknown, p.Get(label(followed)))
	// Stated again, it stays let go: labels after the followed ones are
	// never brought back, as one let go before it might come first.
	ms = append(ms, label(followed)+"=n")
	p = usage.Parse(strings.Join(ms, ", "))
	assert.Equal(t, stated(usage.MaxExtraLabels+1, followed, ""), kept(p))
	// A label before them is followed still.
	ms = append(ms, label(0)+"=n")
	p = usage.Parse(strings.Join(ms, ", "))
	assert.Equal(t, append([]string{label(0)}, stated(usage.MaxExtraLabels+1, followed, "")...), kept(p))
	assert.Equal(t, No, p.Get(label(0)))
}

func TestPrefsAreComparable(t *testing.T) {
	// The same statement written differently is the same Prefs.
	assert.Equal(t, usage.Parse("search=y, train-ai=n"), usage.Parse("train-ai=n,search=y"))
	assert.True(t, usage.Parse("b=y, a=n, train-ai=y") == usage.Parse("train-ai=y, a=n, b=y, c"))
	assert.True(t, usage.Parse("train-ai=n, train-ai=y") == usage.Parse("train-ai=y"))
	assert.False(t, usage.Parse("train-ai=n") == usage.Parse("train-ai=y"))
	assert.False(t, usage.Parse("a=n") == usage.Parse("a=y"))
	assert.True(t, usage.Parse("") == usage.Prefs{})
	m := map[usage.Prefs]int{usage.Parse("search=y"): 1}
	assert.Equal(t, 1, m[usage.Parse("search=y, bots")])
}

func TestString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"Train-ai=n", ""},
		{"search=y", "search=y"},
		{"ai-use=n, search=y, train-ai=n", "train-ai=n, search=y, ai-use=n"},
		{"zeta=y, alpha=n", "alpha=n, zeta=y"},
		{"zeta=y, train-ai=y, alpha=n;p=1", "train-ai=y, alpha=n, zeta=y"},
		{`train-ai="n", search=n`, "search=n"},
	} {
		p := usage.Parse(tt.in)
		assert.Equal(t, tt.want, p.String(), tt.in)
		assert.Equal(t, p, usage.Parse(p.String()), "round trip of %q", tt.in)
	}
	assert.Equal(t, "y", Yes.String())
	assert.Equal(t, "n", No.String())
	assert.Equal(t, "unknown", Unknown.String())
	assert.Equal(t, "unknown", usage.Pref(7).String())
}

func TestAll(t *testing.T) {
	p := usage.Parse("z=y, ai-use=n, a=n, train-ai=y, search")
	var got []string
	for l, v := range p.All() {
		got = append(got, l+"="+v.String())
	}
	assert.Equal(t, []string{"train-ai=y", "ai-use=n", "a=n", "z=y"}, got)
	got = nil
	for l := range p.All() {
		got = append(got, l)
		if len(got) == 3 {
			break
		}
	}
	assert.Equal(t, []string{"train-ai", "ai-use", "a"}, got)
	for range (usage.Prefs{}).All() {
		t.Fatal("the zero Prefs states nothing")
	}
}

func TestCombine(t *testing.T) {
	// vocab-07 §5.1: per label, any n gives n, else any y gives y, else
	// unknown (aipref.md reading 17).
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"train-ai=y"}, "train-ai=y"},
		{[]string{"train-ai=y", "train-ai=n"}, "train-ai=n"},
		{[]string{"train-ai=n", "train-ai=y"}, "train-ai=n"},
		{[]string{"train-ai=y", ""}, "train-ai=y"},
		{[]string{"train-ai=y, search=y", "train-ai=n"}, "train-ai=n, search=y"}, // voc07-5.1-robots-and-header
		{[]string{"search=y", "train-ai=y"}, "train-ai=y, search=y"},             // voc07-5.1-allow-and-unknown
		{[]string{"train-ai=n", "search=y"}, "train-ai=n, search=y"},             // att05-3.1-identical-paths-separate
		{[]string{"ai-use=y", "ai-use=y", "ai-use=n", "ai-use=y"}, "ai-use=n"},
		{[]string{"Bad=n", "search=y"}, "search=y"}, // an unreadable statement adds nothing
		{[]string{"a=y, b=n", "b=y, c=y"}, "a=y, b=n, c=y"},
		{[]string{"a=y", "a=y"}, "a=y"},
		{[]string{"a=y", "search=n", "a=n"}, "search=n, a=n"},
	} {
		ps := make([]usage.Prefs, len(tt.in))
		for i, s := range tt.in {
			ps[i] = usage.Parse(s)
		}
		assert.Equal(t, tt.want, usage.Combine(ps...).String(), "%q", tt.in)
	}
}

func TestCombineIsOrderFree(t *testing.T) {
	values := []string{"", "train-ai=y", "train-ai=n", "search=y, ai-use=n", "ai-use=y, x=y", "x=n", "y=y, train-ai=y", "Bad"}
	var ps []usage.Prefs
	for _, v := range values {
		ps = append(ps, usage.Parse(v))
	}
	for _, a := range ps {
		assert.Equal(t, a, usage.Combine(a, a), "idempotent")
		assert.Equal(t, a, usage.Combine(a, usage.Prefs{}), "the zero Prefs is neutral")
		for _, b := range ps {
			assert.Equal(t, usage.Combine(a, b), usage.Combine(b, a), "commutative: %v, %v", a, b)
			for _, c := range ps {
				abc := usage.Combine(a, b, c)
				assert.Equal(t, abc, usage.Combine(usage.Combine(a, b), c), "associative")
				assert.Equal(t, abc, usage.Combine(a, usage.Combine(b, c)), "associative")
			}
		}
	}
}

func TestCombineBoundsExtraLabels(t *testing.T) {
	var a, b []string
	for i := 0; i < usage.MaxExtraLabels; i++ {
		a = append(a, "a"+string(rune('a'+i%26))+string(rune('a'+i/26))+"=y")
		b = append(b, "b"+string(rune('a'+i%26))+string(rune('a'+i/26))+"=n")
	}
	p := usage.Combine(usage.Parse(strings.Join(b, ", ")), usage.Parse(strings.Join(a, ", ")))
	n := 0
	for l, v := range p.All() {
		assert.True(t, strings.HasPrefix(l, "a"), "the first in byte order are kept: %s", l)
		assert.Equal(t, Yes, v)
		n++
	}
	assert.Equal(t, usage.MaxExtraLabels, n)
}

// Combine of many statements keeps, of the labels outside the vocabulary
// they state, the first MaxExtraLabels in byte order, each with its most
// restrictive preference (vocab-07 §5.1), as sorting them all would; it
// allocates only that result, however many it combines.
func TestCombineMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	for range 300 {
		ps := make([]usage.Prefs, rng.IntN(40))
		most := map[string]usage.Pref{}
		for i := range ps {
			var ms []string
			for range rng.IntN(2 * usage.MaxExtraLabels) {
				l, v := fmt.Sprintf("l%02x", rng.IntN(256)), []usage.Pref{Yes, No}[rng.IntN(2)]
				ms = append(ms, l+"="+v.String())
			}
			ps[i] = usage.Parse(strings.Join(ms, ", "))
			for l, v := range ps[i].All() {
				most[l] = max(most[l], v)
			}
		}
		labels := slices.Sorted(maps.Keys(most))
		var want []string
		for _, l := range labels[:min(len(labels), usage.MaxExtraLabels)] {
			want = append(want, l+"="+most[l].String())
		}
		got := usage.Combine(ps...)
		assert.Equal(t, strings.Join(want, ", "), got.String())
		one := usage.Prefs{}
		for _, p := range ps {
			one = usage.Combine(one, p)
		}
		assert.Equal(t, got, one, "one by one")
		assert.LessOrEqual(t, testing.AllocsPerRun(3, func() { usage.Combine(ps...) }), 1.0)
	}
}

func TestFromHeader(t *testing.T) {
	// RFC 9651 §4.2, aipref.md reading 13: all lines are one Dictionary.
	for _, tt := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"train-ai=n"}, "train-ai=n"},
		{"a later line wins, even when more permissive", []string{"train-ai=n", "train-ai=y"}, "train-ai=y"},
		{"one bad line spoils all", []string{"train-ai=n", "search=y, Bad"}, ""},
		{"an empty line is an empty member", []string{"train-ai=n", ""}, ""},
		{"an empty only line is an empty Dictionary", []string{""}, ""},
		{"whitespace around lines", []string{"train-ai=n\t", "  search=y"}, "train-ai=n, search=y"},
		{"three lines", []string{"train-ai=n", "search=y", "ai-use=n"}, "train-ai=n, search=y, ai-use=n"},
	} {
		assert.Equal(t, tt.want, usage.FromHeader(header(tt.lines...)).String(), tt.name)
	}
	// Other fields are not read; keys are canonical, as net/http makes them.
	h := http.Header{"Content-Signal": {"ai-train=no"}, "Content-Usage-X": {"train-ai=n"}}
	assert.Equal(t, usage.Prefs{}, usage.FromHeader(h))
	assert.Equal(t, usage.Prefs{}, usage.FromHeader(nil))
}

func TestParseHostileInput(t *testing.T) {
	// Large values parse in linear time and never panic; the result stays
	// small.
	big := strings.Repeat("a=n, ", 200_000) + "train-ai=n"
	p := usage.Parse(big)
	assert.Equal(t, No, p.Get(usage.TrainAI))
	assert.Equal(t, No, p.Get("a"))
	distinct := make([]string, 50_000)
	for i := range distinct {
		distinct[i] = "k" + strings.Repeat("x", i%70) + string(rune('a'+i%26)) + "=y"
	}
	p = usage.Parse(strings.Join(distinct, ","))
	assert.LessOrEqual(t, len(p.String()), usage.MaxExtraLabels*(usage.MaxExtraLabelLen+4))
	for _, s := range []string{"a=(", "a=\"", "a=:", "a=%\"", strings.Repeat("(", 1000), "a=" + strings.Repeat("9", 1_000_000)} {
		assert.Equal(t, usage.Prefs{}, usage.Parse(s))
	}
}
