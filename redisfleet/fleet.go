// Package redisfleet shares robots.txt records between the processes of a
// crawler fleet through Redis, so that the fleet fetches each robots.txt
// once and backs off from a failing site together. A *Fleet is a
// cache.Fleet: set it as robots.Options.Fleet.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true})
//	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0", Fleet: redisfleet.New(rdb, redisfleet.Options{})})
//
// Each authority has two keys in one Cluster slot (one hash tag): its
// record, a string holding the time its freshness ends and the record's
// encoding compressed with zstd and a dictionary trained on real robots.txt
// files (about 940 bytes of Redis memory per authority at the mix of the
// project's corpus), kept cache.Retention past its freshness; and its fetch
// lease, a random token with a short time to live that its holder renews
// while it fetches. Lua scripts make the protocol atomic: one returns the
// fresh record or, failing that, takes the lease; one publishes only while
// the caller's token still holds the lease; one renews it, one releases it.
// A fleet hit costs one round trip; a miss, the lease and the publication,
// two. Every script is idempotent, so go-redis's retries after a lost reply
// are harmless.
//
// Redis is never a single point of failure: every operation returns within
// Options.Timeout, whatever the client's own timeouts, and the robots Client
// falls back to fetching for itself whenever the fleet fails, counting it in
// its Stats, and skips a fleet that keeps failing for a while (a circuit
// breaker). What Redis holds is input like any other: every read is bounded
// by MaxRecordBytes inside Redis; a key the protocol never wrote, or a
// record that does not decode or names another authority, is removed, so
// that the next lease holder replaces it; a record this process cannot
// trust (its clock disagrees with the writer's) or of a newer codec is left
// alone. Redis's clock judges a publication: a record fetched, by it, more
// than MaxSkew in the future is not published (ErrClockAhead), since every
// other process would refuse it. The key names carry the layout (v2):
// records of other versions of this module are neither read nor removed.
//
// go-redis logs every failed dial of its pool; while Redis is down the
// breaker keeps those to one per interval, and redis.SetLogger silences
// them.
//
// Non-goals: Redis administration (persistence, eviction policy, replicas:
// the records are a cache, and any of them may be lost), and Redis
// versions before 6.2.
package redisfleet

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
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
	// DefaultMaxLease is the longest lease granted or honoured: a Client
	// takes leases of a few seconds and renews them, so a lease with more
	// time left than this was planted or misconfigured, and counts as run
	// out.
	DefaultMaxLease = time.Minute
	// DefaultMaxRecordBytes is the longest record read from or written to
	// Redis, encoded and uncompressed: enough for a record of a file at the
	// default cap (500 KiB) and its good copy.
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
	// MaxLease bounds the leases granted, whatever a Client asks, and a
	// lease found in Redis with more time left than this counts as run
	// out; zero or negative means DefaultMaxLease.
	MaxLease time.Duration
	// MaxRecordBytes bounds the records read from and written to Redis,
	// stored (compressed) and decoded: a longer value in Redis is not
	// read, a longer record is not published. Zero or negative means
	// DefaultMaxRecordBytes. Raise it to twice robots.Options.MaxBytes
	// plus 1 MiB when raising that.
	MaxRecordBytes int
}

// Fleet is a cache.Fleet on Redis. It is safe for concurrent use.
type Fleet struct {
	rdb       redis.UniversalClient
	prefix    string
	timeout   time.Duration
	maxLease  time.Duration
	maxRecord int
	codec     *codec
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
	f.codec = newCodec(f.maxRecord)
	return f
}

