package parser_test

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/parser"
)

// ParseFunc hands fn what Parse returns, whatever file its memory held
// before: the real corpus in name order (small and large files in turn,
// so that arrays are both reused and let go), then every shape.
func TestParseFuncIsParse(t *testing.T) {
	files := sharedtest.Corpus(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	bodies := make([][]byte, 0, len(names))
	for _, n := range names {
		bodies = append(bodies, files[n])
	}
	for _, s := range benchdata.Shapes() {
		bodies = append(bodies, s.Body(100), s.Body(5000), s.Body(100<<10))
	}
	for i, body := range bodies {
		want := parser.Parse(body)
		called := false
		parser.ParseFunc(body, func(r *parser.Robots) {
			called = true
			if !assert.Equal(t, want, r, "body %d", i) {
				t.FailNow()
			}
		})
		require.True(t, called)
	}
}

// Once its memory is warm, ParseFunc of a file allocates next to nothing
// (none at all but for what the race detector makes sync.Pool drop);
// Parse allocates the Robots each time.
func TestParseFuncReusesMemory(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\nAllow: /private/public\nSitemap: https://example.com/s.xml\n" +
		"User-agent: ExampleBot\nCrawl-delay: 2\nDisallow: /\nContent-Usage: train-ai=n\nHost: example.com\n")
	sink := 0
	parse := func() { parser.ParseFunc(body, func(r *parser.Robots) { sink += len(r.Groups) }) }
	parse()
	reused := testing.AllocsPerRun(1000, parse)
	fresh := testing.AllocsPerRun(1000, func() { sink += len(parser.Parse(body).Groups) })
	require.GreaterOrEqual(t, fresh, 5.0, "a Robots of this file is several arrays and a text")
	assert.LessOrEqual(t, reused, fresh/4, "ParseFunc %v allocations, Parse %v", reused, fresh)
	assert.Positive(t, sink)
}

// A fn that panics does not break later parses: the panic reaches the
// caller, and the next file is parsed whole.
func TestParseFuncPanic(t *testing.T) {
	first := []byte("User-agent: *\nDisallow: /first/and/longer\n")
	assert.PanicsWithValue(t, "boom", func() {
		parser.ParseFunc(first, func(*parser.Robots) { panic("boom") })
	})
	second := []byte("User-agent: b\nAllow: /2\n")
	parser.ParseFunc(second, func(r *parser.Robots) {
		assert.Equal(t, parser.Parse(second), r)
	})
}

// versions returns a file of 2n rules, as large sites write them: half of
// them wildcards, each pattern of its own.
func versions(n int) []byte {
	var b []byte
	b = append(b, "User-agent: *\n"...)
	for i := range n {
		b = fmt.Appendf(b, "Disallow: /gp/video/%d/page\nDisallow: /region/*/gp/video/%d/page\n", i, i)
	}
	return b
}

// allocatedBy returns the bytes fn allocates, the pools as they are.
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A crawler meeting large files one after another, each a little larger
// than the last (the versions of one site's file), makes no garbage of
// their parses: ParseFunc keeps the memory of a file within the default
// cap of a fetch, and grows it with room to spare. Each round starts from
// empty pools, and a file of 200 rules. The best round counts: sync.Pool
// may drop what it is given (a quarter of it at random under the race
// detector, all of it after two collections, which a loaded machine may
// run in between).
func TestParseFuncKeepsLargeFiles(t *testing.T) {
	small, older, newer := versions(100), versions(6_000), versions(6_600) // 6.5, 412 and 453 KB
	// No collection but those below: two within a round empty the pool.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	fresh := allocatedBy(func() { parser.Parse(newer) })
	require.Greater(t, fresh, uint64(len(newer)), "a Robots of this file is larger than the file")
	reused := fresh
	for range 8 {
		runtime.GC()
		runtime.GC() // the pools are empty
		parser.ParseFunc(small, func(*parser.Robots) {})
		parser.ParseFunc(older, func(*parser.Robots) {})
		reused = min(reused, allocatedBy(func() { parser.ParseFunc(newer, func(*parser.Robots) {}) }))
	}
	assert.Less(t, reused, fresh/10, "ParseFunc of the newer version allocated %d B in the best round, Parse %d B", reused, fresh)
}
