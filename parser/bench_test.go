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
