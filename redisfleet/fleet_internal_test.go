package redisfleet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// go-redis runs a command again, with the same arguments, when the reply to
// the first run was lost: both scripts take a second run of the very same
// call as the first.
func TestScriptsAreIdempotent(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	f := New(rdb, Options{})
	ctx := context.Background()
	keys, err := f.keys("https://example.com")
	require.NoError(t, err)
	now := time.Now()
	acquire := func(token string) acquireReply {
		res, err := acquireScript.Run(ctx, rdb, keys, now.UnixMilli(), 60_000, token, f.maxRecord).Slice()
		require.NoError(t, err)
		r, err := parseAcquire(res)
		require.NoError(t, err)
		return r
	}
	assert.Equal(t, int64(2), acquire("tok").kind)
	assert.Equal(t, int64(2), acquire("tok").kind, "a retry of the call that took the lease gets it")
	assert.Equal(t, int64(3), acquire("other").kind, "another caller does not")

	b, err := fleettest.Sample("https://example.com", now).MarshalBinary()
	require.NoError(t, err)
	publish := func() int64 {
		n, err := publishScript.Run(ctx, rdb, keys, "tok", b, now.Add(time.Hour).UnixMilli(), 60_000).Int64()
		require.NoError(t, err)
		return n
	}
	assert.Equal(t, int64(1), publish())
	assert.Equal(t, int64(1), publish(), "a retry of a publication that was made succeeds, writing nothing")
	other, err := fleettest.Sample("https://example.com", now.Add(time.Second)).MarshalBinary()
	require.NoError(t, err)
	n, err := publishScript.Run(ctx, rdb, keys, "tok", other, now.Add(time.Hour).UnixMilli(), 60_000).Int64()
	require.NoError(t, err)
	assert.Zero(t, n, "but another record under a lease that ended is refused")
}
