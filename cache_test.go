package robots_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/exportstream"
	"github.com/crawlkit/robots/status"
)

// hosts is one test server answering for many host names, each with its own
// handler, counting the robots.txt requests of each.
type hosts struct {
	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	requests map[string]int
	site     *site
	rt       *router
	hc       *http.Client
}

func newHosts(t *testing.T) *hosts {
	h := &hosts{handlers: map[string]http.HandlerFunc{}, requests: map[string]int{}}
	h.rt, h.hc = newRouter(t)
	h.site = newSite(t, func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(r.Host, ":80")
		h.mu.Lock()
		if r.URL.Path == "/robots.txt" {
			h.requests[name]++
		}
		handler := h.handlers[name]
		h.mu.Unlock()
		handler(w, r)
	})
	return h
}

// add serves name ("h1.test") with handler.
func (h *hosts) add(name string, handler http.HandlerFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.handlers[name] = handler
	h.rt.route(name+":80", hostOf(h.site.Server))
}

func (h *hosts) fetches(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests[name]
}

// The scenario of the cache redesign: 30 hosts, one answering 429 with
// Retry-After: 120, 50,000 URLs over 100 s. The 429 host is fetched once
// per Retry-After, however tight the budget; with the default budget every
// other host is fetched once.
func TestThirtyHosts(t *testing.T) {
	big := func(host string) string { // ~250 KB of distinct rules that share no long prefix: about 0.6 MB held
		var b strings.Builder
		b.WriteString("User-agent: *\nDisallow: /" + host + "/private/\n")
		for i := 0; b.Len() < 250<<10; i++ {
			fmt.Fprintf(&b, "Disallow: /%016x/%s/private/%d\n", scramble(uint64(i)), host, i)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name  string
		bytes int64
		urls  int
		body  func(host string) string
	}{
		{"default budget", 0, 50_000, func(host string) string { return "User-agent: *\nDisallow: /" + host + "/private\n" }},
		{"a budget for ten", 1, 200, big},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHosts(t)
			h.add("h0.test", statusCode(http.StatusTooManyRequests, "Retry-After", "120"))
			for i := 1; i < 30; i++ {
				name := fmt.Sprintf("h%d.test", i)
				h.add(name, robotsTxt(tt.body(name)))
			}
			clk := newClock()
			c := newClient(t, clk, robots.Options{HTTPClient: h.hc, CacheBytes: tt.bytes})
			rng := rand.New(rand.NewPCG(1, 2))
			step := 100 * time.Second / time.Duration(tt.urls)
			for range tt.urls {
				name := fmt.Sprintf("h%d.test", rng.IntN(30))
				ok := allowed(t, c, "http://"+name+"/"+name+"/private/0")
				require.False(t, ok, name)
				clk.Advance(step)
			}
			assert.Equal(t, 1, h.fetches("h0.test"), "one fetch of the 429 host in 100 s: Retry-After is 120 s")
			st := c.Stats()
			if tt.bytes == 0 {
				for i := 1; i < 30; i++ {
					assert.Equal(t, 1, h.fetches(fmt.Sprintf("h%d.test", i)))
				}
				assert.Zero(t, st.Evictions)
			} else {
				assert.Positive(t, st.Evictions, "the budget held only a few of the files")
				assert.LessOrEqual(t, st.Bytes, int64(16*500<<10))
				// Fifteen hosts after it, the 429 host's record is surely
				// evicted: its backoff still holds.
				allowed(t, c, "http://h0.test/")
				for i := 1; i <= 15; i++ {
					allowed(t, c, fmt.Sprintf("http://h%d.test/", i))
				}
				assert.False(t, allowed(t, c, "http://h0.test/"))
				assert.Equal(t, 1, h.fetches("h0.test"))
			}
			t.Logf("%d fetches, %d evictions, %d outages remembered", st.Fetches, st.Evictions, st.Outages)
		})
	}
}

