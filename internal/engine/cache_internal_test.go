package engine

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/status"
)

// An answer made from an outage alone is stored only if nothing has come
// since: it must not undo a Put or an Invalidate that ran meanwhile.
func TestKeepUndoesNothing(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	c := New(Config[blob]{
		Bytes: 1 << 20, Grace: time.Second, Now: func() time.Time { return now },
		Fetch:  func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil },
	})
	const key = "https://a.example"
	down := &cache.Record{Authority: key, Class: status.Unreachable, Failures: 2, UnreachableSince: now.Add(-time.Hour),
		FetchedAt: now, FreshUntil: now.Add(time.Hour)}
	for name, meanwhile := range map[string]func(){
		"put": func() {
			require.NoError(t, c.put(key, &cache.Record{Authority: key, Class: status.Success, Body: []byte("x"), FetchedAt: now, FreshUntil: now.Add(time.Hour)}))
		},
		"invalidate": func() { c.Invalidate(key) },
	} {
		t.Run(name, func(t *testing.T) {
			c.outages.note(key, down, true)
			o, ok := c.outages.get(key) // what a lookup read
			require.True(t, ok)
			e, err := c.derive(o.Record(), nil)
			require.NoError(t, err)
			meanwhile()
			held := c.Held(key)
			c.keep(o, e)
			assert.Same(t, held, c.Held(key), "the outage's answer came too late to be stored")
			c.Invalidate(key)
		})
	}
	// With nothing come since, it is stored.
	c.outages.note(key, down, true)
	o, _ := c.outages.get(key)
	e, _ := c.derive(o.Record(), nil)
	c.keep(o, e)
	got, ok := c.local.get(key)
	require.True(t, ok)
	assert.Same(t, e, got)
}

// The keys the cache keeps are its own: a caller's key may point into a URL
// of up to 8 KiB, which must not stay alive for as long as the entry.
func TestKeysAreCopied(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	c := New(Config[blob]{
		Bytes: 1 << 20, Grace: time.Second, Now: func() time.Time { return now },
		Fetch: func(_ context.Context, key string, _ *cache.Record) (*cache.Record, func()) {
			return &cache.Record{Authority: key, Class: status.Success, Body: []byte("x"), FetchedAt: now, FreshUntil: now.Add(time.Hour)}, nil
		},
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil },
	})
	url := "https://a.example/" + strings.Repeat("x", 8000)
	within := func(s string) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(url)))
		return p >= lo && p < lo+uintptr(len(url))
	}
	_, _, _, err := c.Lookup(context.Background(), url[:len("https://a.example")])
	require.NoError(t, err)
	require.NoError(t, c.put(url[:len("https://a.exam")], &cache.Record{Authority: "https://a.exam", Class: status.Success, FetchedAt: now, FreshUntil: now.Add(time.Hour)}))
	keys, entries := c.local.snapshot()
	require.Len(t, keys, 2)
	for i, k := range keys {
		assert.False(t, within(k), "the key %q points into the caller's URL", k)
		assert.False(t, within(entries[i].Record().Authority), "the record's authority %q points into the caller's URL", k)
	}
}

// A refresh that ends between a lookup's look at its entry and its joining
// the flight has stored a fresh entry: the lookup answers with it, not with
// the expired one it saw, and begins no flight.
func TestRefreshEndingMeanwhileAnswers(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	c := New(Config[blob]{
		Bytes: 1 << 20, Grace: 5 * time.Second, Now: func() time.Time { return now },
		Fetch:  func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil },
	})
	const key = "https://a.example"
	rec := func(at time.Time) *cache.Record {
		return &cache.Record{Authority: key, Class: status.Success, Body: []byte("x"), FetchedAt: at, FreshUntil: at.Add(time.Hour)}
	}
	require.NoError(t, c.put(key, rec(now.Add(-2*time.Hour))))
	seen, _ := c.local.get(key) // what Lookup saw: expired
	require.False(t, seen.Record().Fresh(now))
	require.NoError(t, c.put(key, rec(now))) // the refresh ends and stores
	e, served, _, err := c.miss(context.Background(), key, seen, now)
	require.NoError(t, err)
	assert.Equal(t, Hit, served)
	assert.True(t, e.Record().Fresh(now))
	_, ok := c.flights.Load(key)
	assert.False(t, ok, "no flight begun, so no fetch")
	assert.Zero(t, c.Stats().Panics, "no fetch was made")
}