// Keys returns the keys of authority key: its record's and its lease's.
// The authority is the hash tag, so both live in one Cluster slot; the
// layout (v2) is in the name, so that versions of this module whose records
// differ keep apart.
func (f *Fleet) Keys(key string) (record, lease string) {
	record = f.prefix + ":" + layout + ":{" + key + "}"
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

// The scripts. KEYS[1] is the record (a string: see codec.go), KEYS[2] the
// lease. A value longer than the longest record is never read out of
// Redis, nor compared by its bytes.
var (
	// acquire: ARGV now (ms), ttl (ms), token, the longest record, the
	// longest lease (ms). Returns {1, rec} for a fresh record, {2, rec or
	// nil} for the lease granted (also to a retry of the same call: its
	// token holds it already), {3, rec or nil, lease ms left} for a lease
	// held by another. What the protocol never writes goes: a record key
	// that is not a string, a lease that is not a string, has no lifetime,
	// or more than the longest. A record too long is left out, and left
	// alone: the next publication replaces it. A freshness that is not a
	// number, or is more than two days ahead (no record is fresh for more
	// than one), counts as stale.
	acquireScript = redis.NewScript(`
local t = redis.call('TYPE', KEYS[1]).ok
local rec, fresh = false, nil
if t == 'string' then
  fresh = tonumber(redis.call('GETRANGE', KEYS[1], 0, 13))
  if redis.call('STRLEN', KEYS[1]) <= tonumber(ARGV[4]) then rec = redis.call('GET', KEYS[1]) end
elseif t ~= 'none' then
  redis.call('DEL', KEYS[1])
end
t = redis.call('TYPE', KEYS[2]).ok
if t ~= 'none' then
  local left = redis.call('PTTL', KEYS[2])
  if t ~= 'string' or left < 0 or left > tonumber(ARGV[5]) then redis.call('DEL', KEYS[2]) end
end
local now = tonumber(ARGV[1])
if rec and fresh and fresh > now and fresh < now + 172800000 then
  return {1, rec}
end
local holder = redis.call('GET', KEYS[2])
if not holder then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2])
  return {2, rec}
end
if holder == ARGV[3] then
  return {2, rec}
end
return {3, rec, redis.call('PTTL', KEYS[2])}
`)
	// get: ARGV the longest record. Returns {1, rec}; {0} when there is
	// none; {2, length} for one too long, which stays where it is.
	getScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then return {0} end
local n = redis.call('STRLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return {2, n} end
return {1, redis.call('GET', KEYS[1])}
`)
	// publish: ARGV token, rec, keep (ms), fetched (ms), the most a
	// fetch may be ahead of Redis's clock (ms). Writes the record and ends
	// the lease only while the token holds it, and returns 1; else 0,
	// unless the very record is there already (a retry of a publication
	// that was made). A record fetched, by Redis's clock, further in the
	// future than allowed is not written: {-1, Redis's time in ms}; the
	// publisher's clock is ahead, and every other process would refuse it.
	publishScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(ARGV[4]) > now + tonumber(ARGV[5]) then return {-1, now} end
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  if redis.call('TYPE', KEYS[1]).ok == 'string' and redis.call('STRLEN', KEYS[1]) == string.len(ARGV[2])
    and redis.call('GET', KEYS[1]) == ARGV[2] then return {1} end
  return {0}
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[2])
return {1}
`)
	// renew: ARGV token, ttl (ms). Extends the lease KEYS[1] if the token
	// holds it, and returns 1; else 0.
	renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)
	// release: ARGV token. Ends the lease KEYS[1] if the token holds it.
	releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)
	// drop: ARGV length, SHA-1 (hex). Removes the record KEYS[1] if it is
	// still the value of that length and hash: the value is never sent
	// back.
	dropScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1]).ok == 'string' and redis.call('STRLEN', KEYS[1]) == tonumber(ARGV[1])
  and redis.sha1hex(redis.call('GET', KEYS[1])) == ARGV[2] then
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

