package matcher_test

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// A Matcher keeps nothing of the Robots it was compiled from, so that a
// compiler may parse with parser.ParseFunc: compiled within it, then the
// memory overwritten by the next file, it answers as a Matcher of a Robots
// of its own, to the patterns, agents, Content-Usage rules and signal it
// reports.
func TestMatcherKeepsNothingOfTheRobots(t *testing.T) {
	bodies := sharedtest.CorpusSample(t, 200)
	bodies = append(bodies, []byte("User-agent: ExampleBot\nUser-agent: other\nCrawl-delay: 3\n"+
		"Disallow: /plain/path\nAllow: /a*b$\nDisallow: /ä/rewritten\nAllow: /d/index.html\n"+
		"Content-Usage: /docs/ train-ai=n, x-extra=y\nContent-Usage: search=y\nContent-Signal: search=yes, ai-train=no\n"))
	for _, body := range bodies {
		for _, agent := range []string{"ExampleBot", "Googlebot"} {
			want := matcher.Compile(parser.Parse(body), agent)
			var got *matcher.Matcher
			own := bytes.Clone(body)
			parser.ParseFunc(own, func(r *parser.Robots) { got = matcher.Compile(r, agent) })
			// Every octet of the values changed where the Robots had
			// them: in the body (ParseFunc's strings are the body's
			// memory), and in the memory the next file's parse reuses.
			other := scrambled(body)
			require.Len(t, other, len(own))
			copy(own, other)
			parser.ParseFunc(other, func(*parser.Robots) {})
			assert.Equal(t, want.Agents(), got.Agents())
			assert.Equal(t, want.CrawlDelay(), got.CrawlDelay())
			ws, wr := want.Signal()
			gs, gr := got.Signal()
			assert.Equal(t, ws, gs)
			assert.Equal(t, wr, gr)
			for _, path := range pathsOf(body) {
				assert.Equal(t, want.Match(path), got.Match(path), path)
				assert.Equal(t, want.Usage(path), got.Usage(path), path)
			}
		}
	}
}

// scrambled returns body with the letters of its values shifted, its keys
// and lengths as they are.
func scrambled(body []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(body, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		out.Write(k)
		if !ok {
			continue
		}
		out.WriteByte(':')
		for _, c := range v {
			if c >= 'a' && c < 'z' || c >= 'A' && c < 'Z' {
				c++
			}
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// pathsOf returns a path for each rule-like line of body, its value with
// stars and a final '$' dropped.
func pathsOf(body []byte) []string {
	var paths []string
	for _, line := range strings.Split(string(body), "\n") {
		_, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "/") {
			v, _, _ = strings.Cut(v, " ")
			paths = append(paths, strings.TrimSuffix(strings.ReplaceAll(v, "*", "x"), "$"))
		}
	}
	return append(paths, "/", "/docs/a", "/d/")
}

// versions returns a Robots of 2n rules, as large sites write them: half
// of them wildcards, each pattern of its own.
func versions(n int) *parser.Robots {
	var b []byte
	b = append(b, "User-agent: *\n"...)
	for i := range n {
		b = fmt.Appendf(b, "Disallow: /gp/video/%d/page\nDisallow: /region/*/gp/video/%d/page\n", i, i)
	}
	return parser.Parse(b)
}

// allocatedBy returns the bytes fn allocates, the pools as they are.
func allocatedBy(fn func()) int64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// emptyPools lets the pools go: what they held is collected.
func emptyPools() {
	runtime.GC()
	runtime.GC()
}

// A crawler meeting large files one after another, each a little larger
// than the last (the versions of one site's file), makes less garbage of
// their compiles: Compile keeps the scratch of a file within the default
// cap of a fetch, and grows it with room to spare. (A large trie is still
// built in place and copied out at its size: about half of what a compile
// from empty pools throws away.) Each round starts from empty pools, and
// a file of 200 rules. The best round counts: sync.Pool may drop what it
// is given (a quarter of it at random under the race detector). No
// collection runs but those the test asks for: two within a round, which a
// loaded CI runner under -race met in all 16, empty the pools.
func TestCompileKeepsLargeScratch(t *testing.T) {
	small, older, newer := versions(100), versions(6_000), versions(6_600) // 6.5, 412 and 453 KB
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	emptyPools()
	var m *matcher.Matcher
	fresh := allocatedBy(func() { m = matcher.Compile(newer, "ExampleBot") }) - m.Size()
	require.Greater(t, fresh, m.Size()/2, "the scratch of this file is large")
	reused := fresh
	for range 16 {
		emptyPools()
		matcher.Compile(small, "ExampleBot")
		matcher.Compile(older, "ExampleBot")
		reused = min(reused, allocatedBy(func() { m = matcher.Compile(newer, "ExampleBot") })-m.Size())
	}
	t.Logf("beyond the Matcher: %d B in the best round, %d B from empty pools", reused, fresh)
	assert.Less(t, reused, fresh*2/3, "beyond the Matcher, Compile of the newer version allocated %d B in the best round, from empty pools %d B", reused, fresh)
}
