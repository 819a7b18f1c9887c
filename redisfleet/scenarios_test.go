package redisfleet_test

// The failure paths of a fleet, each as an operator meets it, against a real
// redis-server: a lease released without a publication, a planted lease, a
// process whose clock is behind, a value too large to read, a Redis that is
// down, a Redis that hangs while a record is published.

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// topologies runs fn on a single Redis and on a Cluster of three masters.
func topologies(t *testing.T, fn func(t *testing.T, rdb redis.UniversalClient)) {
	t.Run("single", func(t *testing.T) { fn(t, redistest.Start(t).Client(t)) })
	t.Run("cluster", func(t *testing.T) { fn(t, redistest.StartCluster(t, 3).Client(t)) })
}

// A bound on a failure only: what is under test answers long before it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A holder that releases its lease without publishing (its record over
// MaxRecordBytes, a publication that failed, a superseded fetch) wakes the
// processes waiting for it: they ask with the same round trip that
// acquires, and the next one takes the lease at once, not when it would
// have run out.
func TestReleaseWakesWaiters(t *testing.T) {
	topologies(t, func(t *testing.T, rdb redis.UniversalClient) {
		n := newCounter()
		rdb.AddHook(n)
		f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()})
		o := newOrigin(t)
		c := o.client(t, f)
		const key = "http://woken.test"
		g, err := f.Acquire(context.Background(), key, time.Now(), time.Minute) // another process, fetching
		require.NoError(t, err)
		require.NotNil(t, g.Lease)
		answer := make(chan error, 1)
		go func() {
			_, err := c.Allowed(bounded(t), key+"/x")
			answer <- err
		}()
		recKey, _ := f.Keys(key)
		n.waitFor(t, 3, recKey) // the Client asked, found the lease held, and asked again
		require.NoError(t, f.Release(context.Background(), *g.Lease))
		require.NoError(t, <-answer, "woken a minute before the lease would have run out")
		assert.Equal(t, 1, o.count("woken.test"))
	})
}

// A lease planted with a year to live (or one a misconfigured process took)
// counts as run out: it is not waited for.
func TestPlantedLeaseIsNotHonoured(t *testing.T) {
	topologies(t, func(t *testing.T, rdb redis.UniversalClient) {
		f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()})
		o := newOrigin(t)
		c := o.client(t, f)
		const key = "http://planted.test"
		recKey, leaseKey := f.Keys(key)
		require.NoError(t, rdb.Set(context.Background(), leaseKey, "someone", 365*24*time.Hour).Err())
		_, err := c.Allowed(bounded(t), key+"/x")
		require.NoError(t, err, "answered without waiting a year, or two leases")
		assert.Equal(t, 1, o.count("planted.test"))
		assert.Zero(t, c.Stats().FleetFallbacks, "the planted lease went; this Client took the lease")
		require.NoError(t, c.Flush(context.Background()))
		n, err := rdb.Exists(context.Background(), recKey).Result()
		require.NoError(t, err)
		assert.Equal(t, int64(1), n, "and published")
	})
}

// A process whose clock is ten minutes behind reads records it cannot
// trust (fetched, by its clock, in the future): it fetches for itself and
// counts them, and deletes none of them.
func TestSkewedClockDeletesNothing(t *testing.T) {
	topologies(t, func(t *testing.T, rdb redis.UniversalClient) {
		f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()})
		o := newOrigin(t)
		right := o.client(t, f)
		behind := o.client(t, f, func(o *robots.Options) {
			o.Now = func() time.Time { return time.Now().Add(-10 * time.Minute) }
		})
		const hosts = 50
		for i := range hosts {
			decide(t, right, fmt.Sprintf("s%d.test", i))
		}
		require.NoError(t, right.Flush(context.Background()))
		for i := range hosts {
			decide(t, behind, fmt.Sprintf("s%d.test", i))
		}
		kept := 0
		for i := range hosts {
			recKey, _ := f.Keys(fmt.Sprintf("http://s%d.test", i))
			kept += int(rdb.Exists(context.Background(), recKey).Val())
		}
		assert.Equal(t, hosts, kept, "every fresh record stays for the processes that can use it")
		assert.Equal(t, uint64(hosts), behind.Stats().FleetErrors, "each counted")
		assert.Equal(t, uint64(hosts), behind.Stats().Fetches, "and fetched locally")
	})
}

