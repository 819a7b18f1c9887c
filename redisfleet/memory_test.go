package redisfleet

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

// usedMemory is INFO memory's used_memory: what Redis holds, all told.
func usedMemory(t testing.TB, rdb redis.UniversalClient) int64 {
	info, err := rdb.Info(context.Background(), "memory").Result()
	require.NoError(t, err)
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no used_memory in INFO memory")
	return 0
}

// What Redis holds per authority at the corpus's mix: the mean growth of
// used_memory over 10,640 authorities, the 2,661 corpus files four times
// over under distinct host names, with the headers a real response carries;
// every key expiring. By design: at most 1 KB. The README's sizing figures come
// from here (go test -v -run TestMemoryPerAuthority).
func TestMemoryPerAuthority(t *testing.T) {
	recs := corpusRecords(t, 1)
	rdb := redistest.Start(t).Client(t)
	f := New(rdb, Options{})
	ctx := context.Background()
	now := time.Now() // Redis refuses records fetched in its future
	for _, r := range recs {
		r.FetchedAt, r.FreshUntil = now, now.Add(24*time.Hour)
	}
	const rounds = 4
	var values []int
	before := usedMemory(t, rdb)
	for round := range rounds {
		for i, r := range recs {
			rec := *r
			rec.Authority = fmt.Sprintf("https://www.host-%d-%d.example", round, i)
			rec.URL, rec.FinalURL = rec.Authority+"/robots.txt", rec.Authority+"/robots.txt"
			g, err := f.Acquire(ctx, rec.Authority, now, time.Minute)
			require.NoError(t, err)
			require.NoError(t, f.Publish(ctx, *g.Lease, &rec, now))
			if round == 0 {
				v, err := f.codec.encode(&rec)
				require.NoError(t, err)
				values = append(values, len(v))
			}
		}
	}
	n := rounds * len(recs)
	per := float64(usedMemory(t, rdb)-before) / float64(n)
	recKey, _ := f.Keys(recs[0].Authority)
	keys, err := rdb.Keys(ctx, strings.Split(recKey, ":")[0]+":*").Result()
	require.NoError(t, err)
	require.Len(t, keys, n, "one key per authority: the leases went with the publications")
	ttl, err := rdb.PTTL(ctx, keys[0]).Result()
	require.NoError(t, err)
	assert.Positive(t, ttl, "every key expires")
	slices.Sort(values)
	var sum int
	for _, v := range values {
		sum += v
	}
	t.Logf("%d authorities: used_memory grew %.0f B per authority (%.1f GB for 10 million); values: mean %d B, median %d B, p99 %d B, max %d B",
		n, per, per*1e7/1e9, sum/len(values), values[len(values)/2], values[len(values)*99/100], values[len(values)-1])
	assert.LessOrEqual(t, per, 1000.0)
}

// BenchmarkCodec compresses and decompresses the corpus's records, each op
// one record in turn, with the layout's codec (zstd, its dictionary) and,
// for comparison, with flate at its default level, as the standard library
// would (go test -run '^$' -bench Codec -benchmem). bytes/record is the
// mean size stored.
func BenchmarkCodec(b *testing.B) {
	recs := corpusRecords(b, 1)
	encs := make([][]byte, len(recs))
	for i, r := range recs {
		var err error
		if encs[i], err = r.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
	c := newCodec(DefaultMaxRecordBytes)
	vals := make([][]byte, len(recs))
	var zsize int
	for i, r := range recs {
		v, err := c.encode(r)
		if err != nil {
			b.Fatal(err)
		}
		vals[i], zsize = v, zsize+len(v)
	}
	var fbuf bytes.Buffer
	fw, _ := flate.NewWriter(&fbuf, flate.DefaultCompression)
	flated := make([][]byte, len(encs))
	var fsize int
	for i, e := range encs {
		fbuf.Reset()
		fw.Reset(&fbuf)
		fw.Write(e)
		fw.Close()
		flated[i], fsize = bytes.Clone(fbuf.Bytes()), fsize+fbuf.Len()
	}
	each := func(b *testing.B, size int, fn func(i int)) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			fn(i % len(recs))
			i++
		}
		b.ReportMetric(float64(size)/float64(len(recs)), "bytes/record")
	}
	b.Run("zstd-dict/compress", func(b *testing.B) {
		each(b, zsize, func(i int) { c.encode(recs[i]) })
	})
	b.Run("zstd-dict/decompress", func(b *testing.B) {
		each(b, zsize, func(i int) { c.decode(recs[i].Authority, vals[i]) })
	})
	b.Run("flate/compress", func(b *testing.B) {
		each(b, fsize, func(i int) {
			fbuf.Reset()
			fw.Reset(&fbuf)
			fw.Write(encs[i])
			fw.Close()
		})
	})
	b.Run("flate/decompress", func(b *testing.B) {
		fr := flate.NewReader(nil)
		each(b, fsize, func(i int) {
			fr.(flate.Resetter).Reset(bytes.NewReader(flated[i]), nil)
			io.Copy(io.Discard, fr)
		})
	})
}
