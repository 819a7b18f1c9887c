package engine

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlkit/robots/cache"
)

// Sizer is a value that knows how many bytes it holds in memory.
type Sizer interface {
	// Size returns the bytes the value holds, everything it points to
	// included but what it shares with other values. It may grow after the value is stored, if the value fills a
	// cache of its own lazily, but only inside Cache.Grow, which counts it
	// again. Size must be safe to call concurrently with that growth.
	Size() int64
}

// Entry is what the local tier holds for one authority: its cache.Record,
// held in the form a cache keeps for long (cache.Held), and the value a
// process derives from it to answer with, such as compiled rules. An Entry
// is immutable once stored; its Value may grow (see Sizer).
type Entry[V Sizer] struct {
	Held  cache.Held
	Value V

	fresh deadline // cache.Record.FreshUntil, for Cache.Hit
}

// newEntry returns the entry of rec, a compact record, and its value v.
func newEntry[V Sizer](rec *cache.Record, v V) *Entry[V] {
	return &Entry[V]{Held: cache.Hold(rec), Value: v, fresh: deadlineOf(rec.FreshUntil)}
}

// Record returns e's record: the one stored when the entry holds it whole
// (an outage's, say), else a copy of its own (see cache.Held).
func (e *Entry[V]) Record() *cache.Record { return e.Held.Record() }

// freshAt reports whether e's record is fresh at now, as cache.Record.Fresh
// does of the record stored: on the monotonic clock when both times carry
// a reading of it (the record held keeps none, see cache.Hold, but e's
// deadline does), else on the wall clock.
func (e *Entry[V]) freshAt(now time.Time) bool {
	if e.fresh.kind() == monoDeadline && now != now.Round(0) {
		return int64(now.Sub(base)) < e.fresh.at()
	}
	return now.Before(e.Held.FreshUntil())
}

// authority returns the authority of e's record; "" for a nil e.
func (e *Entry[V]) authority() string {
	if e == nil {
		return ""
	}
	return e.Held.Authority()
}

// entryOverhead is what the local tier spends on an entry besides what its
// record points to, its value and its key: the Entry (96 B on amd64, the
// record's fields included), the slot, which is also the recency list's
// element (48 B), and its share of the index (a pointer in a table a
// quarter to three quarters full: 11 to 32 B, 24 typically; see index).
// Tests compare it with the heap.
const entryOverhead = 168

// local is the byte-bounded tier: entries are counted as their record, their
// value and their key weigh, plus entryOverhead, and the least recently used
// go first when the total passes the budget.
//
// Reads take no lock. The recency order is a list through the slots behind
// a mutex, so Get does not visit it on every call, which would serialize
// every goroutine asking about one host; slots are found through an index
// that reads without a lock (see index), and a read moves its slot to the
// front of the order only the first time it is read after a Put. Evictions
// happen only in Put, so the order they see is exact at the granularity
// that matters. The list is the slots' own, not a map and list beside them:
// an entry costs about 100 bytes less.
type local[V Sizer] struct {
	mu      sync.Mutex // serializes Put, Delete and promotions
	front   index[V]   // the slots by key; changed under mu
	order   slot[V]    // the list's sentinel: next is the most recently used, prev the least
	n       int        // slots in the list, under mu
	budget  int64
	bytes   atomic.Int64 // written under mu
	epoch   atomic.Uint32
	evicted atomic.Uint64

	// others is what the budget holds besides the entries: the good
	// copies the politeness tier keeps. spill, when set, is given each
	// entry evicted, under mu, so that the politeness tier takes what
	// must outlive it.
	others *atomic.Int64
	spill  func(key string, e *Entry[V])
}

// slot holds a key's entry. It is 48 bytes: an epoch that wraps after four
// billion puts can at worst skip a promotion, and no entry weighs 4 GiB
// (fits).
type slot[V Sizer] struct {
	entry      atomic.Pointer[Entry[V]]
	epoch      atomic.Uint32 // the epoch of the last promotion
	size       uint32        // under mu
	key        string
	prev, next *slot[V] // in the recency order, under mu; nil once removed
}

func newLocal[V Sizer](budget int64) *local[V] {
	l := &local[V]{budget: budget, others: new(atomic.Int64)}
	l.front.init()
	l.order.prev, l.order.next = &l.order, &l.order
	return l
}

// peek returns key's slot without making it more recently used; l.mu is
// held.
func (l *local[V]) peek(key string) (*slot[V], bool) {
	s := l.front.load(key)
	return s, s != nil
}

// toFront makes s, if it is in the list, the most recently used; l.mu is
// held.
func (l *local[V]) toFront(s *slot[V]) {
	if s.next == nil {
		return // removed since it was read
	}
	s.prev.next, s.next.prev = s.next, s.prev
	l.link(s)
}

// link puts s at the front of the list; l.mu is held.
func (l *local[V]) link(s *slot[V]) {
	s.prev, s.next = &l.order, l.order.next
	l.order.next.prev = s
	l.order.next = s
}

