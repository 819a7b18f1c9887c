package robots

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
)

// memClient returns a Client with a byte budget of budget, for the
// ExampleBot crawler.
func memClient(t testing.TB, budget int64) *Client {
	c, err := New(Options{UserAgent: "ExampleBot/1.0", CacheBytes: budget})
	require.NoError(t, err)
	return c
}

// record is what a Client records for a 200 response with body.
func (c *Client) record(key string, body []byte) *cache.Record {
	now := c.now()
	res := &fetch.Result{URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: 200, Body: body}
	return c.policy.Next(key, nil, res, status.Classify(res, now), now)
}

// corpusFiles returns the real corpus, in file name order.
// put stores rec as key's record, as if a fetch of key had made it.
func (c *Client) put(key string, rec *cache.Record) error {
	return c.cache.Observe(key, func(*cache.Record) (*cache.Record, error) { return rec, nil })
}

func corpusFiles(t testing.TB) [][]byte {
	files := sharedtest.Corpus(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = files[n]
	}
	return out
}

// hostileFile is a 500 KiB robots.txt of the shape that compiles largest:
// wildcard rules of a thousand distinct short pieces ("/*0*1*2…*3e7"), each
// a node of the trie of the literals (4.9 times its size, compiled).
func hostileFile(seed int) []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < fetch.DefaultMaxBytes; i++ {
		b.WriteString("disallow:/")
		for k := range 1000 {
			fmt.Fprintf(&b, "*%x", (i*1000+k)^seed)
		}
		b.WriteString("\n")
	}
	return []byte(b.String()[:fetch.DefaultMaxBytes])
}

// bytesPerAuthority puts every corpus file in a Client and returns what
// each one counts against the budget, and the heap the whole took.
func bytesPerAuthority(t testing.TB, files [][]byte) (per []int64, counted, heap int64) {
	c := memClient(t, 1<<40)
	keys := make([]string, len(files))
	for i := range files {
		keys[i] = fmt.Sprintf("https://host-%d.example", i)
	}
	warmCodecs(files)
	_, heap = sharedtest.Memory(func() {
		for i, body := range files {
			b := c.Stats().Bytes
			r := c.record(keys[i], body)
			require.NoError(t, c.put(r.Authority, r))
			per = append(per, c.Stats().Bytes-b)
		}
	})
	runtime.KeepAlive(c)
	// The keys were allocated before the heap was measured, and the cache
	// keeps them.
	for _, k := range keys {
		heap += int64(len(k))
	}
	return per, c.Stats().Bytes, heap
}

// warmCodecs makes the compressors' memory, which the process keeps for all
// its records (zstd's encoders, made on first use, and their windows, each
// grown for the largest file it compressed), before a measure of what the
// records take: it compacts the largest of files, and a small one, as
// often as there are encoders to take them in turn.
func warmCodecs(files [][]byte) {
	if len(files) == 0 {
		return
	}
	largest := slices.MaxFunc(files, func(a, b []byte) int { return len(a) - len(b) })
	for range 2 * runtime.GOMAXPROCS(0) {
		(&cache.Record{Body: largest}).Compact()
		(&cache.Record{Body: []byte("User-agent: *\nDisallow: /private/\n")}).Compact()
	}
}

// What the cache counts per authority is what it takes on the heap, and is
// small: over the real corpus, counted and measured agree within 15 %.
func TestMemoryPerAuthority(t *testing.T) {
	files := corpusFiles(t)
	per, counted, heap := bytesPerAuthority(t, files)
	sorted := slices.Clone(per)
	slices.Sort(sorted)
	median, p90, largest := sorted[len(sorted)/2], sorted[len(sorted)*9/10], sorted[len(sorted)-1]
	t.Logf("bytes counted per authority over %d corpus files: median %d, p90 %d, max %d; in all %.1f MB counted, %.1f MB on the heap",
		len(per), median, p90, largest, float64(counted)/1e6, float64(heap)/1e6)
	assert.InDelta(t, float64(heap), float64(counted), float64(heap)*0.15)
	assert.Less(t, median, int64(8<<10))
	assert.Less(t, largest, int64(8*fetch.DefaultMaxBytes))
}

// No file, however hostile, takes the heap past the budget: 64 MiB filled
// with the files that compile largest, twice over.
func TestMemoryWithinBudget(t *testing.T) {
	one := int64(fetch.DefaultMaxBytes) + matcher.Compile(parser.Parse(hostileFile(0)), "ExampleBot").Size()
	n := int(2*DefaultCacheBytes/one) + 1
	heap, st := fillWithHostileFiles(t, DefaultCacheBytes, n)
	t.Logf("64 MiB budget, %d hostile 500 KiB files of %.1f MiB each: %d held, %.1f MiB counted, heap grew %.1f MiB",
		n, float64(one)/(1<<20), st.Entries, float64(st.Bytes)/(1<<20), float64(heap)/(1<<20))
	assert.LessOrEqual(t, st.Bytes, int64(DefaultCacheBytes))
	assert.Positive(t, st.Evictions)
	assert.Less(t, heap, int64(DefaultCacheBytes+4<<20), "the heap stays within the budget and a small constant")
}

