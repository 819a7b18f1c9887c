// Package redisfleet shares robots.txt records between the processes of a
// crawler fleet through Redis, so that the fleet fetches each robots.txt
// once and backs off from a failing site together. A *Fleet is a
// cache.Fleet: set it as robots.Options.Fleet.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true})
//	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0", Fleet: redisfleet.New(rdb, redisfleet.Options{})})
//
// Each authority has two keys in one Cluster slot (one hash tag): a hash of
// its record (the cache.Record encoding) and the time its freshness ends,
// kept cache.Retention past that; and its fetch lease, a random token set
// with a time to live. Two Lua scripts make the protocol atomic: one
// returns the fresh record or, failing that, takes the lease; the other
// publishes only while the caller's token still holds the lease. A fleet
// hit costs one round trip; a miss, the lease and the publication, two.
// Both scripts are idempotent, so go-redis's retries after a lost reply are
// harmless.
//
// Redis is never a single point of failure: every operation returns within
// Options.Timeout, whatever the client's own timeouts, and the robots Client
// falls back to fetching for itself whenever the fleet fails, counting it in
// its Stats. What Redis holds is input like any other: a key the protocol
// never wrote, or a record that does not decode, is too long, or cannot be
// trusted (cache.Record.Check), is removed, so that the next lease holder
// replaces it.
//
// Non-goals: Redis administration (persistence, eviction policy, replicas:
// the records are a cache, and any of them may be lost), and Redis
// versions before 6.2.
package redisfleet

import (
	"context"
	"crypto/rand"
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
	// DefaultMaxLease is the longest lease granted, whatever a Client
	// asks: far above a Client's (FetchTimeout + 5 s, 35 s
	// by default), it only keeps an absurd request from blocking a site.
	DefaultMaxLease = 5 * time.Minute
	// DefaultMaxRecordBytes is the longest record read from Redis: enough
	// for a record of a file at the default cap (500 KiB) and its good
	// copy.
	DefaultMaxRecordBytes = 4 << 20
)

// Options configures a Fleet. Every zero field means its default.
type Options struct {
	// Prefix starts every key, so that fleets (or tests) can share a
	// Redis; "" means DefaultPrefix. Braces are removed from it: they
	// would break the hash tags.
	Prefix string
	// Timeout bounds each operation on Redis, within the caller's context;
	// zero or negative means DefaultTimeout. It holds even when the
	// client ignores context deadlines while reading (go-redis does,
	// unless ContextTimeoutEnabled is set; set it, so that a command past
	// its deadline also stops waiting on the connection).
	Timeout time.Duration
	// MaxLease bounds the leases granted, whatever a Client asks; zero or
	// negative means DefaultMaxLease. Keep it above every Client's
	// FetchTimeout plus 5 s.
	MaxLease time.Duration
	// MaxRecordBytes bounds the records read from and written to Redis;
	// a longer one in Redis is removed, a longer one to publish is not
	// published. Zero or negative means DefaultMaxRecordBytes. Raise it to
	// twice robots.Options.MaxBytes plus 1 MiB when raising that.
	MaxRecordBytes int
}

// Fleet is a cache.Fleet on Redis. It is safe for concurrent use.
type Fleet struct {
	rdb       redis.UniversalClient
	prefix    string
	timeout   time.Duration
	maxLease  time.Duration
	maxRecord int
}

var _ cache.Fleet = (*Fleet)(nil)

