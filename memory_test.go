package robots

import (
	"bytes"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/status"
)

// cachedEntry builds what the Client caches for a 200 response with body.
func cachedEntry(body []byte) *cache.Entry {
	res := &fetch.Result{URL: "https://example.com/robots.txt", FinalURL: "https://example.com/robots.txt",
		StatusCode: 200, Body: bytes.Clone(body)}
	out := status.Outcome{Verdict: status.Rules, Class: status.Success, Reason: "200 OK: rules", StatusCode: 200}
	return &cache.Entry{Value: newState(res, out, []string{"ExampleBot"}), FetchedAt: time.Now(), FreshUntil: time.Now()}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The bytes a cached authority keeps, over every file of the real corpus,
// and a full default-size cache of them (DESIGN: under 100 MB for 10,000).
func TestMemoryPerAuthority(t *testing.T) {
	files := sharedtest.Corpus(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)

	per := make([]int64, 0, len(names))
	for _, n := range names {
		body := files[n]
		before := heapInUse()
		e := cachedEntry(body)
		after := heapInUse()
		runtime.KeepAlive(e)
		per = append(per, int64(after)-int64(before))
	}
	sorted := slices.Clone(per)
	slices.Sort(sorted)
	median, p90, largest := sorted[len(sorted)/2], sorted[len(sorted)*9/10], sorted[len(sorted)-1]
	t.Logf("bytes kept per cached authority over %d corpus files: median %d, p90 %d, max %d", len(per), median, p90, largest)
	assert.Less(t, median, int64(16<<10))
	assert.Less(t, largest, int64(8<<20))

	// 10,000 authorities, the corpus files in turn.
	before := heapInUse()
	entries := make([]*cache.Entry, cache.DefaultSize)
	for i := range entries {
		entries[i] = cachedEntry(files[names[i%len(names)]])
	}
	total := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(entries)
	t.Logf("10,000 cached authorities (corpus files in turn): %.1f MB", float64(total)/1e6)
	assert.Less(t, total, int64(100e6))
}