// Cache.Grow is the local tier's resize, seen in Stats: the budget counts
// a value's growth, evicting for it, and a key not held is left alone.
func TestCacheGrow(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	vals := map[string]*growing{}
	rec := func(k string) *cache.Record {
		return &cache.Record{Authority: k, Class: status.Success, FetchedAt: now, FreshUntil: now.Add(time.Hour)}
	}
	one := sizeOf("https://a.example", &Entry[*growing]{Held: cache.Hold(rec("https://a.example")), Value: &growing{}})
	c := New(Config[*growing]{
		Bytes: 2*one + one/2, Grace: time.Second, Now: func() time.Time { return now },
		Fetch: func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(r *cache.Record, _ *Entry[*growing]) *growing {
			vals[r.Authority] = &growing{}
			return vals[r.Authority]
		},
	})
	for _, k := range []string{"https://a.example", "https://b.example"} {
		require.NoError(t, c.put(k, rec(k)))
	}
	before := c.Stats()
	require.Equal(t, 2, before.Entries)
	assert.False(t, c.resize("https://absent.example"))
	assert.Equal(t, before, c.Stats())

	vals["https://a.example"].n.Add(one / 4)
	require.True(t, c.resize("https://a.example"))
	assert.Equal(t, before.Bytes+one/4, c.Stats().Bytes)
	assert.Zero(t, c.Stats().Evictions)

	vals["https://a.example"].n.Add(one / 2) // past the budget with b
	require.True(t, c.resize("https://a.example"))
	st := c.Stats()
	assert.Equal(t, uint64(1), st.Evictions)
	assert.Equal(t, 1, st.Entries)
	assert.NotNil(t, c.Held("https://a.example"), "the grown entry stays")
	assert.Nil(t, c.Held("https://b.example"), "the other made room")
	assert.LessOrEqual(t, st.Bytes, st.Budget)
}

// put stores rec as key's record, as a fetch of key would.
func (c *Cache[V]) put(key string, rec *cache.Record) error {
	return c.Observe(key, func(*cache.Record) (*cache.Record, error) { return rec, nil })
}

// resize is Grow after a growth of key's value made elsewhere.
func (c *Cache[V]) resize(key string) bool {
	return c.Grow(key, func() bool { return true })
}

// A record that does not encode is left out of the export, and named; the
// stream holds the others. Records are made within what encodes, so only a
// record stored by hand can show it.
func TestExportSkipsWhatDoesNotEncode(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	c := New(Config[blob]{
		Bytes: 1 << 20, Grace: time.Second, Now: func() time.Time { return now },
		Fetch:  func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil },
	})
	good := &cache.Record{Authority: "https://a.example", Class: status.Success, Body: []byte("x"), FetchedAt: now, FreshUntil: now.Add(time.Hour)}
	bad := &cache.Record{Authority: "https://b.example", Class: status.Success, Body: []byte("x"), FetchedAt: now, FreshUntil: now.Add(time.Hour),
		Header: http.Header{"Age": make([]string, cache.MaxHeaderValues+1)}}
	require.NoError(t, c.put(good.Authority, good))
	require.NoError(t, c.put(bad.Authority, bad))
	var buf bytes.Buffer
	skipped, err := c.Export(&buf)
	require.NoError(t, err)
	assert.Equal(t, []string{"https://b.example"}, skipped)
	recs, err := cache.ReadStream(&buf)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "https://a.example", recs[0].Authority)
}

