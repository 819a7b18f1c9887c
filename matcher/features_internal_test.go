package matcher

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
)

// Every path a wildcard pattern matches holds the pattern's features: a
// check skips the pattern unsearched only when the path lacks one, so a
// feature a matching path could lack would lose a match. The paths are
// built to match: the head, then each piece after octets of filler.
func TestFeaturesHeldByMatchingPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const alphabet = "abcxyzQ09-._~%/?=&:;é"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 300 {
		var body strings.Builder
		body.WriteString("User-agent: *\n")
		for range 1 + rng.IntN(20) {
			p := "/" + word(rng.IntN(3))
			for range 1 + rng.IntN(5) {
				p += "*" + word(1+rng.IntN(6))
			}
			if rng.IntN(3) == 0 {
				p += "$"
			}
			body.WriteString("Disallow: " + p + "\n")
		}
		m := compile(parser.Parse([]byte(body.String())), -1, "bot")
		s := m.trie.wild
		require.NotNil(t, s)
		for _, at := range s.wildAt {
			for i := at.lo; i < at.hi; i++ {
				// The head is the node's string, what precedes the first
				// '*' of the rule's canonical pattern.
				head, _, _ := strings.Cut(urlpath.Pattern(writtenAt(s.text, s.at[i])), "*")
				for range 5 {
					var path strings.Builder
					path.WriteString(head)
					for _, p := range s.piecesOf(i) {
						path.WriteString(strings.ReplaceAll(word(rng.IntN(4)), "%", "x"))
						path.WriteString(s.lit(p))
					}
					var sum summary
					sum.summarize(path.String())
					require.True(t, s.matchDirect(path.String(), i, int(at.head)), "the path is built to match: %q", path.String())
					assert.True(t, sum.holds(s.wild[i].needs), "%q matches pattern %d but lacks one of its features %08x", path.String(), i, uint32(s.wild[i].needs))
				}
			}
		}
	}
}

// The features rule out of a real wildcard-heavy file nearly every rule a
// path cannot match: of the (path, rule) pairs of softonic.com's 157
// wildcard rules against the benchmarks' paths, at most 1 in 100 passes
// the four features. (The 32 bytes of octets and pairs they replace passed
// none; a picker that takes common octets passes 4 in 100 and doubles the
// cost of a check.)
func TestFeaturesRuleOutRealFiles(t *testing.T) {
	c, ok := benchdata.Wildcards()
	if !ok {
		sharedtest.Missing(t, "corpus/robots", "no real wildcard-heavy file to measure the features on; this test did not run")
		t.SkipNow()
	}
	m := compile(parser.Parse(c.Body), -1, c.Agent)
	s := m.trie.wild
	require.NotNil(t, s)
	pairs, passed := 0, 0
	for _, path := range c.Paths {
		var sum summary
		sum.summarize(path)
		for i := range s.wild {
			pairs++
			if sum.holds(s.wild[i].needs) {
				passed++
			}
		}
	}
	t.Logf("%d of %d (path, rule) pairs pass the features", passed, pairs)
	require.Positive(t, pairs)
	assert.LessOrEqual(t, passed*100, pairs, "more than 1 in 100 pairs pass")
}
