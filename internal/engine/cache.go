// Package engine is the cache behind robots.Client: it decides how long
// each authority's robots.txt answers, when to fetch it again, and how
// politely; it runs the fetches, one per authority at a time, and shares
// their records with other processes through a cache.Fleet.
//
// Policy.Next computes the cache.Record that follows a fetch: freshness
// from the caching headers, backoff, the good copy kept through an outage,
// 304 renewals; Policy.Outage says what an outage answers. A Cache holds,
// per authority, the Record and a value derived from it (package robots
// derives compiled rules), in three tiers:
//
//   - local: a byte-bounded LRU whose hits take no lock and allocate nothing;
//   - politeness: the outage state of authorities that fail, with their last
//     good copy once their entry is evicted, kept apart so that both
//     survive the eviction;
//   - fleet (optional): records and fetch leases shared by processes.
//
// When a held entry expires, callers keep getting it while one background
// refresh runs (for at most a grace period, which time queued for a fetch
// slot does not count); only callers of an authority with nothing to serve
// wait.
//
// A flight is one attempt to obtain an authority's next record; at most
// one per authority is current (Cache.flights). Its states, and the lock
// each step takes:
//
//	        c.mu                  c.mu: a slot frees, or a Fleet is set, or Observe
//	join ────────► queued ─────────────────────────────► started ──── c.mu ────► committed
//	                │  ▲            c.mu: a fetch needs a slot │                    (stores)
//	                │  └───────────────────────────────────────┤
//	   c.mu: superseded, or                   c.mu: superseded │
//	   its last waiter left                                    ▼
//	                ▼                                     superseded: runs to its end,
//	        ended: no fetch; its waiters                  answers its waiters, stores
//	        join the current flight                       nothing
//
// A queued flight has no goroutine; a started one has one, which ends with
// it, or runs on the goroutine of the caller who made it when that caller
// would wait for its end anyway (see schedule). A started flight that must
// wait for a slot goes back to queued; one that waits for another process's
// publication ends, as a queued one does, once no one wants it. Invalidate
// and Observe supersede the current flight: a fetch begun before them never
// becomes current. What stores, always under c.mu: a flight's final commit
// (a fetch's record, the fleet's, or Observe's); offer (the fleet's stale
// record, while another process fetches, when nothing is held); keep (an
// outage's answer from the politeness tier, when no flight runs); Seed
// (imported records, when no flight runs).
//
// The engine knows nothing of rules or matching, and makes no HTTP request
// itself: the fetch, and the derivation of values, are its caller's.
//
// Non-goals: expiry in the background (entries expire when read, and a
// refresh ends by itself: nothing to Close), and eviction policies other
// than least recently used.
package engine

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/status"
)

// Config configures a Cache. Fetch and Derive are required.
type Config[V Sizer] struct {
	// Bytes bounds what the cache holds: each entry of the local tier
	// counts its record, its value and its key as they weigh in memory,
	// plus a small constant, and the good copies the politeness tier keeps
	// count too (at most a quarter of Bytes).
	Bytes int64

	// Outages bounds the politeness table, in authorities; zero means
	// DefaultOutages.
	Outages int

	// Fleet, when set, is the tier shared with other processes.
	Fleet cache.Fleet
	// FleetTimeout bounds each operation on the fleet; zero means
	// DefaultFleetTimeout.
	FleetTimeout time.Duration

	// MaxFetches bounds the fetches in flight at once; zero means no bound.
	MaxFetches int

	// Grace is how long an expired entry keeps being served once its
	// refresh has started (time queued for a fetch slot does not count), and
	// how long a flight waits for another process's fetch, two lease terms
	// more. It should be the fetch's timeout.
	Grace time.Duration

	// Lease is the term of the fleet leases a flight takes, renewed while
	// it fetches; zero means DefaultLease.
	Lease time.Duration

	// Bodies is how the entries' records compress their bodies
	// (cache.Record.CompactWith).
	Bodies cache.BodyCodec

	// MaxBody is the largest body accepted in a record from outside the
	// process (a fleet, Seed): the body cap of this process's fetches. Zero
	// means cache.MaxBodyBytes.
	MaxBody int64

	// Policy computes records; Fetch normally uses it, and the Cache does
	// when a fetch fails unexpectedly.
	Policy Policy

	// Now is the clock; nil means time.Now, read more cheaply (see Hit):
	// its readings differ from time.Now's only by the wall clock's own
	// adjustments during the last second.
	Now func() time.Time

	// Fetch fetches key's robots.txt and returns the record that follows
	// held, the record the cache holds for key (nil when none), and, if not
	// nil, a function to run once the record is stored (or refused, when
	// the flight was superseded), before waiting callers get it: there, a
	// caller's hook sees the cache as its callers will, and nothing of the
	// cache reads the record returned any more: its Body's memory may be
	// released there. Fetch runs in a flight of its own, at most one per
	// key at a time, detached from every caller. A panic, or a nil record,
	// counts as a failed fetch.
	Fetch func(ctx context.Context, key string, held *cache.Record) (*cache.Record, func())

	// Derive returns the value to answer with from rec. held is the entry
	// rec replaces, if any, whose value Derive may reuse. rec may be
	// compact or expanded (cache.Record.Compact); the entry stores it
	// compact, so the value must not keep rec, nor any memory of its Body
	// (a fetch's, which Fetch's function may release). A panic is
	// contained: the record then counts as a failed fetch.
	Derive func(rec *cache.Record, held *Entry[V]) V

	// Logger receives contained panics and fleet failures; nil means
	// silent.
	Logger *slog.Logger
}

