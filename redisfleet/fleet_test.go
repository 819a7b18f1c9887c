package redisfleet_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// No test leaves a goroutine behind, Redis clients included.
func TestMain(m *testing.M) {
	if worker() {
		return
	}
	goleak.VerifyTestMain(m)
}

var prefixes atomic.Int64

// prefix returns a key prefix of its own for each fleet of a test, so that
// fleets on one Redis never see each other's keys.
func prefix() string { return fmt.Sprintf("t%d", prefixes.Add(1)) }

// The Fleet contract, on a single Redis and on a Cluster of three masters.
func TestConformance(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		rdb := redistest.Start(t).Client(t)
		fleettest.Run(t, func(t *testing.T) cache.Fleet { return redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()}) })
	})
	t.Run("cluster", func(t *testing.T) {
		rdb := redistest.StartCluster(t, 3).Client(t)
		fleettest.Run(t, func(t *testing.T) cache.Fleet { return redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()}) })
	})
}

// Keys carry the layout, and an authority's keys share one Cluster slot:
// its hash tag. The record is one string whose head is its freshness; it is
// kept cache.Retention past that, and the lease goes with the publication.
func TestKeyLayout(t *testing.T) {
	rdb := redistest.StartCluster(t, 3).Client(t)
	f := redisfleet.New(rdb, redisfleet.Options{})
	ctx := context.Background()
	const key = "https://example.com"
	recKey, leaseKey := f.Keys(key)
	assert.Equal(t, "robots:v2:{https://example.com}", recKey)
	assert.Equal(t, "robots:v2:{https://example.com}:lease", leaseKey)
	s1, err := rdb.ClusterKeySlot(ctx, recKey).Result()
	require.NoError(t, err)
	s2, err := rdb.ClusterKeySlot(ctx, leaseKey).Result()
	require.NoError(t, err)
	assert.Equal(t, s1, s2, "one slot: the scripts may touch both")

	now := time.Now()
	g, err := f.Acquire(ctx, key, now, 20*time.Second)
	require.NoError(t, err)
	require.NotNil(t, g.Lease)
	ttl, err := rdb.PTTL(ctx, leaseKey).Result()
	require.NoError(t, err)
	assert.InDelta(t, float64(20*time.Second), float64(ttl), float64(5*time.Second), "the lease lives as long as asked")
	l, err := f.Renew(ctx, *g.Lease, 40*time.Second, now)
	require.NoError(t, err)
	assert.Equal(t, now.Add(40*time.Second), l.Until)
	ttl, err = rdb.PTTL(ctx, leaseKey).Result()
	require.NoError(t, err)
	assert.InDelta(t, float64(40*time.Second), float64(ttl), float64(5*time.Second), "renewed")
	rec := fleettest.Sample(key, now)
	require.NoError(t, f.Publish(ctx, l, rec, now))
	ttl, err = rdb.PTTL(ctx, recKey).Result()
	require.NoError(t, err)
	assert.InDelta(t, float64(rec.Expires().Sub(now)), float64(ttl), float64(5*time.Second), "kept cache.Retention past its freshness")
	n, err := rdb.Exists(ctx, leaseKey).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "the publication ended the lease")
	typ, err := rdb.Type(ctx, recKey).Result()
	require.NoError(t, err)
	assert.Equal(t, "string", typ, "one key, one string")
	head, err := rdb.GetRange(ctx, recKey, 0, 14).Result()
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%014dz", rec.FreshUntil.UnixMilli()), head, "its freshness, then its codec")

	// A lease asked for longer than MaxLease is granted MaxLease.
	short := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix(), MaxLease: time.Second})
	g, err = short.Acquire(ctx, key, now, time.Hour)
	require.NoError(t, err)
	_, leaseKey = short.Keys(key)
	ttl, err = rdb.PTTL(ctx, leaseKey).Result()
	require.NoError(t, err)
	assert.LessOrEqual(t, ttl, time.Second)
	assert.Equal(t, now.Add(time.Second), g.Lease.Until)

	// An authority that would break the hash tag is refused.
	_, err = f.Get(ctx, "https://a}b{")
	assert.Error(t, err)
}