// Export writes the outages of authorities whose entry was evicted, with
// their good copy, after the entries.
func TestExportWritesEvictedOutages(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	c := New(Config[blob]{
		Bytes: 64 << 10, Grace: time.Second, Now: func() time.Time { return now },
		Fetch:  func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil },
	})
	const down = "https://down.example"
	good := &cache.Record{Authority: down, URL: down + "/robots.txt", FinalURL: down + "/robots.txt", StatusCode: 200,
		Class: status.Success, Body: []byte("User-agent: *\nDisallow: /private\n"), FetchedAt: now.Add(-time.Hour), FreshUntil: now}
	require.NoError(t, c.put(down, &cache.Record{Authority: down, URL: down + "/robots.txt", FinalURL: down + "/robots.txt",
		Class: status.Unreachable, FetchedAt: now, FreshUntil: now.Add(time.Hour), Failures: 1, UnreachableSince: now, Good: good}))
	for i := 0; ; i++ {
		if !c.local.has(down) { // has, not get: a get would make it recently used
			break
		}
		require.Less(t, i, 10_000, "the outage's entry is never evicted")
		key := fmt.Sprintf("https://h%d.example", i)
		require.NoError(t, c.put(key, &cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt",
			StatusCode: 404, Class: status.Unavailable, FetchedAt: now, FreshUntil: now.Add(time.Hour)}))
	}
	var buf bytes.Buffer
	skipped, err := c.Export(&buf)
	require.NoError(t, err)
	require.Empty(t, skipped)
	recs, err := cache.ReadStream(&buf)
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	last := recs[len(recs)-1]
	assert.Equal(t, down, last.Authority, "after the entries")
	assert.True(t, last.Unreachable())
	require.NotNil(t, last.Good)
	assert.Equal(t, good.Body, last.Good.Body)
	assert.Len(t, recs, c.local.n+1)
}

// graft gives a record from the fleet that stands for an outage the good
// copy held here, when it has none or an older one, and leaves every other
// record as it is.
func TestGraft(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	const key = "https://a.example"
	good := func(at time.Time) *cache.Record {
		return &cache.Record{Authority: key, Class: status.Success, Body: []byte("x"), FetchedAt: at, FreshUntil: at.Add(time.Hour)}
	}
	outage := func(copy *cache.Record) *cache.Record {
		return &cache.Record{Authority: key, Class: status.Unreachable, Failures: 1, UnreachableSince: now, FetchedAt: now,
			FreshUntil: now.Add(time.Hour), Good: copy}
	}
	older, newer := good(now.Add(-2*time.Hour)), good(now.Add(-time.Hour))
	for name, tt := range map[string]struct {
		rec, held *cache.Record
		want      *cache.Record // the good copy of the result
	}{
		"a good record":                 {newer, outage(older), nil},
		"nothing from the fleet":        {nil, newer, nil},
		"an outage, nothing held":       {outage(nil), nil, nil},
		"an outage, a copy held":        {outage(nil), newer, newer},
		"an outage, an outage held":     {outage(nil), outage(newer), newer},
		"an outage with an older copy":  {outage(older), newer, newer},
		"an outage with a newer copy":   {outage(newer), older, newer},
		"an outage with the same copy":  {outage(newer), outage(newer), newer},
		"an outage, a copy-less outage": {outage(nil), outage(nil), nil},
	} {
		t.Run(name, func(t *testing.T) {
			got := graft(tt.rec, tt.held)
			if tt.rec == nil || !tt.rec.Unreachable() {
				assert.Same(t, tt.rec, got)
				return
			}
			assert.Same(t, tt.want, got.Good)
			if tt.want != tt.rec.Good {
				assert.NotSame(t, tt.rec, got, "the fleet's record is not changed: it may be shared")
			}
		})
	}
}

