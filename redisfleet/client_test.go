package redisfleet_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
	"github.com/crawlkit/robots/status"
)

// client returns a robots.Client whose every host resolves to the origin,
// sharing fleet (nil: none).
func (c *origin) client(t testing.TB, fleet cache.Fleet) *robots.Client {
	addr := c.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	o := robots.Options{UserAgent: "FleetBot/1.0", HTTPClient: &http.Client{Transport: tr}, FetchTimeout: 2 * time.Second}
	if fleet != nil {
		o.Fleet = fleet
	}
	rc, err := robots.New(o)
	require.NoError(t, err)
	return rc
}

func decide(t testing.TB, rc *robots.Client, h string) {
	t.Helper()
	own, err := rc.Allowed(context.Background(), "http://"+h+"/"+h)
	require.NoError(t, err)
	other, err := rc.Allowed(context.Background(), "http://"+h+"/elsewhere")
	require.NoError(t, err)
	require.False(t, own, h)
	require.True(t, other, h)
}

// A cold authority costs one round trip to Redis when the fleet has its
// record, two when it has not (the lease, then the publication).
func TestRoundTrips(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	n := &counter{}
	rdb.AddHook(n)
	fleet := redisfleet.New(rdb, redisfleet.Options{})
	o := newOrigin(t)
	a, b := o.client(t, fleet), o.client(t, fleet)
	decide(t, a, "warm.test") // the scripts are loaded once per server: EVALSHA fails, EVAL loads
	n.n.Store(0)
	decide(t, a, "cold.test")
	assert.Equal(t, int64(2), n.n.Load(), "a miss: the lease and the publication")
	n.n.Store(0)
	decide(t, b, "cold.test")
	assert.Equal(t, int64(1), n.n.Load(), "a fleet hit: one round trip")
	assert.Equal(t, 1, o.count("cold.test"))
	assert.Equal(t, uint64(1), b.Stats().FleetHits)
	assert.Zero(t, b.Stats().Fetches, "records from Redis are not fetches")
}

// Clients sharing one Redis fetch each authority once between them; with
// Redis gone mid-run, each still decides every URL, rightly, and counts
// the fallbacks.
func TestClientsShareRedis(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	fleet := redisfleet.New(rdb, redisfleet.Options{Timeout: 2 * time.Second})
	o := newOrigin(t)
	var clients []*robots.Client
	for range 4 {
		clients = append(clients, o.client(t, fleet))
	}
	run := func(from, to int) {
		var wg sync.WaitGroup
		for _, c := range clients {
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := from + g; i < to; i += 8 {
						h := fmt.Sprintf("h%d.test", i)
						own, err1 := c.Allowed(context.Background(), "http://"+h+"/"+h)
						other, err2 := c.Allowed(context.Background(), "http://"+h+"/elsewhere")
						assert.NoError(t, err1)
						assert.NoError(t, err2)
						assert.False(t, own, h)
						assert.True(t, other, h)
					}
				}()
			}
		}
		wg.Wait()
	}
	run(0, 200)
	for i := range 200 {
		assert.Equal(t, 1, o.count(fmt.Sprintf("h%d.test", i)))
	}
	srv.Stop()
	run(200, 250)
	var fallbacks uint64
	for _, c := range clients {
		fallbacks += c.Stats().FleetFallbacks
	}
	assert.Equal(t, uint64(4*50), fallbacks, "each Client fetched each new host itself")
}

// How much Redis holds per record, over the real corpus: the encoded
// record, and what Redis says the key costs it (MEMORY USAGE). The README's
// sizing figures come from here (go test -v -run TestRecordSizes).
func TestRecordSizes(t *testing.T) {
	files := sharedtest.Corpus(t)
	rdb := redistest.Start(t).Client(t)
	f := redisfleet.New(rdb, redisfleet.Options{Prefix: prefix()})
	ctx := context.Background()
	now := time.Now()
	var enc, mem []int64
	i := 0
	for _, body := range files {
		key := fmt.Sprintf("https://host-%d.example", i)
		i++
		rec := &cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: 200,
			Class: status.Success, Outcome: "200 OK: rules", Body: body, FetchedAt: now, FreshUntil: now.Add(24 * time.Hour),
			Header: http.Header{"Date": {now.UTC().Format(http.TimeFormat)}, "Etag": {`"5f2e8c1d-4b2a"`}}}
		if len(body) == 0 {
			rec.Class, rec.Outcome, rec.Body = status.Empty, "200 OK: empty", nil
		}
		b, err := rec.MarshalBinary()
		require.NoError(t, err)
		g, err := f.Acquire(ctx, key, now, time.Minute)
		require.NoError(t, err)
		require.NoError(t, f.Publish(ctx, *g.Lease, rec, now))
		recKey, _ := f.Keys(key)
		m, err := rdb.MemoryUsage(ctx, recKey).Result()
		require.NoError(t, err)
		enc, mem = append(enc, int64(len(b))), append(mem, m)
	}
	slices.Sort(enc)
	slices.Sort(mem)
	pct := func(s []int64, p int) int64 { return s[len(s)*p/100] }
	var total int64
	for _, m := range mem {
		total += m
	}
	t.Logf("%d corpus records: encoded median %d B, p99 %d B, max %d B; Redis MEMORY USAGE median %d B, p99 %d B, mean %d B",
		len(enc), pct(enc, 50), pct(enc, 99), enc[len(enc)-1], pct(mem, 50), pct(mem, 99), total/int64(len(mem)))
	assert.Less(t, pct(mem, 50), int64(4<<10))
}