// DefaultFleetTimeout is the default of Config.FleetTimeout.
const DefaultFleetTimeout = 2 * time.Second

// Served says how Lookup found its answer.
type Served uint8

// The ways of Served.
const (
	// Hit: a fresh entry.
	Hit Served = iota + 1
	// Stale: an expired entry, served while its refresh runs.
	Stale
	// Waited: an entry the caller waited for: fetched, or read from the
	// fleet.
	Waited
)

// Cache holds the tiers and runs the fetches. It is safe for concurrent
// use; its zero value is not: use New.
type Cache[V Sizer] struct {
	cfg     Config[V]
	clock   *clock // the clock when Config.Now is nil
	local   *local[V]
	outages *politeness
	lease   time.Duration // the term of a fleet lease
	breaker breaker       // in front of the fleet
	log     *slog.Logger

	// flights maps a key to its current flight (see flight). It is read
	// without a lock, so that the callers served stale during a refresh do
	// not contend; flights are added, superseded, queued, started and
	// removed under mu, which also orders every store against Observe,
	// Seed and Invalidate.
	flights sync.Map // string -> *flight[V]
	mu      sync.Mutex
	queue   list.List // of *flight[V], waiting for a fetch slot, oldest first; under mu
	running int       // fetch slots taken; under mu
	// sharing holds, for each flight holding a fleet lease, a channel
	// closed once it has published or released it; under mu.
	sharing map[*holding]struct{}

	fleetHits, fleetErrors, fallbacks, leaseLost, panics atomic.Uint64
}

