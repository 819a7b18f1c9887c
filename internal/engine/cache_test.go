package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/engine"
	"github.com/crawlkit/robots/status"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// No test leaves a flight running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// val is what the tests derive from a record: its body.
type val struct{ body string }

func (v *val) Size() int64 { return 16 + int64(len(v.body)) }

// origin is a robots.txt server seen from the cache: it counts fetches per
// key, can hold each fetch until the test releases it, and answers with
// a record made by answer.
type origin struct {
	clk     *clock
	started chan string // each fetch sends its key as it starts
	answer  func(key string, held *cache.Record, call int) *fetch.Result

	mu       sync.Mutex
	calls    int
	perKey   map[string]int
	gates    map[int]chan struct{} // fetch i waits until gates[i] is closed, when there
	inFlight int
	maxIn    int
}

func newOrigin(clk *clock) *origin {
	return &origin{clk: clk, started: make(chan string, 1000), perKey: map[string]int{}, gates: map[int]chan struct{}{},
		answer: func(key string, _ *cache.Record, call int) *fetch.Result {
			return file(key, fmt.Sprintf("User-agent: *\nDisallow: /call-%d\n", call), "Cache-Control", "max-age=60")
		}}
}

// hold makes fetch number i (counting from 1) wait until release(i).
func (o *origin) hold(i int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gates[i] = make(chan struct{})
}

func (o *origin) release(i int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.gates[i])
}

func (o *origin) fetches(key string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.perKey[key]
}

func (o *origin) fetch(_ context.Context, key string, held *cache.Record) (*cache.Record, func()) {
	o.mu.Lock()
	o.calls++
	call := o.calls
	o.perKey[key]++
	o.inFlight++
	o.maxIn = max(o.maxIn, o.inFlight)
	gate := o.gates[call]
	o.mu.Unlock()
	o.started <- key
	if gate != nil {
		<-gate
	}
	o.mu.Lock()
	o.inFlight--
	o.mu.Unlock()
	res := o.answer(key, held, call)
	at := time.Now() // a cache on the real clock
	if o.clk != nil {
		at = o.clk.Now()
	}
	return policy.Next(key, held, res, status.Classify(res, at), at), nil
}

func file(key, body string, header ...string) *fetch.Result {
	return &fetch.Result{URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: 200, Header: header2(header...), Body: []byte(body)}
}

func failure(key string, code int, header ...string) *fetch.Result {
	return &fetch.Result{URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: code, Header: header2(header...)}
}

// bodyOf is the body of rec's good copy, "" when there is none.
func bodyOf(rec *cache.Record) string {
	if g := rec.GoodCopy(); g != nil {
		return string(g.File())
	}
	return ""
}

func newCache(t *testing.T, o *origin, edit func(*engine.Config[*val])) *engine.Cache[*val] {
	cfg := engine.Config[*val]{
		Bytes:  1 << 20,
		Grace:  5 * time.Second,
		Policy: policy,
		Now:    o.clk.Now,
		Fetch:  o.fetch,
		Derive: func(rec *cache.Record, _ *engine.Entry[*val]) *val { return &val{body: bodyOf(rec)} },
	}
	if edit != nil {
		edit(&cfg)
	}
	return engine.New(cfg)
}

func lookup(t *testing.T, c *engine.Cache[*val], key string) (*engine.Entry[*val], engine.Served) {
	t.Helper()
	e, served, _, err := c.Lookup(context.Background(), key)
	require.NoError(t, err)
	return e, served
}

const keyA, keyB = "https://a.example", "https://b.example"

// However many callers ask about a cold key, it is fetched once, and they
// all get its answer.
func TestOneFetchPerColdKey(t *testing.T) {
	o := newOrigin(&clock{t: now})
	o.hold(1)
	c := newCache(t, o, nil)
	const n = 50
	var wg sync.WaitGroup
	asking := make(chan struct{}, n)
	bodies := make(chan string, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			asking <- struct{}{}
			e, _ := lookup(t, c, keyA)
			bodies <- e.Value.body
		}()
	}
	<-o.started
	for range n {
		<-asking
	}
	o.release(1)
	wg.Wait()
	close(bodies)
	for b := range bodies {
		assert.Equal(t, "User-agent: *\nDisallow: /call-1\n", b)
	}
	assert.Equal(t, 1, o.fetches(keyA))
}

// When a held entry expires, callers keep getting it while one refresh
// runs; then they get the refreshed one.
func TestRefreshWhileServing(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, nil)
	first, served := lookup(t, c, keyA)
	require.Equal(t, engine.Waited, served)
	<-o.started

	clk.Advance(2 * time.Minute) // max-age=60: expired
	o.hold(2)
	for range 20 {
		e, served := lookup(t, c, keyA)
		assert.Equal(t, engine.Stale, served)
		assert.Same(t, first, e)
	}
	<-o.started
	assert.Equal(t, 2, o.fetches(keyA), "exactly one refresh for twenty callers")

	// The grace ends with the refresh: a caller after the grace waits.
	clk.Advance(5 * time.Second)
	waited := make(chan *engine.Entry[*val])
	go func() {
		e, _ := lookup(t, c, keyA)
		waited <- e
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, _, err := c.Lookup(ctx, keyA)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "past the grace, callers wait for the refresh")
	o.release(2)
	e := <-waited
	assert.Contains(t, e.Value.body, "/call-2")
	e, served = lookup(t, c, keyA)
	assert.Equal(t, engine.Hit, served)
	assert.Contains(t, e.Value.body, "/call-2")
	assert.Equal(t, 2, o.fetches(keyA))
}