// What Redis holds is input like any other. What the protocol never wrote,
// or a record that does not decode or names another authority, is an error
// or is removed, and the next lease holder replaces it. What another
// process may rightly have written is left alone: a record of a newer codec,
// one this process's clock disagrees with, one longer than this process
// reads. Never a panic, never a fleet stuck on a bad key.
func TestHostileContents(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	const key = "https://example.com"
	now := time.Now()
	enc := redisfleet.New(rdb, redisfleet.Options{})
	value := func(r *cache.Record) []byte {
		v, err := redisfleet.Encode(enc, r)
		require.NoError(t, err)
		return v
	}
	fresh := fmt.Sprintf("%014d", now.Add(time.Hour).UnixMilli())
	for name, tt := range map[string]struct {
		plant func(recKey, leaseKey string)
		stays bool // the record is still there, untouched, after the reads
	}{
		"a record that does not decode, fresh": {plant: func(recKey, _ string) { rdb.Set(ctx, recKey, fresh+"zgarbage", 0) }},
		"a record that does not decode, stale": {plant: func(recKey, _ string) { rdb.Set(ctx, recKey, "00000000000000zgarbage", 0) }},
		"a value too short":                    {plant: func(recKey, _ string) { rdb.Set(ctx, recKey, "x", 0) }},
		"a header fresher than its record": {plant: func(recKey, _ string) {
			v := value(fleettest.Sample(key, now.Add(-2*time.Hour)))
			rdb.Set(ctx, recKey, fresh+string(v[14:]), 0)
		}},
		"a freshness that is not a number": {plant: func(recKey, _ string) {
			v := value(fleettest.Sample(key, now))
			rdb.Set(ctx, recKey, "forever-and-ay"+string(v[14:]), 0)
		}},
		"a record key that is not a string": {plant: func(recKey, _ string) { rdb.HSet(ctx, recKey, "rec", "x") }},
		"another authority's record": {plant: func(recKey, _ string) {
			rdb.Set(ctx, recKey, value(fleettest.Sample("https://other.example", now)), 0)
		}},
		"a lease without a lifetime":   {plant: func(_, leaseKey string) { rdb.Set(ctx, leaseKey, "someone", 0) }},
		"a lease that is not a string": {plant: func(_, leaseKey string) { rdb.HSet(ctx, leaseKey, "a", "b") }},
		"a lease of a year":            {plant: func(_, leaseKey string) { rdb.Set(ctx, leaseKey, "someone", 365*24*time.Hour) }},
		"a record of a newer codec, fresh": {stays: true, plant: func(recKey, _ string) {
			v := value(fleettest.Sample(key, now))
			v[14] = 'y'
			rdb.Set(ctx, recKey, v, 0)
		}},
		"a record fetched in the future by this clock": {stays: true, plant: func(recKey, _ string) {
			rdb.Set(ctx, recKey, value(fleettest.Sample(key, now.Add(time.Hour))), 0)
		}},
		"a record too long to read, fresh": {stays: true, plant: func(recKey, _ string) {
			r := fleettest.Sample(key, now)
			r.Body = []byte(strings.Repeat("Disallow: /", 10<<10)) // compresses below 4 KiB, decodes to more
			v := value(r)
			v = append(v, make([]byte, 5<<10)...) // stored longer than 4 KiB too
			rdb.Set(ctx, recKey, v, 0)
		}},
	} {
		t.Run(name, func(t *testing.T) {
			f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix(), MaxRecordBytes: 4 << 10})
			recKey, leaseKey := f.Keys(key)
			tt.plant(recKey, leaseKey)
			planted, _ := rdb.Get(ctx, recKey).Result()
			_, err := f.Get(ctx, key)
			if err != nil {
				assert.ErrorIs(t, err, cache.ErrMalformedRecord)
			}
			g, err := f.Acquire(ctx, key, now, time.Minute)
			if err != nil { // a fresh record that cannot be used here: an error
				assert.ErrorIs(t, err, cache.ErrMalformedRecord)
				g, err = f.Acquire(ctx, key, now, time.Minute)
			}
			if tt.stays {
				now, _ := rdb.Get(ctx, recKey).Result()
				assert.Equal(t, planted, now, "left alone")
				if err != nil {
					return // fresh by its header: this process fetches for itself
				}
			}
			require.NoError(t, err)
			require.NotNil(t, g.Lease, "the lease is granted once what was planted is gone")
			if g.Record != nil { // only a sound record
				assert.NoError(t, g.Record.Check(now))
			}
			rec := fleettest.Sample(key, now)
			require.NoError(t, f.Publish(ctx, *g.Lease, rec, now))
			got, err := f.Get(ctx, key)
			require.NoError(t, err)
			fleettest.Equal(t, rec, got)
		})
	}
}

