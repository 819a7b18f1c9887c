package engine

import (
	"container/list"
	"errors"
	"sync/atomic"
	"time"
)

// A flight is one attempt to obtain an authority's next record, and the
// callers waiting for it: its states are drawn in the package's doc. A
// queued flight waits in Cache.queue, with no goroutine, until a slot frees;
// its time there counts neither against the grace of the entry it
// refreshes nor against a fleet lease. A refresh (a flight for an authority
// whose entry is held) stays queued with no waiter, since its callers were
// answered with the entry held and left; if that entry is evicted
// meanwhile, the refresh ends without a fetch when its turn comes.
type flight[V Sizer] struct {
	key     string                    // the flight's own copy of the authority
	started atomic.Pointer[time.Time] // when its fetch began; nil while queued
	done    chan struct{}             // closed when entry or err is set
	early   chan struct{}             // closed when stale is set; nil without a Fleet, which alone offers one
	entry   *Entry[V]
	stale   *Entry[V] // a copy to serve until done, from the fleet
	err     error     // errRetry: ended without a result; join again

	waiters atomic.Int32 // callers waiting on done

	// first is when the flight's first fetch began, which started points
	// to; written once, by the begin that set firstSet, before started
	// publishes it. A flight that waited for a slot since begins again
	// with a time of its own (see begin).
	firstSet atomic.Bool
	first    time.Time

	// The fields below are ordered so that a flight takes 128 bytes, a size
	// class of the allocator.

	// Under Cache.mu:
	refresh    bool // an entry was held for the authority: run with no waiter while it still is
	superseded bool // by Invalidate or Observe: its result is not stored
	slot       bool // it holds a fetch slot

	// local is set by the flight before it queues for a slot after the
	// fleet failed it: it fetches without asking the fleet again.
	local bool

	queued *list.Element // its place in Cache.queue, nil when not queued; under Cache.mu

	// lease is the fleet lease the flight holds for its fetch, set by its
	// own goroutine: it publishes once its callers have their answer.
	lease *holding
}

// errRetry ends a flight that made no fetch: it was superseded while
// queued, or its last waiter left, or an Observe failed. Callers waiting on
// it join the authority's current flight instead.
var errRetry = errors.New("the flight ended without a result")

// newFlight returns a new flight for key. It has a channel for an early
// answer only with a Fleet: waiting on a nil one never ends.
func (c *Cache[V]) newFlight(key string) *flight[V] {
	fl := &flight[V]{key: key, done: make(chan struct{})}
	if c.cfg.Fleet != nil {
		fl.early = make(chan struct{})
	}
	return fl
}

// begin records that the flight's fetch starts at now: its grace runs from
// then. The first time, now is kept in the flight itself, which saves
// every flight an allocation; should it begin again (after waiting for a
// slot), a reader may still hold the earlier time, which is never written
// again: now gets memory of its own.
func (fl *flight[V]) begin(now time.Time) {
	if fl.firstSet.CompareAndSwap(false, true) {
		fl.first = now
		fl.started.Store(&fl.first)
		return
	}
	again := now // not now itself, which would move to the heap on every call
	fl.started.Store(&again)
}

// inGrace reports whether an expired entry may still be served at now
// while fl runs: it has not started its fetch yet (it is queued), or
// started less than grace ago.
func (fl *flight[V]) inGrace(now time.Time, grace time.Duration) bool {
	st := fl.started.Load()
	return st == nil || now.Sub(*st) < grace
}

// wanted reports whether fl still has a reason to fetch: a waiter, or an
// entry held that it refreshes (not one evicted since). c.mu is held.
func (c *Cache[V]) wanted(fl *flight[V]) bool {
	if fl.waiters.Load() > 0 {
		return true
	}
	return fl.refresh && c.local.has(fl.key)
}