// A refresh queued for a fetch slot whose entry is evicted while it waits
// ends without a fetch when its turn comes: no one waits for it, and no
// entry needs it.
func TestQueuedRefreshOfAnEvictedEntry(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	fetched := make(chan string, 10)
	release, never := make(chan struct{}), make(chan struct{})
	defer close(never)
	c := New(Config[blob]{
		Bytes: 1 << 20, Grace: time.Second, Now: func() time.Time { return now }, MaxFetches: 1,
		Fetch: func(_ context.Context, key string, _ *cache.Record) (*cache.Record, func()) {
			fetched <- key
			if key == "https://a.example" {
				<-never // were it started, it would still be in the table below
			}
			<-release
			return &cache.Record{Authority: key, Class: status.Success, Body: []byte("x"), FetchedAt: now, FreshUntil: now.Add(time.Hour)}, nil
		},
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil },
	})
	const a, b = "https://a.example", "https://b.example"
	require.NoError(t, c.put(a, &cache.Record{Authority: a, Class: status.Success, Body: []byte("x"), FetchedAt: now.Add(-time.Hour), FreshUntil: now.Add(-time.Minute)}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _, err := c.Lookup(context.Background(), b) // takes the only slot
		assert.NoError(t, err)
	}()
	require.Equal(t, b, <-fetched)
	_, served, _, err := c.Lookup(context.Background(), a)
	require.NoError(t, err)
	require.Equal(t, Stale, served, "a's refresh is queued")
	require.Equal(t, 1, c.Stats().Queued)
	c.local.delete(a) // evicted while it waits
	close(release)
	<-done
	c.mu.Lock()
	queued := c.queue.Len()
	c.mu.Unlock()
	assert.Zero(t, queued)
	assert.Nil(t, c.flightOf(a))
	assert.Empty(t, fetched, "no fetch for a refresh of nothing")
}

// A panic in Observe's next is contained: Observe returns it as an error,
// and the authority is fetched as usual afterwards, its key never left to a
// flight that cannot end.
func TestObservePanicContained(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var fetches atomic.Int32
	c := New(Config[blob]{Bytes: 1 << 20, Grace: time.Second, Now: func() time.Time { return now },
		Fetch: func(_ context.Context, k string, _ *cache.Record) (*cache.Record, func()) {
			fetches.Add(1)
			return &cache.Record{Authority: k, Class: status.Success, FetchedAt: now, FreshUntil: now.Add(time.Hour)}, nil
		},
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil }})
	const k = "https://a.example"
	err := c.Observe(k, func(*cache.Record) (*cache.Record, error) { panic("boom") })
	assert.ErrorContains(t, err, "panicked")
	assert.ErrorContains(t, c.Observe(k, func(*cache.Record) (*cache.Record, error) { return nil, nil }), "no record")
	assert.Equal(t, uint64(1), c.Stats().Panics)
	assert.Nil(t, c.flightOf(k))
	_, served, _, err := c.Lookup(context.Background(), k)
	require.NoError(t, err)
	assert.Equal(t, Waited, served)
	assert.Equal(t, int32(1), fetches.Load())
}

// An outage's entry that Grow drops, grown past the room of the budget,
// hands its good copy to the politeness tier, as an evicted one does.
func TestGrowDropKeepsTheCopy(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var g *growing
	c := New(Config[*growing]{Bytes: 64 << 10, Grace: time.Second, Now: func() time.Time { return now },
		Fetch:  func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(*cache.Record, *Entry[*growing]) *growing { g = &growing{}; return g }})
	const k = "https://a.example"
	require.NoError(t, c.put(k, outageAt(now, k, time.Hour, strings.Repeat("x", 1000))))
	g.n.Store(64 << 10) // past the room of the budget
	assert.False(t, c.Grow(k, func() bool { return true }), "dropped")
	h := c.Held(k)
	require.NotNil(t, h)
	assert.NotNil(t, h.Good, "the outage keeps its copy")
	st := c.Stats()
	assert.LessOrEqual(t, st.Bytes, st.Budget)
}

// A store the local tier cannot keep hands its record's good copy to the
// politeness tier and evicts to make room for it: the budget holds.
func TestRefusedStoreStaysWithinBudget(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	big := false
	c := New(Config[blob]{Bytes: 64 << 10, Grace: time.Second, Now: func() time.Time { return now },
		Fetch: func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(*cache.Record, *Entry[blob]) blob {
			if big {
				return make(blob, 70<<10) // more than the whole budget
			}
			return make(blob, 4000)
		}})
	for i := 0; c.Stats().Evictions == 0; i++ {
		k := fmt.Sprintf("https://h%d.example", i)
		require.NoError(t, c.put(k, &cache.Record{Authority: k, Class: status.Success, FetchedAt: now, FreshUntil: now.Add(time.Hour)}))
	}
	big = true
	const k = "https://z.example"
	require.NoError(t, c.put(k, outageAt(now, k, time.Hour, strings.Repeat("x", 8000))))
	st := c.Stats()
	assert.LessOrEqual(t, st.Bytes, st.Budget)
	o, ok := c.outages.get(k)
	require.True(t, ok)
	assert.NotNil(t, o.Good, "the table holds the copy of the entry not kept")
	assert.False(t, c.local.has(k))
}

