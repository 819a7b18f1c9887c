package matcher_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// retained returns the heap a compiled matcher of r keeps, and the matcher.
func retained(r *parser.Robots, agents ...string) (int64, *matcher.Matcher) {
	var m *matcher.Matcher
	var kept int64
	// The scratch a compile keeps for the next one is not the Matcher's.
	matcher.WithoutScratchPool(func() {
		_, kept = sharedtest.Memory(func() { m = matcher.Compile(r, agents...) })
	})
	runtime.KeepAlive(r)
	return kept, m
}

// hostileShapes are 500 KiB files built to make compiled matchers large.
func hostileShapes() map[string][]byte {
	lines := map[string]func(i int) string{
		"short allows":      func(i int) string { return fmt.Sprintf("allow:/%x\n", i) },
		"non-ASCII":         func(i int) string { return fmt.Sprintf("disallow:/%x\xff\xfe\xfd\xfc\xfb\n", i) },
		"wildcards":         func(i int) string { return fmt.Sprintf("disallow:/*%x*a\n", i) },
		"many stars":        func(i int) string { return fmt.Sprintf("allow:/*%x*a*b*c*d*e\n", i) },
		"wide fan-out":      func(i int) string { return fmt.Sprintf("allow:/%c%c%c\n", 33+i%90, 33+(i/90)%90, 33+(i/8100)%90) },
		"agents that match": func(i int) string { return "user-agent:examplebot\n" },
	}
	out := map[string][]byte{}
	for name, line := range lines {
		var b strings.Builder
		b.WriteString("user-agent: *\n")
		for i := 0; b.Len() < 500<<10; i++ {
			b.WriteString(line(i))
		}
		out[name] = []byte(b.String()[:500<<10])
	}
	return out
}

// Size is what a cache counts a Matcher as: it must follow the heap the
// Matcher really keeps, on real files and on hostile ones.
func TestSizeFollowsTheHeap(t *testing.T) {
	check := func(name string, body []byte) {
		r := parser.Parse(body)
		heap, m := retained(r, "ExampleBot")
		size := m.Size()
		t.Logf("%-40s body %7d  heap %8d  size %8d  (%.2fx body)", name, len(body), heap, size, float64(size)/float64(len(body)))
		// Allocations are rounded up to size classes, and the heap figure
		// is noisy by a few KiB.
		assert.InDelta(t, float64(heap), float64(size), float64(heap)/5+8<<10, "%s: %d bytes of body, heap %d, Size %d", name, len(body), heap, size)
	}
	for name, body := range hostileShapes() {
		check(name, body)
		// A cache's byte budget is never below 16 times the body cap, so
		// that two of the worst entries (body and matcher) fit in it.
		assert.Less(t, matcher.Compile(parser.Parse(body), "ExampleBot").Size(), int64(7*len(body)), name)
	}
	// Lines of many members, or of one long one: the Content-Usage values
	// a Matcher keeps are counted with the preferences read from them.
	for _, s := range benchdata.UsageFloods() {
		body := s.Body(500 << 10)
		check(s.Name, body)
		assert.Less(t, matcher.Compile(parser.Parse(body), s.Agent).Size(), int64(6*len(body)), s.Name)
	}
	// The shapes built to make checks slow: their pieces and the trie of
	// them are counted too, and stay within 6 times the body.
	for _, c := range hostileCases(bodyCap, pathCap) {
		check(c.name, c.body)
		assert.Less(t, matcher.Compile(parser.Parse(c.body), "ExampleBot").Size(), int64(6*len(c.body)), c.name)
	}
	files := sharedtest.Corpus(t)
	names := make([]string, 0, len(files))
	for n, b := range files {
		if len(b) > 100<<10 { // large enough for the heap to tell
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		check(n, files[n])
	}
}