// RFC 9309 §2.4: a copy more than 24 hours old is not served while it is
// refreshed: callers wait for the fetch.
func TestNoStaleAnswerPastADay(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, nil)
	lookup(t, c, keyA)
	<-o.started
	clk.Advance(25 * time.Hour)
	o.hold(2)
	go func() {
		<-o.started
		o.release(2)
	}()
	e, served := lookup(t, c, keyA)
	assert.Equal(t, engine.Waited, served)
	assert.Contains(t, e.Value.body, "/call-2")
}

// A fetch begun before Invalidate, or before Put, never becomes current:
// its callers get its answer, the cache keeps the newer one.
func TestGenerations(t *testing.T) {
	for _, how := range []string{"invalidate", "observe"} {
		t.Run(how, func(t *testing.T) {
			clk := &clock{t: now}
			o := newOrigin(clk)
			c := newCache(t, o, nil)
			o.hold(1)
			old := make(chan *engine.Entry[*val])
			go func() {
				e, _ := lookup(t, c, keyA)
				old <- e
			}()
			<-o.started
			switch how {
			case "invalidate":
				c.Invalidate(keyA)
				e, served := lookup(t, c, keyA) // a new flight, fetched at once
				assert.Equal(t, engine.Waited, served)
				assert.Contains(t, e.Value.body, "/call-2")
				<-o.started
			case "observe":
				res := file(keyA, "User-agent: *\nDisallow: /observed\n")
				require.NoError(t, c.Observe(keyA, func(held *cache.Record) (*cache.Record, error) {
					return policy.Next(keyA, held, res, status.Classify(res, now), now), nil
				}))
			}
			o.release(1)
			assert.Contains(t, (<-old).Value.body, "/call-1", "the callers of the old fetch get its answer")
			e, served := lookup(t, c, keyA)
			assert.Equal(t, engine.Hit, served)
			assert.NotContains(t, e.Value.body, "/call-1", "but it is not stored")
		})
	}
}

// At most MaxFetches fetches run at once; a caller queued behind them
// still leaves when its context ends, and its fetch, refreshing nothing,
// leaves with it.
func TestMaxFetches(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.MaxFetches = 1 })
	o.hold(1)
	a := make(chan struct{})
	go func() {
		lookup(t, c, keyA)
		close(a)
	}()
	<-o.started
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, _, err := c.Lookup(ctx, keyB)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "B is queued behind A")
	assert.Equal(t, 0, o.fetches(keyB))
	assert.Zero(t, c.Stats().Queued, "B's fetch left with its only caller")
	o.release(1)
	<-a
	e, _ := lookup(t, c, keyB)
	assert.Equal(t, keyB, <-o.started, "asked again, B is fetched, once")
	assert.Contains(t, e.Value.body, "/call-2")
	assert.Equal(t, 1, o.fetches(keyB))
	assert.Equal(t, 1, o.maxIn)

	// A refresh queued for a slot has not started: its grace has not begun,
	// however long the queue, and callers keep getting the copy held.
	served := func(key string) engine.Served { // bounded: a regression fails, never hangs
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, served, _, err := c.Lookup(ctx, key)
		require.NoError(t, err, "a refresh kept its callers waiting")
		return served
	}
	clk.Advance(2 * time.Minute) // both expired
	o.hold(3)
	require.Equal(t, engine.Stale, served(keyA))
	require.Equal(t, keyA, <-o.started) // A's refresh holds the slot
	require.Equal(t, engine.Stale, served(keyB), "B's refresh is queued")
	clk.Advance(time.Minute) // far past the grace
	assert.Equal(t, engine.Stale, served(keyB), "still queued: still served")
	o.release(3)
	assert.Equal(t, keyB, <-o.started)
	afterGrace(t, clk, c, keyB)
}

// An authority in backoff is not fetched before its retry time, even when
// its record was evicted to make room.
func TestPolitenessSurvivesEviction(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	o.answer = func(key string, _ *cache.Record, call int) *fetch.Result {
		if key == keyA {
			return failure(key, 429, "Retry-After", "120")
		}
		return file(key, string(make([]byte, 3000)), "Cache-Control", "max-age=3600")
	}
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Bytes = 8 << 10 })
	e, _ := lookup(t, c, keyA)
	require.True(t, e.Record().Unreachable())
	for i := range 10 {
		lookup(t, c, fmt.Sprintf("https://filler-%d.example", i))
	}
	st := c.Stats()
	assert.Positive(t, st.Evictions)
	assert.Equal(t, 1, st.Outages)
	assert.LessOrEqual(t, st.Bytes, st.Budget)

	clk.Advance(119 * time.Second)
	e, served := lookup(t, c, keyA)
	assert.Equal(t, engine.Hit, served, "answered from the outage, without a fetch")
	assert.True(t, e.Record().Unreachable())
	assert.Equal(t, now.Add(2*time.Minute), e.Record().FreshUntil)
	assert.Equal(t, 1, o.fetches(keyA))

	clk.Advance(time.Second)
	_, served = lookup(t, c, keyA)
	assert.Equal(t, engine.Stale, served, "the outage's answer stands while the retry runs")
	assert.Equal(t, keyA, <-o.started, "the retry time has come")
	e = afterGrace(t, clk, c, keyA)
	assert.Equal(t, 2, e.Record().Failures, "and the outage went on counting")
	assert.Equal(t, 2, o.fetches(keyA))
}

// afterGrace moves past the grace of a refresh under way and returns the
// entry it leads to: a lookup then waits for it.
func afterGrace(t *testing.T, clk *clock, c *engine.Cache[*val], key string) *engine.Entry[*val] {
	t.Helper()
	clk.Advance(5 * time.Second)
	e, served := lookup(t, c, key)
	require.NotEqual(t, engine.Stale, served)
	return e
}

