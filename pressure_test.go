package robots_test

// Guarantees under pressure: what a large crawler meets and small tests
// never do — eviction of an authority in an outage, a fleet whose other
// members know less, hostile responses, tens of thousands of dead hosts,
// a bounded fetch queue.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/status"
)

// web is an in-memory origin for any number of host names: a RoundTripper
// that answers each request with its host's handler, through httptest's
// ResponseRecorder, and counts the robots.txt requests per host, and those
// that were conditional.
type web struct {
	mu          sync.Mutex
	handlers    map[string]http.HandlerFunc
	fallback    http.HandlerFunc
	requests    map[string]int
	conditional map[string]int
}

func newWeb(fallback http.HandlerFunc) *web {
	return &web{handlers: map[string]http.HandlerFunc{}, fallback: fallback,
		requests: map[string]int{}, conditional: map[string]int{}}
}

// client returns a Client for TestBot on clk whose robots.txt requests go to
// w, with o's other settings.
func (w *web) client(t *testing.T, clk *clock, o robots.Options) *robots.Client {
	o.HTTPClient = &http.Client{Transport: w}
	return newClient(t, clk, o)
}

func (w *web) set(host string, h http.HandlerFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.handlers[host] = h
}

func (w *web) fetches(host string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.requests[host]
}

func (w *web) conditionals(host string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.conditional[host]
}

func (w *web) RoundTrip(r *http.Request) (*http.Response, error) {
	w.mu.Lock()
	if r.URL.Path == "/robots.txt" {
		w.requests[r.URL.Host]++
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			w.conditional[r.URL.Host]++
		}
	}
	h := w.handlers[r.URL.Host]
	if h == nil {
		h = w.fallback
	}
	w.mu.Unlock()
	rec := httptest.NewRecorder()
	h(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// bigFile is about 450 KB of distinct rules that neither compress nor share
// much of a trie (each ends in 16 pseudo-random hex digits): about 0.6 MB
// held, compiled and compressed, so that a dozen fill the smallest
// CacheBytes.
func bigFile(host string) string {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < 450<<10; i++ {
		fmt.Fprintf(&b, "Disallow: /%016x/%s/private\n", scramble(uint64(i)), host) // no long prefix shared
	}
	return b.String()
}

// scramble maps i to a pseudo-random number, the same on every run
// (SplitMix64's finalizer).
func scramble(i uint64) uint64 {
	i = (i ^ i>>30) * 0xbf58476d1ce4e5b9
	i = (i ^ i>>27) * 0x94d049bb133111eb
	return i ^ i>>31
}

// fill asks about n hosts named prefix0.test… whose robots.txt are big
// files, so that everything asked before is evicted from the smallest
// CacheBytes.
func fill(t *testing.T, w *web, c *robots.Client, prefix string, n int) {
	t.Helper()
	before := c.Stats().Evictions
	for i := range n {
		host := fmt.Sprintf("%s%d.test", prefix, i)
		w.set(host, robotsTxt(bigFile(host)))
		allowed(t, c, "http://"+host+"/")
	}
	require.GreaterOrEqual(t, c.Stats().Evictions, before+uint64(n/2), "the budget holds only a few big files")
}

// onFetchOf is onFetch for the fetches of host alone.
func onFetchOf(o *robots.Options, host string) <-chan robots.FetchEvent {
	ch := make(chan robots.FetchEvent, 100)
	o.OnFetch = func(e robots.FetchEvent) {
		if e.Authority == "http://"+host {
			ch <- e
		}
	}
	return ch
}

// notModified answers a conditional request for etag with a 304, and
// anything else with body and etag.
func notModified(body, etag string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Write([]byte(body))
	}
}

