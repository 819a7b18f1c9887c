package engine

import (
	"math"
	"sync"
	"time"

	"github.com/crawlkit/robots/cache"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/crawlkit/robots/status"
)

// DefaultOutages is how many authorities in an outage the politeness table
// remembers by default. An entry costs about 175 bytes with a key of 20
// bytes (the state and the table's bookkeeping), so a full table takes about
// 11 MB; only authorities whose last fetch failed are in it.
const DefaultOutages = 1 << 16

// Outage is what politeness needs to know of an authority whose robots.txt
// cannot be fetched: kept apart from its record, it survives the eviction
// of the record, so that an authority in backoff is never fetched before
// its time because its rules were evicted to make room.
type Outage struct {
	// Failures counts the consecutive failed fetches.
	Failures int
	// Since is when the outage began.
	Since time.Time
	// Last is when the last fetch failed.
	Last time.Time
	// NextRetry is when the authority may be fetched again.
	NextRetry time.Time
}

// outageOf returns the outage r is in, and whether it is in one.
func outageOf(r *cache.Record) (Outage, bool) {
	if r == nil || !r.Unreachable() {
		return Outage{}, false
	}
	return Outage{Failures: r.Failures, Since: r.UnreachableSince, Last: r.FetchedAt, NextRetry: r.FreshUntil}, true
}

// Record returns the record the outage of key stands for when nothing else
// is known: unreachable, with no good copy.
func (o Outage) Record(key string) *cache.Record {
	return &cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt",
		Class: status.Unreachable, Outcome: "unreachable (politeness state kept after eviction)",
		FetchedAt: o.Last, FreshUntil: o.NextRetry, Failures: max(o.Failures, 1), UnreachableSince: o.Since}
}

// politeness is the table of outages: bounded by count, least recently
// noted first out. It is consulted only on a miss, never on a hit.
type politeness struct {
	mu  sync.Mutex
	lru *simplelru.LRU[string, outage]
	max int
}

// outage is an Outage as the table holds it: 32 bytes instead of 80.
type outage struct {
	since, last, next int64 // Unix nanoseconds
	failures          int32
}

func compact(o Outage) outage {
	return outage{since: o.Since.UnixNano(), last: o.Last.UnixNano(), next: o.NextRetry.UnixNano(), failures: int32(min(o.Failures, cache.MaxFailures))}
}

func (o outage) expand() Outage {
	return Outage{Failures: int(o.failures), Since: time.Unix(0, o.since).UTC(), Last: time.Unix(0, o.last).UTC(), NextRetry: time.Unix(0, o.next).UTC()}
}

func newPoliteness(size int) *politeness {
	if size < 1 {
		size = DefaultOutages
	}
	// The LRU's own bound is not used: its eviction would run inside Add.
	l, _ := simplelru.NewLRU[string, outage](math.MaxInt, nil)
	return &politeness{lru: l, max: size}
}

func (p *politeness) get(key string) (Outage, bool) {
	p.mu.Lock()
	o, ok := p.lru.Peek(key)
	p.mu.Unlock()
	return o.expand(), ok
}

// note records the politeness state r leaves for key: its outage, or none.
func (p *politeness) note(key string, r *cache.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	o, ok := outageOf(r)
	if !ok {
		p.lru.Remove(key)
		return
	}
	p.lru.Add(key, compact(o))
	for p.lru.Len() > p.max {
		p.lru.RemoveOldest()
	}
}

func (p *politeness) delete(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lru.Remove(key)
}

func (p *politeness) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lru.Len()
}

// snapshot returns a copy of the table, oldest first.
func (p *politeness) snapshot() ([]string, []Outage) {
	p.mu.Lock()
	keys, values := p.lru.Keys(), p.lru.Values()
	p.mu.Unlock()
	out := make([]Outage, len(values))
	for i, o := range values {
		out[i] = o.expand()
	}
	return keys, out
}
