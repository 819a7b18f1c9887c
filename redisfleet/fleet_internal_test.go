package redisfleet

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// go-redis runs a command again, with the same arguments, when the reply to
// the first run was lost: every script takes a second run of the very same
// call as the first.
func TestScriptsAreIdempotent(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	f := New(rdb, Options{})
	ctx := context.Background()
	keys, err := f.keys("https://example.com")
	require.NoError(t, err)
	now := time.Now()
	acquire := func(token string) acquireReply {
		res, err := acquireScript.Run(ctx, rdb, keys, now.UnixMilli(), 60_000, token, f.maxRecord, f.maxLease.Milliseconds()).Slice()
		require.NoError(t, err)
		r, err := parseAcquire(res)
		require.NoError(t, err)
		return r
	}
	assert.Equal(t, int64(2), acquire("tok").kind)
	assert.Equal(t, int64(2), acquire("tok").kind, "a retry of the call that took the lease gets it")
	assert.Equal(t, int64(3), acquire("other").kind, "another caller does not")
	renew := func() int64 {
		n, err := renewScript.Run(ctx, rdb, keys[1:], "tok", 60_000).Int64()
		require.NoError(t, err)
		return n
	}
	assert.Equal(t, int64(1), renew())
	assert.Equal(t, int64(1), renew(), "a retry of a renewal renews")

	v, err := f.codec.encode(fleettest.Sample("https://example.com", now))
	require.NoError(t, err)
	publish := func() int64 {
		res, err := publishScript.Run(ctx, rdb, keys, "tok", v, 60_000, now.UnixMilli(), MaxSkew.Milliseconds()).Slice()
		require.NoError(t, err)
		return res[0].(int64)
	}
	assert.Equal(t, int64(1), publish())
	assert.Equal(t, int64(1), publish(), "a retry of a publication that was made succeeds, writing nothing")
	assert.Zero(t, renew(), "published: the lease is over")
	other, err := f.codec.encode(fleettest.Sample("https://example.com", now.Add(time.Second)))
	require.NoError(t, err)
	res, err := publishScript.Run(ctx, rdb, keys, "tok", other, 60_000, now.UnixMilli(), MaxSkew.Milliseconds()).Slice()
	require.NoError(t, err)
	assert.Equal(t, []any{int64(0)}, res, "but another record under a lease that ended is refused")
}

// A value encodes and decodes to the very record; what is not a value of
// this layout is told apart from what a newer codec wrote.
func TestCodec(t *testing.T) {
	c := newCodec(DefaultMaxRecordBytes)
	now := time.Now()
	rec := fleettest.Sample("https://example.com", now)
	v, err := c.encode(rec)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%014d", rec.FreshUntil.UnixMilli()), string(v[:freshLen]), "the freshness the scripts read")
	got, err := c.decode("https://example.com", v)
	require.NoError(t, err)
	fleettest.Equal(t, rec, got)

	newer := slices.Clone(v)
	newer[freshLen] = 'y'
	raw, err := rec.MarshalBinary()
	require.NoError(t, err)
	raw[4] = 2 // the record encoding's version, in its own checksum
	body := raw[:len(raw)-4]
	raw = binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	newerRecord := c.enc.EncodeAll(raw, slices.Clone(v[:headLen]))
	for name, tt := range map[string]struct {
		v    []byte
		want error
	}{
		"short":                  {v[:10], errForeign},
		"a freshness of letters": {append([]byte("abcdefghijklmn"), v[freshLen:]...), errForeign},
		"not zstd":               {append(slices.Clone(v[:headLen]), "garbage"...), errForeign},
		"another authority":      {v, errForeign},
		"a newer codec":          {newer, errNewer},
		"a newer record":         {newerRecord, errNewer},
	} {
		t.Run(name, func(t *testing.T) {
			key := "https://example.com"
			if name == "another authority" {
				key = "https://other.example"
			}
			_, err := c.decode(key, tt.v)
			assert.ErrorIs(t, err, tt.want)
		})
	}
	stale := slices.Clone(v)
	copy(stale, fmt.Sprintf("%014d", rec.FreshUntil.UnixMilli()+1))
	_, err = c.decode("https://example.com", stale)
	assert.ErrorIs(t, err, errForeign, "a header that says another freshness than its record")

	// A value that claims to decompress to more than the bound is refused
	// before it is decompressed.
	small := newCodec(1 << 10)
	big := fleettest.Sample("https://example.com", now)
	big.Body = bytes.Repeat([]byte("Disallow: /x\n"), 1000)
	v, err = newCodec(DefaultMaxRecordBytes).encode(big)
	require.NoError(t, err)
	require.Less(t, len(v), 1<<10, "it compresses below the bound")
	_, err = small.decode("https://example.com", v)
	assert.ErrorIs(t, err, errForeign)
	_, err = small.encode(big)
	assert.ErrorIs(t, err, errTooLong)
}
