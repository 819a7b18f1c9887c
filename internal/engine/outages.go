package engine

import (
	"container/heap"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/status"
)

// The politeness tier: what the cache knows of authorities whose robots.txt
// cannot be fetched, and what they answer while it cannot.

// DefaultOutages is how many authorities in an outage the politeness table
// remembers by default. An entry costs about outageBytes plus its key (the
// state and the table's bookkeeping; TestOutageEntrySize), so a full table
// takes about 11 MB besides the good copies, which count in the byte budget
// (see copyShare); only authorities whose last fetch failed are in it.
const DefaultOutages = 1 << 16

// outageBytes is what an outage costs the table besides its key and its
// good copy.
const outageBytes = 150

// copyShare is the share of the byte budget, as a divisor, that the good
// copies of evicted outages may take: past it, the copies of the outages
// retried soonest go first. The local tier keeps the rest, so a file and
// its rules (less than half the least budget) always fit beside them.
const copyShare = 4

// OutageAnswer is what an authority in an outage answers with.
type OutageAnswer uint8

// The answers of an outage.
const (
	// FromCopy: its last good copy, for the whole outage (RFC 9309
	// §2.3.1.4 lets a crawler keep using a cached copy; Google does).
	FromCopy OutageAnswer = iota + 1
	// DisallowAll: no good copy is held.
	DisallowAll
	// AllowAll: no good copy is held, and the outage has lasted longer
	// than Policy.AllowAfter.
	AllowAll
)

// Outage returns what r, the record of an outage, answers with. It reads
// the clock, now, only when the answer depends on it: without a good copy.
func (p Policy) Outage(r *cache.Record, now func() time.Time) OutageAnswer {
	switch {
	case r.Good != nil:
		return FromCopy
	case p.AllowAfter >= 0 && now().Sub(r.UnreachableSince) > p.AllowAfter:
		return AllowAll
	}
	return DisallowAll
}

// Outage is what the politeness tier knows of an authority whose robots.txt
// cannot be fetched: kept apart from its entry, it survives the eviction of
// the entry, so that an authority in backoff is never fetched before its
// time, and one that had a good copy keeps answering from it.
type Outage struct {
	// Failures counts the consecutive failed fetches.
	Failures int
	// Since is when the outage began.
	Since time.Time
	// Last is when the last fetch failed.
	Last time.Time
	// NextRetry is when the authority may be fetched again.
	NextRetry time.Time
	// Good is the last good copy, when the table holds it: while the
	// authority's entry is in the local tier, the entry holds it instead.
	Good *cache.Record

	key string // the table's own copy of the authority
}

// Record returns the record the outage stands for when the authority's
// entry was evicted: unreachable, with the good copy the table holds. It
// holds the table's copy of the key, never a caller's.
func (o Outage) Record() *cache.Record {
	return &cache.Record{Authority: o.key, URL: o.key + "/robots.txt", FinalURL: o.key + "/robots.txt",
		Class: status.Unreachable, Outcome: "unreachable (politeness state kept after eviction)",
		FetchedAt: o.Last, FreshUntil: o.NextRetry, Failures: max(o.Failures, 1), UnreachableSince: o.Since, Good: o.Good}
}

// politeness is the table of outages, bounded by count and, for the good
// copies it holds, by bytes. Past either bound the outages whose retry time
// has passed go first, then those retried soonest (the least NextRetry
// first): never a long Retry-After before a short one. Past the count, the
// outage goes; past the bytes, only its copy.
//
// It is consulted only on a miss, never on a hit.
type politeness struct {
	mu        sync.Mutex
	byKey     map[string]*outage
	all       retryOrder // every outage
	copies    retryOrder // the outages holding a good copy
	max       int
	copyLimit int64
	copyBytes atomic.Int64 // written under mu; read by the local tier
}

// outage is an Outage as the table holds it.
type outage struct {
	key               string
	since, last, next int64 // Unix nanoseconds
	failures          int32
	at                [2]int32 // its places in all and copies; -1 when out
	good              *cache.Record
	goodSize          int64
}

func newPoliteness(size int, copyLimit int64) *politeness {
	if size < 1 {
		size = DefaultOutages
	}
	return &politeness{byKey: map[string]*outage{}, all: retryOrder{which: 0}, copies: retryOrder{which: 1},
		max: size, copyLimit: copyLimit}
}