// However many goroutines ask about a cold authority, it is fetched once.
func TestOneFetchPerColdAuthority(t *testing.T) {
	g := newGate()
	s := newSite(t, g.hold(robotsTxt(disallowPrivate)))
	c := newClient(t, newClock(), robots.Options{})
	const n = 100
	var wg sync.WaitGroup
	var disallowed atomic.Int32
	asking := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			asking <- struct{}{}
			ok, err := c.Allowed(context.Background(), s.URL+"/private/x")
			assert.NoError(t, err)
			if !ok {
				disallowed.Add(1)
			}
		}()
	}
	<-g.arrived // the fetch is under way, and cannot end before the gate opens
	for i := 0; i < n; i++ {
		<-asking
	}
	g.open()
	wg.Wait()
	assert.Equal(t, int32(1), s.requests.Load())
	assert.Equal(t, int32(n), disallowed.Load())
	assert.Equal(t, uint64(1), c.Stats().Fetches)
}

// A fetch under way when Invalidate is called answers its callers but never
// becomes current: the newer fetch does.
func TestInvalidateDuringFetch(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 2)
	var calls atomic.Int32
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			arrived <- struct{}{}
			<-release
			robotsTxt("User-agent: *\nDisallow: /old\n")(w, r)
			return
		}
		robotsTxt("User-agent: *\nDisallow: /new\n")(w, r)
	})
	c := newClient(t, newClock(), robots.Options{})
	first := make(chan bool)
	go func() { first <- allowed(t, c, s.URL+"/old") }()
	<-arrived
	require.NoError(t, c.Invalidate(s.URL+"/"))
	assert.False(t, allowed(t, c, s.URL+"/new"), "a new fetch, after Invalidate")
	close(release)
	assert.False(t, <-first, "the first caller gets the answer of its fetch")
	assert.True(t, allowed(t, c, s.URL+"/old"), "which did not become current")
	assert.False(t, allowed(t, c, s.URL+"/new"))
	assert.Equal(t, int32(2), s.requests.Load())
}

// At most MaxConcurrentFetches fetches run at once; a caller queued behind
// them leaves when its context ends.
func TestMaxConcurrentFetches(t *testing.T) {
	h := newHosts(t)
	g := newGate()
	h.add("slow.test", g.hold(robotsTxt(disallowPrivate)))
	h.add("fast.test", robotsTxt(disallowPrivate))
	c := newClient(t, newClock(), robots.Options{HTTPClient: h.hc, MaxConcurrentFetches: 1})
	slow := make(chan bool)
	go func() { slow <- allowed(t, c, "http://slow.test/private") }()
	<-g.arrived
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Allowed(ctx, "http://fast.test/private")
	assert.ErrorIs(t, err, context.DeadlineExceeded, "queued behind the slow fetch")
	assert.Zero(t, h.fetches("fast.test"))
	g.open()
	assert.False(t, <-slow)
	assert.False(t, allowed(t, c, "http://fast.test/private"))
	assert.Equal(t, 1, h.fetches("fast.test"))
}

// A panic in OnFetch or in the transport is contained: logged, counted, and
// the decision is made.
func TestHookPanics(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate))
	var logs strings.Builder
	c := newClient(t, newClock(), robots.Options{
		OnFetch: func(robots.FetchEvent) { panic("metrics bug") },
		Logger:  newTextLogger(&logs),
	})
	assert.False(t, allowed(t, c, s.URL+"/private"))
	assert.Equal(t, uint64(1), c.Stats().Panics)
	assert.Contains(t, logs.String(), "metrics bug")

	c = newClient(t, newClock(), robots.Options{HTTPClient: &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		panic("transport bug")
	})}})
	d := check(t, c, s.URL+"/private")
	assert.False(t, d.Allowed)
	assert.Equal(t, robots.Unreachable, d.Reason, "a transport that panics is a failed fetch")
	assert.Equal(t, uint64(1), c.Stats().Panics)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// What a Client hands out is the caller's: changing it changes nothing in