// A process whose clock is ten minutes ahead publishes nothing: every
// other process would refuse its records as fetched in the future, so
// Redis's clock judges them first, and the lease goes to one that can
// publish.
func TestClockAheadPublishesNothing(t *testing.T) {
	topologies(t, func(t *testing.T, rdb redis.UniversalClient) {
		f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()})
		o := newOrigin(t)
		ahead := o.client(t, f, func(o *robots.Options) {
			o.Now = func() time.Time { return time.Now().Add(10 * time.Minute) }
		})
		right, other := o.client(t, f), o.client(t, f)
		decide(t, ahead, "ahead.test")
		require.NoError(t, ahead.Flush(context.Background()))
		st := ahead.Stats()
		assert.Equal(t, uint64(1), st.FleetErrors, "its publication refused, counted")
		assert.False(t, st.FleetDown, "a clock ahead is no failure of Redis")
		recKey, leaseKey := f.Keys("http://ahead.test")
		assert.Zero(t, rdb.Exists(context.Background(), recKey, leaseKey).Val(), "nothing published, the lease released")
		decide(t, right, "ahead.test")
		require.NoError(t, right.Flush(context.Background()))
		decide(t, other, "ahead.test")
		assert.Equal(t, uint64(1), other.Stats().FleetHits, "what a process with the right time published serves the others")
		assert.Zero(t, right.Stats().FleetErrors+other.Stats().FleetErrors)
		assert.Equal(t, 2, o.count("ahead.test"))
	})
}

// Every read is bounded inside Redis: a value over MaxRecordBytes is not
// read out of it, whatever its size; and a value that is not a record is
// removed by its length and hash, never by sending it back.
func TestBoundedReads(t *testing.T) {
	topologies(t, func(t *testing.T, rdb redis.UniversalClient) {
		sent := &argBytes{}
		rdb.AddHook(sent)
		f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()})
		ctx := context.Background()
		const key = "https://big.example"
		recKey, _ := f.Keys(key)
		huge := fmt.Sprintf("%014d", time.Now().Add(time.Hour).UnixMilli()) + "z" + strings.Repeat("x", 16<<20)
		require.NoError(t, rdb.Set(ctx, recKey, huge, 0).Err())
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := f.Get(ctx, key)
		require.Error(t, err, "over MaxRecordBytes")
		g, err := f.Acquire(ctx, key, time.Now(), time.Minute)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "the 16 MiB value was not read")
		require.NotNil(t, g.Lease, "not read, so not fresh: the lease, to replace it")
		assert.Nil(t, g.Record)

		const junkKey = "https://junk.example"
		junkRec, _ := f.Keys(junkKey)
		junk := fmt.Sprintf("%014d", time.Now().Add(time.Hour).UnixMilli()) + "z" + strings.Repeat("j", 3<<20)
		require.NoError(t, rdb.Set(ctx, junkRec, junk, 0).Err())
		sent.max.Store(0)
		_, err = f.Acquire(ctx, junkKey, time.Now(), time.Minute)
		require.Error(t, err, "fresh by its head, not a record")
		assert.Less(t, sent.max.Load(), int64(1<<10), "what was sent to Redis: no command carried the value back")
		assert.Zero(t, rdb.Exists(ctx, junkRec).Val(), "removed")
		g, err = f.Acquire(ctx, junkKey, time.Now(), time.Minute)
		require.NoError(t, err)
		require.NotNil(t, g.Lease)
		require.NoError(t, f.Publish(ctx, *g.Lease, fleettest.Sample(junkKey, time.Now()), time.Now()))
	})
}

// argBytes records the most bytes of arguments one command sent.
type argBytes struct{ max atomic.Int64 }

