// Package engine is the cache behind robots.Client: it decides how long
// each authority's robots.txt answers, when to fetch it again, and how
// politely; it runs the fetches, one per authority at a time, and shares
// their records with other processes through a cache.Fleet.
//
// Policy.Next computes the cache.Record that follows a fetch: freshness from
// the caching headers, backoff, the good copy kept through an outage, 304
// renewals. A Cache holds, per authority, the Record and a value derived
// from it (package robots derives compiled rules), in three tiers:
//
//   - local: a byte-bounded LRU whose hits take no lock and allocate nothing;
//   - politeness: the outage state of authorities that fail, kept apart so
//     that it survives the eviction of their records;
//   - fleet (optional): records and fetch leases shared by processes.
//
// When a held entry expires, callers keep getting it while one background
// refresh runs (for at most a grace period); only callers of an authority
// with nothing to serve wait. Invalidate and Put start a new generation: a
// fetch begun before them never becomes current.
//
// The engine knows nothing of rules or matching, and makes no HTTP request
// itself: the fetch, and the derivation of values, are its caller's.
//
// Non-goals: expiry in the background (entries expire when read, and a
// refresh ends by itself: nothing to Close), and eviction policies other
// than least recently used.
package engine

import (
	"context"
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
	// Bytes bounds the local tier: each entry counts its record, its value
	// and its key as they weigh in memory, plus a small constant.
	Bytes int64

	// Outages bounds the politeness table; zero means DefaultOutages.
	Outages int

	// Fleet, when set, is the tier shared with other processes.
	Fleet cache.Fleet
	// FleetTimeout bounds each operation on the fleet; zero means
	// DefaultFleetTimeout.
	FleetTimeout time.Duration

	// MaxFetches bounds the fetches in flight at once; zero means no bound.
	MaxFetches int

	// Grace is how long an expired entry keeps being served once its
	// refresh has started (time queued for a fetch slot does not count); a
	// fleet lease lasts Grace plus LeaseMargin. It should be the fetch's
	// timeout.
	Grace time.Duration

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
	// caller's hook sees the cache as its callers will. Fetch runs in a
	// flight of its own, at most one per key at a time, detached from every
	// caller. A panic, or a nil record, counts as a failed fetch.
	Fetch func(ctx context.Context, key string, held *cache.Record) (*cache.Record, func())

	// Derive returns the value to answer with from rec. held is the entry
	// rec replaces, if any, whose value Derive may reuse. A panic is
	// contained: the record then counts as a failed fetch.
	Derive func(rec *cache.Record, held *Entry[V]) V

	// Logger receives contained panics and fleet failures; nil means
	// silent.
	Logger *slog.Logger
}

// Defaults of Config.
const (
	DefaultFleetTimeout = 2 * time.Second
	// LeaseMargin is what a fleet lease lasts beyond Config.Grace: the
	// time a holder has to publish after its fetch timed out.
	LeaseMargin = 5 * time.Second
)

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
	slots   chan struct{} // nil: no bound
	lease   time.Duration
	log     *slog.Logger

	// flights maps a key to its flight. It is read without a lock, so that
	// the callers served stale during a refresh do not contend; flights are
	// added, superseded, and removed at their final commit under mu, which
	// also orders every store against Put and Invalidate.
	flights sync.Map // string -> *flight[V]
	mu      sync.Mutex

	fleetHits, fleetErrors, fallbacks, leaseLost, panics atomic.Uint64
}

// flight is one fetch of an authority and the callers waiting on it.
type flight[V Sizer] struct {
	started atomic.Pointer[time.Time] // when its fetch began; nil while queued for a slot
	done    chan struct{}             // closed when entry or err is set
	early   chan struct{}             // closed when stale is set
	entry   *Entry[V]
	stale   *Entry[V] // a copy to serve until done, from the fleet
	err     error

	superseded bool // by Invalidate or Put: its result is not stored; under Cache.mu
}

// begin records that the flight's fetch starts at now: its grace runs from
// then.
func (fl *flight[V]) begin(now time.Time) { fl.started.Store(&now) }