// An authority in an outage keeps answering from its last good copy when its
// entry is evicted, for the whole outage (past UnreachableAllowAfter, which
// only applies without a copy), sends the copy's validators when it retries,
// and is exported with its copy. RFC 9309 §2.3.1.4; README, "Caching and memory":
// the politeness tier holds the last good copy.
func TestOutageCopySurvivesEviction(t *testing.T) {
	w := newWeb(robotsTxt(""))
	w.set("down.test", robotsTxt(disallowPrivate, "Cache-Control", "max-age=60", "ETag", `"v1"`))
	clk := newClock()
	o := robots.Options{CacheBytes: 1, UnreachableAllowAfter: 2 * time.Hour}
	fetched := onFetchOf(&o, "down.test")
	c := w.client(t, clk, o)
	require.True(t, allowed(t, c, "http://down.test/public"))
	<-fetched

	clk.Advance(2 * time.Minute)
	outageStart := clk.Now()
	w.set("down.test", statusCode(http.StatusServiceUnavailable, "Retry-After", "3600"))
	allowed(t, c, "http://down.test/public") // served while the refetch runs
	<-fetched
	require.Equal(t, 2, w.fetches("down.test"))

	asks := func(when string) {
		t.Helper()
		pub, priv := check(t, c, "http://down.test/public"), check(t, c, "http://down.test/private")
		assert.True(t, pub.Allowed, "%s: /public, as the good copy says", when)
		assert.False(t, priv.Allowed, "%s: /private, as the good copy says", when)
		assert.True(t, pub.Stale, when)
		assert.Equal(t, robots.RuleMatched, priv.Reason, when)
		assert.Equal(t, outageStart, pub.UnreachableSince, "%s: the outage's start is kept", when)
	}
	fill(t, w, c, "fill", 30)
	asks("after eviction")
	assert.Equal(t, 2, w.fetches("down.test"), "no fetch before the retry time")

	var stream bytes.Buffer
	require.NoError(t, c.Export(&stream))

	// Past the retry and past UnreachableAllowAfter: refetched, still down,
	// and still the copy's answers.
	clk.Advance(3 * time.Hour)
	fill(t, w, c, "again", 30)
	allowed(t, c, "http://down.test/public")
	<-fetched
	require.Equal(t, 3, w.fetches("down.test"))
	fill(t, w, c, "more", 30)
	asks("past UnreachableAllowAfter, after eviction")

	// Back up: the copy's validators are sent, and a 304 renews it.
	clk.Advance(2 * time.Hour)
	fill(t, w, c, "last", 30)
	w.set("down.test", notModified("User-agent: *\nDisallow: /\n", `"v1"`))
	allowed(t, c, "http://down.test/public")
	<-fetched
	assert.Equal(t, 4, w.fetches("down.test"))
	assert.Equal(t, 3, w.conditionals("down.test"), "every refetch sent the copy's ETag, after eviction too")
	d := check(t, c, "http://down.test/private")
	assert.False(t, d.Allowed)
	assert.False(t, d.Stale, "renewed by the 304")
	assert.Zero(t, d.UnreachableSince, "the outage is over")
	assert.Equal(t, http.StatusOK, d.StatusCode, "the copy's")
	assert.True(t, allowed(t, c, "http://down.test/public"), "the copy's rules, not the new body's")

	// The export made after eviction holds the outage and its copy.
	b := w.client(t, &clock{t: outageStart.Add(10 * time.Minute)}, robots.Options{})
	require.NoError(t, b.Import(&stream))
	pub, priv := check(t, b, "http://down.test/public"), check(t, b, "http://down.test/private")
	assert.True(t, pub.Allowed)
	assert.False(t, priv.Allowed)
	assert.True(t, pub.Stale)
	assert.Equal(t, 4, w.fetches("down.test"), "imported in backoff: not fetched")
}

