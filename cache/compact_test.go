package cache_test

import (
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/internal/sharedtest"
)

// A compact record is the record it was made from, for everything that reads
// it: its encoding, its body and headers through File and Headers, its
// validators; only Body and Header read nil.
//
// It holds for every codec, and for records of one codec read beside those
// of the others.
func TestCompactIsTheSameRecord(t *testing.T) {
	recs := []*cache.Record{outageRecord(), fleettest.Sample("https://a.example", now)}
	for _, body := range sharedtest.CorpusSample(t, 50) {
		r := fleettest.Sample("https://a.example", now)
		r.Body = body
		recs = append(recs, r)
	}
	for _, codec := range codecs {
		t.Run(codec.name, func(t *testing.T) {
			for _, r := range recs {
				compactIsTheSameRecord(t, r, codec.compact)
			}
		})
	}
}

// codecs compact a record with each BodyCodec, and with Compact.
var codecs = []struct {
	name    string
	compact func(*cache.Record) *cache.Record
}{
	{"Compact", (*cache.Record).Compact},
	{"BalancedBodies", func(r *cache.Record) *cache.Record { return r.CompactWith(nil, cache.BalancedBodies) }},
	{"FastBodies", func(r *cache.Record) *cache.Record { return r.CompactWith(nil, cache.FastBodies) }},
	{"SmallBodies", func(r *cache.Record) *cache.Record { return r.CompactWith(nil, cache.SmallBodies) }},
}

// allCodecs are the codecs a Client may be given.
var allCodecs = []cache.BodyCodec{cache.BalancedBodies, cache.FastBodies, cache.SmallBodies}

func compactIsTheSameRecord(t *testing.T, r *cache.Record, compact func(*cache.Record) *cache.Record) {
	t.Helper()
	want := encode(t, r)
	c := compact(r)
	require.NotSame(t, r, c)
	assert.Equal(t, want, encode(t, r), "the record compacted is unchanged")
	assert.Equal(t, want, encode(t, c), "a compact record encodes as the record")
	assert.Equal(t, want, encode(t, c.Expand()))
	assert.Same(t, c, c.Compact(), "compact already")
	assert.Nil(t, c.GoodCopy().Body)
	assert.Nil(t, c.Header)
	g, cg := r.GoodCopy(), c.GoodCopy()
	assert.Equal(t, g.Body, cg.File())
	assert.Equal(t, len(g.Body), cg.BodyLen())
	assert.Equal(t, g.Header, cg.Headers())
	assert.Equal(t, r.Header, c.Headers())
	assert.Equal(t, r.Validators(), c.Validators())
	assert.NoError(t, c.Check(now))
	if len(g.Body) > 0 {
		assert.True(t, cg.SameBody(c.GoodCopy()))
		assert.True(t, cg.SameBody(g), "compact and expanded")
		assert.True(t, g.SameBody(cg), "expanded and compact")
		assert.True(t, cg.SameBody(cg.Expand().Compact()), "compacted apart")
		other := bytes.Clone(g.Body)
		other[len(other)-1] ^= 1
		changed := &cache.Record{Body: other}
		assert.False(t, cg.SameBody(changed), "a body of the same length, one octet apart")
		assert.False(t, cg.SameBody(changed.Compact()))
		assert.False(t, g.SameBody(changed))
		assert.False(t, cg.SameBody(&cache.Record{Body: g.Body[:len(g.Body)-1]}), "a shorter body")
		for _, k := range codecs {
			kg := k.compact(g)
			assert.True(t, cg.SameBody(kg), "compacted with %s", k.name)
			assert.True(t, kg.SameBody(cg), "compacted with %s", k.name)
			assert.False(t, cg.SameBody(k.compact(changed)), "changed, compacted with %s", k.name)
		}
	}
}