// the cache.
func TestNoAliasing(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, "/robots-moved.txt", http.StatusMovedPermanently)
			return
		}
		w.Write([]byte(disallowPrivate))
	})
	var o robots.Options
	var event robots.FetchEvent
	o.OnFetch = func(e robots.FetchEvent) { event = e }
	c := newClient(t, newClock(), o)
	d := check(t, c, s.URL+"/private")
	require.False(t, d.Allowed)
	require.Len(t, d.Redirects, 1)
	d.Redirects[0].Location = "changed"
	event.Result.Redirects[0].Location = "changed too"
	copy(event.Result.Body, "XXXXXXXXXXXXXXXXXXXXX")
	d = check(t, c, s.URL+"/private")
	assert.Equal(t, "/robots-moved.txt", d.Redirects[0].Location)
	assert.False(t, d.Allowed, "the body cached is the cache's own")
}

// Observe takes a response the crawler fetched itself, as if the Client had.
func TestObserve(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate, "Cache-Control", "max-age=600", "ETag", `"v1"`))
	clk := newClock()
	c := newClient(t, clk, robots.Options{})
	resp, err := http.Get(s.URL + "/robots.txt")
	require.NoError(t, err)
	require.NoError(t, c.Observe(s.URL+"/robots.txt", resp))
	d := check(t, c, s.URL+"/private")
	assert.False(t, d.Allowed)
	assert.Equal(t, clk.Now().Add(10*time.Minute), d.FreshUntil, "the lifetime from its headers")
	assert.Equal(t, int32(1), s.requests.Load(), "the crawler's own fetch; the Client made none")
	assert.Zero(t, c.Stats().Fetches)
	assert.Equal(t, uint64(1), c.Stats().Observed)

	// A 304 to the validators held renews the copy; to others, it is refused.
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/robots.txt", nil)
	req.Header.Set("If-None-Match", `"v1"`)
	clk.Advance(time.Hour)
	require.NoError(t, c.Observe(s.URL+"/robots.txt", &http.Response{StatusCode: 304, Header: http.Header{}, Request: req, Body: http.NoBody}))
	d = check(t, c, s.URL+"/private")
	assert.Equal(t, clk.Now().Add(10*time.Minute), d.FreshUntil, "a bare 304 gives the stored max-age")
	req.Header.Set("If-None-Match", `"v0"`)
	err = c.Observe(s.URL+"/robots.txt", &http.Response{StatusCode: 304, Header: http.Header{}, Request: req, Body: http.NoBody})
	assert.ErrorContains(t, err, `If-None-Match "v0"`)

	// A 503 is an outage, backed off, as a fetch of it would be.
	err = c.Observe(s.URL+"/robots.txt", &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"600"}}, Body: http.NoBody})
	require.NoError(t, err)
	d = check(t, c, s.URL+"/private")
	assert.True(t, d.Stale, "the good copy answers through the outage")
	assert.Equal(t, clk.Now().Add(10*time.Minute), d.FreshUntil)
	assert.Equal(t, int32(1), s.requests.Load())
}

// Observe reads no further than the cap, closes the body in every case, and
// refuses what is not a final robots.txt response.
func TestObserveRefuses(t *testing.T) {
	c := newClient(t, newClock(), robots.Options{})
	for name, tt := range map[string]struct {
		url    string
		status int
		want   error
	}{
		"not a robots.txt URL": {"https://example.com/sitemap.xml", 200, robots.ErrInvalidURL},
		"not a URL":            {"example.com/robots.txt", 200, robots.ErrInvalidURL},
		"a redirect":           {"https://example.com/robots.txt", 301, nil},
	} {
		t.Run(name, func(t *testing.T) {
			b := &countingBody{r: strings.NewReader(disallowPrivate)}
			err := c.Observe(tt.url, &http.Response{StatusCode: tt.status, Header: http.Header{"Location": {"/x"}}, Body: b})
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			}
			assert.True(t, b.closed, "closed")
			assert.Zero(t, c.Stats().Entries)
		})
	}
	b := &countingBody{r: endless("Disallow: /x\n")}
	require.NoError(t, c.Observe("https://example.com/robots.txt", &http.Response{StatusCode: 200, Header: http.Header{}, Body: b}))
	assert.True(t, b.closed)
	assert.Less(t, b.read, int64(600<<10), "read up to the 500 KiB cap, not to the end")
	assert.Error(t, c.Observe("https://example.com/robots.txt", nil))
}

