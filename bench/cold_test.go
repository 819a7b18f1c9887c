package bench

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/benchdata"
)

// corpusSite answers /robots.txt of host "h<i>.example" with corpus file
// i, in memory, with the headers a real server sends (a Date, validators,
// a lifetime), so that a cold authority costs what it costs a crawler less
// the network.
type corpusSite struct {
	files [][]byte
	date  string
}

// newCorpusSite returns the site of files, its responses dated now.
func newCorpusSite(files [][]byte) *corpusSite {
	return &corpusSite{files: files, date: time.Now().UTC().Format(http.TimeFormat)}
}

func (s *corpusSite) RoundTrip(req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(host, "h"), ".example"))
	if err != nil || i < 0 || i >= len(s.files) {
		return &http.Response{StatusCode: http.StatusNotFound, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
	}
	h := http.Header{
		"Content-Type":  {"text/plain"},
		"Date":          {s.date},
		"Cache-Control": {"max-age=86400"},
		"Etag":          {`"` + strconv.Itoa(i) + `-5f2e8c1d"`},
		"Last-Modified": {"Mon, 02 Nov 2026 10:00:00 GMT"},
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Status:        "200 OK",
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		ContentLength: int64(len(s.files[i])),
		Body:          io.NopCloser(bytes.NewReader(s.files[i])),
		Request:       req,
	}, nil
}

// BenchmarkColdAuthority is what a crawler pays per authority it meets for
// the first time: one op asks one question of each of the 2,661 corpus
// files, each at an authority of its own, through an in-memory transport
// (no network is timed). For robots that is the fetch machinery,
// classification, parse, compile, store and answer, into a Client that
// keeps it all; it reports µs/authority, the bytes the Client counts per
// authority (Stats.Bytes) and the live heap it holds per authority. For
// grobotstxt it is parsing the same bodies to answer the same question
// once, keeping nothing: the floor a cold path is measured against.
// lib=robots keeps bodies with the default cache.BalancedBodies;
// bodies=fast is robots with Options.BodyCodec cache.FastBodies, and
// bodies=small with cache.SmallBodies. Each asks with a context that
// cannot end, whose caller runs its fetch itself; ctx=cancelable asks with
// one that can, as a crawler's usually can, whose fetch runs on a goroutine
// of its own, so that the caller can leave when its context ends.
func BenchmarkColdAuthority(b *testing.B) {
	files, total, urls := corpusSites(b)
	site := newCorpusSite(files)
	cancelable, cancel := context.WithCancel(context.Background())
	defer cancel()

	robotsCold := func(ctx context.Context, codec cache.BodyCodec) func(b *testing.B) {
		return func(b *testing.B) {
			coldRobots(b, total, len(files), func() *robots.Client { return coldFill(ctx, b, site, codec, urls) })
		}
	}
	b.Run("lib=robots", robotsCold(context.Background(), cache.BalancedBodies))
	b.Run("bodies=fast/lib=robots", robotsCold(context.Background(), cache.FastBodies))
	b.Run("bodies=small/lib=robots", robotsCold(context.Background(), cache.SmallBodies))
	b.Run("ctx=cancelable/lib=robots", robotsCold(cancelable, cache.BalancedBodies))

	b.Run("lib=grobotstxt", func(b *testing.B) {
		strs := asStrings(files)
		b.SetBytes(int64(total))
		b.ReportAllocs()
		var inLoop time.Duration
		for b.Loop() {
			t0 := time.Now()
			grobotstxtPass(strs, urls)
			inLoop += time.Since(t0)
		}
		perAuthority(b, inLoop, len(files))
	})
}

// perAuthority reports d, the time spent in b's loop over n authorities
// per op, as µs per authority.
func perAuthority(b *testing.B, d time.Duration, n int) {
	b.ReportMetric(microsPer(b, d, n), "µs/authority")
}

// microsPer returns d, the time spent in b's loop over n authorities per
// op, in µs per authority.
func microsPer(b *testing.B, d time.Duration, n int) float64 {
	return float64(d.Nanoseconds()) / 1e3 / float64(b.N*n)
}