// A panic in the fetch or in deriving a value is contained: the caller
// gets an answer (the fetch counts as failed), and the panic is counted.
func TestPanicsContained(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	o.answer = func(string, *cache.Record, int) *fetch.Result { panic("transport bug") }
	c := newCache(t, o, nil)
	e, _ := lookup(t, c, keyA)
	assert.True(t, e.Record().Unreachable())
	assert.Equal(t, uint64(1), c.Stats().Panics)

	o.answer = func(key string, _ *cache.Record, _ int) *fetch.Result {
		return file(key, "User-agent: *\nDisallow: /\n")
	}
	c = newCache(t, o, func(cfg *engine.Config[*val]) {
		cfg.Derive = func(rec *cache.Record, _ *engine.Entry[*val]) *val {
			if rec.Class == status.Success {
				panic("parser bug")
			}
			return &val{}
		}
	})
	e, _ = lookup(t, c, keyB)
	assert.True(t, e.Record().Unreachable(), "a record that cannot be derived counts as a failed fetch")
	assert.Equal(t, uint64(1), c.Stats().Panics)

	c = newCache(t, o, func(cfg *engine.Config[*val]) {
		cfg.Derive = func(*cache.Record, *engine.Entry[*val]) *val { panic("always") }
	})
	_, _, _, err := c.Lookup(context.Background(), keyB)
	assert.ErrorContains(t, err, "panicked", "nothing derives: the error says why")
}

func TestSeedAndRecords(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, nil)
	lookup(t, c, keyA) // fetched at now

	older := fleettest.Sample(keyA, now.Add(-time.Hour))
	newer := fleettest.Sample(keyB, now)
	outage := &cache.Record{Authority: "https://down.example", Class: status.Unreachable, Failures: 2,
		UnreachableSince: now.Add(-time.Hour), FetchedAt: now, FreshUntil: now.Add(time.Hour)}
	n, err := c.Seed([]*cache.Record{older, newer, outage}, now)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the record older than the one held is not added")
	e, served := lookup(t, c, keyB)
	assert.Equal(t, engine.Hit, served, "a seeded fresh record answers without a fetch")
	assert.Equal(t, string(newer.File()), e.Value.body)
	assert.Equal(t, 0, o.fetches(keyB))

	recs := c.Records()
	byKey := map[string]*cache.Record{}
	for _, r := range recs {
		byKey[r.Authority] = r
	}
	assert.Len(t, recs, 3)
	assert.True(t, byKey["https://down.example"].Unreachable())
	fleettest.Equal(t, newer, byKey[keyB])
}

// fleetPair is two caches of two "processes" sharing one fleet and one
// origin.
func fleetPair(t *testing.T, f cache.Fleet) (*clock, *origin, *engine.Cache[*val], *engine.Cache[*val]) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	edit := func(cfg *engine.Config[*val]) { cfg.Fleet = f }
	return clk, o, newCache(t, o, edit), newCache(t, o, edit)
}

// Two processes ask about a cold authority at once: one fetches, the other
// waits for its publication.
func TestFleetOneFetch(t *testing.T) {
	_, o, a, b := fleetPair(t, cache.NewMemoryFleet())
	o.hold(1)
	got := make(chan string, 2)
	go func() {
		e, _ := lookup(t, a, keyA)
		got <- e.Value.body
	}()
	<-o.started
	go func() {
		e, _ := lookup(t, b, keyA)
		got <- e.Value.body
	}()
	o.release(1)
	assert.Equal(t, <-got, <-got)
	assert.Equal(t, 1, o.fetches(keyA))
	assert.Equal(t, uint64(1), a.Stats().FleetHits+b.Stats().FleetHits)

	// Fresh in the fleet: the other process takes it, without a fetch.
	e, served := lookup(t, b, keyA)
	assert.Contains(t, []engine.Served{engine.Hit, engine.Waited}, served)
	assert.Contains(t, e.Value.body, "/call-1")
	assert.Equal(t, 1, o.fetches(keyA))
}

// Failures are published: the whole fleet backs off together.
func TestFleetSharesBackoff(t *testing.T) {
	clk, o, a, b := fleetPair(t, cache.NewMemoryFleet())
	o.answer = func(key string, _ *cache.Record, _ int) *fetch.Result {
		return failure(key, 503, "Retry-After", "300")
	}
	lookup(t, a, keyA)
	<-o.started
	require.NoError(t, a.Flush(context.Background())) // published once a's callers had their answer
	e, _ := lookup(t, b, keyA)
	assert.True(t, e.Record().Unreachable())
	assert.Equal(t, 1, o.fetches(keyA), "the other process does not fetch before the retry time")
	assert.Equal(t, uint64(1), b.Stats().FleetHits)
	clk.Advance(5 * time.Minute)
	_, served := lookup(t, b, keyA)
	assert.Equal(t, engine.Stale, served)
	_, served = lookup(t, a, keyA)
	assert.Equal(t, engine.Stale, served)
	<-o.started // one of them fetches for both
	require.NoError(t, a.Flush(context.Background()))
	require.NoError(t, b.Flush(context.Background()))
	afterGrace(t, clk, a, keyA)
	afterGrace(t, clk, b, keyA)
	assert.Equal(t, 2, o.fetches(keyA), "once for the fleet at the retry time")
}

// An outage whose good copy carries nothing to compact (a bare 404, then a
// bare 503) is published as any other: the fleet backs off together.
func TestFleetSharesBareOutage(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk, o, a, b := fleetPair(t, f)
	o.answer = func(key string, _ *cache.Record, call int) *fetch.Result {
		if call == 1 {
			return failure(key, 404)
		}
		return failure(key, 503)
	}
	ctx := context.Background()
	lookup(t, a, keyA)
	require.NoError(t, a.Flush(ctx))
	clk.Advance(25 * time.Hour)
	lookup(t, a, keyA) // served the 404 while the refetch runs
	<-a.Settled(keyA)
	require.NoError(t, a.Flush(ctx))
	got, err := f.Get(ctx, keyA)
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.True(t, got.Unreachable(), "the outage was published, not the 404 before it")
	e, _ := lookup(t, b, keyA)
	assert.True(t, e.Record().Unreachable())
	assert.Equal(t, 2, o.fetches(keyA), "the other process backs off with the fleet")
}

