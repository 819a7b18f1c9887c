package redisfleet_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// client returns a robots.Client whose every host resolves to the origin,
// sharing fleet (nil: none), with the Options edits make.
func (c *origin) client(t testing.TB, fleet cache.Fleet, edits ...func(*robots.Options)) *robots.Client {
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
	for _, edit := range edits {
		edit(&o)
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
// record, two when it has not (the lease, then the publication, made once
// the callers have their answer).
func TestRoundTrips(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	n := newCounter()
	rdb.AddHook(n)
	fleet := redisfleet.New(rdb, redisfleet.Options{})
	o := newOrigin(t)
	a, b := o.client(t, fleet), o.client(t, fleet)
	decide(t, a, "warm.test") // the scripts are loaded once per server: EVALSHA fails, EVAL loads
	warm, _ := fleet.Keys("http://warm.test")
	n.waitFor(t, 4, warm)
	cold, _ := fleet.Keys("http://cold.test")
	decide(t, a, "cold.test")
	n.waitFor(t, 2, cold)
	assert.Equal(t, 2, n.of(cold), "a miss: the lease and the publication")
	decide(t, b, "cold.test")
	assert.Equal(t, 3, n.of(cold), "a fleet hit: one round trip")
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