// coldRobots is BenchmarkColdAuthority for robots: fill makes a Client
// that has asked about each of n authorities, of total bytes of bodies.
func coldRobots(b *testing.B, total, n int, fill func() *robots.Client) {
	b.SetBytes(int64(total))
	b.ReportAllocs()
	var inLoop time.Duration
	for b.Loop() {
		t0 := time.Now()
		fill()
		inLoop += time.Since(t0)
	}
	perAuthority(b, inLoop, n)
	// What a Client holds is measured on a pass of its own, outside
	// the timed ones: the collections that measure the heap would
	// empty the pools that a crawl keeps in use, and grobotstxt's
	// passes run without them.
	b.StopTimer()
	before := liveHeap()
	rc := fill()
	counted, heap := rc.Stats().Bytes, liveHeap()-before
	runtime.KeepAlive(rc)
	b.ReportMetric(float64(counted)/float64(n), "B/authority")
	b.ReportMetric(float64(heap)/float64(n), "heap-B/authority")
}

// grobotstxtPass is grobotstxt's cold path: one question of each file,
// files[i] asked about urls[i].
func grobotstxtPass(files, urls []string) {
	for i, f := range files {
		grobotstxt.AgentAllowed(f, "ExampleBot", urls[i])
	}
}

// asStrings returns files as strings, grobotstxt's input.
func asStrings(files [][]byte) []string {
	strs := make([]string, len(files))
	for i, f := range files {
		strs[i] = string(f)
	}
	return strs
}