// A process that took the lease and died delays the others by at most the
// lease; then exactly one takes over.
func TestFleetTakeOver(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk, o, a, b := fleetPair(t, f)
	g, err := f.Acquire(context.Background(), keyA, clk.Now(), time.Minute) // the dead process
	require.NoError(t, err)
	require.NotNil(t, g.Lease)
	got := make(chan string, 2)
	for _, c := range []*engine.Cache[*val]{a, b} {
		go func() {
			e, _ := lookup(t, c, keyA)
			got <- e.Value.body
		}()
	}
	clk.Advance(time.Minute) // the dead lease runs out
	assert.Equal(t, <-got, <-got)
	assert.Equal(t, 1, o.fetches(keyA))
	assert.Zero(t, a.Stats().FleetFallbacks+b.Stats().FleetFallbacks)
}

// A holder whose lease ran out publishes nothing: the successor's record
// stays in the fleet.
func TestFleetLateHolder(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk, o, a, b := fleetPair(t, f)
	o.hold(1)
	late := make(chan string)
	go func() {
		e, _ := lookup(t, a, keyA)
		late <- e.Value.body
	}()
	<-o.started
	clk.Advance(time.Minute) // past a's lease (5 s), which its renewals cannot save
	e, _ := lookup(t, b, keyA)
	assert.Contains(t, e.Value.body, "/call-2", "b took over")
	o.release(1)
	assert.Contains(t, <-late, "/call-1", "a's callers get a's answer")
	require.NoError(t, a.Flush(context.Background()))
	require.NoError(t, b.Flush(context.Background()))
	assert.Equal(t, uint64(1), a.Stats().LeasesLost)
	rec, err := f.Get(context.Background(), keyA)
	require.NoError(t, err)
	assert.Contains(t, string(rec.File()), "/call-2", "the successor's record stays")
}

// While another process refreshes, a process with no copy of its own
// serves the fleet's stale record instead of waiting.
func TestFleetServesItsStaleCopy(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk, o, a, b := fleetPair(t, f)
	lookup(t, a, keyA)
	<-o.started
	require.NoError(t, a.Flush(context.Background()))
	clk.Advance(2 * time.Minute)
	o.hold(2)
	e, served := lookup(t, a, keyA)
	require.Equal(t, engine.Stale, served, "a refreshes, serving its own copy")
	<-o.started
	e2, served := lookup(t, b, keyA)
	assert.Equal(t, engine.Stale, served, "b has no copy: the fleet's stale one")
	assert.Equal(t, e.Value.body, e2.Value.body)
	o.release(2)
	require.NoError(t, a.Flush(context.Background()), "a's refresh is in the fleet")
	// b's flight that offered the fleet's copy has taken the publication,
	// or, its caller gone, stops asking: then b's next lookup starts a
	// refresh of the copy it holds, which finds the publication.
	<-b.Settled(keyA)
	lookup(t, b, keyA)
	<-b.Settled(keyA)
	e, served = lookup(t, b, keyA)
	assert.Equal(t, engine.Hit, served)
	assert.True(t, e.Record().Fresh(clk.Now()), "b gets the publication")
	assert.Contains(t, e.Value.body, "/call-2")
	assert.Equal(t, 2, o.fetches(keyA), "b fetches nothing")
}

// A fetch superseded by Invalidate releases its lease and publishes
// nothing.
func TestFleetSupersededReleases(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk, o, a, _ := fleetPair(t, f)
	o.hold(1)
	done := make(chan struct{})
	go func() {
		lookup(t, a, keyA)
		close(done)
	}()
	<-o.started
	a.Invalidate(keyA)
	o.release(1)
	<-done
	require.NoError(t, a.Flush(context.Background()))
	rec, err := f.Get(context.Background(), keyA)
	require.NoError(t, err)
	assert.Nil(t, rec, "nothing published")
	g, err := f.Acquire(context.Background(), keyA, clk.Now(), time.Minute)
	require.NoError(t, err)
	assert.NotNil(t, g.Lease, "the lease was released")
}

// faultyFleet fails, panics, or returns records that cannot be trusted.
type faultyFleet struct {
	fault func(ctx context.Context) (*cache.Record, error)
	calls atomic.Int32
}

func (f *faultyFleet) Get(ctx context.Context, key string) (*cache.Record, error) {
	f.calls.Add(1)
	return f.fault(ctx)
}

