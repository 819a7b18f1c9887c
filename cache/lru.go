package cache

import (
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
)

// DefaultSize is the number of authorities an LRU holds when asked for none.
const DefaultSize = 10_000

// LRU is a Store that holds a bounded number of entries and evicts the least
// recently used one to make room.
//
// Reads take no lock. golang-lru keeps the recency order behind an exclusive
// lock, so Get does not visit it on every call, which would serialize every
// goroutine asking about one host; instead entries live in a sync.Map, and a
// read moves its entry to the front of the order only the first time it is
// read after a Put. Evictions happen only in Put, so the order they see is
// exact at the granularity that matters.
type LRU struct {
	mu       sync.Mutex // serializes Put and Delete
	front    sync.Map   // string -> *slot
	order    *lru.Cache[string, *slot]
	epoch    atomic.Uint64 // incremented by every Put
	evicted  atomic.Uint64
	removing string // the key Delete is removing, not an eviction
}

type slot struct {
	entry atomic.Pointer[Entry]
	epoch atomic.Uint64 // the epoch of the last promotion
}

// NewLRU returns an LRU of at most size entries; DefaultSize when size < 1.
func NewLRU(size int) *LRU {
	if size < 1 {
		size = DefaultSize
	}
	l := &LRU{}
	// NewWithEvict fails only for a size below 1.
	l.order, _ = lru.NewWithEvict(size, l.onEvict)
	return l
}

// onEvict runs inside Put or Delete, with l.mu held.
func (l *LRU) onEvict(key string, s *slot) {
	l.front.CompareAndDelete(key, s)
	if key != l.removing {
		l.evicted.Add(1)
	}
}

// Get returns the entry for key.
func (l *LRU) Get(key string) (*Entry, bool) {
	v, ok := l.front.Load(key)
	if !ok {
		return nil, false
	}
	s := v.(*slot)
	if cur, seen := l.epoch.Load(), s.epoch.Load(); seen != cur && s.epoch.CompareAndSwap(seen, cur) {
		l.order.Get(key) // the first read since the last Put: promote
	}
	return s.entry.Load(), true
}

// Put stores e for key, evicting the least recently used entry when full.
func (l *LRU) Put(key string, e *Entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.epoch.Add(1)
	if v, ok := l.front.Load(key); ok {
		s := v.(*slot)
		s.entry.Store(e)
		s.epoch.Store(l.epoch.Load())
		l.order.Get(key)
		return
	}
	s := &slot{}
	s.entry.Store(e)
	s.epoch.Store(l.epoch.Load())
	l.order.Add(key, s)
	l.front.Store(key, s)
}

// Delete removes the entry for key; it does not count as an eviction.
func (l *LRU) Delete(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.removing = key
	l.order.Remove(key)
	l.removing = ""
	l.front.Delete(key)
}

// Len returns the number of entries held.
func (l *LRU) Len() int {
	return l.order.Len()
}

// Evictions returns the number of entries evicted to make room so far.
func (l *LRU) Evictions() uint64 {
	return l.evicted.Load()
}