// A fresh outage record without a copy, published by another process (one
// that started cold, or whose copy the store dropped), does not take the
// good copy a Client holds: it is grafted in, and published with the next
// fetch.
func TestFleetKeepsTheCopyHeld(t *testing.T) {
	const key = "http://down.test"
	ctx := context.Background()
	w := newWeb(robotsTxt(""))
	w.set("down.test", robotsTxt(disallowPrivate, "Cache-Control", "max-age=60"))
	fleet := cache.NewMemoryFleet()
	clk := newClock()
	o := robots.Options{Fleet: fleet}
	fetched := onFetch(&o)
	c := w.client(t, clk, o)
	require.True(t, allowed(t, c, key+"/public"))
	<-fetched

	copyless := func(at time.Time, fresh time.Duration) {
		t.Helper()
		g, err := fleet.Acquire(ctx, key, at, time.Minute)
		require.NoError(t, err)
		require.NotNil(t, g.Lease, "the fleet's record is stale: the lease is free")
		require.NoError(t, fleet.Publish(ctx, *g.Lease, &cache.Record{Authority: key, URL: key + "/robots.txt",
			FinalURL: key + "/robots.txt", StatusCode: 503, Class: status.Unreachable, Outcome: "503: unreachable",
			FetchedAt: at, FreshUntil: at.Add(fresh), Failures: 1, UnreachableSince: at}, at))
	}

	// A day later (the copy is too old to answer while refreshed, so the
	// caller waits): the fleet's fresh outage answers, with the copy held.
	clk.Advance(25 * time.Hour)
	copyless(clk.Now(), time.Hour)
	d := check(t, c, key+"/public")
	assert.True(t, d.Allowed, "the copy held answers, not disallow-all")
	assert.True(t, d.Stale)
	assert.False(t, check(t, c, key+"/private").Allowed)
	assert.Equal(t, uint64(1), c.Stats().FleetHits)

	// The fleet's outage is stale: this Client takes the lease, fetches (503
	// again), and publishes the outage with its copy.
	clk.Advance(2 * time.Hour)
	copyless(clk.Now().Add(-time.Hour), time.Minute)
	w.set("down.test", statusCode(http.StatusServiceUnavailable))
	allowed(t, c, key+"/public")
	<-fetched
	require.NoError(t, c.Flush(context.Background())) // published once its callers had their answer
	rec, err := fleet.Get(ctx, key)
	require.NoError(t, err)
	require.NotNil(t, rec)
	assert.True(t, rec.Unreachable())
	require.NotNil(t, rec.Good, "published with the copy")
	assert.Equal(t, disallowPrivate, string(rec.Good.Body))
	assert.True(t, allowed(t, c, key+"/public"))
}

// One hostile authority does not break Export of all, nor its own
// publication to a Fleet: a record is kept within what encodes when it is
// made (65 Age headers, over the 64 values a record keeps; a 301 whose
// unparsable Location makes an Outcome over 64 KiB).
func TestHostileResponsesStayEncodable(t *testing.T) {
	w := newWeb(robotsTxt(disallowPrivate))
	w.set("ages.test", func(rw http.ResponseWriter, r *http.Request) {
		for range 65 {
			rw.Header().Add("Age", "1")
		}
		rw.Write([]byte(disallowPrivate))
	})
	w.set("location.test", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header()["Location"] = []string{"/%zz" + strings.Repeat("\xff", 20_000)}
		rw.WriteHeader(http.StatusMovedPermanently)
	})
	w.set("etag.test", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("ETag", strings.Repeat("e", 100<<10)) // a custom transport has no header cap
		rw.Header().Set("Cache-Control", strings.Repeat("x, ", 30<<10)+"max-age=600")
		rw.Write([]byte(disallowPrivate))
	})
	fleet := cache.NewMemoryFleet()
	clk := newClock()
	c := w.client(t, clk, robots.Options{Fleet: fleet})
	hosts := []string{"ages.test", "location.test", "etag.test", "plain.test"}
	for _, h := range hosts {
		check(t, c, "http://"+h+"/private")
	}
	assert.False(t, check(t, c, "http://ages.test/private").Allowed)
	assert.True(t, check(t, c, "http://location.test/private").Allowed, "a redirect that leads nowhere: allow all")
	require.NoError(t, c.Flush(context.Background()))
	assert.Zero(t, c.Stats().FleetErrors, "every record published")
	for _, h := range hosts {
		rec, err := fleet.Get(context.Background(), "http://"+h)
		require.NoError(t, err)
		assert.NotNil(t, rec, "%s published", h)
	}

	var stream bytes.Buffer
	require.NoError(t, c.Export(&stream))
	recs, err := cache.ReadStream(bytes.NewReader(stream.Bytes()))
	require.NoError(t, err)
	assert.Len(t, recs, len(hosts))
	b := w.client(t, clk, robots.Options{})
	require.NoError(t, b.Import(&stream))
	assert.Equal(t, uint64(len(hosts)), b.Stats().Imported)
	assert.False(t, check(t, b, "http://ages.test/private").Allowed)
	assert.Equal(t, len(hosts), w.fetches("ages.test")+w.fetches("location.test")+w.fetches("etag.test")+w.fetches("plain.test"),
		"the importer fetched nothing")
}