func (f *faultyFleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (cache.Grant, error) {
	f.calls.Add(1)
	rec, err := f.fault(ctx)
	return cache.Grant{Record: rec}, err
}

func (f *faultyFleet) Publish(ctx context.Context, l cache.Lease, rec *cache.Record, now time.Time) error {
	f.calls.Add(1)
	_, err := f.fault(ctx)
	return err
}

func (f *faultyFleet) Renew(ctx context.Context, l cache.Lease, ttl time.Duration, now time.Time) (cache.Lease, error) {
	f.calls.Add(1)
	_, err := f.fault(ctx)
	return l, err
}

func (f *faultyFleet) Release(ctx context.Context, l cache.Lease) error {
	f.calls.Add(1)
	_, err := f.fault(ctx)
	return err
}

// A fleet that fails, panics, hangs or lies never fails a lookup: the
// process fetches for itself, and counts it.
func TestFleetFaults(t *testing.T) {
	forever := fleettest.Sample(keyA, now)
	forever.FreshUntil = now.Add(100 * 365 * 24 * time.Hour)
	tests := map[string]func(ctx context.Context) (*cache.Record, error){
		"errors":              func(context.Context) (*cache.Record, error) { return nil, errors.New("connection refused") },
		"panics":              func(context.Context) (*cache.Record, error) { panic("nil map") },
		"another authority":   func(context.Context) (*cache.Record, error) { return fleettest.Sample(keyB, now), nil },
		"fresh for a century": func(context.Context) (*cache.Record, error) { return forever, nil },
		"from the future":     func(context.Context) (*cache.Record, error) { return fleettest.Sample(keyA, now.Add(time.Hour)), nil },
		"stale granted as fresh": func(context.Context) (*cache.Record, error) {
			return fleettest.Sample(keyA, now.Add(-30*time.Hour)), nil
		},
		"a body over the cap": func(context.Context) (*cache.Record, error) {
			r := fleettest.Sample(keyA, now)
			r.Body = make([]byte, 2048)
			return r, nil
		},
		"grants nothing": func(context.Context) (*cache.Record, error) { return nil, nil },
		"hangs until the timeout": func(ctx context.Context) (*cache.Record, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	for name, fault := range tests {
		t.Run(name, func(t *testing.T) {
			f := &faultyFleet{fault: fault}
			clk := &clock{t: now}
			o := newOrigin(clk)
			c := newCache(t, o, func(cfg *engine.Config[*val]) {
				cfg.Fleet = f
				cfg.FleetTimeout = 50 * time.Millisecond
				cfg.MaxBody = 1024
			})
			e, _ := lookup(t, c, keyA)
			assert.Contains(t, e.Value.body, "/call-1", "fetched locally")
			assert.Equal(t, 1, o.fetches(keyA))
			st := c.Stats()
			assert.Equal(t, uint64(1), st.FleetFallbacks)
			assert.Equal(t, uint64(1), st.FleetErrors)
			if name == "panics" {
				assert.Equal(t, uint64(1), st.Panics)
			}
		})
	}
}

// A flight leaves the table when it stores its result: a caller that comes
// after (here, from the fetch's after function, when the result is stored
// but the flight not yet done) with the entry expired again starts a new
// refresh instead of joining the one that is ending.
func TestNewFlightAfterCommit(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	var c *engine.Cache[*val]
	var once sync.Once
	served := make(chan engine.Served, 1)
	c = newCache(t, o, func(cfg *engine.Config[*val]) {
		cfg.Fetch = func(ctx context.Context, key string, held *cache.Record) (*cache.Record, func()) {
			rec, _ := o.fetch(ctx, key, held)
			return rec, func() {
				once.Do(func() {
					clk.Advance(2 * time.Minute) // max-age=60: expired again
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					_, s, _, err := c.Lookup(ctx, key)
					assert.NoError(t, err, "the caller waited on the flight it was called from")
					served <- s
				})
			}
		}
	})
	lookup(t, c, keyA)
	<-o.started
	assert.Equal(t, engine.Stale, <-served)
	select {
	case <-o.started:
	case <-time.After(10 * time.Second):
		t.Fatal("no refresh started: the caller joined the flight that was ending")
	}
	afterGrace(t, clk, c, keyA)
	assert.Equal(t, 2, o.fetches(keyA))
}

// grantFleet wraps a MemoryFleet: Acquire grants what grant makes of the
// real grant, and Publish fails with publishErr when it is set.
type grantFleet struct {
	*cache.MemoryFleet
	grant      func(cache.Grant) cache.Grant
	publishErr error
}

func (f *grantFleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (cache.Grant, error) {
	g, err := f.MemoryFleet.Acquire(ctx, key, now, ttl)
	if f.grant != nil {
		g = f.grant(g)
	}
	return g, err
}

func (f *grantFleet) Publish(ctx context.Context, l cache.Lease, rec *cache.Record, now time.Time) error {
	if f.publishErr != nil {
		return f.publishErr
	}
	return f.MemoryFleet.Publish(ctx, l, rec, now)
}

// A fleet that says a lease is held until a time already past is not
// believed: the process does not spin on it, it fetches for itself.
func TestFleetHolderInThePast(t *testing.T) {
	f := &grantFleet{MemoryFleet: cache.NewMemoryFleet(), grant: func(g cache.Grant) cache.Grant {
		return cache.Grant{HeldUntil: now.Add(-time.Second)}
	}}
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	e, _ := lookup(t, c, keyA)
	assert.Contains(t, e.Value.body, "/call-1")
	assert.Equal(t, uint64(1), c.Stats().FleetFallbacks)
}

// With the lease in hand, a stale record that cannot be trusted is ignored:
// the process fetches and publishes, and the fleet is repaired.
func TestFleetRepairsABadRecord(t *testing.T) {
	bad := fleettest.Sample(keyB, now.Add(-2*time.Hour)) // another authority's
	f := &grantFleet{MemoryFleet: cache.NewMemoryFleet(), grant: func(g cache.Grant) cache.Grant {
		if g.Lease != nil {
			g.Record = bad
		}
		return g
	}}
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	e, _ := lookup(t, c, keyA)
	require.NoError(t, c.Flush(context.Background()))
	assert.Contains(t, e.Value.body, "/call-1")
	assert.Equal(t, uint64(1), c.Stats().FleetErrors)
	assert.Zero(t, c.Stats().FleetFallbacks, "it fetched with the lease, as the fleet's fetcher")
	rec, err := f.Get(context.Background(), keyA)
	require.NoError(t, err)
	require.NotNil(t, rec, "and published")
	assert.Contains(t, string(rec.File()), "/call-1")
}

// A publication that fails releases the lease: the others need not wait
// for it to run out.
func TestFleetFailedPublishReleases(t *testing.T) {
	f := &grantFleet{MemoryFleet: cache.NewMemoryFleet(), publishErr: errors.New("read-only replica")}
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	lookup(t, c, keyA)
	require.NoError(t, c.Flush(context.Background()))
	assert.Equal(t, uint64(1), c.Stats().FleetErrors)
	g, err := f.MemoryFleet.Acquire(context.Background(), keyA, clk.Now(), time.Minute)
	require.NoError(t, err)
	assert.NotNil(t, g.Lease, "the lease was released")
}

// Seed refuses a record whose body is over the cap, adds nothing then, and
// counts only the records it took.
func TestSeedRefuses(t *testing.T) {
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.MaxBody = 1024 })
	big := fleettest.Sample(keyB, now)
	big.Body = make([]byte, 2048)
	n, err := c.Seed([]*cache.Record{fleettest.Sample(keyA, now), big}, now)
	assert.ErrorIs(t, err, cache.ErrMalformedRecord)
	assert.Zero(t, n)
	assert.Zero(t, c.Stats().Entries)
	n, err = c.Seed([]*cache.Record{fleettest.Sample(keyA, now), fleettest.Sample(keyA, now.Add(-time.Hour))}, now)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the older record of the same authority is not taken")
}

// A fleet that keeps failing is skipped: after three failures in a row the
// breaker opens, and new keys are fetched locally without asking it, but
// for a probe per interval; a bad record from a fleet that answers is no
// failure of the fleet.
func TestFleetBreaker(t *testing.T) {
	clk := &clock{t: now}
	down := true
	f := &faultyFleet{fault: func(context.Context) (*cache.Record, error) {
		if down {
			return nil, errors.New("connection refused")
		}
		return nil, nil
	}}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	for i := range 20 {
		lookup(t, c, fmt.Sprintf("https://k%d.example", i))
	}
	st := c.Stats()
	assert.True(t, st.FleetDown)
	assert.Equal(t, int32(3), f.calls.Load(), "three failures, then skipped")
	assert.Equal(t, uint64(20), st.FleetFallbacks, "each key fetched locally")
	assert.Equal(t, uint64(3), st.FleetErrors)
	clk.Advance(time.Second)
	lookup(t, c, "https://probe.example")
	assert.Equal(t, int32(4), f.calls.Load(), "a probe, a second later")
	lookup(t, c, "https://after.example")
	assert.Equal(t, int32(4), f.calls.Load(), "it failed: skipped for two seconds more")
	down = false
	clk.Advance(2 * time.Second)
	lookup(t, c, "https://recovered.example") // the probe: the fleet grants nothing, an error, but it answered
	assert.False(t, c.Stats().FleetDown, "one answer closes it")

	bad := &faultyFleet{fault: func(context.Context) (*cache.Record, error) { return fleettest.Sample(keyB, now), nil }}
	c = newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = bad })
	for i := range 5 {
		lookup(t, c, fmt.Sprintf("https://b%d.example", i))
	}
	assert.False(t, c.Stats().FleetDown, "records that cannot be used come from a fleet that works")
	assert.Equal(t, int32(5), bad.calls.Load())
}

