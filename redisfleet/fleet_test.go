package redisfleet_test

import (
	"context"
	"fmt"
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

// Keys are versioned, and an authority's keys share one Cluster slot: its
// hash tag. The record is kept cache.Retention past its freshness, and the
// lease goes with the publication.
func TestKeyLayout(t *testing.T) {
	rdb := redistest.StartCluster(t, 3).Client(t)
	f := redisfleet.New(rdb, redisfleet.Options{})
	ctx := context.Background()
	const key = "https://example.com"
	recKey, leaseKey := f.Keys(key)
	assert.Equal(t, "robots:v1:{https://example.com}", recKey)
	assert.Equal(t, "robots:v1:{https://example.com}:lease", leaseKey)
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
	rec := fleettest.Sample(key, now)
	require.NoError(t, f.Publish(ctx, *g.Lease, rec, now))
	ttl, err = rdb.PTTL(ctx, recKey).Result()
	require.NoError(t, err)
	assert.InDelta(t, float64(rec.Expires().Sub(now)), float64(ttl), float64(5*time.Second), "kept cache.Retention past its freshness")
	n, err := rdb.Exists(ctx, leaseKey).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "the publication ended the lease")
	fields, err := rdb.HKeys(ctx, recKey).Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"rec", "fresh"}, fields)

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

// What Redis holds is input like any other: what the protocol never wrote
// is an error or is removed, and the next lease holder replaces it; never a
// panic, never a fleet stuck on a bad key.
func TestHostileContents(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	const key = "https://example.com"
	now := time.Now()
	for name, plant := range map[string]func(recKey, leaseKey string){
		"a record that does not decode, fresh": func(recKey, _ string) {
			rdb.HSet(ctx, recKey, "rec", "not a record", "fresh", now.Add(time.Hour).UnixMilli())
		},
		"a record that does not decode, stale": func(recKey, _ string) {
			rdb.HSet(ctx, recKey, "rec", "not a record", "fresh", 0)
		},
		"a hash fresher than its record": func(recKey, _ string) {
			b, _ := fleettest.Sample(key, now.Add(-2*time.Hour)).MarshalBinary()
			rdb.HSet(ctx, recKey, "rec", b, "fresh", now.Add(time.Hour).UnixMilli())
		},
		"freshness that is not a number": func(recKey, _ string) {
			b, _ := fleettest.Sample(key, now).MarshalBinary()
			rdb.HSet(ctx, recKey, "rec", b, "fresh", "forever")
		},
		"a record key that is not a hash": func(recKey, _ string) { rdb.Set(ctx, recKey, "x", 0) },
		"a lease without a lifetime":      func(_, leaseKey string) { rdb.Set(ctx, leaseKey, "someone", 0) },
		"a lease that is not a string":    func(_, leaseKey string) { rdb.HSet(ctx, leaseKey, "a", "b") },
		"a record fetched in the future": func(recKey, _ string) {
			b, _ := fleettest.Sample(key, now.Add(time.Hour)).MarshalBinary()
			rdb.HSet(ctx, recKey, "rec", b, "fresh", now.Add(2*time.Hour).UnixMilli())
		},
		"fresh for ever by its hash": func(recKey, _ string) {
			b, _ := fleettest.Sample(key, now.Add(-2*time.Hour)).MarshalBinary()
			rdb.HSet(ctx, recKey, "rec", b, "fresh", "inf")
		},
		"fresh for a century by its hash": func(recKey, _ string) {
			b, _ := fleettest.Sample(key, now.Add(-2*time.Hour)).MarshalBinary()
			rdb.HSet(ctx, recKey, "rec", b, "fresh", now.Add(100*365*24*time.Hour).UnixMilli())
		},
		"a record too long": func(recKey, _ string) {
			r := fleettest.Sample(key, now)
			r.Body = make([]byte, 8<<10)
			b, _ := r.MarshalBinary()
			rdb.HSet(ctx, recKey, "rec", b, "fresh", now.Add(time.Hour).UnixMilli())
		},
		"another authority's record": func(recKey, _ string) {
			b, _ := fleettest.Sample("https://other.example", now).MarshalBinary()
			rdb.HSet(ctx, recKey, "rec", b, "fresh", now.Add(time.Hour).UnixMilli())
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix(), MaxRecordBytes: 4 << 10})
			recKey, leaseKey := f.Keys(key)
			plant(recKey, leaseKey)
			g, err := f.Acquire(ctx, key, now, time.Minute)
			if err != nil { // a fresh record that cannot be used: an error, once
				assert.ErrorIs(t, err, cache.ErrMalformedRecord)
				g, err = f.Acquire(ctx, key, now, time.Minute)
			}
			require.NoError(t, err)
			require.NotNil(t, g.Lease, "the lease is granted once what was planted is gone")
			if g.Record != nil { // only a sound record, whatever its hash said
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
// context deadlines while reading.
func TestHungRedis(t *testing.T) {
	srv := redistest.Start(t)
	o := srv.Options()
	o.ContextTimeoutEnabled = false // go-redis's default: reads wait for ReadTimeout (3 s)
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
		"release": func() error { return f.Release(ctx, cache.Lease{Key: "https://example.com", Token: "t"}) },
	} {
		start := time.Now()
		err := op()
		assert.ErrorIs(t, err, context.DeadlineExceeded, name)
		assert.Less(t, time.Since(start), time.Second, "%s waited past its timeout", name)
	}
	srv.Resume()
}

// With Redis gone, every operation fails fast, with an error: the robots
// Client then fetches for itself.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	f := redisfleet.New(rdb, redisfleet.Options{Timeout: 200 * time.Millisecond})
	ctx := context.Background()
	srv.Stop()
	start := time.Now()
	_, err := f.Get(ctx, "https://example.com")
	assert.Error(t, err)
	_, err = f.Acquire(ctx, "https://example.com", time.Now(), time.Minute)
	assert.Error(t, err)
	err = f.Publish(ctx, cache.Lease{Key: "https://example.com", Token: "t"}, fleettest.Sample("https://example.com", time.Now()), time.Now())
	assert.Error(t, err)
	assert.NotErrorIs(t, err, cache.ErrLeaseLost)
	assert.Less(t, time.Since(start), 2*time.Second)
}

// counter counts the commands a Redis client sends: its round trips.
type counter struct{ n atomic.Int64 }

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}