// coldFill returns a new Client, its bodies kept with codec, that has asked
// with ctx about every URL of urls, each at an authority of its own.
func coldFill(ctx context.Context, b *testing.B, site *corpusSite, codec cache.BodyCodec, urls []string) *robots.Client {
	rc, err := robots.New(robots.Options{
		UserAgent:  "ExampleBot/1.0 (+https://example.com/bot)",
		HTTPClient: &http.Client{Transport: site},
		CacheBytes: 1 << 40, // keep every authority: their cost is the measure
		BodyCodec:  codec,
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, u := range urls {
		if _, err := rc.Allowed(ctx, u); err != nil {
			b.Fatal(err)
		}
	}
	if st := rc.Stats(); st.Entries != len(urls) || st.Fetches != uint64(len(urls)) {
		b.Fatalf("%d entries after %d fetches, want %d of each", st.Entries, st.Fetches, len(urls))
	}
	return rc
}

// BenchmarkColdAuthoritySizes is BenchmarkColdAuthorityInterleaved with the
// default codec alone, by the size of the corpus files: where a cold path
// gains on grobotstxt and where it does not. Each size is a sub-benchmark
// that reports its files, their mean size, robots's and grobotstxt's µs
// per file, and grobotstxt's time over robots's.
func BenchmarkColdAuthoritySizes(b *testing.B) {
	files, _, urls := corpusSites(b)
	site := newCorpusSite(files)
	bounds := []int{0, 1 << 10, 4 << 10, 16 << 10, 64 << 10, math.MaxInt}
	for k := range len(bounds) - 1 {
		var sized, strs []string
		octets := 0
		for i, f := range files {
			if len(f) >= bounds[k] && len(f) < bounds[k+1] {
				sized = append(sized, urls[i])
				strs = append(strs, string(f))
				octets += len(f)
			}
		}
		name := "under-" + strconv.Itoa(bounds[k+1]>>10) + "KiB"
		if k == len(bounds)-2 {
			name = "from-" + strconv.Itoa(bounds[k]>>10) + "KiB"
		}
		b.Run(name, func(b *testing.B) {
			if len(sized) == 0 {
				b.Skip("no corpus file of this size")
			}
			var ours, grob time.Duration
			for b.Loop() {
				t0 := time.Now()
				coldFill(context.Background(), b, site, cache.BalancedBodies, sized)
				ours += time.Since(t0)
				t0 = time.Now()
				grobotstxtPass(strs, sized)
				grob += time.Since(t0)
			}
			b.ReportMetric(float64(len(sized)), "files")
			b.ReportMetric(float64(octets)/float64(len(sized)), "B/file")
			b.ReportMetric(microsPer(b, ours, len(sized)), "µs/file")
			b.ReportMetric(microsPer(b, grob, len(sized)), "µs/file-grobotstxt")
			b.ReportMetric(float64(grob)/float64(ours), "grobotstxt/robots")
		})
	}
}

// BenchmarkColdAuthorityInterleaved is BenchmarkColdAuthority with a pass
// of robots with each codec and one of grobotstxt in every op, in turn, so
// that a machine whose speed drifts, as a shared one's does, weighs on all
// of them alike: -count runs all the passes of one sub-benchmark before
// the next one's. It reports each one's µs per authority, and
// grobotstxt's time over each codec's (above 1: robots is faster).
func BenchmarkColdAuthorityInterleaved(b *testing.B) {
	files, _, urls := corpusSites(b)
	site := newCorpusSite(files)
	strs := asStrings(files)
	codecs := []struct {
		name  string
		codec cache.BodyCodec
	}{{"balanced", cache.BalancedBodies}, {"fast", cache.FastBodies}, {"small", cache.SmallBodies}}
	spent := make([]time.Duration, len(codecs))
	var grob time.Duration
	for b.Loop() {
		for i, c := range codecs {
			t0 := time.Now()
			coldFill(context.Background(), b, site, c.codec, urls)
			spent[i] += time.Since(t0)
		}
		t0 := time.Now()
		grobotstxtPass(strs, urls)
		grob += time.Since(t0)
	}
	for i, c := range codecs {
		b.ReportMetric(microsPer(b, spent[i], len(files)), "µs/authority-"+c.name)
		b.ReportMetric(float64(grob)/float64(spent[i]), "grobotstxt/"+c.name)
	}
	b.ReportMetric(microsPer(b, grob, len(files)), "µs/authority-grobotstxt")
}

// BenchmarkRefreshAuthority is a crawl's daily refresh: every corpus
// authority is cached, a day passes, and each is asked about again, which
// fetches its robots.txt once more (the server ignores validators and sends
// the same file, as much of the web does). It reports the time per
// authority of that round, the callers waiting for their refetch.
func BenchmarkRefreshAuthority(b *testing.B) {
	files, total, urls := corpusSites(b)
	var clock atomic.Int64
	clock.Store(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	site := &corpusSite{files: files, date: now().Format(http.TimeFormat)}
	rc, err := robots.New(robots.Options{
		UserAgent:  "ExampleBot/1.0 (+https://example.com/bot)",
		HTTPClient: &http.Client{Transport: site},
		CacheBytes: 1 << 40,
		Now:        now,
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ask := func() {
		for _, u := range urls {
			if _, err := rc.Allowed(ctx, u); err != nil {
				b.Fatal(err)
			}
		}
	}
	ask()
	b.SetBytes(int64(total))
	b.ReportAllocs()
	var inLoop time.Duration
	for b.Loop() {
		// Past a day and the file's max-age: the copy is revalidated
		// while its callers wait (RFC 9309 §2.4).
		clock.Add(int64(25 * time.Hour))
		t0 := time.Now()
		ask()
		inLoop += time.Since(t0)
	}
	if st := rc.Stats(); st.Fetches != uint64(len(files))*uint64(b.N+1) {
		b.Fatalf("%d fetches after %d rounds of %d authorities", st.Fetches, b.N+1, len(files))
	}
	b.ReportMetric(float64(inLoop.Microseconds())/float64(b.N*len(files)), "µs/authority")
}

// corpusSites returns the corpus files, their total size, and a URL on the
// site of each (corpusSite serves file i at host hi.example).
func corpusSites(b *testing.B) (files [][]byte, total int, urls []string) {
	files, total = benchdata.Corpus()
	if files == nil {
		b.Skip("corpus not found")
	}
	urls = make([]string, len(files))
	for i := range files {
		urls[i] = "https://h" + strconv.Itoa(i) + ".example/some/page?q=1"
	}
	return files, total, urls
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