// Records with nothing to compact, and fields set on a compact record.
func TestCompactEdges(t *testing.T) {
	headerOnly := (&cache.Record{Header: http.Header{"Etag": {`"x"`}}}).Compact()
	assert.False(t, headerOnly.SameBody(headerOnly), "no body is no same body")
	assert.False(t, (&cache.Record{}).SameBody(&cache.Record{}))
	var none *cache.Record
	assert.Nil(t, none.Compact())
	assert.Zero(t, none.BodyLen())
	bare := &cache.Record{Authority: "https://a.example"}
	assert.Same(t, bare, bare.Compact(), "nothing to compact")
	assert.Same(t, bare, bare.Expand())
	outage := &cache.Record{Authority: "https://a.example", Good: &cache.Record{Authority: "https://a.example", StatusCode: 404}}
	assert.Same(t, outage, outage.Compact(), "nothing to compact in the good copy either")

	// A field set on a compact record is what it holds.
	c := *fleettest.Sample("https://a.example", now).Compact()
	c.Body, c.Header = []byte("User-agent: *\nDisallow: /new\n"), http.Header{"Etag": {`"new"`}}
	assert.Equal(t, c.Body, c.File())
	assert.Equal(t, `"new"`, c.Validators().ETag)
	back := new(cache.Record)
	require.NoError(t, back.UnmarshalBinary(encode(t, &c)))
	assert.Equal(t, c.Body, back.Body)
	assert.Equal(t, c.Header, back.Header)
	assert.Equal(t, c.Body, c.Compact().File())

	// Headers set empty replace the packed ones when compacted again.
	c.Header = http.Header{}
	assert.Empty(t, c.Headers())
	assert.Empty(t, c.Compact().Headers())
	assert.Empty(t, c.Compact().Validators().ETag)

	// Headers set on a compact record of any codec, compacted again with
	// any: the body is kept in the format it was held in.
	for _, held := range allCodecs {
		for _, again := range codecs {
			s := *fleettest.Sample("https://a.example", now).CompactWith(nil, held)
			s.Header = http.Header{"Etag": {`"new"`}}
			c := again.compact(&s)
			assert.Equal(t, fleettest.Sample("https://a.example", now).Body, c.File(), "held %d, compacted with %s", held, again.name)
			assert.Equal(t, `"new"`, c.Validators().ETag)
			ref := fleettest.Sample("https://a.example", now)
			ref.Header = s.Header
			assert.Equal(t, ref.CompactWith(nil, held).Size(), c.Size(), "the same body, held %d, compacted with %s", held, again.name)
		}
	}
}

// The good copy of an outage is compacted with the codec asked, as the
// record is.
func TestCompactGoodCopyWithTheCodec(t *testing.T) {
	files := sharedtest.CorpusSample(t, 100)
	if len(files) == 0 {
		return // CorpusSample said why
	}
	for _, body := range files {
		outage := outageRecord()
		outage.Good.Body = body
		for _, codec := range allCodecs {
			c := outage.CompactWith(nil, codec)
			assert.Equal(t, outage.Good.CompactWith(nil, codec).Size(), c.Good.Size(), "codec %d", codec)
			assert.Equal(t, body, c.Good.File())
		}
	}
}

// WithHeader renews a record, compact or not, of any codec: the same body,
// new headers.
func TestWithHeader(t *testing.T) {
	fresh := http.Header{"Cache-Control": {"max-age=60"}, "Etag": {`"v2"`}}
	for _, r := range []*cache.Record{fleettest.Sample("https://a.example", now), fleettest.Sample("https://a.example", now).Compact(),
		fleettest.Sample("https://a.example", now).CompactWith(nil, cache.FastBodies),
		fleettest.Sample("https://a.example", now).CompactWith(nil, cache.SmallBodies)} {
		renewed := r.WithHeader(fresh)
		assert.True(t, renewed.SameBody(r))
		assert.Equal(t, fresh, renewed.Headers())
		assert.Equal(t, `"v2"`, renewed.Validators().ETag)
		assert.Equal(t, `"v1"`, r.Validators().ETag, "the record renewed is unchanged")
		assert.Equal(t, r.Header == nil, renewed.Header == nil, "in the form of the record renewed")
		assert.Equal(t, r.File(), renewed.File(), "the body, in the codec it was held in")
	}
}

// On the real-world corpus a compact record, body and headers held as a
// Client keeps them, weighs under half of the record, and Size is what it
// takes on the heap.
func TestCompactSize(t *testing.T) {
	files := sharedtest.CorpusSample(t, 1)
	if len(files) == 0 {
		return // CorpusSample said why
	}
	sizes := map[cache.BodyCodec]int64{}
	for _, codec := range allCodecs {
		// The codec's own memory, made on its first use and grown for
		// the largest file, is not the records'.
		for _, body := range files {
			(&cache.Record{Body: body}).CompactWith(nil, codec)
		}
		var full, compact int64
		recs := make([]*cache.Record, len(files))
		_, heap := sharedtest.Memory(func() {
			for i, body := range files {
				r := fleettest.Sample("https://a.example", now)
				r.Header.Set("Date", httpDate(now))
				r.Header.Set("Last-Modified", httpDate(now))
				r.Body = body
				full += r.Size()
				recs[i] = r.CompactWith(nil, codec)
				compact += recs[i].Size()
			}
		})
		t.Logf("%d corpus records, codec %d: %d B each, %d compact, %d on the heap", len(files), codec,
			full/int64(len(files)), compact/int64(len(files)), heap/int64(len(files)))
		assert.Less(t, compact, full*45/100)
		// Beside the records, what the test keeps: the sample's strings.
		assert.InDelta(t, float64(heap), float64(compact), float64(compact)/5)
		runtime.KeepAlive(recs)
		sizes[codec] = compact
	}
	// The real-world corpus: SmallBodies holds it in 70% of FastBodies'
	// bodies, headers and records included (78% of their size), and
	// BalancedBodies in 102% of SmallBodies' (79% of FastBodies').
	assert.Less(t, sizes[cache.SmallBodies], sizes[cache.FastBodies]*82/100)
	assert.Less(t, sizes[cache.BalancedBodies], sizes[cache.SmallBodies]*106/100)
	assert.Less(t, sizes[cache.BalancedBodies], sizes[cache.FastBodies]*84/100)
	runtime.KeepAlive(files) // held before and after: not in heap
}