// New returns a Cache configured by cfg.
func New[V Sizer](cfg Config[V]) *Cache[V] {
	var clk *clock
	if cfg.Now == nil {
		clk = new(clock)
		cfg.Now = clk.Now
	}
	if cfg.FleetTimeout <= 0 {
		cfg.FleetTimeout = DefaultFleetTimeout
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = cache.MaxBodyBytes
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	c := &Cache[V]{
		cfg:     cfg,
		clock:   clk,
		local:   newLocal[V](cfg.Bytes),
		outages: newPoliteness(cfg.Outages, cfg.Bytes/copyShare),
		lease:   cfg.Lease,
		log:     cfg.Logger,
	}
	// The good copies of outages count in the budget, and outlive the
	// eviction of their entries.
	c.local.others = &c.outages.copyBytes
	c.local.spill = func(key string, e *Entry[V]) { c.outages.adopt(key, e.Held.Outage()) }
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Lookup returns key's entry for a caller: the fresh one held; else, while
// a refresh runs, the expired one (until the refresh has run for the grace
// period, and only if it is at most freshness.DefaultLifetime old or the
// authority is unreachable, RFC 9309 §2.4); else the outcome of the fetch,
// once it is there. It also returns the time the entry is to be judged at.
// ctx bounds only this caller's wait, never the fetch; the error is ctx's,
// or, should deriving a value fail even for a failed fetch, that failure.
func (c *Cache[V]) Lookup(ctx context.Context, key string) (*Entry[V], Served, time.Time, error) {
	now := c.cfg.Now()
	e, ok := c.local.get(key)
	if ok && e.freshAt(now) {
		return e, Hit, now, nil
	}
	return c.miss(ctx, key, e, now)
}

// Hit returns key's entry when it is held and fresh: Lookup's answer when
// that is a Hit, for less. It reads the clock without building a time.Time,
// on the monotonic clock alone but once a second, so the caller has no
// reading of the time; Now gives one. A Cache with a Config.Now of its own
// has no such reading and reports no hit: ask Lookup.
func (c *Cache[V]) Hit(key string) (*Entry[V], bool) {
	if c.clock == nil {
		return nil, false
	}
	e, ok := c.local.get(key)
	if !ok || !c.clock.before(e.fresh) {
		return nil, false
	}
	return e, true
}

// Now returns the current time on the Cache's clock.
func (c *Cache[V]) Now() time.Time { return c.cfg.Now() }

func (c *Cache[V]) miss(ctx context.Context, key string, held *Entry[V], now time.Time) (*Entry[V], Served, time.Time, error) {
	if held == nil {
		// An authority in backoff whose entry was evicted answers from its
		// outage alone, without a fetch.
		if o, ok := c.outages.get(key); ok && now.Before(o.NextRetry) {
			if e, err := c.derive(o.Record(), nil); err == nil {
				c.keep(o, e)
				return e, Hit, now, nil
			}
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, now, err // no fetch for a caller already gone
		}
		stale := held != nil && servable(held.Held.Outage() != nil, held.Held.FetchedAt(), now)
		fl, fresh, waiting, run := c.join(key, now, stale, ctx.Done() == nil)
		switch {
		case fresh != nil:
			return fresh, Hit, now, nil
		case !waiting:
			return held, Stale, now, nil
		case run:
			c.run(fl) // see schedule: this caller would wait for it to end
		}
		e, served, err := c.wait(ctx, fl)
		if errors.Is(err, errRetry) {
			// The flight ended without a fetch, superseded or left by its
			// callers: what is held may have changed meanwhile.
			held, _ = c.local.get(key)
			now = c.cfg.Now()
			continue
		}
		return e, served, c.cfg.Now(), err
	}
}

// servable reports whether a record fetched at fetchedAt may answer past
// its freshness while it is refreshed: it is at most
// freshness.DefaultLifetime old (RFC 9309 §2.4: a crawler should not use a
// cached robots.txt for more than 24 hours), or it stands for an outage
// (unreachable), which keeps its answer until the authority answers.
func servable(unreachable bool, fetchedAt, now time.Time) bool {
	return unreachable || now.Sub(fetchedAt) <= freshness.DefaultLifetime
}

// join returns key's current flight, starting one if none runs, and
// whether the caller is to wait for it (see await). When a flight ended
// since the caller looked, it returns no flight but the fresh entry that
// flight stored (commits hold c.mu, as join does here), so that the caller
// answers with it instead of the expired entry it saw and no second fetch
// follows the first. run reports that the caller is to run the flight it
// started itself: it may when it waits whatever happens (inline, see
// schedule).
func (c *Cache[V]) join(key string, now time.Time, stale, inline bool) (fl *flight[V], fresh *Entry[V], waiting, run bool) {
	if fl := c.flightOf(key); fl != nil {
		return fl, nil, c.await(fl, now, stale), false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if fl := c.flightOf(key); fl != nil {
		return fl, nil, c.await(fl, now, stale), false
	}
	held, ok := c.local.get(key)
	if ok && held.freshAt(now) {
		return nil, held, false, false
	}
	// A copy: the key is kept with what the flight stores, and the caller's
	// may point into a URL of up to 8 KiB. A refresh takes the one the
	// local tier is keyed by, so that its record and the tier share it.
	var k string
	if a := held.authority(); ok && a == key {
		k = a
	} else {
		k = strings.Clone(key)
	}
	fl = c.newFlight(k)
	fl.refresh = ok
	waiting = c.await(fl, now, stale)
	c.flights.Store(fl.key, fl)
	run = c.schedule(fl, now, inline && waiting)
	return fl, nil, waiting, run
}

// flightOf returns key's current flight, nil when none runs.
func (c *Cache[V]) flightOf(key string) *flight[V] {
	if v, ok := c.flights.Load(key); ok {
		return v.(*flight[V])
	}
	return nil
}

// await reports whether a caller of fl is to wait for it, and counts it
// among fl's waiters if so: it is not when stale, its entry may be served
// stale, and fl is within its grace (queued, or started less than the grace
// ago).
func (c *Cache[V]) await(fl *flight[V], now time.Time, stale bool) bool {
	if stale && fl.inGrace(now, c.cfg.Grace) {
		return false
	}
	fl.waiters.Add(1)
	return true
}

// wait waits, as one of fl's waiters, for its outcome, or a stale copy it
// offers, or the end of ctx.
func (c *Cache[V]) wait(ctx context.Context, fl *flight[V]) (*Entry[V], Served, error) {
	select {
	case <-fl.done:
		fl.waiters.Add(-1)
	case <-fl.early:
		select {
		case <-fl.done:
			fl.waiters.Add(-1)
		default:
			c.leave(fl)
			return fl.stale, Stale, nil
		}
	case <-ctx.Done():
		c.leave(fl)
		return nil, 0, ctx.Err()
	}
	if fl.err != nil {
		return nil, 0, fl.err
	}
	return fl.entry, Waited, nil
}

// run is a flight once started: it looks again, obtains the record (from the
// fleet or a fetch), derives its value and stores it, unless the flight was
// superseded meanwhile. A flight queued on its way (for a fetch slot, see
// park) runs again from the start when it gets one.
func (c *Cache[V]) run(fl *flight[V]) {
	// A flight that ended while this one was being set up, or queued, may
	// have stored a fresh entry already.
	held, _ := c.local.get(fl.key)
	if held != nil && held.freshAt(c.cfg.Now()) {
		c.releaseSlot(fl)
		c.mu.Lock()
		c.flights.CompareAndDelete(fl.key, fl)
		c.mu.Unlock()
		fl.entry = held
		close(fl.done)
		return
	}
	var heldRec *cache.Record
	if held != nil {
		heldRec = held.Record()
	} else if o, ok := c.outages.get(fl.key); ok {
		heldRec = o.Record()
	}
	rec, after, ok := c.obtain(fl, heldRec)
	if !ok {
		return // queued for a slot, or ended
	}
	e, err := c.derive(rec, held)
	derived := err == nil // what is stored is the record obtained, to publish
	if err != nil {
		if e, err = c.derive(c.failed(fl.key, heldRec), held); err != nil {
			c.mu.Lock()
			c.flights.CompareAndDelete(fl.key, fl)
			c.mu.Unlock()
			fl.err = err
		}
	}
	if err == nil {
		fl.entry = e
		c.commit(fl, e, true)
	}
	if after != nil {
		c.contain("Fetch's after function", fl.key, after)
	}
	close(fl.done)
	// Off the callers' path: they have their answer.
	if fl.lease != nil {
		if !derived {
			// What was stored is not the fetch's record (deriving it
			// failed): publish nothing.
			l, _ := fl.lease.end()
			c.release(l)
		} else {
			// What was stored, which owns its memory (rec's body is the
			// fetch's), expanded: a Fleet reads Body and Header.
			c.share(fl, e.Record().Expand())
		}
		c.shared(fl.lease)
	}
}

// obtain returns the record that follows held for fl's key: from the fleet,
// or from a fetch, with what to run once it is stored; fl no longer holds a
// fetch slot then. It reports false when fl did not get that far: it is
// queued for a fetch slot (dispatch runs it again), or ended.
func (c *Cache[V]) obtain(fl *flight[V], held *cache.Record) (*cache.Record, func(), bool) {
	if c.cfg.Fleet == nil || fl.local {
		// schedule, dispatch or fallback gave the flight its slot.
		rec, after := c.fetch(fl.key, held)
		c.releaseSlot(fl)
		return rec, after, true
	}
	return c.viaFleet(fl, held)
}

// fetch runs Config.Fetch; the caller holds a slot. A panic or a nil
// record is a failed fetch.
func (c *Cache[V]) fetch(key string, held *cache.Record) (rec *cache.Record, after func()) {
	defer func() {
		if p := recover(); p != nil {
			c.panics.Add(1)
			c.log.Error("robots: robots.txt fetch panicked", "authority", key, "panic", p)
			rec, after = nil, nil
		}
		if rec == nil {
			rec = c.failed(key, held)
		}
	}()
	return c.cfg.Fetch(context.Background(), key, held)
}

// failed returns the record of a fetch of key that failed unexpectedly.
func (c *Cache[V]) failed(key string, held *cache.Record) *cache.Record {
	now := c.cfg.Now()
	return c.cfg.Policy.Next(key, held, nil, status.Classify(nil, now), now)
}

// commit stores e for fl's key unless fl was superseded, and reports whether
// it did. The final commit of a flight also ends its turn in the table,
// under the same lock: from then on a caller finds e, or, if e has expired
// already, starts a new flight, never joining this one while it ends.
func (c *Cache[V]) commit(fl *flight[V], e *Entry[V], final bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if final {
		c.flights.CompareAndDelete(fl.key, fl)
	}
	return !fl.superseded && c.store(fl.key, e)
}

// store puts e in the local tier and notes the politeness state of its
// record; c.mu is held. It reports whether the local tier kept e: when it
// did not (e alone is larger than its room), the politeness tier keeps the
// record's good copy, if any.
func (c *Cache[V]) store(key string, e *Entry[V]) bool {
	return c.local.put(key, e, func(kept bool) { c.outages.note(key, e.Held.Outage(), !kept) })
}

// keep stores e, made from the outage o alone, unless something has come
// since: a flight, an entry, or a change of the outage (Observe, Seed,
// Invalidate).
func (c *Cache[V]) keep(o Outage, e *Entry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flightOf(o.key) != nil {
		return
	}
	if _, ok := c.local.get(o.key); ok {
		return
	}
	if cur, ok := c.outages.get(o.key); ok && cur == o {
		c.store(o.key, e) // the table's key: never a caller's
	}
}

// supersede ends the current generation of key: its flight, if any, will
// not store its result, and, if it is queued, ends at once, without a
// fetch. c.mu is held.
func (c *Cache[V]) supersede(key string) {
	if v, ok := c.flights.LoadAndDelete(key); ok {
		fl := v.(*flight[V])
		fl.superseded = true
		if fl.queued != nil {
			c.end(fl)
		}
	}
}

// derive makes the entry of rec, containing a panic of Config.Derive. The
// entry holds rec compact (see cache.Record.CompactWith: the body held is
// kept when rec brings it again). The value is derived from rec as it comes
// (a fetch's record is expanded, so its body is read without decompressing
// it), or from the compact copy when that shares the body held.
func (c *Cache[V]) derive(rec *cache.Record, held *Entry[V]) (e *Entry[V], err error) {
	defer func() {
		if p := recover(); p != nil {
			c.panics.Add(1)
			c.log.Error("robots: deriving a cache entry panicked", "authority", rec.Authority, "panic", p)
			e, err = nil, fmt.Errorf("robots: deriving the entry of %s panicked: %v", rec.Authority, p)
		}
	}()
	var like *cache.Record
	if held != nil {
		like = held.Record().GoodCopy()
	}
	stored := rec.CompactWith(like, c.cfg.Bodies)
	if stored.SameBody(like) {
		// The file held, fetched again: derived from the compact copy,
		// which shares its body, what was derived of it is found again
		// without decompressing.
		rec = stored
	}
	v := c.cfg.Derive(rec, held)
	return newEntry(stored, v), nil
}

// contain runs fn, containing a panic.
func (c *Cache[V]) contain(what, key string, fn func()) {
	defer func() {
		if p := recover(); p != nil {
			c.panics.Add(1)
			c.log.Error("robots: "+what+" panicked", "authority", key, "panic", p)
		}
	}()
	fn()
}

// Held returns the record held for key, fresh or not: the local tier's, or
// the record of its outage; nil when there is none.
func (c *Cache[V]) Held(key string) *cache.Record {
	if e, ok := c.local.get(key); ok {
		return e.Record()
	}
	if o, ok := c.outages.get(key); ok {
		return o.Record()
	}
	return nil
}

// Observe stores the record next makes of what is held for key (nil when
// nothing is), as a fetch's result is stored: in a flight of its own, which
// starts a new generation. A flight under way for key will not store its
// result, and nothing else stores for key while next runs, so what next
// builds on is still current when its record is stored, unless Invalidate
// or another Observe came meanwhile. Callers who ask meanwhile wait
// for it, or are served the expired entry held. An error of next (a nil
// record, a panic, contained) or a panic deriving the value stores nothing
// and is returned; callers waiting then join the current flight.
func (c *Cache[V]) Observe(key string, next func(held *cache.Record) (*cache.Record, error)) error {
	fl := c.newFlight(strings.Clone(key)) // kept: it must not hold the caller's string alive
	c.mu.Lock()
	c.supersede(fl.key)
	c.flights.Store(fl.key, fl)
	fl.begin(c.cfg.Now())
	c.mu.Unlock()
	held := c.Held(fl.key)
	heldEntry, _ := c.local.get(fl.key)
	rec, err := c.observed(fl.key, held, next)
	var e *Entry[V]
	if err == nil {
		e, err = c.derive(rec, heldEntry)
	}
	if err != nil {
		c.mu.Lock()
		c.end(fl)
		c.mu.Unlock()
		return err
	}
	fl.entry = e
	c.commit(fl, e, true)
	close(fl.done)
	return nil
}

// observed runs Observe's next, containing a panic as an error.
func (c *Cache[V]) observed(key string, held *cache.Record, next func(*cache.Record) (*cache.Record, error)) (rec *cache.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.panics.Add(1)
			c.log.Error("robots: making an observed record panicked", "authority", key, "panic", p)
			rec, err = nil, fmt.Errorf("robots: making the observed record of %s panicked: %v", key, p)
		}
	}()
	if rec, err = next(held); err == nil && rec == nil {
		err = fmt.Errorf("robots: no record observed for %s", key)
	}
	return rec, err
}

// Grow runs grow, which may make the value held for key larger (such as
// rules compiled lazily for another set of agents: see Sizer), then, if it
// reports so, counts the entry held for key again and evicts the least
// recently used entries to stay within the budget; the entry becomes the
// most recently used. An entry grown past the room the budget has is
// dropped, as a store would drop it. Grow reports whether key's entry is
// held afterwards.
//
// It measures whatever entry is held for key, which need not be the one
// whose value grew: Derive may have reused that value for the entry that
// replaced it, which the budget then counts at its full size.
func (c *Cache[V]) Grow(key string, grow func() bool) bool {
	if !grow() {
		_, ok := c.local.get(key)
		return ok
	}
	return c.local.resize(key)
}

// Flush waits until the flights that held a fleet lease when it was called
// have published their records or released the lease (their callers were
// answered before), or until ctx ends, and returns ctx's error then.
func (c *Cache[V]) Flush(ctx context.Context) error {
	c.mu.Lock()
	pending := make([]chan struct{}, 0, len(c.sharing))
	for h := range c.sharing {
		pending = append(pending, h.shared)
	}
	c.mu.Unlock()
	for _, ch := range pending {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Invalidate forgets key: its entry, its politeness state, and the result
// of a fetch under way, which will not be stored.
func (c *Cache[V]) Invalidate(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.supersede(key)
	c.local.delete(key)
	c.outages.delete(key)
}

// Stats are a Cache's figures.
type Stats struct {
	// Entries are the entries of the local tier now. Bytes is what the
	// budget holds: the entries, and the good copies of outages whose
	// entries were evicted; Budget is its bound. Evictions counts entries
	// evicted to make room.
	Entries   int
	Bytes     int64
	Budget    int64
	Evictions uint64
	// Outages is the number of authorities in the politeness table.
	Outages int
	// Queued is the number of flights waiting for a fetch slot now.
	Queued int
	// FleetDown reports that the breaker is open: the fleet failed
	// repeatedly and is skipped, but for a probe per interval.
	FleetDown bool
	// FleetHits counts records taken from the fleet instead of a fetch.
	FleetHits uint64
	// FleetErrors counts failed fleet operations, panics and untrustworthy
	// records included.
	FleetErrors uint64
	// FleetFallbacks counts fetches made because the fleet failed, or
	// another process's fetch never came.
	FleetFallbacks uint64
	// LeasesLost counts fetches whose lease ran out before publishing.
	LeasesLost uint64
	// Panics counts panics contained: of a fetch, a derivation, the fleet.
	Panics uint64
}

// Stats returns the Cache's figures now.
func (c *Cache[V]) Stats() Stats {
	c.mu.Lock()
	queued := c.queue.Len()
	c.mu.Unlock()
	return Stats{
		Entries:        c.local.len(),
		Bytes:          c.local.bytes.Load() + c.outages.copyBytes.Load(),
		Budget:         c.local.budget,
		Evictions:      c.local.evicted.Load(),
		Outages:        c.outages.len(),
		Queued:         queued,
		FleetDown:      c.breaker.open(),
		FleetHits:      c.fleetHits.Load(),
		FleetErrors:    c.fleetErrors.Load(),
		FleetFallbacks: c.fallbacks.Load(),
		LeasesLost:     c.leaseLost.Load(),
		Panics:         c.panics.Load(),
	}
}
