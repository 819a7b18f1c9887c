package cache

import (
	"context"
	"crypto/rand"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// DefaultFleetBytes is the default bound of a MemoryFleet: the encoded
// records it holds.
const DefaultFleetBytes = 64 << 20

// MemoryFleet is a Fleet in the memory of one process: Clients of one
// process share their fetches and backoff through it. It keeps records
// encoded, so every reader gets its own copy, and judges freshness and
// leases by the clock its callers pass. The zero MemoryFleet is ready to use.
type MemoryFleet struct {
	// MaxBytes bounds the encoded records held; the least recently
	// published go first. Zero means DefaultFleetBytes. Set it before use.
	MaxBytes int64

	mu      sync.Mutex
	records *simplelru.LRU[string, fleetRecord]
	bytes   int64
	leases  map[string]Lease
}

type fleetRecord struct {
	enc                 []byte
	freshUntil, expires time.Time
}

// maxLeases is how many leases a MemoryFleet holds before it sweeps out
// those that ran out: holders that died leave theirs behind.
const maxLeases = 4096

// NewMemoryFleet returns an empty MemoryFleet of DefaultFleetBytes.
func NewMemoryFleet() *MemoryFleet { return &MemoryFleet{} }

// init makes the tables; f.mu is held.
func (f *MemoryFleet) init() {
	if f.records == nil {
		f.records, _ = simplelru.NewLRU[string, fleetRecord](math.MaxInt, nil)
		f.leases = map[string]Lease{}
	}
}

// Get returns the record of key, nil when there is none.
func (f *MemoryFleet) Get(ctx context.Context, key string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.init()
	r, ok := f.records.Peek(key)
	f.mu.Unlock()
	if !ok {
		return nil, nil
	}
	return decodeRecord(r.enc, true)
}

// Acquire returns key's record when it is fresh at now; else takes the
// fetch lease for ttl when no one holds it at now; else reports when the
// holder's lease runs out. See Fleet.
func (f *MemoryFleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (Grant, error) {
	if err := ctx.Err(); err != nil {
		return Grant{}, err
	}
	f.mu.Lock()
	f.init()
	r, ok := f.records.Peek(key)
	if ok && !now.Before(r.expires) {
		f.drop(key, r)
		ok = false
	}
	var g Grant
	switch l, held := f.leases[key]; {
	case ok && now.Before(r.freshUntil):
	case held && now.Before(l.Until):
		g.HeldUntil = l.Until
	default:
		if len(f.leases) >= maxLeases {
			f.sweep(now)
		}
		l = Lease{Key: key, Token: rand.Text(), Until: now.Add(ttl)}
		f.leases[key] = l
		g.Lease = &l
	}
	f.mu.Unlock()
	if ok {
		rec, err := decodeRecord(r.enc, true)
		if err != nil {
			return Grant{}, err
		}
		g.Record = rec
	}
	return g, nil
}

// Publish stores rec as the record of l.Key and ends l, if l holds at now.
func (f *MemoryFleet) Publish(ctx context.Context, l Lease, rec *Record, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	enc, err := rec.MarshalBinary()
	if err != nil {
		return err
	}
	if rec.Authority != l.Key {
		return fmt.Errorf("a record of %q published under the lease of %q", rec.Authority, l.Key)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	if cur, ok := f.leases[l.Key]; !ok || cur.Token != l.Token || !now.Before(cur.Until) {
		return fmt.Errorf("publish %s: %w", l.Key, ErrLeaseLost)
	}
	delete(f.leases, l.Key)
	if old, ok := f.records.Peek(l.Key); ok {
		f.drop(l.Key, old)
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = DefaultFleetBytes
	}
	if int64(len(enc)) > limit {
		return nil // larger than the whole fleet: not kept
	}
	f.records.Add(l.Key, fleetRecord{enc: enc, freshUntil: rec.FreshUntil, expires: rec.Expires()})
	f.bytes += int64(len(enc))
	for f.bytes > limit {
		k, old, _ := f.records.GetOldest()
		f.drop(k, old)
	}
	return nil
}

// Renew extends l to now+ttl, if it holds at now.
func (f *MemoryFleet) Renew(ctx context.Context, l Lease, ttl time.Duration, now time.Time) (Lease, error) {
	if err := ctx.Err(); err != nil {
		return Lease{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	cur, ok := f.leases[l.Key]
	if !ok || cur.Token != l.Token || !now.Before(cur.Until) {
		return Lease{}, fmt.Errorf("renew %s: %w", l.Key, ErrLeaseLost)
	}
	cur.Until = now.Add(ttl)
	f.leases[l.Key] = cur
	return cur, nil
}

// Release ends l, if it still holds.
func (f *MemoryFleet) Release(ctx context.Context, l Lease) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	if cur, ok := f.leases[l.Key]; ok && cur.Token == l.Token {
		delete(f.leases, l.Key)
	}
	return nil
}

// drop removes the record r of key; f.mu is held.
func (f *MemoryFleet) drop(key string, r fleetRecord) {
	f.records.Remove(key)
	f.bytes -= int64(len(r.enc))
}

// sweep removes the leases that ran out by now; f.mu is held.
func (f *MemoryFleet) sweep(now time.Time) {
	for k, l := range f.leases {
		if !now.Before(l.Until) {
			delete(f.leases, k)
		}
	}
}

// Len returns the number of records held.
func (f *MemoryFleet) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	return f.records.Len()
}