func (a *argBytes) DialHook(next redis.DialHook) redis.DialHook { return next }
func (a *argBytes) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		var n int64
		for _, arg := range cmd.Args() {
			switch v := arg.(type) {
			case string:
				n += int64(len(v))
			case []byte:
				n += int64(len(v))
			default:
				n += 8
			}
		}
		if n > a.max.Load() {
			a.max.Store(n)
		}
		return next(ctx, cmd)
	}
}
func (a *argBytes) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// With Redis down, new authorities cost a local fetch, not a Redis
// timeout each: after a few failures the Client skips the fleet, but for a
// probe per interval, and says so in its Stats.
func TestBreakerSkipsADeadRedis(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	n := newCounter()
	rdb.AddHook(n)
	o := newOrigin(t)
	c := o.client(t, redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()}))
	decide(t, c, "before.test")
	require.NoError(t, c.Flush(context.Background()))
	logged := &countingLogger{}
	redis.SetLogger(logged) // go-redis logs each failed dial of its pool
	t.Cleanup(func() { redis.SetLogger(stderrLogger{}) })
	srv.Stop()
	n.n.Store(0)
	const hosts = 200
	for i := range hosts {
		decide(t, c, fmt.Sprintf("d%d.test", i))
	}
	st := c.Stats()
	t.Logf("%d new hosts with Redis down: %d Redis commands tried, %d lines logged by go-redis, %d fallbacks, breaker open: %v",
		hosts, n.n.Load(), logged.n.Load(), st.FleetFallbacks, st.FleetDown)
	assert.True(t, st.FleetDown)
	assert.Equal(t, uint64(hosts), st.FleetFallbacks)
	assert.LessOrEqual(t, n.n.Load(), int64(10), "a few failures, then a probe per interval: not a command per host")
	assert.LessOrEqual(t, logged.n.Load(), int64(10), "nor a line of go-redis's log per host")
}

// Publishing runs off the callers' path: a caller has its answer once the
// record is stored locally, even while Redis hangs; the publication ends
// within its timeout, in the background.
func TestPublicationOffTheCallersPath(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	o := newOrigin(t)
	c := o.client(t, redisfleet.New(rdb, redisfleet.Options{Prefix: prefix(), Timeout: 2 * time.Second}))
	decide(t, c, "warm.test")
	require.NoError(t, c.Flush(context.Background()))
	o.mu.Lock()
	o.hold = "slow.test"
	o.mu.Unlock()
	answer := make(chan error, 1)
	go func() {
		_, err := c.Allowed(context.Background(), "http://slow.test/x")
		answer <- err
	}()
	<-o.held // the lease is taken, the fetch is under way
	srv.Pause(t)
	close(o.goOn)
	require.NoError(t, <-answer)
	st := c.Stats()
	assert.Zero(t, st.FleetErrors+st.LeasesLost, "answered before the publication could fail: it was not waited for")
	srv.Resume()
	require.NoError(t, c.Flush(context.Background()))
}

// countingLogger counts the lines go-redis logs.
type countingLogger struct{ n atomic.Int64 }

func (l *countingLogger) Printf(context.Context, string, ...any) { l.n.Add(1) }

// stderrLogger is go-redis's own logger's output: what a test puts back.
type stderrLogger struct{}

func (stderrLogger) Printf(_ context.Context, format string, v ...any) {
	fmt.Fprintf(os.Stderr, "redis: "+format+"\n", v...)
}

// slowReply delays every reply: a Redis, or a network, slower than the
// fleet's Timeout.
type slowReply struct{ by time.Duration }

func (s slowReply) DialHook(next redis.DialHook) redis.DialHook { return next }
func (s slowReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		time.Sleep(s.by) // the reply's delay on the way back, not a wait in the test
		return err
	}
}
func (s slowReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A lease taken by an Acquire whose reply came too late (the caller gave up
// and fetches for itself) is let go when the reply comes, so that the
// others do not wait a term for a publication that never comes.
func TestLateLeaseReleased(t *testing.T) {
	srv := redistest.Start(t)
	p := prefix()
	n := newCounter()
	slow := srv.Client(t)
	slow.AddHook(n)
	slow.AddHook(slowReply{300 * time.Millisecond})
	late := redisfleet.New(slow, redisfleet.Options{Prefix: p, Timeout: 100 * time.Millisecond})
	other := redisfleet.New(srv.Client(t), redisfleet.Options{Prefix: p})
	ctx := context.Background()
	_, err := other.Acquire(ctx, "https://warm.example", time.Now(), time.Second) // scripts loaded
	require.NoError(t, err)
	require.NoError(t, other.Release(ctx, cache.Lease{Key: "https://warm.example", Token: "none"}))
	require.NoError(t, slow.Ping(ctx).Err()) // a connection made, slowly: the next command is sent at once
	const key = "https://late.example"
	_, err = late.Acquire(ctx, key, time.Now(), 30*time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, leaseKey := late.Keys(key)
	n.waitFor(t, 1, leaseKey) // the release that follows the acquire's late reply
	g, err := other.Acquire(ctx, key, time.Now(), time.Minute)
	require.NoError(t, err)
	assert.NotNil(t, g.Lease, "let go: the lease is free, not held 30 s by a holder that never fetches")
}
