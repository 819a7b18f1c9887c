package matcher_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// refUsageLine is the reference answer for Content-Usage: every rule of the
// selected groups tried in turn, the longest matching path rule winning and
// equal lengths combining, path-less rules only when no path rule matches,
// nothing for a path the crawler may not fetch. The line is that of the
// rule that states the preferences: the first in file order of the winning
// length, or the first path-less rule; 0 for none.
func refUsageLine(r *parser.Robots, agents []string, path string) (usage.Prefs, int) {
	if ok, _ := refVerdict(r, agents, path); !ok {
		return usage.Prefs{}, 0
	}
	path = refPath(path)
	best, line, firstPathless := -1, 0, 0
	var prefs, pathless usage.Prefs
	for _, g := range refGroups(r, agents) {
		for _, cu := range g.ContentUsage {
			p := usage.Parse(cu.Preferences)
			if cu.Path == "" {
				pathless = usage.Combine(pathless, p)
				if firstPathless == 0 {
					firstPathless = cu.Line
				}
				continue
			}
			pat := urlpath.Pattern(cu.Path)
			switch {
			case !refMatches(pat, path) || len(pat) < best:
			case len(pat) > best:
				best, prefs, line = len(pat), p, cu.Line
			default:
				prefs = usage.Combine(prefs, p)
				line = min(line, cu.Line)
			}
		}
	}
	if best < 0 {
		return pathless, firstPathless
	}
	return prefs, line
}

// draft-ietf-aipref-attach-05 §3.1 and §3.4, as aipref.md reads them.
func TestUsage(t *testing.T) {
	body := `User-agent: *
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y
Content-Usage: /a* search=n
Content-Usage: /ab search=y, ai-use=n
Content-Usage: /caf%C3%A9 train-ai=y
Content-Usage: /same/ train-ai=y
Content-Usage: /same/ search=n
Content-Usage: /bad/ Train-AI=y
`
	m := matcher.Compile(parser.Parse([]byte(body)), "bot")
	tests := []struct {
		path                   string
		trainAI, search, aiUse usage.Pref
		line                   int
	}{
		{"/test", usage.No, usage.Unknown, usage.Unknown, 3},            // §3.4: the path-less rule, length 0
		{"/ai-ok/test", usage.Yes, usage.Unknown, usage.Unknown, 4},     // §3.4: the longer path rule
		{"/never/test", usage.Unknown, usage.Unknown, usage.Unknown, 0}, // §3: not crawlable, no preferences
		{"/abc", usage.Unknown, usage.No, usage.No, 5},                  // /a* and /ab are 3 octets each: combined (reading 10)
		{"/café", usage.Yes, usage.Unknown, usage.Unknown, 7},           // §3.1: matched and counted percent-encoded
		{"/same/x", usage.Yes, usage.No, usage.Unknown, 8},              // §3.1: identical paths combine (vocab-07 §5.1)
		{"/bad/x", usage.Unknown, usage.Unknown, usage.Unknown, 10},     // vocab-07 §6.5.1: a failed Dictionary still wins by length
	}
	for _, tt := range tests {
		u := m.Usage(tt.path)
		assert.Equal(t, tt.trainAI, u.Prefs.Get(usage.TrainAI), tt.path)
		assert.Equal(t, tt.search, u.Prefs.Get(usage.Search), tt.path)
		assert.Equal(t, tt.aiUse, u.Prefs.Get(usage.AIUse), tt.path)
		assert.Equal(t, tt.line, u.Rule.Line, tt.path)
		assert.Equal(t, tt.path != "/never/test", u.Allowed, tt.path)
	}
	assert.Equal(t, "Content-Usage: /ai-ok/ train-ai=y", m.Usage("/ai-ok/").Rule.String())
	assert.Zero(t, testing.AllocsPerRun(100, func() { m.Usage("/ab/c?d") }), "Usage allocates")
}

// Many patterns of one length, some of them identical, most with wildcards:
// the ties are combined through the path index, in batches, and agree with
// the reference on the preferences and the line (aipref.md reading 10).
func TestUsageTiesAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	values := []string{"train-ai=y", "train-ai=n", "search=n", "ai-use=n, future=y", "future=n", "search=y, ai-use=y", "Bad=y"}
	pick := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for round := range 40 {
		var b strings.Builder
		b.WriteString("User-agent: *\nDisallow: /bbbb$\n")
		for range 20 + rng.IntN(200) {
			path := "/" + pick("ab*", 1+rng.IntN(5))
			if rng.IntN(10) == 0 {
				path = ""
			} else if rng.IntN(8) == 0 {
				path += "$"
			}
			b.WriteString("Content-Usage: " + path + " " + values[rng.IntN(len(values))] + "\n")
		}
		r := parser.Parse([]byte(b.String()))
		m := matcher.Compile(r, "bot")
		for range 200 {
			path := "/" + pick("ab", rng.IntN(12))
			want, line := refUsageLine(r, []string{"bot"}, path)
			got := m.Usage(path)
			require.Equal(t, want, got.Prefs, "round %d, %q\n%s", round, path, b.String())
			require.Equal(t, line, got.Rule.Line, "round %d, %q\n%s", round, path, b.String())
		}
	}
}

