// Package redisfleet shares robots.txt records between the processes of a
// crawler fleet through Redis, so that the fleet fetches each robots.txt
// once and backs off from a failing site together. A *Fleet is a
// cache.Fleet: set it as robots.Options.Fleet.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"}) // or a ClusterClient
//	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0", Fleet: redisfleet.New(rdb, redisfleet.Options{})})
//
// Each authority has two keys in one Cluster slot (one hash tag): a hash of
// its record (the cache.Record encoding) and the time its freshness ends,
// kept cache.Retention past that; and its fetch lease, a random token set
// with NX and a time to live. Two Lua scripts make the protocol atomic: one
// returns the fresh record or, failing that, takes the lease; the other
// publishes only while the caller's token still holds the lease. A fleet
// hit costs one round trip; a miss, the lease and the publication, two.
//
// Redis is never a single point of failure: every operation is bounded by
// Options.Timeout, and the robots Client falls back to fetching for itself
// whenever the fleet fails, counting it in its Stats.
//
// Non-goals: Redis administration (persistence, eviction policy, replicas:
// the records are a cache, and any of them may be lost), and Redis
// versions before 6.2.
package redisfleet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlkit/robots/cache"
)

// Defaults of Options.
const (
	// DefaultPrefix starts every key.
	DefaultPrefix = "robots"
	// DefaultTimeout bounds each Redis operation.
	DefaultTimeout = 500 * time.Millisecond
	// DefaultMaxLease is the longest lease granted: the default fetch
	// timeout (30 s) and cache.LeaseMargin.
	DefaultMaxLease = 35 * time.Second
)

// Options configures a Fleet. Every zero field means its default.
type Options struct {
	// Prefix starts every key, so that fleets (or tests) can share a
	// Redis; "" means DefaultPrefix. It must not hold '{' or '}'.
	Prefix string
	// Timeout bounds each operation on Redis, within the caller's context;
	// zero or negative means DefaultTimeout.
	Timeout time.Duration
	// MaxLease bounds the leases granted, whatever a Client asks: a
	// holder that dies holds the others back that long at most. Zero or
	// negative means DefaultMaxLease.
	MaxLease time.Duration
}

// Fleet is a cache.Fleet on Redis. It is safe for concurrent use.
type Fleet struct {
	rdb      redis.UniversalClient
	prefix   string
	timeout  time.Duration
	maxLease time.Duration
}

var _ cache.Fleet = (*Fleet)(nil)

// New returns a Fleet on rdb, a client of a single Redis, of a Sentinel
// set, or of a Cluster; the caller keeps it and closes it.
func New(rdb redis.UniversalClient, o Options) *Fleet {
	f := &Fleet{rdb: rdb, prefix: o.Prefix, timeout: o.Timeout, maxLease: o.MaxLease}
	if f.prefix == "" {
		f.prefix = DefaultPrefix
	}
	f.prefix = strings.NewReplacer("{", "", "}", "").Replace(f.prefix)
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	if f.maxLease <= 0 {
		f.maxLease = DefaultMaxLease
	}
	return f
}

// Keys returns the keys of authority key: its record's hash and its lease.
// The authority is the hash tag, so both live in one Cluster slot.
func (f *Fleet) Keys(key string) (record, lease string) {
	record = f.prefix + ":v1:{" + key + "}"
	return record, record + ":lease"
}

// keys returns the keys of authority key, or why it cannot have any.
func (f *Fleet) keys(key string) ([]string, error) {
	if key == "" || strings.ContainsAny(key, "{}") {
		return nil, fmt.Errorf("redisfleet: %q is not an authority", key)
	}
	rec, lease := f.Keys(key)
	return []string{rec, lease}, nil
}

// The scripts. KEYS[1] is the record's hash (fields "rec" and "fresh",
// Unix milliseconds), KEYS[2] the lease.
var (
	// acquire: ARGV now (ms), ttl (ms), token. Returns {1, rec} for a
	// fresh record, {2, rec or nil} for the lease granted, {3, rec or
	// nil, lease ms left} for a lease held by another. What the protocol
	// never writes is nobody's and goes: a record key that is not a hash,
	// a lease without a lifetime or that is not a string. A "fresh" that
	// is not a number counts as stale.
	acquireScript = redis.NewScript(`
local t = redis.call('TYPE', KEYS[1]).ok
if t ~= 'hash' and t ~= 'none' then redis.call('DEL', KEYS[1]) end
t = redis.call('TYPE', KEYS[2]).ok
if t ~= 'none' and (t ~= 'string' or redis.call('PTTL', KEYS[2]) < 0) then redis.call('DEL', KEYS[2]) end
local v = redis.call('HMGET', KEYS[1], 'rec', 'fresh')
local fresh = tonumber(v[2])
if v[1] and fresh and fresh > tonumber(ARGV[1]) then
  return {1, v[1]}
end
if redis.call('SET', KEYS[2], ARGV[3], 'NX', 'PX', ARGV[2]) then
  return {2, v[1]}
end
return {3, v[1], redis.call('PTTL', KEYS[2])}
`)
	// publish: ARGV token, rec, fresh (ms), keep (ms). Writes the record
	// and ends the lease only while the token holds it; returns 1, else 0.
	publishScript = redis.NewScript(`
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'fresh', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('DEL', KEYS[2])
return 1
`)
	// dropIf: deletes KEYS[1] if its field ARGV[1] is still ARGV[2];
	// used to end a lease, and to remove a record that does not decode.
	dropIfScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1]).ok == 'hash' then
  if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('DEL', KEYS[1]) end
