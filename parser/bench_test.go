package parser

import (
	"testing"

	"github.com/crawlkit/robots/internal/benchdata"
)

// BenchmarkParseCorpus parses every file of the real corpus per op; MB/s is
// the parser's throughput on real files.
func BenchmarkParseCorpus(b *testing.B) {
	files, total := benchdata.Corpus()
	if files == nil {
		b.Skip("corpus not found")
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			Parse(f)
		}
	}
}

// BenchmarkParseFuncCorpus is BenchmarkParseCorpus through ParseFunc, as
// a compiler of the rules parses: the memory of one file's Robots is
// reused for the next.
func BenchmarkParseFuncCorpus(b *testing.B) {
	files, total := benchdata.Corpus()
	if files == nil {
		b.Skip("corpus not found")
	}
	groups := 0
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			ParseFunc(f, func(r *Robots) { groups += len(r.Groups) })
		}
	}
	if groups == 0 {
		b.Fatal("no groups parsed")
	}
}
