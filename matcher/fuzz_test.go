package matcher_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// FuzzMatch compares the compiled matcher with the reference on rules made
// from fuzzed patterns: line i of patterns becomes an Allow rule when i is
// even and a Disallow rule when odd.
func FuzzMatch(f *testing.F) {
	for _, seed := range [][2]string{
		// A comment each: what the seed exercises.
		{"/a\n/a", "/a"},                             // allow wins a tie
		{"*.gif$\n/*", "/x.gif"},                     // anchored suffix against a star
		{"/*a*a*a*b\n/", "/aaaaaaaaaaaaaaaaaaaaaab"}, // many stars
		{"/ab*b$\n/a", "/ab"},                        // anchored segment overlapping the head
		{"/a$b$\n/a", "/a$b"},                        // an inner '$' is literal
		{"/%2A\n/*", "/*"},                           // RFC 9309 Figure 6
		{"/%62%61%7A\n/", "/baz"},                    // RFC 9309 Figure 4
		{"/ツ\n/", "/%e3%83%84"},                      // raw and encoded non-ASCII
		{"/d/index.html\n/", "/d/"},                  // Google's index.html rule
		{"\n*", "/robots.txt"},                       // empty pattern, robots.txt
		{"/a**\n/a*$", "/a"},                         // star runs and trailing stars
		{"*0", "0"},                                  // a path without '/' is a URL: its path is "/"
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, patterns, path string) {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for i, p := range strings.Split(patterns, "\n") {
			if strings.ContainsAny(p, "\r#\x00") {
				continue // the parser would cut the line there
			}
			if i%2 == 0 {
				b.WriteString("Allow: " + p + "\n")
			} else {
				b.WriteString("Disallow: " + p + "\n")
			}
		}
		compare(t, []byte(b.String()), "bot", path)
	})
}

// FuzzMatchRobots compares the compiled matcher with the reference on whole
// fuzzed files, seeded from the real corpus.
func FuzzMatchRobots(f *testing.F) {
	f.Add([]byte(rfc9309Example), "foobot", "/example/page.html")
	f.Add([]byte("User-agent: Bot2\nDisallow: /\nUser-agent: *\nAllow: /"), "Bot", "/x")
	f.Add([]byte("User-agent: Bot\nDisallow: /\nUser-agent: *\nAllow: /"), "Bot/1.0 (+https://example.com)", "/x")
	for _, b := range sharedtest.CorpusSample(f, 100) {
		f.Add(b, "Googlebot", "/search?q=1")
	}
	f.Fuzz(func(t *testing.T, body []byte, agent, path string) {
		if len(body) > 64<<10 || len(path) > 1<<10 {
			return // the reference matcher is quadratic
		}
		compare(t, body, agent, path)
	})
}

func compare(t *testing.T, body []byte, agent, path string) {
	r := parser.Parse(body)
	m := matcher.Compile(r, agent)
	got := m.Match(path)
	require.Equal(t, got, matcher.MatchOnce(r, path, agent), "MatchOnce and Compile agree")
	for _, f := range bothForms(r, agent) {
		require.Equal(t, got, f.Match(path), "the trie and the small set agree")
	}
	require.Equal(t, got, m.MatchIndexed(path), "the path index and the direct search agree")
	require.Equal(t, got.Allowed, m.Allowed(path), "Allowed and Match agree")
	want, line := refVerdict(r, []string{agent}, path)
	require.Equal(t, want, got.Allowed, "path %q agent %q body %q", path, agent, body)
	require.Equal(t, line, got.Rule.Line, "deciding line; path %q body %q", path, body)
	if got.Reason == matcher.RuleMatched {
		require.NotZero(t, got.Rule.Line)
	}
}