type countingBody struct {
	r      io.Reader
	read   int64
	closed bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

func (b *countingBody) Close() error { b.closed = true; return nil }

type endless string

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e[i%len(e)]
	}
	return len(p), nil
}

// A warm restart: what one Client exported, another imports, times and
// politeness kept: fresh records answer without a fetch, the host in
// backoff is not fetched before its time, expired records are fetched.
func TestExportImport(t *testing.T) {
	h := newHosts(t)
	h.add("outage.test", robotsTxt(disallowPrivate))
	clk := newClock()
	o := robots.Options{HTTPClient: h.hc}
	fetched := onFetch(&o)
	a := newClient(t, clk, o)
	allowed(t, a, "http://outage.test/")
	<-fetched
	clk.Advance(25 * time.Hour)
	h.add("outage.test", statusCode(http.StatusServiceUnavailable, "Retry-After", "3600"))
	h.add("fresh.test", robotsTxt(disallowPrivate, "Cache-Control", "max-age=3600"))
	h.add("short.test", robotsTxt(disallowPrivate, "Cache-Control", "max-age=60"))
	h.add("down.test", statusCode(http.StatusTooManyRequests, "Retry-After", "600"))
	for _, name := range []string{"outage", "fresh", "short", "down"} {
		allowed(t, a, "http://"+name+".test/")
		<-fetched
	}
	fetchedAt := clk.Now()
	clk.Advance(2 * time.Minute)
	var stream bytes.Buffer
	require.NoError(t, a.Export(&stream))

	b := newClient(t, clk, robots.Options{HTTPClient: h.hc, OnFetch: o.OnFetch})
	require.NoError(t, b.Import(bytes.NewReader(stream.Bytes())))
	assert.Equal(t, uint64(4), b.Stats().Imported)

	d := check(t, b, "http://fresh.test/private")
	assert.False(t, d.Allowed)
	assert.Equal(t, fetchedAt, d.FetchedAt, "imported records keep their times")
	assert.Equal(t, 1, h.fetches("fresh.test"), "fresh: answered without a fetch")
	assert.False(t, check(t, b, "http://down.test/x").Allowed)
	assert.Equal(t, 1, h.fetches("down.test"), "in backoff: not fetched before its retry time")
	d = check(t, b, "http://outage.test/private")
	assert.True(t, d.Stale, "the outage and its good copy came along")
	assert.False(t, d.Allowed)
	assert.Equal(t, 2, h.fetches("outage.test"))

	check(t, b, "http://short.test/private") // expired a minute ago: refreshed
	<-fetched
	assert.Equal(t, 2, h.fetches("short.test"))
	assert.Equal(t, uint64(1), b.Stats().Fetches)
}