// Get returns the record of key, nil when there is none. A record longer
// than MaxRecordBytes is not read: it is an error.
func (f *Fleet) Get(ctx context.Context, key string) (*cache.Record, error) {
	keys, err := f.keys(key)
	if err != nil {
		return nil, err
	}
	res, err := do(ctx, f, func(ctx context.Context) ([]any, error) {
		return getScript.Run(ctx, f.rdb, keys[:1], f.maxRecord).Slice()
	})
	if err != nil {
		return nil, f.fail("get", key, err)
	}
	kind, _ := res[0].(int64)
	switch {
	case kind == 0:
		return nil, nil
	case kind == 2 && len(res) == 2:
		return nil, fmt.Errorf("redisfleet: the record of %q: %w: %v bytes, over MaxRecordBytes (%d)", key, cache.ErrMalformedRecord, res[1], f.maxRecord)
	case kind != 1 || len(res) != 2:
		return nil, f.fail("get", key, fmt.Errorf("unexpected reply %v", res))
	}
	v, _ := res[1].(string)
	return f.decode(ctx, keys[0], key, []byte(v), time.Time{})
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
// cannot be used is left out of the Grant (and removed, when it is not one
// of this layout): with the lease, its holder's fetch replaces it; while
// another holds it, the caller waits for that holder's; fresh, it is an
// error, and the Client fetches for itself.
func (f *Fleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (cache.Grant, error) {
	keys, err := f.keys(key)
	if err != nil {
		return cache.Grant{}, err
	}
	ttl = min(max(ttl, time.Millisecond), f.maxLease)
	token := rand.Text()
	r, err := do(ctx, f, func(ctx context.Context) (acquireReply, error) {
		res, err := acquireScript.Run(ctx, f.rdb, keys, now.UnixMilli(), ttl.Milliseconds(), token, f.maxRecord,
			f.maxLease.Milliseconds()).Slice()
		if err != nil {
			return acquireReply{}, err
		}
		r, err := parseAcquire(res)
		if err == nil && r.kind == 2 && ctx.Err() != nil {
			// The lease was taken, but too late for the caller, who gave up
			// and fetches for itself: let it go, or the others would wait
			// a term for a publication that never comes.
			f.Release(context.WithoutCancel(ctx), cache.Lease{Key: key, Token: token})
		}
		return r, err
	})
	if err != nil {
		return cache.Grant{}, f.fail("acquire", key, err)
	}
	var g cache.Grant
	if r.rec != nil {
		g.Record, err = f.decode(ctx, keys[0], key, r.rec, now)
	}
	switch r.kind {
	case 1:
		if err == nil && g.Record == nil {
			err = fmt.Errorf("redisfleet: %s: a fresh record without a record", keys[0])
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
	v, err := f.codec.encode(rec)
	if err != nil {
		return fmt.Errorf("redisfleet: publish %s: %w", l.Key, err)
	}
	keep := max(rec.Expires().Sub(now), time.Second)
	res, err := do(ctx, f, func(ctx context.Context) ([]any, error) {
		return publishScript.Run(ctx, f.rdb, keys, l.Token, v, keep.Milliseconds(), rec.FetchedAt.UnixMilli(),
			MaxSkew.Milliseconds()).Slice()
	})
	if err != nil {
		return f.fail("publish", l.Key, err)
	}
	switch n, _ := res[0].(int64); n {
	case 1:
		return nil
	case -1:
		var redisNow int64
		if len(res) > 1 {
			redisNow, _ = res[1].(int64)
		}
		return fmt.Errorf("redisfleet: publish %s: %w: %w: fetched %v ahead of Redis's clock, over %v; not published",
			l.Key, cache.ErrMalformedRecord, ErrClockAhead, time.Duration(rec.FetchedAt.UnixMilli()-redisNow)*time.Millisecond, MaxSkew)
	}
	return fmt.Errorf("redisfleet: publish %s: %w", l.Key, cache.ErrLeaseLost)
}

// MaxSkew is how far ahead of Redis's clock a published record may have
// been fetched: as far as cache.Record.Check lets other processes trust
// one.
const MaxSkew = 5 * time.Minute

// ErrClockAhead is wrapped, beside cache.ErrMalformedRecord, by the error of
// Publish for a record fetched, by Redis's clock, more than MaxSkew in the
// future: the publishing process's clock is ahead, and every other process
// would refuse the record as fetched in the future. It is not published;
// the process keeps it, and the lease goes.
var ErrClockAhead = errors.New("this process's clock is ahead of Redis's")

// Renew extends l to now+ttl (at most MaxLease), only while l's token
// still holds the lease.
func (f *Fleet) Renew(ctx context.Context, l cache.Lease, ttl time.Duration, now time.Time) (cache.Lease, error) {
	keys, err := f.keys(l.Key)
	if err != nil {
		return cache.Lease{}, err
	}
	ttl = min(max(ttl, time.Millisecond), f.maxLease)
	n, err := do(ctx, f, func(ctx context.Context) (int64, error) {
		return renewScript.Run(ctx, f.rdb, keys[1:], l.Token, ttl.Milliseconds()).Int64()
	})
	if err != nil {
		return cache.Lease{}, f.fail("renew", l.Key, err)
	}
	if n != 1 {
		return cache.Lease{}, fmt.Errorf("redisfleet: renew %s: %w", l.Key, cache.ErrLeaseLost)
	}
	l.Until = now.Add(ttl)
	return l, nil
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

// decode returns the record of authority key that v, the value of recKey,
// holds; at a non-zero now, it also holds it to cache.Record.Check. A value
// that is not a record of this layout, or names another authority, is
// removed; one of a newer codec, or that Check refuses (the writer's clock
// and this process's disagree), stays: it is only not used here.
func (f *Fleet) decode(ctx context.Context, recKey, key string, v []byte, now time.Time) (*cache.Record, error) {
	r, err := f.codec.decode(key, v)
	if errors.Is(err, errForeign) {
		f.drop(ctx, recKey, v)
	}
	if err != nil {
		err = fmt.Errorf("%w: %w", cache.ErrMalformedRecord, err)
	}
	if err == nil && !now.IsZero() {
		err = r.Check(now)
	}
	if err != nil {
		return nil, fmt.Errorf("redisfleet: the record of %q: %w", key, err)
	}
	return r, nil
}

// drop removes the value v at recKey, if it is still there, comparing by
// length and hash: best effort, the caller reports the error that led here.
func (f *Fleet) drop(ctx context.Context, recKey string, v []byte) {
	sum := sha1.Sum(v)
	do(ctx, f, func(ctx context.Context) (any, error) {
		return nil, dropScript.Run(ctx, f.rdb, []string{recKey}, len(v), hex.EncodeToString(sum[:])).Err()
	})
}

// fail describes a failed operation on Redis.
func (f *Fleet) fail(op, key string, err error) error {
	return fmt.Errorf("redisfleet: %s %s: %w", op, strconv.Quote(key), err)
}