// inGrace reports whether an expired entry may still be served at now
// while fl runs: it has not started its fetch yet (it is queued), or
// started less than grace ago.
func (fl *flight[V]) inGrace(now time.Time, grace time.Duration) bool {
	st := fl.started.Load()
	return st == nil || now.Sub(*st) < grace
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
	c := &Cache[V]{
		cfg:     cfg,
		clock:   clk,
		local:   newLocal[V](cfg.Bytes),
		outages: newPoliteness(cfg.Outages),
		lease:   cfg.Grace + LeaseMargin,
		log:     cfg.Logger,
	}
	if cfg.MaxFetches > 0 {
		c.slots = make(chan struct{}, cfg.MaxFetches)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Lookup returns key's entry for a caller: the fresh one held; else, while
// a refresh runs, the expired one (until the refresh has run for the grace
// period, and only if it is at most freshness.DefaultLifetime old or the authority is
// unreachable, RFC 9309 §2.4); else the outcome of the fetch, once it is
// there. It also returns the time the entry is to be judged at. ctx bounds
// only this caller's wait, never the fetch; the error is ctx's, or, should
// deriving a value fail even for a failed fetch, that failure.
func (c *Cache[V]) Lookup(ctx context.Context, key string) (*Entry[V], Served, time.Time, error) {
	now := c.cfg.Now()
	e, ok := c.local.get(key)
	if ok && e.Record.Fresh(now) {
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
		// An authority in backoff whose record was evicted answers from
		// its outage alone, without a fetch.
		if o, ok := c.outages.get(key); ok && now.Before(o.NextRetry) {
			if e, err := c.derive(o.Record(key), nil); err == nil {
				c.keep(key, o, e)
				return e, Hit, now, nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, now, err // no fetch for a caller already gone
	}
	fl, stored := c.join(key, now)
	if fl == nil {
		return stored, Hit, now, nil
	}
	if held != nil && servable(held.Record, now) && fl.inGrace(now, c.cfg.Grace) {
		return held, Stale, now, nil
	}
	select {
	case <-fl.done:
	case <-fl.early:
		select {
		case <-fl.done:
		default:
			return fl.stale, Stale, c.cfg.Now(), nil
		}
	case <-ctx.Done():
		return nil, 0, now, ctx.Err()
	}
	if fl.err != nil {
		return nil, 0, now, fl.err
	}
	return fl.entry, Waited, c.cfg.Now(), nil
}

// servable reports whether r may answer past its freshness while it is
// refreshed: it is at most freshness.DefaultLifetime old (RFC 9309 §2.4: a crawler
// should not use a cached robots.txt for more than 24 hours), or it stands
// for an outage, which keeps its answer until the authority answers.
func servable(r *cache.Record, now time.Time) bool {
	return r.Unreachable() || now.Sub(r.FetchedAt) <= freshness.DefaultLifetime
}

// join returns the flight of key, starting one if none runs. Without a
// bound on fetches, nothing can hold a flight back: it begins at once. When
// a flight ended since the caller looked, it returns no flight but the
// fresh entry that flight stored (commits hold c.mu, as join does here), so
// that the caller answers with it instead of the expired entry it saw and
// no second fetch follows the first.
func (c *Cache[V]) join(key string, now time.Time) (*flight[V], *Entry[V]) {
	if fl, ok := c.flights.Load(key); ok {
		return fl.(*flight[V]), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if fl, ok := c.flights.Load(key); ok {
		return fl.(*flight[V]), nil
	}
	if e, ok := c.local.get(key); ok && e.Record.Fresh(now) {
		return nil, e
	}
	// A copy: the key is kept with what the flight stores, and the caller's
	// may point into a URL of up to 8 KiB.
	key = strings.Clone(key)
	fl := &flight[V]{done: make(chan struct{}), early: make(chan struct{})}
	if c.slots == nil {
		fl.begin(now)
	}
	c.flights.Store(key, fl)
	go c.run(key, fl)
	return fl, nil
}

// run is the flight of key: it looks again, obtains the record (from the
// fleet or a fetch), derives its value and stores it, unless the flight was
// superseded meanwhile.
func (c *Cache[V]) run(key string, fl *flight[V]) {
	defer func() {
		c.flights.CompareAndDelete(key, fl) // if it ended without a final commit
		close(fl.done)
	}()
	// A flight that ended while this one was being set up may have stored
	// a fresh entry already.
	held, _ := c.local.get(key)
	if held != nil && held.Record.Fresh(c.cfg.Now()) {
		fl.entry = held
		return
	}
	var heldRec *cache.Record
	if held != nil {
		heldRec = held.Record
	} else if o, ok := c.outages.get(key); ok {
		heldRec = o.Record(key)
	}
	rec, after := c.obtain(key, heldRec, fl)
	if after != nil {
		defer c.contain("Fetch's after function", key, after)
	}
	e, err := c.derive(rec, held)
	if err != nil {
		if e, err = c.derive(c.failed(key, heldRec), held); err != nil {
			fl.err = err
			return
		}
	}
	fl.entry = e
	c.commit(key, fl, e, true)
}

// failed returns the record of a fetch of key that failed unexpectedly.
func (c *Cache[V]) failed(key string, held *cache.Record) *cache.Record {
	now := c.cfg.Now()
	return c.cfg.Policy.Next(key, held, nil, status.Classify(nil, now), now)
}

// commit stores e for key unless fl was superseded, and reports whether it
// did. The final commit of a flight also ends its turn in the table, under
// the same lock: from then on a caller finds e, or, if e has expired
// already, starts a new flight, never joining this one while it ends.
func (c *Cache[V]) commit(key string, fl *flight[V], e *Entry[V], final bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if final {
		c.flights.CompareAndDelete(key, fl)
	}
	return !fl.superseded && c.store(key, e)
}

// store puts e in the local tier and notes the politeness state of its
// record; c.mu is held. It reports whether the local tier kept e.
func (c *Cache[V]) store(key string, e *Entry[V]) bool {
	c.outages.note(key, e.Record)
	return c.local.put(key, e)
}

// keep stores e, made from key's outage o alone, unless something has come
// since: a flight, an entry, or a change of the outage (Put, Invalidate).
func (c *Cache[V]) keep(key string, o Outage, e *Entry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.flights.Load(key); ok {
		return
	}
	if _, ok := c.local.get(key); ok {
		return
	}
	if cur, ok := c.outages.get(key); ok && cur == o {
		c.local.put(strings.Clone(key), e)
	}
}

// supersede ends the current generation of key: its flight, if any, will
// not store its result. c.mu is held.
func (c *Cache[V]) supersede(key string) {
	if fl, ok := c.flights.LoadAndDelete(key); ok {
		fl.(*flight[V]).superseded = true
	}
}

// derive makes the entry of rec, containing a panic of Config.Derive.
func (c *Cache[V]) derive(rec *cache.Record, held *Entry[V]) (e *Entry[V], err error) {
	defer func() {
		if p := recover(); p != nil {
			c.panics.Add(1)
			c.log.Error("robots: deriving a cache entry panicked", "authority", rec.Authority, "panic", p)
			e, err = nil, fmt.Errorf("robots: deriving the entry of %s panicked: %v", rec.Authority, p)
		}
	}()
	return &Entry[V]{Record: rec, Value: c.cfg.Derive(rec, held), fresh: deadlineOf(rec.FreshUntil)}, nil
}

// obtain returns the record that follows held for key: from the fleet, or
// from a fetch, with what to run once it is stored.
func (c *Cache[V]) obtain(key string, held *cache.Record, fl *flight[V]) (*cache.Record, func()) {
	if c.cfg.Fleet == nil {
		c.acquireSlot()
		defer c.releaseSlot()
		if c.slots != nil {
			fl.begin(c.cfg.Now())
		}
		return c.fetch(key, held)
	}
	return c.viaFleet(key, held, fl)
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

func (c *Cache[V]) acquireSlot() {
	if c.slots != nil {
		c.slots <- struct{}{}
	}
}

func (c *Cache[V]) tryAcquireSlot() bool {
	if c.slots == nil {
		return true
	}
	select {
	case c.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

func (c *Cache[V]) releaseSlot() {
	if c.slots != nil {
		<-c.slots
	}
}

// Held returns the record held for key, fresh or not: the local tier's, or
// the record of its outage; nil when there is none.
func (c *Cache[V]) Held(key string) *cache.Record {
	if e, ok := c.local.get(key); ok {
		return e.Record
	}
	if o, ok := c.outages.get(key); ok {
		return o.Record(key)
	}
	return nil
}

// Put stores rec for key as current, whatever is held or under way: a
// flight already running for key will not store its result. It fails only
// when deriving the value panics.
func (c *Cache[V]) Put(key string, rec *cache.Record) error {
	key = strings.Clone(key) // kept: it must not hold the caller's string alive
	held, _ := c.local.get(key)
	e, err := c.derive(rec, held)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.supersede(key)
	c.store(key, e)
	return nil
}

// Resize counts key's entry again after its value changed size (see
// Sizer), and evicts the least recently used entries to stay within the
// byte budget; the entry itself becomes the most recently used. An entry
// grown past the whole budget is dropped, as Lookup's store would drop it.
// Resize reports whether key's entry is held afterwards; it does nothing
// when none is.
//
// Whatever entry is held for key is measured, which need not be the one
// whose value grew: Derive may have reused that value for the entry that
// replaced it. A value that grows must therefore call Resize after each
// growth, and the budget then counts it, however growth and stores
// interleave.
func (c *Cache[V]) Resize(key string) bool {
	return c.local.resize(key)
}

// Seed adds records known from elsewhere, such as an export: each one that
// is newer than what is held for its authority, when no fetch of it is
// under way. Their times stand: a fresh one answers until its freshness
// ends, an expired one is refetched. A record whose body is larger than
// MaxBody is refused: Seed then returns an error wrapping
// cache.ErrMalformedRecord and adds nothing, as it does when deriving a value
// fails. It returns how many records the local tier or the politeness table
// took.
func (c *Cache[V]) Seed(recs []*cache.Record) (int, error) {
	var entries []*Entry[V]
	for _, r := range recs {
		if int64(len(r.Body)) > c.cfg.MaxBody || r.Good != nil && int64(len(r.Good.Body)) > c.cfg.MaxBody {
			return 0, fmt.Errorf("%w: the record of %q holds a body over the cap of %d bytes", cache.ErrMalformedRecord, r.Authority, c.cfg.MaxBody)
		}
	}
	for _, r := range recs {
		if !c.isNewer(r) {
			continue // not worth compiling
		}
		e, err := c.derive(r, nil)
		if err != nil {
			return 0, err
		}
		entries = append(entries, e)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	added := 0
	for _, e := range entries {
		key := e.Record.Authority
		if _, running := c.flights.Load(key); running || !c.isNewer(e.Record) {
			continue
		}
		if c.store(key, e) || e.Record.Unreachable() {
			added++
		}
	}
	return added, nil
}

// isNewer reports whether r was fetched after what is held for its
// authority.
func (c *Cache[V]) isNewer(r *cache.Record) bool {
	if cur, ok := c.local.get(r.Authority); ok && !cur.Record.FetchedAt.Before(r.FetchedAt) {
		return false
	}
	if o, ok := c.outages.get(r.Authority); ok && !o.Last.Before(r.FetchedAt) {
		return false
	}
	return true
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

// Records returns every record held: the local tier's, least recently used
// first, then, for authorities whose record was evicted, the record of
// their outage.
func (c *Cache[V]) Records() []*cache.Record {
	keys, entries := c.local.snapshot()
	held := make(map[string]bool, len(keys))
	out := make([]*cache.Record, 0, len(entries))
	for i, e := range entries {
		held[keys[i]] = true
		out = append(out, e.Record)
	}
	okeys, outages := c.outages.snapshot()
	for i, k := range okeys {
		if !held[k] {
			out = append(out, outages[i].Record(k))
		}
	}
	return out
}

// Stats are a Cache's figures.
type Stats struct {
	// Entries and Bytes are what the local tier holds now; Budget is its
	// bound. Evictions counts entries evicted to make room.
	Entries   int
	Bytes     int64
	Budget    int64
	Evictions uint64
	// Outages is the number of authorities in the politeness table.
	Outages int
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
	return Stats{
		Entries:        c.local.len(),
		Bytes:          c.local.bytes.Load(),
		Budget:         c.local.budget,
		Evictions:      c.local.evicted.Load(),
		Outages:        c.outages.len(),
		FleetHits:      c.fleetHits.Load(),
		FleetErrors:    c.fleetErrors.Load(),
		FleetFallbacks: c.fallbacks.Load(),
		LeasesLost:     c.leaseLost.Load(),
		Panics:         c.panics.Load(),
	}
}