// An answer served from the politeness state after eviction keeps none of
// the caller's URL, which may be 8 KiB long, alive.
func TestOutageAnswerKeepsNoURL(t *testing.T) {
	w := newWeb(robotsTxt(""))
	w.set("down.test", statusCode(http.StatusServiceUnavailable, "Retry-After", "3600"))
	c := w.client(t, newClock(), robots.Options{CacheBytes: 1})
	require.False(t, allowed(t, c, "http://down.test/"))
	fill(t, w, c, "fill", 30)

	freed := make(chan struct{})
	long := func() string {
		u := string(append([]byte("http://down.test/"), bytes.Repeat([]byte{'x'}, 8000)...))
		runtime.AddCleanup(unsafe.StringData(u), func(ch chan struct{}) { close(ch) }, freed)
		return u
	}()
	require.False(t, allowed(t, c, long))
	long = ""
	for i := 0; ; i++ {
		runtime.GC()
		select {
		case <-freed:
			assert.Equal(t, 1, c.Stats().Outages, "the Client, alive all along, still holds the outage")
			return
		default:
		}
		if i == 100 {
			t.Fatal("the caller's URL is still alive after 100 collections: the cache keeps it")
		}
		runtime.Gosched()
	}
}

// Past MaxOutages failing authorities, the outages whose retry time has
// passed go first, then those retried soonest: a host that sent a day's
// Retry-After keeps its backoff and its outage's start.
func TestMaxOutagesKeepsLongBackoffs(t *testing.T) {
	w := newWeb(statusCode(http.StatusServiceUnavailable))
	w.set("long.test", statusCode(http.StatusServiceUnavailable, "Retry-After", "86400"))
	clk := newClock()
	c := w.client(t, clk, robots.Options{CacheBytes: 1, MaxOutages: 50})
	start := clk.Now()
	require.False(t, allowed(t, c, "http://long.test/"))
	for i := range 60 { // backoff of a minute each
		require.False(t, allowed(t, c, fmt.Sprintf("http://dead%d.test/", i)))
	}
	assert.Equal(t, 50, c.Stats().Outages)
	fill(t, w, c, "fill", 30)
	clk.Advance(2 * time.Minute)
	d := check(t, c, "http://long.test/")
	assert.False(t, d.Allowed)
	assert.Equal(t, robots.Unreachable, d.Reason)
	assert.Equal(t, 1, w.fetches("long.test"), "its Retry-After holds")
	assert.Equal(t, start, d.UnreachableSince)
}

// takeTheSlot has c fetch slow.test's robots.txt, which w holds until the
// returned function is called, and returns once the fetch is under way: with
// MaxConcurrentFetches 1, it holds the only slot. The function lets the
// fetch end, and waits for its answer.
func takeTheSlot(t *testing.T, w *web, c *robots.Client) (release func()) {
	g := newGate()
	w.set("slow.test", g.hold(robotsTxt("")))
	slow := make(chan bool)
	go func() { slow <- allowed(t, c, "http://slow.test/") }()
	<-g.arrived
	return func() {
		g.open()
		assert.True(t, <-slow)
	}
}