// fillWithHostileFiles puts n hostile files in a Client of the given budget
// and returns how much the heap grew, and the Client's figures.
func fillWithHostileFiles(t testing.TB, budget int64, n int) (int64, Stats) {
	c := memClient(t, budget)
	_, heap := sharedtest.Memory(func() {
		for i := range n {
			key := fmt.Sprintf("https://hostile-%d.example", i)
			require.NoError(t, c.put(key, c.record(key, hostileFile(i))))
		}
	})
	runtime.KeepAlive(c)
	return heap, c.Stats()
}

// BenchmarkCacheMemory reports the bytes a cached authority takes, over the
// corpus (B/authority, the median, and the mean of the heap), and the heap
// after filling the default 64 MiB budget with hostile files (heap-MiB).
func BenchmarkCacheMemory(b *testing.B) {
	b.Run("corpus", func(b *testing.B) {
		files := corpusFiles(b)
		for b.Loop() {
			per, _, heap := bytesPerAuthority(b, files)
			slices.Sort(per)
			b.ReportMetric(float64(per[len(per)/2]), "B/authority-median")
			b.ReportMetric(float64(heap)/float64(len(files)), "heap-B/authority")
		}
	})
	b.Run("hostile-64MiB", func(b *testing.B) {
		for b.Loop() {
			heap, st := fillWithHostileFiles(b, DefaultCacheBytes, 60)
			b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
			b.ReportMetric(float64(st.Entries), "authorities")
		}
	})
}

// MaxBytes is clamped to [500 KiB, 32 MiB]: the floor is RFC 9309 §2.5's,
// the ceiling bounds what parsing and compiling one file can allocate.
func TestMaxBytesBounds(t *testing.T) {
	for _, tt := range []struct {
		asked, want int64
	}{
		{0, 500 << 10},
		{-1, 500 << 10},
		{100, 500 << 10},
		{500<<10 + 1, 500<<10 + 1},
		{8 << 20, 8 << 20},
		{32 << 20, 32 << 20},
		{32<<20 + 1, 32 << 20},
		{1 << 30, 32 << 20},
		{math.MaxInt64, 32 << 20},
	} {
		o := Options{MaxBytes: tt.asked}
		assert.Equal(t, tt.want, o.maxBytes(), "MaxBytes %d", tt.asked)
	}
	assert.EqualValues(t, 32<<20, fetch.MaxMaxBytes, "the ceiling documented on Options.MaxBytes")
}

// The budget never goes below 16 times the body cap, so the largest files
// fit.
func TestCacheBytesBounds(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want int64
	}{
		{Options{}, DefaultCacheBytes},
		{Options{CacheBytes: -1}, DefaultCacheBytes},
		{Options{CacheBytes: 1 << 30}, 1 << 30},
		{Options{CacheBytes: 1}, 16 * fetch.DefaultMaxBytes},
		{Options{CacheBytes: 1, MaxBytes: 4 << 20}, 64 << 20},
		{Options{MaxBytes: 8 << 20}, 128 << 20},
		{Options{MaxBytes: 1 << 40}, 16 * fetch.MaxMaxBytes},
	} {
		assert.Equal(t, tt.want, tt.o.cacheBytes(), "%+v", tt.o)
	}
	// And the largest entry a hostile file makes is within half of that.
	c := memClient(t, 0)
	require.NoError(t, c.put("https://h.example", c.record("https://h.example", hostileFile(0))))
	assert.Less(t, c.Stats().Bytes, int64(8*fetch.DefaultMaxBytes))
}

// An authority whose records hold no rules (no robots.txt, a 401 for a
// Client that disallows on it, an outage with no good copy) shares its
// compiled form with every other such authority, and counts none of it:
// it costs its record and the cache's bookkeeping.
func TestRulelessAuthoritiesShareTheirForm(t *testing.T) {
	c, err := New(Options{UserAgent: "ExampleBot/1.0", CacheBytes: 1 << 40, DisallowOn401403: true})
	require.NoError(t, err)
	now := c.now()
	classify := status.Options{DisallowOnAuthError: true}
	for _, tc := range []struct {
		code int // 0: unreachable
		want *compiled
	}{{404, allowAll}, {401, disallowAll}, {0, outageNoCopy}} {
		for i := range 2 {
			key := fmt.Sprintf("https://ruleless-%d-%d.example", tc.code, i)
			var res *fetch.Result
			if tc.code != 0 {
				res = &fetch.Result{URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: tc.code}
			}
			require.NoError(t, c.put(key, c.policy.Next(key, nil, res, classify.Classify(res, now), now)))
			e, ok := c.cache.Hit(key)
			require.True(t, ok, "status %d", tc.code)
			assert.Same(t, tc.want, e.Value, "status %d", tc.code)
		}
		assert.Zero(t, tc.want.Size(), "status %d", tc.code)
	}
}