// A compact record is made without keeping the body given: it may be a
// fetch's buffer, which is the caller's.
func TestCompactKeepsNoBuffer(t *testing.T) {
	body := bytes.Repeat([]byte("Disallow: /x\n"), 50)
	r := fleettest.Sample("https://a.example", now)
	r.Body = body
	c := r.Compact()
	copy(body, "XXXXXXXX")
	assert.Equal(t, bytes.Repeat([]byte("Disallow: /x\n"), 50), c.File())
}

// Compact builds each record in a scratch buffer it uses again: a record
// compacted keeps none of it, so compacting others, of every size (the
// scratch grows, and a body over the default cap makes one that is not
// kept), leaves it as it was.
func TestCompactSharesNoScratch(t *testing.T) {
	for _, codec := range codecs {
		t.Run(codec.name, func(t *testing.T) { compactSharesNoScratch(t, codec.compact) })
	}
}

func compactSharesNoScratch(t *testing.T, compact func(*cache.Record) *cache.Record) {
	sizes := []int{1, 100, 5 << 10, 70 << 10, 300 << 10, 5 << 20, 2 << 10, 600 << 10, 10}
	var recs []*cache.Record
	var bodies [][]byte
	for i, n := range sizes {
		body := bytes.Repeat([]byte(fmt.Sprintf("Disallow: /%d/", i)), n/10+1)[:n]
		r := fleettest.Sample("https://a.example", now)
		r.Body = body
		if i%2 == 1 {
			// Headers held packed, the body set since: both are built
			// in the scratch too.
			c := *fleettest.Sample("https://a.example", now).Compact()
			c.Body = body
			r = &c
		}
		recs, bodies = append(recs, compact(r)), append(bodies, body)
	}
	for i, c := range recs {
		assert.Equal(t, bodies[i], c.File(), "record %d", i)
		assert.Equal(t, fleettest.Sample("https://a.example", now).Header, c.Headers(), "record %d", i)
	}
}

// CompactWith keeps the compressed body of the record held when the body is
// the same, and compacts as Compact does otherwise.
func TestCompactWith(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /x\n")
	sample := func(body []byte, etag string) *cache.Record {
		r := fleettest.Sample("https://a.example", now)
		r.Body, r.Header = body, http.Header{"Etag": {etag}}
		return r
	}
	for _, heldCodec := range allCodecs {
		for _, codec := range allCodecs {
			held := sample(body, `"v1"`).CompactWith(nil, heldCodec)
			again := sample(bytes.Clone(body), `"v2"`)
			c := again.CompactWith(held, codec)
			assert.Nil(t, c.Body)
			assert.Equal(t, body, c.File())
			assert.Equal(t, `"v2"`, c.Validators().ETag, "the record's own headers")
			assert.True(t, c.SameBody(held))
			assert.Equal(t, encode(t, again.Compact()), encode(t, c), "the record compacted, whichever way")
			assert.Equal(t, held.Size()-sample(nil, `"v1"`).Compact().Size(), c.Size()-sample(nil, `"v2"`).Compact().Size(),
				"the body held, in its codec, whatever codec is asked")

			changed := sample([]byte("User-agent: *\nDisallow: /y\n"), `"v3"`)
			assert.Equal(t, changed.Body, changed.CompactWith(held, codec).File())
			assert.False(t, changed.CompactWith(held, codec).SameBody(held))
			assert.Equal(t, encode(t, again.Compact()), encode(t, again.CompactWith(nil, codec)))
			assert.Equal(t, encode(t, again.Compact()), encode(t, again.CompactWith(again, codec)), "an expanded record held: compressed")
		}
	}
}

// Any body compacts with every codec to a record that reads it back whole,
// and that SameBody finds the same as the body compacted with every other.
func FuzzCompact(f *testing.F) {
	for _, body := range sharedtest.CorpusSample(f, 40) {
		f.Add(body)
	}
	f.Add([]byte("User-agent: *\nDisallow: /wp-admin/\n"))
	f.Add(bytes.Repeat([]byte("Disallow: /x\n"), 4<<10/13+1))
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) == 0 {
			return // no body is not compressed
		}
		var compact []*cache.Record
		for _, codec := range allCodecs {
			c := (&cache.Record{Body: body}).CompactWith(nil, codec)
			require.Equal(t, body, c.File(), "codec %d", codec)
			require.Equal(t, len(body), c.BodyLen())
			compact = append(compact, c)
		}
		for _, a := range compact {
			for _, b := range compact {
				require.True(t, a.SameBody(b))
			}
		}
	})
}