// A holder renews its short lease while its fetch runs: the others keep
// waiting for its publication however long the fetch takes, and none takes
// over while it lives.
func TestLeaseRenewed(t *testing.T) {
	fleet := engine.NewSignalFleet()
	o := newOrigin(nil) // the real clock, which the leases run on
	realTime := func(cfg *engine.Config[*val]) {
		// Long enough that a renewal, due every third of it, is not
		// late on a loaded machine running -race; short enough that the
		// wait below outlasts it twice.
		cfg.Fleet, cfg.Now, cfg.Lease = fleet, nil, 500*time.Millisecond
	}
	a, b := newCache(t, o, realTime), newCache(t, o, realTime)
	o.hold(1)
	gotA, gotB := make(chan string, 1), make(chan string, 1)
	go func() {
		e, _ := lookup(t, a, keyA)
		gotA <- e.Value.body
	}()
	<-fleet.Asked // a takes the lease
	<-o.started
	go func() {
		e, _ := lookup(t, b, keyA)
		gotB <- e.Value.body
	}()
	// b asks ten times: at 5 ms, 10, 20, … 250 ms apart, over a second of
	// waiting, more than two terms of the lease.
	for range 10 {
		select {
		case <-fleet.Asked:
		case body := <-gotB:
			t.Fatalf("b answered %q while a's fetch ran: a's lease was not renewed", body)
		}
	}
	o.release(1)
	assert.Equal(t, <-gotA, <-gotB)
	assert.Equal(t, 1, o.fetches(keyA), "b never took over: a's lease was renewed")
	require.NoError(t, a.Flush(context.Background()))
}

// A lease released without a publication wakes the process waiting for
// it: it asks with the same call that acquires, and gets the lease at once.
func TestReleaseWakes(t *testing.T) {
	fleet := engine.NewSignalFleet()
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = fleet })
	g, err := fleet.MemoryFleet.Acquire(context.Background(), keyA, now, 30*time.Second) // another process
	require.NoError(t, err)
	got := make(chan string)
	go func() {
		e, _ := lookup(t, c, keyA)
		got <- e.Value.body
	}()
	<-fleet.Asked
	<-fleet.Asked // it waits, asking again
	require.NoError(t, fleet.MemoryFleet.Release(context.Background(), *g.Lease))
	assert.Contains(t, <-got, "/call-1", "it took the lease and fetched, 30 s before the other's ran out")
	assert.Zero(t, c.Stats().FleetFallbacks)
}

// A fleet that says another holds a lease for longer than any holder takes
// (MaxHeldLease) is not waited for.
func TestHeldTooLong(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	_, err := f.Acquire(context.Background(), keyA, now, engine.MaxHeldLease+time.Second)
	require.NoError(t, err)
	e, _ := lookup(t, c, keyA)
	assert.Contains(t, e.Value.body, "/call-1", "fetched locally at once")
	st := c.Stats()
	assert.Equal(t, uint64(1), st.FleetFallbacks)
	assert.Equal(t, uint64(1), st.FleetErrors)
}

