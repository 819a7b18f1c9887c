package redisfleet_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// BenchmarkColdAuthority is the first question about an authority, three
// ways: fetched from the origin with no fleet; a fleet miss (the lease, the
// fetch, the publication); a fleet hit (one round trip, no fetch). The
// origin is an httptest server on loopback, so "origin" is a lower bound:
// over the Internet a robots.txt fetch takes tens to hundreds of
// milliseconds more. redis-round-trips/op counts the commands sent.
func BenchmarkColdAuthority(b *testing.B) {
	rdb := redistest.Start(b).Client(b)
	n := &counter{}
	rdb.AddHook(n)
	o := newOrigin(b)
	ctx := context.Background()
	ask := func(b *testing.B, rc *robots.Client, h string) {
		if ok, err := rc.Allowed(ctx, "http://"+h+"/"+h); err != nil || ok {
			b.Fatalf("%s: %v %v", h, ok, err)
		}
	}
	run := func(b *testing.B, rc *robots.Client, each func(i int) string) {
		ask(b, rc, each(-1)) // scripts loaded, connections made
		n.n.Store(0)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ask(b, rc, each(i))
			i++
		}
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