// New returns a Fleet on rdb, a client of a single Redis, of a Sentinel
// set, or of a Cluster; the caller keeps it and closes it.
func New(rdb redis.UniversalClient, o Options) *Fleet {
	f := &Fleet{rdb: rdb, prefix: o.Prefix, timeout: o.Timeout, maxLease: o.MaxLease, maxRecord: o.MaxRecordBytes}
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
	if f.maxRecord <= 0 {
		f.maxRecord = DefaultMaxRecordBytes
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
	// acquire: ARGV now (ms), ttl (ms), token, the longest record. Returns
	// {1, rec} for a fresh record, {2, rec or nil} for the lease granted
	// (also to a retry of the same call: its token holds it already), {3,
	// rec or nil, lease ms left} for a lease held by another. What the
	// protocol never writes is nobody's and goes: a record key that is not
	// a hash, a record too long, a lease that is not a string or has no
	// lifetime. A "fresh" that is not a number, or is more than two days
	// ahead (no record is fresh for more than one), counts as stale.
	acquireScript = redis.NewScript(`
local t = redis.call('TYPE', KEYS[1]).ok
if t ~= 'hash' and t ~= 'none' then redis.call('DEL', KEYS[1]) end
if redis.call('HSTRLEN', KEYS[1], 'rec') > tonumber(ARGV[4]) then redis.call('DEL', KEYS[1]) end
t = redis.call('TYPE', KEYS[2]).ok
if t ~= 'none' and (t ~= 'string' or redis.call('PTTL', KEYS[2]) < 0) then redis.call('DEL', KEYS[2]) end
local now = tonumber(ARGV[1])
local v = redis.call('HMGET', KEYS[1], 'rec', 'fresh')
local fresh = tonumber(v[2])
if v[1] and fresh and fresh > now and fresh < now + 172800000 then
  return {1, v[1]}
end
local holder = redis.call('GET', KEYS[2])
if not holder then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2])
  return {2, v[1]}
end
if holder == ARGV[3] then
  return {2, v[1]}
end
return {3, v[1], redis.call('PTTL', KEYS[2])}
`)
	// publish: ARGV token, rec, fresh (ms), keep (ms). Writes the record
	// and ends the lease only while the token holds it, and returns 1;
	// else 0, unless the very record is there already (a retry of a
	// publication that was made).
	publishScript = redis.NewScript(`
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  if redis.call('TYPE', KEYS[1]).ok == 'hash' and redis.call('HGET', KEYS[1], 'rec') == ARGV[2] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'fresh', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('DEL', KEYS[2])
return 1
`)
	// release: ARGV token. Ends the lease KEYS[1] if the token holds it.
	releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)
	// drop: ARGV rec. Removes the record's hash KEYS[1] if it still holds
	// that record.
	dropScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1]).ok == 'hash' and redis.call('HGET', KEYS[1], 'rec') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)
)