elseif redis.call('GET', KEYS[1]) == ARGV[2] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)
)

// Get returns the record of key, nil when there is none.
func (f *Fleet) Get(ctx context.Context, key string) (*cache.Record, error) {
	keys, err := f.keys(key)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	b, err := f.rdb.HGet(ctx, keys[0], "rec").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, f.fail("get", key, err)
	}
	return f.decode(ctx, key, keys[0], b)
}

// Acquire returns key's record when it is fresh at now; else takes the
// fetch lease for ttl (at most MaxLease) when no one holds it; else reports
// when the holder's lease runs out. See cache.Fleet. A record there that
// does not decode is removed, so that the holder of the next lease replaces
// it; with the lease granted it is only left out of the Grant.
func (f *Fleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (cache.Grant, error) {
	keys, err := f.keys(key)
	if err != nil {
		return cache.Grant{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ttl = min(max(ttl, time.Millisecond), f.maxLease)
	token := cache.NewToken()
	res, err := acquireScript.Run(ctx, f.rdb, keys, now.UnixMilli(), ttl.Milliseconds(), token).Slice()
	if err != nil {
		return cache.Grant{}, f.fail("acquire", key, err)
	}
	kind, rec, left, err := parseAcquire(res)
	if err != nil {
		return cache.Grant{}, f.fail("acquire", key, err)
	}
	var g cache.Grant
	if rec != nil {
		g.Record, err = f.decode(ctx, key, keys[0], rec)
	}
	switch kind {
	case 1:
		if err == nil && !g.Record.Fresh(now) {
			// The hash says fresh, the record does not: it was not written
			// by Publish.
			dropIfScript.Run(ctx, f.rdb, keys[:1], "rec", rec)
			err = fmt.Errorf("redisfleet: %s: %w: fresh by its hash, stale by its record", keys[0], cache.ErrMalformedRecord)
		}
		if err != nil {
			return cache.Grant{}, err
		}
	case 2:
		g.Lease = &cache.Lease{Key: key, Token: token, Until: now.Add(ttl)}
		if err != nil {
			g.Record = nil // the lease holder's fetch replaces it
		}
	case 3:
		if err != nil {
			return cache.Grant{}, err
		}
		g.HeldUntil = now.Add(time.Duration(max(left, 1)) * time.Millisecond)
	}
	return g, nil
}

// parseAcquire reads the reply of acquireScript.
func parseAcquire(res []any) (kind int64, rec []byte, left int64, err error) {
	if len(res) < 1 {
		return 0, nil, 0, fmt.Errorf("empty reply")
	}
	kind, ok := res[0].(int64)
	if !ok || kind < 1 || kind > 3 || kind == 3 && len(res) < 3 {
		return 0, nil, 0, fmt.Errorf("unexpected reply %v", res)
	}
	if len(res) > 1 {
		if s, ok := res[1].(string); ok {
			rec = []byte(s)
		}
	}
	if kind == 3 {
		if left, ok = res[2].(int64); !ok {
			return 0, nil, 0, fmt.Errorf("unexpected reply %v", res)
		}
	}
	return kind, rec, left, nil
}

// Publish stores rec as the record of l.Key, kept until rec.Expires, and
// ends l, only while l's token still holds the lease.
func (f *Fleet) Publish(ctx context.Context, l cache.Lease, rec *cache.Record, now time.Time) error {
	keys, err := f.keys(l.Key)
	if err != nil {
		return err
	}
	if rec.Authority != l.Key {
		return fmt.Errorf("redisfleet: a record of %q published under the lease of %q", rec.Authority, l.Key)
	}
	b, err := rec.MarshalBinary()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	keep := max(rec.Expires().Sub(now), time.Second)
	n, err := publishScript.Run(ctx, f.rdb, keys, l.Token, b, rec.FreshUntil.UnixMilli(), keep.Milliseconds()).Int64()
	if err != nil {
		return f.fail("publish", l.Key, err)
	}
	if n != 1 {
		return fmt.Errorf("redisfleet: publish %s: %w", l.Key, cache.ErrLeaseLost)
	}
	return nil
}

// Release ends l, if its token still holds the lease.
func (f *Fleet) Release(ctx context.Context, l cache.Lease) error {
	keys, err := f.keys(l.Key)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if err := dropIfScript.Run(ctx, f.rdb, keys[1:], "", l.Token).Err(); err != nil {
		return f.fail("release", l.Key, err)
	}
	return nil
}

// decode decodes the record of authority key stored at recKey. One that
// does not decode, or is about another authority, is removed (if it is
// still there), and the error says why.
func (f *Fleet) decode(ctx context.Context, key, recKey string, b []byte) (*cache.Record, error) {
	var r cache.Record
	err := r.UnmarshalBinary(b)
	if err == nil && r.Authority != key {
		err = fmt.Errorf("%w: a record of %q", cache.ErrMalformedRecord, r.Authority)
	}
	if err == nil {
		return &r, nil
	}
	dropIfScript.Run(ctx, f.rdb, []string{recKey}, "rec", b) // best effort: the error below says what matters
	return nil, fmt.Errorf("redisfleet: %s: %w", recKey, err)
}

// fail describes a failed operation on Redis.
func (f *Fleet) fail(op, key string, err error) error {
	return fmt.Errorf("redisfleet: %s %s: %w", op, strconv.Quote(key), err)
}