func (o *outage) view() Outage {
	return Outage{Failures: int(o.failures), Since: time.Unix(0, o.since).UTC(), Last: time.Unix(0, o.last).UTC(),
		NextRetry: time.Unix(0, o.next).UTC(), Good: o.good, key: o.key}
}

func (p *politeness) get(key string) (Outage, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if o, ok := p.byKey[key]; ok {
		return o.view(), true
	}
	return Outage{}, false
}

// note records the politeness state r, the record stored for key, leaves:
// its outage, or none (nil r: a record of no outage). The table holds r's
// good copy only when own is set: when the local tier did not keep r, whose
// entry otherwise holds the copy.
func (p *politeness) note(key string, r *cache.Record, own bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	o, ok := p.byKey[key]
	if r == nil || !r.Unreachable() {
		if ok {
			p.remove(o)
		}
		return
	}
	if !ok {
		o = &outage{key: key, at: [2]int32{-1, -1}}
		p.byKey[o.key] = o
	}
	o.since, o.last, o.next = r.UnreachableSince.UnixNano(), r.FetchedAt.UnixNano(), r.FreshUntil.UnixNano()
	o.failures = int32(min(r.Failures, cache.MaxFailures))
	if o.at[0] < 0 {
		heap.Push(&p.all, o)
	} else {
		heap.Fix(&p.all, int(o.at[0]))
	}
	var good *cache.Record
	if own {
		good = r.Good
	}
	p.hold(o, good)
	for len(p.byKey) > p.max {
		p.remove(p.all.items[0])
	}
}

// adopt takes the good copy of r, the record of key's entry that the local
// tier evicts (nil when it is not an outage's), if the table has key's
// outage: the copy then outlives the entry. It runs inside the local
// tier's eviction.
func (p *politeness) adopt(key string, r *cache.Record) {
	if r == nil || !r.Unreachable() || r.Good == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if o, ok := p.byKey[key]; ok && o.good == nil {
		p.hold(o, r.Good)
	}
}

// hold makes good the copy o holds (nil: none), then drops copies, the
// outages retried soonest first, until they are within their bound; p.mu
// is held.
func (p *politeness) hold(o *outage, good *cache.Record) {
	p.setCopy(o, good)
	for p.copyBytes.Load() > p.copyLimit {
		p.setCopy(p.copies.items[0], nil)
	}
}

// setCopy makes good the copy o holds; p.mu is held.
func (p *politeness) setCopy(o *outage, good *cache.Record) {
	if o.good != nil {
		p.copyBytes.Add(-o.goodSize)
		heap.Remove(&p.copies, int(o.at[1]))
		o.good, o.goodSize = nil, 0
	}
	if good != nil {
		o.good, o.goodSize = good, good.Size()
		p.copyBytes.Add(o.goodSize)
		heap.Push(&p.copies, o)
	}
}

// remove deletes o from the table; p.mu is held.
func (p *politeness) remove(o *outage) {
	p.setCopy(o, nil)
	heap.Remove(&p.all, int(o.at[0]))
	delete(p.byKey, o.key)
}

func (p *politeness) delete(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if o, ok := p.byKey[key]; ok {
		p.remove(o)
	}
}

func (p *politeness) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byKey)
}

// snapshot returns the outages held, retried soonest first.
func (p *politeness) snapshot() []Outage {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Outage, len(p.all.items))
	for i, o := range p.all.items {
		out[i] = o.view()
	}
	slices.SortFunc(out, func(a, b Outage) int { return a.NextRetry.Compare(b.NextRetry) })
	return out
}

// retryOrder is a heap of outages by their next retry, least first; each
// outage knows its place in it.
type retryOrder struct {
	items []*outage
	which int // the index of the place in outage.at
}

func (h *retryOrder) Len() int           { return len(h.items) }
func (h *retryOrder) Less(i, j int) bool { return h.items[i].next < h.items[j].next }
func (h *retryOrder) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].at[h.which], h.items[j].at[h.which] = int32(i), int32(j)
}

func (h *retryOrder) Push(x any) {
	o := x.(*outage)
	o.at[h.which] = int32(len(h.items))
	h.items = append(h.items, o)
}

func (h *retryOrder) Pop() any {
	n := len(h.items) - 1
	o := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	o.at[h.which] = -1
	return o
}