// Rules of one path, or of none, stated many times with many labels
// outside the vocabulary: they combine, a batch at a time, into what
// combining them one by one gives (vocab-07 §5.1), the first
// usage.MaxExtraLabels labels in byte order kept.
func TestUsageCombinesManyRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	known := []string{"train-ai", "search", "ai-use"}
	for round := range 10 {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for range 100 + rng.IntN(400) {
			b.WriteString("Content-Usage: " + []string{"", "/a", "/a", "/ab", "/b*"}[rng.IntN(5)] + " ")
			for j := range 1 + rng.IntN(4) {
				if j > 0 {
					b.WriteString(", ")
				}
				label := fmt.Sprintf("l%02d", rng.IntN(100))
				if rng.IntN(6) == 0 {
					label = known[rng.IntN(3)]
				}
				b.WriteString(label + "=" + []string{"y", "n", "x"}[rng.IntN(3)])
			}
			b.WriteString("\n")
		}
		r := parser.Parse([]byte(b.String()))
		m := matcher.Compile(r, "bot")
		for _, path := range []string{"/", "/a", "/ab", "/abc", "/b", "/bc"} {
			want, line := refUsageLine(r, []string{"bot"}, path)
			got := m.Usage(path)
			require.Equal(t, want.String(), got.Prefs.String(), "round %d, %q", round, path)
			require.Equal(t, want, got.Prefs, "round %d, %q", round, path)
			require.Equal(t, line, got.Rule.Line, "round %d, %q", round, path)
		}
	}
}

func TestSignal(t *testing.T) {
	r := parser.Parse([]byte("User-agent: a\nContent-Signal: search=yes, ai-train=yes\nAllow: /x\nUser-agent: *\nContent-Signal: ai-train=no\nDisallow:\nUser-agent: a\nContent-Signal: ai-train=no, ai-input=no\nAllow: /\n"))
	s, rec := matcher.Compile(r, "a").Signal()
	assert.Equal(t, usage.Signal{Search: usage.Yes, AITrain: usage.No, AIInput: usage.No}, s)
	assert.Equal(t, 2, rec.Line)
	s, rec = matcher.Compile(r, "b").Signal()
	assert.Equal(t, usage.Signal{AITrain: usage.No}, s)
	assert.Equal(t, "ai-train=no", rec.Value)
	s, _ = matcher.Compile(parser.Parse([]byte("User-agent: *\nDisallow: /\n")), "b").Signal()
	assert.Zero(t, s)
}

// FuzzUsage compares Matcher.Usage with the reference on Content-Usage
// lines made from fuzzed values (one per line of values) and a Disallow,
// for a fuzzed path: never a panic, and the same preferences.
func FuzzUsage(f *testing.F) {
	for _, seed := range [][3]string{
		{"train-ai=n\n/ai-ok/ train-ai=y", "/never/", "/ai-ok/x"},
		{"/a* search=n\n/ab search=y", "", "/abc"},
		{"/a$ train-ai=n\n/a train-ai=y", "/b", "/a"},
		{"/caf%C3%A9 train-ai=y\n/café search=n", "", "/café"},
		{"* train-ai=n\n/*.pdf$ ai-use=n", "/*.pdf$", "/x.pdf"},
		{"/\ttrain-ai=y, train-ai=n;p=1", "/x", "/"},
		{"/0", "", "0"}, // a path without '/' is a URL: its path is "/"
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, values, disallow, path string) {
		if strings.ContainsAny(disallow, "\r\n#\x00") {
			disallow = ""
		}
		var b strings.Builder
		b.WriteString("User-agent: *\nDisallow: " + disallow + "\n")
		for _, v := range strings.Split(values, "\n") {
			if !strings.ContainsAny(v, "\r#\x00") {
				b.WriteString("Content-Usage: " + v + "\n")
			}
		}
		r := parser.Parse([]byte(b.String()))
		got := matcher.Compile(r, "bot").Usage(path)
		want, line := refUsageLine(r, []string{"bot"}, path)
		require.Equal(t, want, got.Prefs, "%q %q", b.String(), path)
		require.Equal(t, line, got.Rule.Line, "%q %q", b.String(), path)
		if got.Rule.Line != 0 {
			require.True(t, got.Allowed)
		}
	})
}