// blockingFleet is a MemoryFleet whose Publish waits until release is
// closed.
type blockingFleet struct {
	*cache.MemoryFleet
	publishing chan struct{}
	release    chan struct{}
}

func (f blockingFleet) Publish(ctx context.Context, l cache.Lease, rec *cache.Record, now time.Time) error {
	f.publishing <- struct{}{}
	<-f.release
	return f.MemoryFleet.Publish(ctx, l, rec, now)
}

// A caller has its answer once the record is stored locally: the
// publication follows, and Flush waits for it.
func TestPublishAfterTheAnswer(t *testing.T) {
	f := blockingFleet{cache.NewMemoryFleet(), make(chan struct{}, 1), make(chan struct{})}
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	e, served := lookup(t, c, keyA) // answered while Publish waits
	assert.Equal(t, engine.Waited, served)
	assert.Contains(t, e.Value.body, "/call-1")
	<-f.publishing
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.Flush(ctx), context.Canceled, "the publication is under way")
	close(f.release)
	require.NoError(t, c.Flush(context.Background()))
	rec, err := f.Get(context.Background(), keyA)
	require.NoError(t, err)
	require.NotNil(t, rec)
	assert.Contains(t, string(rec.File()), "/call-1")
}

// keyedFleet is a MemoryFleet whose Publish of each key waits until the
// test lets it go.
type keyedFleet struct {
	*cache.MemoryFleet
	publishing chan string
	mu         sync.Mutex
	gates      map[string]chan struct{}
}

func newKeyedFleet() *keyedFleet {
	return &keyedFleet{MemoryFleet: cache.NewMemoryFleet(), publishing: make(chan string, 100), gates: map[string]chan struct{}{}}
}

func (f *keyedFleet) gate(key string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gates[key] == nil {
		f.gates[key] = make(chan struct{})
	}
	return f.gates[key]
}

func (f *keyedFleet) Publish(ctx context.Context, l cache.Lease, rec *cache.Record, now time.Time) error {
	f.publishing <- l.Key
	<-f.gate(l.Key)
	return f.MemoryFleet.Publish(ctx, l, rec, now)
}

// Flush waits for the publications under way when it is called, not for
// those that begin after: it returns under steady traffic, and calling it
// over and over while flights publish is safe (a WaitGroup here panicked:
// "reused before previous Wait has returned").
func TestFlushWaitsForWhatWasUnderWay(t *testing.T) {
	f := newKeyedFleet()
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	lookup(t, c, keyA)
	require.Equal(t, keyA, <-f.publishing)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.Flush(canceled), context.Canceled, "a's publication is under way")
	close(f.gate(keyA))
	require.NoError(t, c.Flush(context.Background()))

	// Under steady traffic, each Flush returns: it waits for what was under
	// way when it was called.
	go func() {
		for range f.publishing {
		}
	}()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 { // the origin's log of fetches holds 1,000
				key := fmt.Sprintf("https://g%d-%d.example", g, i)
				close(f.gate(key))
				lookup(t, c, key)
			}
		}()
	}
	working := make(chan struct{})
	go func() {
		wg.Wait()
		close(working)
	}()
	flushes := 0
	for done := false; !done; flushes++ {
		require.NoError(t, c.Flush(context.Background()))
		select {
		case <-working:
			done = true
		default:
		}
	}
	require.NoError(t, c.Flush(context.Background()))
	close(f.publishing)
	t.Logf("%d flushes while 800 flights published", flushes)
}

// What a flight publishes is what it stored: when deriving the fetch's
// record fails and a failed fetch's record is stored instead, nothing is
// published, and the lease goes.
func TestPublishesWhatItStored(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) {
		cfg.Fleet = f
		cfg.Derive = func(rec *cache.Record, _ *engine.Entry[*val]) *val {
			if strings.Contains(bodyOf(rec), "/call-1") {
				panic("a bug deriving this file")
			}
			return &val{body: bodyOf(rec)}
		}
	})
	e, _ := lookup(t, c, keyA)
	assert.True(t, e.Record().Unreachable(), "stored as a failed fetch")
	require.NoError(t, c.Flush(context.Background()))
	rec, err := f.Get(context.Background(), keyA)
	require.NoError(t, err)
	assert.Nil(t, rec, "the file this process could not derive is not published")
	g, err := f.Acquire(context.Background(), keyA, now, time.Minute)
	require.NoError(t, err)
	assert.NotNil(t, g.Lease, "released")
}

// hookedFleet is a MemoryFleet that runs before, when set, ahead of each
// Acquire, with its count, and says when a lease is released.
type hookedFleet struct {
	*cache.MemoryFleet
	calls    atomic.Int32
	before   func(n int32)
	released chan struct{}
}

func (f *hookedFleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (cache.Grant, error) {
	if n := f.calls.Add(1); f.before != nil {
		f.before(n)
	}
	return f.MemoryFleet.Acquire(ctx, key, now, ttl)
}

func (f *hookedFleet) Release(ctx context.Context, l cache.Lease) error {
	err := f.MemoryFleet.Release(ctx, l)
	f.released <- struct{}{}
	return err
}

// A flight waiting for another process's fetch, whose callers have all
// left, lets the lease go when the holder's comes free, instead of
// fetching for no one.
func TestLeftFlightTakesNoFetch(t *testing.T) {
	f := &hookedFleet{MemoryFleet: cache.NewMemoryFleet(), released: make(chan struct{}, 1)}
	clk := &clock{t: now}
	o := newOrigin(clk)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fleet = f })
	g, err := f.MemoryFleet.Acquire(context.Background(), keyA, now, 30*time.Second) // another process
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	f.before = func(n int32) {
		if n == 3 { // the flight asks a third time: meanwhile its caller left, and the holder let go
			cancel()
			assert.ErrorIs(t, <-left, context.Canceled)
			assert.NoError(t, f.MemoryFleet.Release(context.Background(), *g.Lease))
		}
	}
	go func() {
		_, _, _, err := c.Lookup(ctx, keyA)
		left <- err
	}()
	select {
	case <-f.released:
	case key := <-o.started:
		t.Fatalf("fetched %s for no one", key)
	}
	assert.Zero(t, o.fetches(keyA))
	g2, err := f.MemoryFleet.Acquire(context.Background(), keyA, now, time.Minute)
	require.NoError(t, err)
	assert.NotNil(t, g2.Lease, "the lease it took was let go")
}

