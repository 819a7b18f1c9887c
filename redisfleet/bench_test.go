package redisfleet_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// BenchmarkColdAuthority is the first question about an authority, three
// ways: fetched from the origin with no fleet; a fleet miss (the lease and
// the fetch; the publication follows the answer); a fleet hit (one round
// trip, no fetch). The origin is an httptest server on loopback that adds
// 20 ms to every answer, as a site across the Internet does (a robots.txt
// fetch takes tens to hundreds of milliseconds there); compare each with
// "origin", measured in the same run. redis-round-trips/op counts the
// commands sent, publications included.
func BenchmarkColdAuthority(b *testing.B) {
	rdb := redistest.Start(b).Client(b)
	n := newCounter()
	rdb.AddHook(n)
	o := newOrigin(b)
	o.latency = 20 * time.Millisecond
	ctx := context.Background()
	ask := func(b *testing.B, rc *robots.Client, h string) {
		if ok, err := rc.Allowed(ctx, "http://"+h+"/"+h); err != nil || ok {
			b.Fatalf("%s: %v %v", h, ok, err)
		}
	}
	run := func(b *testing.B, rc *robots.Client, each func(i int) string) {
		ask(b, rc, each(-1)) // scripts loaded, connections made
		rc.Flush(ctx)
		n.n.Store(0)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ask(b, rc, each(i))
			i++
		}
		b.StopTimer()
		rc.Flush(ctx)
		b.ReportMetric(float64(n.n.Load())/float64(b.N), "redis-round-trips/op")
	}
	b.Run("origin", func(b *testing.B) {
		rc := o.client(b, nil)
		run(b, rc, func(i int) string { return fmt.Sprintf("origin-%d-%d.test", b.N, i) })
	})
	b.Run("fleet-miss", func(b *testing.B) {
		rc := o.client(b, redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()}))
		run(b, rc, func(i int) string { return fmt.Sprintf("miss-%d-%d.test", b.N, i) })
	})
	b.Run("fleet-hit", func(b *testing.B) {
		fleet := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()})
		publisher, rc := o.client(b, fleet), o.client(b, fleet)
		ask(b, publisher, "hit.test")
		publisher.Flush(ctx)
		run(b, rc, func(int) string {
			rc.Invalidate("http://hit.test/") // cold here; fresh in Redis
			return "hit.test"
		})
	})
}

// BenchmarkHit is a cache hit with and without a Fleet: the fleet is not
// on the hit path.
func BenchmarkHit(b *testing.B) {
	rdb := redistest.Start(b).Client(b)
	o := newOrigin(b)
	ctx := context.Background()
	for _, fleet := range []bool{false, true} {
		b.Run(fmt.Sprintf("fleet=%v", fleet), func(b *testing.B) {
			rc := o.client(b, nil)
			if fleet {
				rc = o.client(b, redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()}))
			}
			rc.Allowed(ctx, "http://hot.test/")
			b.ReportAllocs()
			for b.Loop() {
				rc.Allowed(ctx, "http://hot.test/some/page")
			}
		})
	}
}

// BenchmarkDeadRedis is the first question about new authorities, asked
// by eight goroutines at once, as a crawler discovering sites asks, with
// Redis killed, against the same process with no Fleet at all, on a
// loopback origin with no latency added (the worst case for the
// difference). Once three failures have opened the breaker (before the
// timer starts), the dead fleet costs a probe per interval, on one
// goroutine: the two must answer at close rates (by design: at least half).
func BenchmarkDeadRedis(b *testing.B) {
	srv := redistest.Start(b)
	rdb := srv.Client(b)
	o := newOrigin(b)
	ctx := context.Background()
	dead := o.client(b, redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()}))
	srv.Stop()
	redis.SetLogger(quiet{}) // its dial errors, a probe's each, would break the benchmark's lines
	b.Cleanup(func() { redis.SetLogger(stderrLogger{}) })
	var next atomic.Int64
	ask := func(b *testing.B, rc *robots.Client, name string) {
		h := fmt.Sprintf("%s-%d.test", name, next.Add(1))
		if ok, err := rc.Allowed(ctx, "http://"+h+"/"+h); err != nil || ok {
			b.Errorf("%s: %v %v", h, ok, err)
		}
	}
	for range 3 {
		ask(b, dead, "opening")
	}
	if !dead.Stats().FleetDown {
		b.Fatalf("the breaker is closed: %+v", dead.Stats())
	}
	for _, c := range []struct {
		name string
		rc   *robots.Client
	}{{"no-fleet", o.client(b, nil)}, {"redis-down", dead}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					ask(b, c.rc, c.name)
				}
			})
		})
	}
}