// waitCtx is a caller's context that says when the caller begins to wait on
// it, the first time Done is asked for.
type waitCtx struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func newWaitCtx(parent context.Context) *waitCtx {
	return &waitCtx{Context: parent, waiting: make(chan struct{})}
}

func (c *waitCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// releasingFleet is a MemoryFleet that says when a lease is released.
type releasingFleet struct {
	*cache.MemoryFleet
	released chan struct{}
}

func (f releasingFleet) Release(ctx context.Context, l cache.Lease) error {
	err := f.MemoryFleet.Release(ctx, l)
	f.released <- struct{}{}
	return err
}

// Time queued for a fetch slot (MaxConcurrentFetches) does not count
// against the grace of an expired entry: its callers keep getting the copy
// held, with a Fleet or without.
func TestQueuedTimeIsNotGrace(t *testing.T) {
	for _, withFleet := range []bool{false, true} {
		t.Run(fmt.Sprintf("fleet=%v", withFleet), func(t *testing.T) {
			w := newWeb(robotsTxt(disallowPrivate, "Cache-Control", "max-age=60"))
			clk := newClock()
			o := robots.Options{MaxConcurrentFetches: 1, FetchTimeout: 10 * time.Second}
			fleet := releasingFleet{cache.NewMemoryFleet(), make(chan struct{}, 10)}
			if withFleet {
				o.Fleet = fleet
			}
			fetched := onFetchOf(&o, "held.test")
			c := w.client(t, clk, o)
			require.False(t, allowed(t, c, "http://held.test/private"))
			<-fetched
			clk.Advance(2 * time.Minute)

			release := takeTheSlot(t, w, c)
			d := check(t, c, "http://held.test/private")
			assert.True(t, d.Stale, "expired: served while its refetch is queued")
			if withFleet {
				// With the fleet's lease, but no slot: it lets the lease go
				// rather than hold it while queued.
				<-fleet.released
			}
			clk.Advance(time.Minute) // past the grace, all of it queued
			// A bound on a failure only: the copy held answers at once.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			d, err := c.Check(ctx, "http://held.test/private")
			require.NoError(t, err, "the caller got the copy held, without waiting")
			assert.True(t, d.Stale)
			assert.False(t, d.Allowed)
			release()
			<-fetched
			assert.Equal(t, 2, w.fetches("held.test"))
		})
	}
}

// With MaxConcurrentFetches, callers that leave take their queued fetches
// with them: no goroutine waits for a slot on their behalf, and no fetch is
// made for them after they have gone.
func TestQueuedFetchesLeaveWithTheirCallers(t *testing.T) {
	const callers = 10_000
	w := newWeb(robotsTxt(disallowPrivate))
	c := w.client(t, newClock(), robots.Options{MaxConcurrentFetches: 1})
	release := takeTheSlot(t, w, c)
	before := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range callers {
		wctx := newWaitCtx(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Allowed(wctx, fmt.Sprintf("http://impatient%d.test/", i))
			assert.ErrorIs(t, err, context.Canceled)
		}()
		<-wctx.waiting
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before+callers+16, "a queued fetch takes no goroutine of its own")
	cancel()
	wg.Wait()
	assert.LessOrEqual(t, runtime.NumGoroutine(), before+16, "nothing waits for a slot once its callers left")

	release()
	require.False(t, allowed(t, c, "http://after.test/private"), "the slot is free: a new fetch runs")
	impatient := 0
	for i := range callers {
		impatient += w.fetches(fmt.Sprintf("impatient%d.test", i))
	}
	assert.Zero(t, impatient, "no fetch for callers that left")
	assert.Equal(t, uint64(2), c.Stats().Fetches)
}

// A fetch superseded by Invalidate while it waits for a slot makes no
// request: its caller is answered by the fetch of the new generation.
func TestInvalidateQueuedFetch(t *testing.T) {
	w := newWeb(robotsTxt(disallowPrivate))
	c := w.client(t, newClock(), robots.Options{MaxConcurrentFetches: 1})
	release := takeTheSlot(t, w, c)

	wctx := newWaitCtx(context.Background())
	queued := make(chan bool)
	go func() {
		ok, err := c.Allowed(wctx, "http://a.test/private")
		assert.NoError(t, err)
		queued <- ok
	}()
	<-wctx.waiting
	require.NoError(t, c.Invalidate("http://a.test/"))
	release()
	assert.False(t, <-queued)
	assert.False(t, allowed(t, c, "http://a.test/private"), "a hit")
	assert.Equal(t, 1, w.fetches("a.test"), "the superseded fetch made no request")
}

// blockingBody is a response body whose first Read or Close, whichever
// comes first, waits until release is closed.
type blockingBody struct {
	reading chan struct{}
	release chan struct{}
	r       *strings.Reader
	once    sync.Once
}

func (b *blockingBody) block() { b.once.Do(func() { close(b.reading); <-b.release }) }

func (b *blockingBody) Read(p []byte) (int, error) {
	b.block()
	return b.r.Read(p)
}

func (b *blockingBody) Close() error { b.block(); return nil }

// Observe goes the way of a fetch's result: what it stores follows the
// record current when it is stored, so a refresh that became current while
// the observed response was read is not undone.
func TestObserveFollowsARefreshMeanwhile(t *testing.T) {
	w := newWeb(robotsTxt("User-agent: *\nDisallow: /v1\n", "Cache-Control", "max-age=60"))
	clk := newClock()
	o := robots.Options{}
	fetched := onFetch(&o)
	c := w.client(t, clk, o)
	require.False(t, allowed(t, c, "http://a.test/v1"))
	<-fetched
	clk.Advance(2 * time.Minute)

	body := &blockingBody{reading: make(chan struct{}), release: make(chan struct{}), r: strings.NewReader("")}
	observed := make(chan error)
	go func() {
		observed <- c.Observe("http://a.test/robots.txt", &http.Response{StatusCode: http.StatusServiceUnavailable,
			Header: http.Header{"Retry-After": {"600"}}, Body: body})
	}()
	<-body.reading
	w.set("a.test", robotsTxt("User-agent: *\nDisallow: /v2\n", "Cache-Control", "max-age=60"))
	allowed(t, c, "http://a.test/") // the expired copy answers; the refresh runs
	<-fetched
	require.False(t, allowed(t, c, "http://a.test/v2"), "the refresh is current")
	close(body.release)
	require.NoError(t, <-observed)

	d := check(t, c, "http://a.test/v2")
	assert.True(t, d.Stale, "the observed outage keeps the copy current when it was stored")
	assert.False(t, d.Allowed, "the refresh's rules")
	assert.True(t, allowed(t, c, "http://a.test/v1"))
}

// An export stream that holds an authority twice imports it once, the
// newer record.
func TestImportCountsAuthorities(t *testing.T) {
	now := newClock().Now()
	rec := func(at time.Time, body string) *cache.Record {
		return &cache.Record{Authority: "http://a.test", URL: "http://a.test/robots.txt", FinalURL: "http://a.test/robots.txt",
			StatusCode: 200, Class: status.Success, Outcome: "200 OK", Body: []byte(body),
			FetchedAt: at, FreshUntil: at.Add(time.Hour)}
	}
	c := newWeb(robotsTxt("")).client(t, &clock{t: now}, robots.Options{})
	stream := exportStream(t, rec(now.Add(-time.Minute), "User-agent: *\nDisallow: /old\n"), rec(now, disallowPrivate))
	require.NoError(t, c.Import(bytes.NewReader(stream)))
	assert.Equal(t, uint64(1), c.Stats().Imported)
	assert.Equal(t, 1, c.Stats().Entries)
	assert.False(t, allowed(t, c, "http://a.test/private"), "the newer record")
	assert.True(t, allowed(t, c, "http://a.test/old"))
}

// until waits for the wall clock to pass t: the expiry of a record, on a
// Client with the default clock.
func until(t time.Time) {
	if d := time.Until(t); d > 0 {
		<-time.After(d + time.Millisecond)
	}
}

// beforeWall reports whether the clock, read now, is still before t: an
// answer given before this call was judged before t too. When it is not, the
// machine was too slow for what the caller checks, which it then skips: a
// test on the real clock asserts what the time it took allows, never that it
// was fast.
func beforeWall(t *testing.T, deadline time.Time) bool {
	t.Helper()
	if time.Now().Before(deadline) {
		return true
	}
	t.Logf("past %v already: a check of what holds before it is skipped", deadline)
	return false
}

// Expiry and an outage on the default clock (Options.Now unset), whose
// cache hits read the monotonic clock without building a time: a record
// expires when its freshness ends, an outage answers from its good copy,
// and one without a copy allows all once UnreachableAllowAfter has passed.
func TestDefaultClock(t *testing.T) {
	w := newWeb(robotsTxt(disallowPrivate, "Cache-Control", "max-age=0"))
	w.set("cold.test", statusCode(http.StatusServiceUnavailable))
	o := robots.Options{UserAgent: "TestBot/1.0", HTTPClient: &http.Client{Transport: w},
		MinTTL: 2 * time.Second, UnreachableAllowAfter: 2 * time.Second}
	fetched := onFetchOf(&o, "a.test")
	c, err := robots.New(o)
	require.NoError(t, err)

	d := check(t, c, "http://a.test/private")
	<-fetched
	require.False(t, d.Allowed)
	require.Equal(t, d.FetchedAt.Add(2*time.Second), d.FreshUntil, "max-age=0: MinTTL")
	hits := c.Stats().Hits
	assert.False(t, allowed(t, c, "http://a.test/private"))
	// Asked before the expiry if the clock read after the answer says so:
	// a hit. A machine too loaded to ask again within the 2 s skips that,
	// rather than the test bounding its own speed.
	if beforeWall(t, d.FreshUntil) {
		assert.Equal(t, hits+1, c.Stats().Hits, "fresh: a hit")
	}

	until(d.FreshUntil)
	w.set("a.test", statusCode(http.StatusServiceUnavailable))
	d = check(t, c, "http://a.test/private")
	assert.True(t, d.Stale, "expired: served while it is fetched again")
	ev := <-fetched
	require.True(t, ev.Unreachable)
	for _, u := range []string{"http://a.test/private", "http://a.test/public"} {
		d = check(t, c, u)
		assert.Equal(t, u == "http://a.test/public", d.Allowed, "%s: the good copy answers the outage", u)
		assert.True(t, d.Stale)
		assert.Equal(t, ev.FreshUntil, d.FreshUntil, "in backoff until the next retry")
	}
	assert.Equal(t, 2, w.fetches("a.test"))

	d = check(t, c, "http://cold.test/x")
	if beforeWall(t, d.UnreachableSince.Add(2*time.Second)) {
		assert.False(t, d.Allowed)
		assert.Equal(t, robots.Unreachable, d.Reason, "no copy: disallow all")
	}
	until(d.UnreachableSince.Add(2 * time.Second))
	hits = c.Stats().Hits
	d = check(t, c, "http://cold.test/x")
	assert.True(t, d.Allowed)
	assert.Equal(t, robots.UnreachableTooLong, d.Reason, "past UnreachableAllowAfter: allow all")
	assert.Equal(t, hits+1, c.Stats().Hits, "in backoff: a hit, which read the clock for it")
	assert.Equal(t, 1, w.fetches("cold.test"))
}