// A stream cut at any point, altered, or holding a record that cannot be
// trusted, is refused whole: nothing is added.
func TestImportRefuses(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate))
	a := newClient(t, newClock(), robots.Options{})
	allowed(t, a, s.URL+"/")
	var stream bytes.Buffer
	require.NoError(t, a.Export(&stream))
	valid := stream.Bytes()

	b := newClient(t, newClock(), robots.Options{})
	for _, cut := range []int{0, 5, len(valid) / 2, len(valid) - 1} {
		err := b.Import(bytes.NewReader(valid[:cut]))
		assert.ErrorIs(t, err, cache.ErrMalformedRecord, "cut at %d", cut)
	}
	flipped := bytes.Clone(valid)
	flipped[len(flipped)/2] ^= 0x20
	assert.ErrorIs(t, b.Import(bytes.NewReader(flipped)), cache.ErrMalformedRecord)

	for name, rec := range map[string]*cache.Record{
		"an authority not in canonical form": {Authority: "HTTP://Example.COM:80", Class: status.Empty, FetchedAt: time.Now(), FreshUntil: time.Now().Add(time.Hour)},
		"a path in the authority":            {Authority: "http://example.com/x", Class: status.Empty, FetchedAt: time.Now(), FreshUntil: time.Now().Add(time.Hour)},
		"fresh for a year":                   {Authority: "http://example.com", Class: status.Empty, FetchedAt: time.Now(), FreshUntil: time.Now().Add(365 * 24 * time.Hour)},
	} {
		t.Run(name, func(t *testing.T) {
			// A good record first: it must not be added either.
			r, err := cache.ReadStream(bytes.NewReader(valid))
			require.NoError(t, err)
			err = b.Import(bytes.NewReader(exportStream(t, r[0], rec)))
			assert.ErrorIs(t, err, cache.ErrMalformedRecord)
		})
	}
	assert.Zero(t, b.Stats().Entries)
	assert.Zero(t, b.Stats().Imported)
	require.NoError(t, b.Import(bytes.NewReader(valid)))
	assert.Equal(t, 1, b.Stats().Entries)
}

// Clients sharing a Fleet fetch each authority once between them, failures
// included; a failing Fleet never fails a decision.
func TestClientsShareAFleet(t *testing.T) {
	h := newHosts(t)
	h.add("up.test", robotsTxt(disallowPrivate))
	h.add("down.test", statusCode(http.StatusServiceUnavailable, "Retry-After", "300"))
	fleet := cache.NewMemoryFleet()
	clk := newClock()
	var clients []*robots.Client
	for range 4 {
		clients = append(clients, newClient(t, clk, robots.Options{HTTPClient: h.hc, Fleet: fleet}))
	}
	var wg sync.WaitGroup
	for _, c := range clients {
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.False(t, allowed(t, c, "http://up.test/private"))
				assert.False(t, allowed(t, c, "http://down.test/x"))
			}()
		}
	}
	wg.Wait()
	assert.Equal(t, 1, h.fetches("up.test"))
	assert.Equal(t, 1, h.fetches("down.test"), "the backoff holds for the whole fleet")
	var fetches, hits uint64
	for _, c := range clients {
		fetches += c.Stats().Fetches
		hits += c.Stats().FleetHits
	}
	assert.Equal(t, uint64(2), fetches)
	assert.Equal(t, uint64(6), hits, "the three other Clients took both records from the fleet")

	broken := newClient(t, clk, robots.Options{HTTPClient: h.hc, Fleet: brokenFleet{}})
	assert.False(t, allowed(t, broken, "http://up.test/private"))
	st := broken.Stats()
	assert.Equal(t, uint64(1), st.FleetErrors)
	assert.Equal(t, uint64(1), st.FleetFallbacks)
	assert.Equal(t, uint64(1), st.Fetches)
}

type brokenFleet struct{}

var errDown = errors.New("fleet down")

func (brokenFleet) Get(context.Context, string) (*cache.Record, error) { return nil, errDown }
func (brokenFleet) Acquire(context.Context, string, time.Time, time.Duration) (cache.Grant, error) {
	return cache.Grant{}, errDown
}
func (brokenFleet) Publish(context.Context, cache.Lease, *cache.Record, time.Time) error {
	return errDown
}
func (brokenFleet) Renew(context.Context, cache.Lease, time.Duration, time.Time) (cache.Lease, error) {
	return cache.Lease{}, errDown
}
func (brokenFleet) Release(context.Context, cache.Lease) error { return errDown }

// exportStream returns the export stream of recs, as Export writes it.
func exportStream(t testing.TB, recs ...*cache.Record) []byte {
	var buf bytes.Buffer
	w := exportstream.NewWriter(&buf)
	for _, r := range recs {
		b, err := r.MarshalBinary()
		require.NoError(t, err)
		require.NoError(t, w.Write(b))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}