// schedule starts fl, new in the table, or queues it for a slot; c.mu is
// held. With a Fleet, a flight starts at once: it asks the fleet before it
// needs a slot, and asks for one only to fetch.
//
// inline says that the caller who made fl waits for it until it ends,
// whatever happens (its context cannot end): then, when fl gets a slot at
// once and there is no Fleet, schedule reports true and the caller runs fl
// itself, once c.mu is released, rather than in a goroutine of its own.
// Nothing changes for anyone else: other callers wait on fl.done as they
// would, and may leave when their context ends. The caller saves the
// goroutine, its stack growing through a fetch, parse and compile, and the
// hand-off of the answer back to it. With a Fleet a flight may answer its
// waiters early with a stale copy, so it always runs on its own.
func (c *Cache[V]) schedule(fl *flight[V], now time.Time, inline bool) (run bool) {
	if c.cfg.Fleet == nil && !c.takeSlot(fl) {
		fl.queued = c.queue.PushBack(fl)
		return false
	}
	if inline && c.cfg.Fleet == nil {
		fl.begin(now)
		return true
	}
	c.start(fl, now)
	return false
}

// start runs fl in a goroutine of its own; c.mu is held.
func (c *Cache[V]) start(fl *flight[V], now time.Time) {
	fl.begin(now)
	go c.runGrown(fl)
}

// flightStack is the stack a flight's goroutine grows to before it runs:
// what a fetch, parse and compile of a robots.txt reach, with room to spare.
const flightStack = 12 << 10

// runGrown runs fl in a goroutine of its own, its stack grown first. A
// goroutine starts with a small stack, which the runtime doubles, copying
// it, each time a call needs more: a flight would grow it three times, the
// later copies the costlier as the stack fills. growStack takes what the
// flight will need in one step, while the stack holds a frame or two.
func (c *Cache[V]) runGrown(fl *flight[V]) {
	growStack(0)
	c.run(fl)
}

// growStack has a frame of flightStack bytes, which grows the stack of its
// goroutine to hold that much, if it is smaller, on its way in. It returns
// a byte of the frame, indexed by i, so that the frame is kept.
//
//go:noinline
func growStack(i int) byte {
	var frame [flightStack]byte
	frame[i%flightStack] = 1
	return frame[(i+1)%flightStack]
}

// takeSlot gives fl a fetch slot if one is free; c.mu is held.
func (c *Cache[V]) takeSlot(fl *flight[V]) bool {
	if c.cfg.MaxFetches > 0 && c.running >= c.cfg.MaxFetches {
		return false
	}
	c.running++
	fl.slot = true
	return true
}

// releaseSlot gives back fl's slot, if it holds one, and starts the
// flights queued for it.
func (c *Cache[V]) releaseSlot(fl *flight[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if fl.slot {
		fl.slot = false
		c.running--
		c.dispatch()
	}
}

// dispatch starts queued flights while slots are free; c.mu is held. A
// flight no one wants any more (a refresh whose entry was evicted while it
// waited) ends instead, without a fetch.
func (c *Cache[V]) dispatch() {
	for c.queue.Len() > 0 && (c.cfg.MaxFetches <= 0 || c.running < c.cfg.MaxFetches) {
		fl := c.queue.Front().Value.(*flight[V])
		if !c.wanted(fl) {
			c.end(fl)
			continue
		}
		c.queue.Remove(fl.queued)
		fl.queued = nil
		c.takeSlot(fl)
		c.start(fl, c.cfg.Now())
	}
}

// park queues fl, started, for a fetch slot, and reports whether it did:
// a flight that was superseded, or that no one wants any more, ends
// instead. c.mu is held.
func (c *Cache[V]) park(fl *flight[V]) bool {
	if c.takeSlot(fl) {
		return true
	}
	if fl.superseded || !c.wanted(fl) {
		c.end(fl)
		return false
	}
	fl.started.Store(nil)
	fl.queued = c.queue.PushBack(fl)
	return false
}

// end ends fl without a result: its waiters join the current flight. c.mu
// is held.
func (c *Cache[V]) end(fl *flight[V]) {
	if fl.queued != nil {
		c.queue.Remove(fl.queued)
		fl.queued = nil
	}
	c.flights.CompareAndDelete(fl.key, fl)
	fl.err = errRetry
	close(fl.done)
}

// leave is a waiter of fl leaving before it ended: the last one takes a
// queued flight that refreshes nothing with it.
func (c *Cache[V]) leave(fl *flight[V]) {
	if fl.waiters.Add(-1) > 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if fl.queued != nil && !c.wanted(fl) {
		c.end(fl)
	}
}