// do runs op against Redis and returns within the Fleet's timeout (and
// ctx), whether or not the client honours deadlines while reading: past
// the deadline it returns ctx's error, and op ends on its own (at the
// client's read timeout at the latest).
func do[T any](ctx context.Context, f *Fleet, op func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := op(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Get returns the record of key, nil when there is none.
func (f *Fleet) Get(ctx context.Context, key string) (*cache.Record, error) {
	keys, err := f.keys(key)
	if err != nil {
		return nil, err
	}
	b, err := do(ctx, f, func(ctx context.Context) ([]byte, error) {
		b, err := f.rdb.HGet(ctx, keys[0], "rec").Bytes()
		if errors.Is(err, redis.Nil) {
			return nil, nil
		}
		return b, err
	})
	if err != nil {
		return nil, f.fail("get", key, err)
	}
	if b == nil {
		return nil, nil
	}
	rec, err := f.decode(key, b, time.Time{})
	if err != nil {
		f.drop(ctx, keys[0], b)
		return nil, err
	}
	return rec, nil
}

// acquireReply is the reply of acquireScript.
type acquireReply struct {
	kind int64 // 1 fresh, 2 lease, 3 held
	rec  []byte
	left int64 // ms the holder's lease has left
}

// Acquire returns key's record when it is fresh at now; else takes the
// fetch lease for ttl (at most MaxLease) when no one holds it; else reports
// when the holder's lease runs out. See cache.Fleet. A record there that
// cannot be used is removed, and left out of the Grant: with the lease,
// its holder's fetch replaces it; while another holds it, the caller waits
// for that holder's; fresh, it is an error, and the next call takes the
// lease.
func (f *Fleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (cache.Grant, error) {
	keys, err := f.keys(key)
	if err != nil {
		return cache.Grant{}, err
	}
	ttl = min(max(ttl, time.Millisecond), f.maxLease)
	token := rand.Text()
	r, err := do(ctx, f, func(ctx context.Context) (acquireReply, error) {
		res, err := acquireScript.Run(ctx, f.rdb, keys, now.UnixMilli(), ttl.Milliseconds(), token, f.maxRecord).Slice()
		if err != nil {
			return acquireReply{}, err
		}
		return parseAcquire(res)
	})
	if err != nil {
		return cache.Grant{}, f.fail("acquire", key, err)
	}
	var g cache.Grant
	if r.rec != nil {
		if g.Record, err = f.decode(key, r.rec, now); err != nil {
			f.drop(ctx, keys[0], r.rec)
		}
	}
	switch r.kind {
	case 1:
		if err == nil && g.Record == nil {
			err = fmt.Errorf("redisfleet: %s: a fresh record without a record", keys[0])
		}
		if err == nil && !g.Record.Fresh(now) {
			// The hash says fresh, the record does not: Publish did not
			// write it.
			f.drop(ctx, keys[0], r.rec)
			err = fmt.Errorf("redisfleet: %s: %w: fresh by its hash, stale by its record", keys[0], cache.ErrMalformedRecord)
		}
		if err != nil {
			return cache.Grant{}, err
		}
	case 2:
		g.Lease = &cache.Lease{Key: key, Token: token, Until: now.Add(ttl)}
	case 3:
		g.HeldUntil = now.Add(time.Duration(max(r.left, 1)) * time.Millisecond)
	}
	return g, nil
}

// parseAcquire reads the reply of acquireScript.
func parseAcquire(res []any) (acquireReply, error) {
	var r acquireReply
	if len(res) < 1 {
		return r, fmt.Errorf("empty reply")
	}
	kind, ok := res[0].(int64)
	if !ok || kind < 1 || kind > 3 || kind == 3 && len(res) < 3 {
		return r, fmt.Errorf("unexpected reply %v", res)
	}
	r.kind = kind
	if len(res) > 1 {
		if s, ok := res[1].(string); ok {
			r.rec = []byte(s)
		}
	}
	if kind == 3 {
		if r.left, ok = res[2].(int64); !ok {
			return r, fmt.Errorf("unexpected reply %v", res)
		}
	}
	return r, nil
}

// Publish stores rec as the record of l.Key, kept until rec.Expires, and
// ends l, only while l's token still holds the lease. A record longer than
// MaxRecordBytes is not published.
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
	if len(b) > f.maxRecord {
		return fmt.Errorf("redisfleet: a record of %d bytes for %q, over MaxRecordBytes (%d)", len(b), l.Key, f.maxRecord)
	}
	keep := max(rec.Expires().Sub(now), time.Second)
	n, err := do(ctx, f, func(ctx context.Context) (int64, error) {
		return publishScript.Run(ctx, f.rdb, keys, l.Token, b, rec.FreshUntil.UnixMilli(), keep.Milliseconds()).Int64()
	})
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
	_, err = do(ctx, f, func(ctx context.Context) (any, error) {
		return nil, releaseScript.Run(ctx, f.rdb, keys[1:], l.Token).Err()
	})
	if err != nil {
		return f.fail("release", l.Key, err)
	}
	return nil
}

// decode decodes the record of authority key; at a non-zero now, it also
// holds it to cache.Record.Check. The error says why it cannot be used.
func (f *Fleet) decode(key string, b []byte, now time.Time) (*cache.Record, error) {
	var r cache.Record
	err := r.UnmarshalBinary(b)
	switch {
	case err != nil:
	case r.Authority != key:
		err = fmt.Errorf("%w: a record of %q", cache.ErrMalformedRecord, r.Authority)
	case !now.IsZero():
		err = r.Check(now)
	}
	if err != nil {
		return nil, fmt.Errorf("redisfleet: the record of %q: %w", key, err)
	}
	return &r, nil
}

// drop removes the record b at recKey, if it is still there: best effort,
// the caller reports the error that led here.
func (f *Fleet) drop(ctx context.Context, recKey string, b []byte) {
	do(ctx, f, func(ctx context.Context) (any, error) {
		return nil, dropScript.Run(ctx, f.rdb, []string{recKey}, b).Err()
	})
}

// fail describes a failed operation on Redis.
func (f *Fleet) fail(op, key string, err error) error {
	return fmt.Errorf("redisfleet: %s %s: %w", op, strconv.Quote(key), err)
}
