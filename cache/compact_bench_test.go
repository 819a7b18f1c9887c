package cache_test

import (
	"testing"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/internal/sharedtest"
)

// BenchmarkCompact compacts a record of each corpus file, with the headers
// a real server sends: what every cold authority's entry costs to store.
func BenchmarkCompact(b *testing.B) {
	files := sharedtest.CorpusSample(b, 1)
	if len(files) == 0 {
		return // CorpusSample said why
	}
	recs := make([]*cache.Record, len(files))
	total := 0
	for i, body := range files {
		r := fleettest.Sample("https://a.example", now)
		r.Header.Set("Date", httpDate(now))
		r.Body = body
		recs[i] = r
		total += len(body)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range recs {
			r.Compact()
		}
	}
}