// A Redis that hangs (SIGSTOP: connections open, no reply) holds no
// operation past Options.Timeout, even on a client that does not honour
// context deadlines while reading: here one whose reads never time out,
// so that an operation not bounded by the Fleet itself would wait until
// the test's guard against a hang fails it.
func TestHungRedis(t *testing.T) {
	srv := redistest.Start(t)
	o := srv.Options()
	o.ContextTimeoutEnabled = false // go-redis's default: reads wait for ReadTimeout
	o.ReadTimeout = -1              // which is never
	rdb := redis.NewClient(o)
	t.Cleanup(func() { rdb.Close() })
	f := redisfleet.New(rdb, redisfleet.Options{Timeout: 200 * time.Millisecond})
	ctx := context.Background()
	_, err := f.Get(ctx, "https://example.com") // connected
	require.NoError(t, err)
	srv.Pause(t)
	for name, op := range map[string]func() error{
		"get":     func() error { _, err := f.Get(ctx, "https://example.com"); return err },
		"acquire": func() error { _, err := f.Acquire(ctx, "https://example.com", time.Now(), time.Minute); return err },
		"publish": func() error {
			return f.Publish(ctx, cache.Lease{Key: "https://example.com", Token: "t"}, fleettest.Sample("https://example.com", time.Now()), time.Now())
		},
		"renew": func() error {
			_, err := f.Renew(ctx, cache.Lease{Key: "https://example.com", Token: "t"}, time.Second, time.Now())
			return err
		},
		"release": func() error { return f.Release(ctx, cache.Lease{Key: "https://example.com", Token: "t"}) },
	} {
		assert.ErrorIs(t, returns(t, name, op), context.DeadlineExceeded, name)
	}
	srv.Resume()
}

// returns runs op, named name, and returns its error; it fails t if op has
// not returned within a minute: a guard against a hang, not a measure of
// time.
func returns(t *testing.T, name string, op func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s waited past its timeout", name)
		return nil
	}
}

// With Redis gone, every operation fails within the Fleet's timeout (the
// client's retries of the dial are cut short), with an error: the robots
// Client then fetches for itself.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	f := redisfleet.New(rdb, redisfleet.Options{Timeout: 200 * time.Millisecond})
	ctx := context.Background()
	srv.Stop()
	assert.Error(t, returns(t, "get", func() error { _, err := f.Get(ctx, "https://example.com"); return err }))
	assert.Error(t, returns(t, "acquire", func() error {
		_, err := f.Acquire(ctx, "https://example.com", time.Now(), time.Minute)
		return err
	}))
	err := returns(t, "publish", func() error {
		return f.Publish(ctx, cache.Lease{Key: "https://example.com", Token: "t"}, fleettest.Sample("https://example.com", time.Now()), time.Now())
	})
	assert.Error(t, err)
	assert.NotErrorIs(t, err, cache.ErrLeaseLost)
}

// counter counts the commands a Redis client sends (its round trips), in
// all and by the first key each touches, and says when each is done.
type counter struct {
	n     atomic.Int64
	mu    sync.Mutex
	byKey map[string]int
	done  chan struct{}
}

func newCounter() *counter {
	return &counter{byKey: map[string]int{}, done: make(chan struct{}, 1<<10)}
}

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		c.count(cmd)
		return err
	}
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		c.count(cmds[0])
		return err
	}
}

func (c *counter) count(cmd redis.Cmder) {
	c.n.Add(1)
	if args := cmd.Args(); len(args) > 3 { // EVAL and EVALSHA: script, numkeys, keys…
		key, _ := args[3].(string)
		c.mu.Lock()
		c.byKey[key]++
		c.mu.Unlock()
	}
	select {
	case c.done <- struct{}{}:
	default:
	}
}

// of returns how many commands touched key.
func (c *counter) of(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byKey[key]
}

// waitFor waits until n commands touching key are done: a Client
// publishes after its callers have their answer. It fails t if they are not
// done in 10 s: a guard against a hang, not a measure of time.
func (c *counter) waitFor(t testing.TB, n int, key string) {
	t.Helper()
	for c.of(key) < n {
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d commands on %s done, not %d", c.of(key), key, n)
		}
	}
}

// A record of the old layout (v1: a hash of the record and its freshness)
// is neither read nor removed: its key is another's, and expires on its
// own; a process of this layout fetches and publishes its own.
func TestOldLayoutIgnored(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	p := prefix()
	f := redisfleet.New(rdb, redisfleet.Options{Prefix: p})
	const key = "https://example.com"
	now := time.Now()
	old, err := fleettest.Sample(key, now).MarshalBinary()
	require.NoError(t, err)
	v1 := p + ":v1:{" + key + "}"
	require.NoError(t, rdb.HSet(ctx, v1, "rec", old, "fresh", now.Add(time.Hour).UnixMilli()).Err())
	require.NoError(t, rdb.PExpire(ctx, v1, 8*24*time.Hour).Err())
	got, err := f.Get(ctx, key)
	require.NoError(t, err)
	assert.Nil(t, got)
	g, err := f.Acquire(ctx, key, now, time.Minute)
	require.NoError(t, err)
	require.NotNil(t, g.Lease, "nothing of this layout: the lease")
	require.NoError(t, f.Publish(ctx, *g.Lease, fleettest.Sample(key, now), now))
	n, err := rdb.Exists(ctx, v1).Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "the old key is left to its own expiry")
}