// deriveNoting makes a Cache's Derive note, for each record, whether it
// came expanded, and reuse the value held for the same body.
func deriveNoting(expanded *[]bool) func(*engine.Config[*val]) {
	return func(cfg *engine.Config[*val]) {
		cfg.Derive = func(rec *cache.Record, held *engine.Entry[*val]) *val {
			*expanded = append(*expanded, rec.Body != nil)
			if held != nil && rec.SameBody(held.Record()) {
				return held.Value
			}
			return &val{body: bodyOf(rec)}
		}
	}
}

// A fetched record is derived as it comes, its body a field, so that
// deriving does not decompress what was just read; the entry holds it
// compact, and a 304 renews that compact copy, whose value is reused.
func TestDeriveFromTheFetchedBody(t *testing.T) {
	o := newOrigin(&clock{t: now})
	o.answer = func(key string, _ *cache.Record, call int) *fetch.Result {
		if call == 1 {
			return file(key, "User-agent: *\nDisallow: /x\n", "Cache-Control", "max-age=60", "ETag", `"v1"`)
		}
		res := failure(key, http.StatusNotModified, "Cache-Control", "max-age=60")
		res.Conditional = true
		return res
	}
	var expanded []bool
	c := newCache(t, o, deriveNoting(&expanded))
	e, _ := lookup(t, c, keyA)
	assert.Equal(t, []bool{true}, expanded, "the fetch's record, expanded")
	assert.Nil(t, e.Record().Body, "held compact")
	assert.Nil(t, e.Record().Header, "held compact")
	assert.Equal(t, "User-agent: *\nDisallow: /x\n", string(e.Record().File()))
	assert.Equal(t, `"v1"`, e.Record().Validators().ETag)

	o.clk.Advance(2 * time.Minute)
	lookup(t, c, keyA) // served stale while the 304 comes
	<-c.Settled(keyA)
	renewed, _ := lookup(t, c, keyA)
	require.Equal(t, 2, o.fetches(keyA))
	assert.Equal(t, []bool{true, false}, expanded, "a 304 renews the compact copy held")
	assert.Equal(t, status.Success, renewed.Record().Class, renewed.Record().Outcome)
	assert.Same(t, e.Value, renewed.Value, "and what was derived of its body holds")
	assert.Nil(t, renewed.Record().Body)
}

// The fetch's record shares the body of its Result, which goes back to the
// fetch's caller (a Client's OnFetch hook gets it) before the record is
// published: the fleet gets the stored copy, unchanged by what the caller
// does with the Result.
func TestFleetGetsItsOwnBody(t *testing.T) {
	f := cache.NewMemoryFleet()
	clk := &clock{t: now}
	const body = "User-agent: *\nDisallow: /x\n"
	c := newCache(t, newOrigin(clk), func(cfg *engine.Config[*val]) {
		cfg.Fleet = f
		cfg.Fetch = func(_ context.Context, key string, held *cache.Record) (*cache.Record, func()) {
			res := file(key, body, "Cache-Control", "max-age=60")
			rec := policy.Next(key, held, res, status.Classify(res, clk.Now()), clk.Now())
			return rec, func() { clear(res.Body) } // the caller reuses its Result
		}
	})
	e, _ := lookup(t, c, keyA)
	assert.Equal(t, body, e.Value.body)
	require.NoError(t, c.Flush(context.Background()))
	got, err := f.Get(context.Background(), keyA)
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, body, string(got.File()))
	assert.Equal(t, body, string(e.Record().File()))
}

// A refetch that brings the file held again keeps the body held, compact,
// rather than compressing it again, and derives from that copy, so that
// what was derived of the body is found again without decompressing it.
func TestRefetchOfTheSameFile(t *testing.T) {
	o := newOrigin(&clock{t: now})
	const body = "User-agent: *\nDisallow: /x\n"
	o.answer = func(key string, _ *cache.Record, call int) *fetch.Result {
		if call == 3 {
			return file(key, body+"Disallow: /y\n", "Cache-Control", "max-age=60")
		}
		return file(key, body, "Cache-Control", "max-age=60")
	}
	var expanded []bool
	c := newCache(t, o, deriveNoting(&expanded))
	first, _ := lookup(t, c, keyA)
	o.clk.Advance(25 * time.Hour) // past the grace: callers wait
	second, _ := lookup(t, c, keyA)
	assert.Same(t, first.Value, second.Value)
	assert.Equal(t, body, string(second.Record().File()))
	o.clk.Advance(25 * time.Hour)
	third, _ := lookup(t, c, keyA)
	require.Equal(t, 3, o.fetches(keyA))
	assert.Equal(t, []bool{true, false, true}, expanded, "the same file: derived from the compact copy; a new one: as fetched")
	assert.Equal(t, body+"Disallow: /y\n", third.Value.body)
	assert.NotSame(t, first.Value, third.Value)
	assert.Equal(t, body+"Disallow: /y\n", string(third.Record().File()))
}
