package parser_test

import (
	"runtime"
	"testing"

	"github.com/crawlkit/robots/internal/benchdata"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// size is RFC 9309 §2.5's least cap, the fetcher's default.
const size = 500 << 10

// largest returns the largest file of the real corpus, and skips tb,
// saying so loudly, without it.
func largest(tb testing.TB) []byte {
	tb.Helper()
	b, ok := benchdata.Largest()
	if !ok {
		sharedtest.Missing(tb, "corpus/robots", "the largest real file is not measured")
		tb.Skip("SHARED TEST MATERIAL MISSING: no corpus, so no largest file to measure")
	}
	return b
}

// benchmark reports the bytes allocated per op as a multiple of the input
// (alloc/input), alongside -benchmem's figures.
func benchmark(b *testing.B, body []byte, fn func()) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		fn()
		n++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(body)), "alloc/input")
}

// BenchmarkParseShapes parses 500 KiB of each shape, and the largest file of
// the real corpus.
func BenchmarkParseShapes(b *testing.B) {
	for _, s := range benchdata.Shapes() {
		body := s.Body(size)
		b.Run(s.Name, func(b *testing.B) {
			benchmark(b, body, func() { parser.Parse(body) })
		})
	}
	b.Run("corpus", func(b *testing.B) {
		body := largest(b)
		benchmark(b, body, func() { parser.Parse(body) })
	})
}

// BenchmarkParseCompileShapes parses and compiles 500 KiB of each shape,
// and the largest file of the real corpus: what a Client does with a body.
func BenchmarkParseCompileShapes(b *testing.B) {
	for _, s := range benchdata.Shapes() {
		body := s.Body(size)
		b.Run(s.Name, func(b *testing.B) {
			benchmark(b, body, func() { matcher.Compile(parser.Parse(body), s.Agent) })
		})
	}
	b.Run("corpus", func(b *testing.B) {
		body := largest(b)
		benchmark(b, body, func() { matcher.Compile(parser.Parse(body), "ExampleBot") })
	})
}