// unlink takes s out of the list and front; l.mu is held.
func (l *local[V]) unlink(s *slot[V]) {
	s.prev.next, s.next.prev = s.next, s.prev
	s.prev, s.next = nil, nil
	l.n--
	l.front.remove(s)
}

func (l *local[V]) get(key string) (*Entry[V], bool) {
	s := l.front.load(key)
	if s == nil {
		return nil, false
	}
	if cur, seen := l.epoch.Load(), s.epoch.Load(); seen != cur && s.epoch.CompareAndSwap(seen, cur) {
		l.mu.Lock() // the first read since the last Put: promote
		l.toFront(s)
		l.mu.Unlock()
	}
	return s.entry.Load(), true
}

// has reports whether key's entry is held, without making it more recently
// used.
func (l *local[V]) has(key string) bool {
	return l.front.load(key) != nil
}

// sizeOf is what an entry for key counts against the budget.
func sizeOf[V Sizer](key string, e *Entry[V]) int64 {
	n := entryOverhead + e.Held.Size() + e.Value.Size()
	if key != e.Held.Authority() {
		n += int64(len(key)) // else put keeps the record's, counted with it
	}
	return n
}

// fits reports whether an entry of size bytes fits in the tier, beside
// what the budget holds besides entries; never one of 4 GiB or more, which
// a slot could not count (no real entry comes near).
func (l *local[V]) fits(size int64) bool {
	return size <= l.budget-l.others.Load() && size <= math.MaxUint32
}

// put stores e for key and evicts the least recently used entries until the
// tier is within its budget. An entry larger than the room the budget has
// for entries is not kept: put reports whether e was. noted, when not nil,
// is told so under l.mu, before any eviction, so that what it changes of
// the budget's other holdings (see others) is counted with e, and no
// eviction or resize comes between.
//
// e is measured under l.mu, as resize measures: a value that grows between
// put and a resize of its own is then counted at its full size by
// whichever of the two comes last.
func (l *local[V]) put(key string, e *Entry[V], noted func(kept bool)) bool {
	if a := e.Held.Authority(); key == a {
		key = a // one string for both
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	size := sizeOf(key, e)
	fits := l.fits(size)
	if noted != nil {
		noted(fits)
	}
	if !fits {
		l.remove(key)
		l.evict() // noted may have given the budget's room to others
		return false
	}
	l.epoch.Add(1)
	s, ok := l.peek(key)
	if ok {
		l.bytes.Add(size - int64(s.size))
		l.toFront(s)
	} else {
		s = &slot[V]{key: key}
	}
	// The entry first: get reads the slot without a lock as soon as front
	// holds it.
	s.entry.Store(e)
	s.size = uint32(size)
	s.epoch.Store(l.epoch.Load())
	if !ok {
		l.bytes.Add(size)
		l.link(s)
		l.n++
		l.front.add(s)
	}
	l.evict()
	return true
}

// resize measures key's entry again, its value having changed size since it
// was stored, makes it the most recently used, and evicts the least
// recently used entries until the tier is within its budget. An entry grown
// larger than the room the budget has for entries is dropped, as put would
// not keep it, and spilled as an evicted one is. It reports whether key's
// entry is held afterwards.
//
// It measures whatever entry is held for key now, not one given: a value
// derived again is often the very value of the entry it replaces (a 304
// renews a record, not its rules), so growth reported on the old entry must
// count on the new one.
func (l *local[V]) resize(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.peek(key)
	if !ok {
		return false
	}
	e := s.entry.Load()
	size := sizeOf(key, e)
	if !l.fits(size) {
		// Dropped, not replaced: what must outlive it goes where an
		// evicted entry's does.
		l.remove(key)
		if l.spill != nil {
			l.spill(key, e)
		}
		l.evict()
		return false
	}
	l.bytes.Add(size - int64(s.size))
	s.size = uint32(size)
	l.toFront(s)
	l.evict()
	return true
}

// evict removes the least recently used entries until the tier, with what
// the budget holds besides, is within its budget; l.mu is held.
func (l *local[V]) evict() {
	for l.bytes.Load()+l.others.Load() > l.budget && l.n > 0 {
		old := l.order.prev
		l.unlink(old)
		l.bytes.Add(-int64(old.size))
		l.evicted.Add(1)
		if l.spill != nil {
			l.spill(old.key, old.entry.Load())
		}
	}
}

func (l *local[V]) delete(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.remove(key)
}

// remove deletes key's entry; l.mu is held. A removal is not an eviction.
func (l *local[V]) remove(key string) {
	if s, ok := l.peek(key); ok {
		l.unlink(s)
		l.bytes.Add(-int64(s.size))
	}
}

func (l *local[V]) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// snapshot returns the keys and entries held, least recently used first.
func (l *local[V]) snapshot() ([]string, []*Entry[V]) {
	l.mu.Lock()
	defer l.mu.Unlock()
	keys, entries := make([]string, 0, l.n), make([]*Entry[V], 0, l.n)
	for s := l.order.prev; s != &l.order; s = s.prev {
		keys, entries = append(keys, s.key), append(entries, s.entry.Load())
	}
	return keys, entries
}