// A store and a resize that evicts never interleave: a good copy is held by
// the entry or by the politeness tier, never by both.
func TestCopyHeldOnce(t *testing.T) {
	var vals sync.Map
	c := New(Config[*growing]{Bytes: 16 << 10, Grace: time.Second,
		Fetch: func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
		Derive: func(r *cache.Record, _ *Entry[*growing]) *growing {
			g := &growing{}
			vals.Store(r.Authority, g)
			return g
		}})
	const k, y = "https://k.example", "https://y.example"
	now := time.Now()
	good := &cache.Record{Authority: k, Class: status.Success, Body: make([]byte, 2000), FetchedAt: now.Add(-time.Hour), FreshUntil: now}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // y grows, evicting k
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = c.put(y, &cache.Record{Authority: y, Class: status.Success, FetchedAt: now, FreshUntil: now.Add(time.Hour)})
			if v, ok := vals.Load(y); ok {
				v.(*growing).n.Store(13 << 10)
			}
			c.Grow(y, func() bool { return true })
		}
	}()
	for i := range 3000 {
		at := now.Add(time.Duration(i) * time.Millisecond)
		require.NoError(t, c.put(k, &cache.Record{Authority: k, Class: status.Unreachable, Failures: 1, UnreachableSince: now,
			FetchedAt: at, FreshUntil: at.Add(time.Hour), Good: good}))
		c.mu.Lock() // no store runs meanwhile
		o, _ := c.outages.get(k)
		e, held := c.local.get(k)
		c.mu.Unlock()
		if o.Good != nil && held && e.Record().Good == o.Good {
			t.Fatalf("after %d stores: the copy is held by the entry and by the table", i+1)
		}
	}
	close(stop)
	wg.Wait()
}

// A refresh that waits for another process's publication and is
// superseded (by Observe, here) ends at its next poll: its record would not
// be stored, so it makes no fetch once the other's lease runs out.
func TestSupersededPollerEnds(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	fleet := NewSignalFleet()
	var fetches atomic.Int32
	c := New(Config[blob]{Bytes: 1 << 20, Grace: time.Second, Fleet: fleet, Now: func() time.Time { return now },
		Fetch: func(_ context.Context, k string, _ *cache.Record) (*cache.Record, func()) {
			fetches.Add(1)
			return &cache.Record{Authority: k, Class: status.Success, FetchedAt: now, FreshUntil: now.Add(time.Hour)}, nil
		},
		Derive: func(*cache.Record, *Entry[blob]) blob { return nil }})
	const k = "https://a.example"
	_, err := fleet.MemoryFleet.Acquire(context.Background(), k, now, 30*time.Second) // another process fetches
	require.NoError(t, err)
	require.NoError(t, c.put(k, &cache.Record{Authority: k, Class: status.Success, FetchedAt: now.Add(-time.Hour), FreshUntil: now.Add(-time.Minute)}))
	_, served, _, err := c.Lookup(context.Background(), k)
	require.NoError(t, err)
	require.Equal(t, Stale, served, "the refresh waits for the other process")
	fl := c.flightOf(k)
	require.NotNil(t, fl)
	<-fleet.Asked // it asks: held by the other
	<-fleet.Asked // and asks again: it polls
	require.NoError(t, c.put(k, &cache.Record{Authority: k, Class: status.Success, FetchedAt: now, FreshUntil: now.Add(time.Hour)}))
	<-fl.done
	assert.ErrorIs(t, fl.err, errRetry)
	assert.Zero(t, fetches.Load())
}
