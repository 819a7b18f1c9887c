package cache_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/cache/fleettest"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/exportstream"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/status"
)

// outageRecord is a record of an authority in its third failure, keeping a
// good copy: every field a Record has is set.
func outageRecord() *cache.Record {
	good := fleettest.Sample("https://example.com", now.Add(-3*time.Hour))
	good.Truncated = true
	good.Header.Add("Last-Modified", httpDate(now.Add(-48*time.Hour)))
	return &cache.Record{
		Authority: "https://example.com", URL: "https://example.com/robots.txt", FinalURL: "https://example.com/robots.txt",
		StatusCode: 503, Class: status.Unreachable, Outcome: "503 Service Unavailable: unreachable",
		Header:    http.Header{"Retry-After": {"120"}, "Date": {httpDate(now)}},
		FetchedAt: now, FreshUntil: now.Add(2 * time.Minute),
		Failures: 3, UnreachableSince: now.Add(-time.Hour), Good: good,
	}
}

func encode(t testing.TB, r *cache.Record) []byte {
	t.Helper()
	b, err := r.MarshalBinary()
	require.NoError(t, err)
	return b
}

func TestRecordRoundTrip(t *testing.T) {
	for name, r := range map[string]*cache.Record{
		"outage with a good copy": outageRecord(),
		"a file":                  fleettest.Sample("http://example.com:8080", now),
		"404":                     {Authority: "https://a.example", StatusCode: 404, Class: status.Unavailable, Outcome: "404 Not Found: unavailable", FetchedAt: now, FreshUntil: now.Add(time.Hour)},
		"empty":                   {Authority: "https://a.example", StatusCode: 204, Class: status.Empty},
		"outage, no copy":         {Authority: "https://a.example", Class: status.Unreachable, Failures: 1, UnreachableSince: now, FetchedAt: now},
		"epoch and far times":     {Authority: "https://a.example", Class: status.Empty, FetchedAt: time.Unix(0, 0), FreshUntil: time.Date(2200, 1, 1, 0, 0, 0, 1, time.UTC)},
	} {
		t.Run(name, func(t *testing.T) {
			b := encode(t, r)
			var got cache.Record
			require.NoError(t, got.UnmarshalBinary(b))
			assert.Equal(t, b, encode(t, &got), "decodes to the record it encodes")
			assert.Equal(t, r.Authority, got.Authority)
			assert.Equal(t, r.Body, got.Body)
			assert.True(t, r.FetchedAt.Equal(got.FetchedAt))
			assert.True(t, r.FreshUntil.Equal(got.FreshUntil))
			assert.Equal(t, r.Failures, got.Failures)
			assert.Equal(t, r.Good != nil, got.Good != nil)
			if len(b) > 0 {
				b[len(b)/2] ^= 0xff // the decoded record shares nothing with its input
				assert.Equal(t, r.Body, got.Body)
			}
		})
	}
}

// Records that break an invariant neither encode nor, sealed by hand with
// a valid checksum, decode.
func TestRecordInvariants(t *testing.T) {
	tests := map[string]func(r *cache.Record){
		"no authority":               func(r *cache.Record) { r.Authority = "" },
		"unknown class":              func(r *cache.Record) { r.Class = 0 },
		"class 304":                  func(r *cache.Record) { r.Class = status.Unchanged + 1 },
		"failures outside an outage": func(r *cache.Record) { r.Good = nil; r.Class = status.Success },
		"an outage without failures": func(r *cache.Record) { r.Failures = 0 },
		"an outage without a start":  func(r *cache.Record) { r.UnreachableSince = time.Time{} },
		"a good copy of another":     func(r *cache.Record) { r.Good.Authority = "https://other.example" },
		"an unreachable good copy": func(r *cache.Record) {
			r.Good.Class, r.Good.Failures, r.Good.UnreachableSince, r.Good.Body, r.Good.Truncated = status.Unreachable, 1, now, nil, false
		},
		"a body without a file":   func(r *cache.Record) { r.Body = []byte("x") },
		"a file without a body":   func(r *cache.Record) { r.Good.Body = nil },
		"a header not kept":       func(r *cache.Record) { r.Header.Set("Set-Cookie", "x") },
		"a status over 999":       func(r *cache.Record) { r.StatusCode = 1000 },
		"negative failures":       func(r *cache.Record) { r.Failures = -1 },
		"too many redirects":      func(r *cache.Record) { r.Redirects = make([]fetch.Hop, 65) },
		"a long URL":              func(r *cache.Record) { r.URL = strings.Repeat("a", 65<<10) },
		"a time beyond int64 ns":  func(r *cache.Record) { r.FreshUntil = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) },
		"a nested good copy":      func(r *cache.Record) { r.Good.Good = outageRecord().Good },
		"a truncated empty class": func(r *cache.Record) { r.Good.Class, r.Good.Body = status.Empty, nil },
	}
	for name, breakIt := range tests {
		t.Run(name, func(t *testing.T) {
			r := outageRecord()
			breakIt(r)
			_, err := r.MarshalBinary()
			assert.ErrorIs(t, err, cache.ErrMalformedRecord)
		})
	}
}

func TestRecordDecodingRefuses(t *testing.T) {
	valid := encode(t, outageRecord())
	seal := func(body []byte) []byte {
		return binary.LittleEndian.AppendUint32(bytes.Clone(body), crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	}
	body := valid[:len(valid)-4]
	tests := map[string][]byte{
		"nothing":            nil,
		"short":              []byte("rrec"),
		"another magic":      seal(append([]byte("xrec"), body[4:]...)),
		"another version":    seal(append([]byte("rrec\x02"), body[5:]...)),
		"bytes after":        seal(append(bytes.Clone(body), 0)),
		"a huge body length": seal(binary.AppendUvarint(append([]byte("rrec\x01"), 1, 'x', 0, 0, 0, 0, 1, 0, 0), 1<<30)),
		"a huge list":        seal(binary.AppendUvarint([]byte("rrec\x01\x01x\x00\x00"), 64)),
		// A number written longer than it needs ("\xc8\x00" for 72, as the
		// fuzzer found in CI) would give two encodings of one record.
		"a padded length": seal(append([]byte("rrec\x01\x93\x00"), body[6:]...)), // 19, the authority's length
		"a padded status": seal(replaceOnce(t, body, "robots.txt\x00\xf7\x03", "robots.txt\x00\xf7\x83\x00")),
	}
	for name, b := range tests {
		t.Run(name, func(t *testing.T) {
			r := outageRecord()
			before := encode(t, r)
			err := r.UnmarshalBinary(b)
			t.Log(err)
			assert.ErrorIs(t, err, cache.ErrMalformedRecord)
			assert.Equal(t, before, encode(t, r), "a failed decoding leaves the record as it was")
		})
	}
	// A cut at any byte, or any flipped byte, is refused.
	for i := range valid {
		var r cache.Record
		require.ErrorIs(t, r.UnmarshalBinary(valid[:i]), cache.ErrMalformedRecord, "cut at %d", i)
		for _, bit := range []byte{0x01, 0x80} {
			b := bytes.Clone(valid)
			b[i] ^= bit
			require.ErrorIs(t, r.UnmarshalBinary(b), cache.ErrMalformedRecord, "byte %d ^ %#x", i, bit)
		}
	}
}

// replaceOnce replaces old in b with new, and requires old to be there.
func replaceOnce(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	require.Equal(t, 1, bytes.Count(b, []byte(old)), "%q in the encoding", old)
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// A declared length is never trusted beyond the bytes there: a few bytes
// that declare a 1 GiB body allocate a few bytes.
func TestRecordDecodingAllocatesWhatIsThere(t *testing.T) {
	body := binary.AppendUvarint(append([]byte("rrec\x01"), 1, 'x', 0, 0, 0, 0, 1, 0, 0), 1<<30)
	b := binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	n, _ := sharedtest.Memory(func() {
		var r cache.Record
		assert.Error(t, r.UnmarshalBinary(b))
	})
	// Kilobytes, where 1 GiB was declared: what the runtime and the
	// process's other goroutines allocate meanwhile counts too (up to 6.5
	// KiB seen under -race, on a loaded machine).
	assert.Less(t, n, int64(64<<10))

	stream := binary.AppendUvarint(append([]byte("robots-cache"), 1), 1<<30)
	n, _ = sharedtest.Memory(func() {
		_, err := cache.ReadStream(bytes.NewReader(append(stream, "only a few bytes"...)))
		assert.ErrorIs(t, err, cache.ErrMalformedRecord)
	})
	assert.Less(t, n, int64(256<<10), "a record's length costs at most a chunk beyond the bytes read")
}

// Size counts what a record holds: decoded records weigh on the heap what
// Size says.
func TestRecordSize(t *testing.T) {
	r := outageRecord()
	r.Good.Body = bytes.Repeat([]byte("Disallow: /x\n"), 200)
	b := encode(t, r)
	const n = 1000
	recs := make([]*cache.Record, n)
	_, kept := sharedtest.Memory(func() {
		for i := range recs {
			recs[i] = new(cache.Record)
			require.NoError(t, recs[i].UnmarshalBinary(b))
		}
	})
	heap := float64(kept) / n
	assert.InDelta(t, heap, float64(recs[0].Size()), heap/4, "heap %.0f per record, Size %d", heap, recs[0].Size())
	runtime.KeepAlive(recs)

	if unsafe.Sizeof(uintptr(0)) == 8 {
		assert.Equal(t, uintptr(240), unsafe.Sizeof(cache.Record{}), "a size class of the allocator: every authority holds one")
	}

	// An Authority held in the URL's memory, its beginning, is counted
	// once.
	url := "https://a.example/robots.txt"
	apart := &cache.Record{Authority: strings.Clone("https://a.example"), URL: url, FinalURL: url}
	shared := &cache.Record{Authority: url[:len("https://a.example")], URL: url, FinalURL: url}
	assert.Equal(t, apart.Size()-int64(len(apart.Authority)), shared.Size())
}

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// stream returns the export stream of recs, as robots.Client.Export writes
// it.
func stream(t testing.TB, recs ...*cache.Record) []byte {
	var buf bytes.Buffer
	w := exportstream.NewWriter(&buf)
	for _, r := range recs {
		require.NoError(t, w.Write(encode(t, r)))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestStreamRoundTrip(t *testing.T) {
	recs := []*cache.Record{outageRecord(), fleettest.Sample("https://b.example", now), fleettest.Sample("http://c.example:81", now)}
	got, err := cache.ReadStream(bytes.NewReader(stream(t, recs...)))
	require.NoError(t, err)
	require.Len(t, got, len(recs))
	for i := range recs {
		fleettest.Equal(t, recs[i], got[i])
	}

	got, err = cache.ReadStream(bytes.NewReader(stream(t)))
	require.NoError(t, err)
	assert.Empty(t, got)

	// A record that breaks an invariant does not encode.
	bad := outageRecord()
	bad.Failures = 0
	_, err = bad.MarshalBinary()
	assert.ErrorIs(t, err, cache.ErrMalformedRecord)
	b, err := bad.AppendBinary([]byte("x"))
	assert.ErrorIs(t, err, cache.ErrMalformedRecord)
	assert.Equal(t, []byte("x"), b, "AppendBinary leaves b as it was")
}

// A truncation at any byte, and any flipped byte, is detected; so are bytes
// after the end, and the error of the reader itself comes through.
func TestStreamRefuses(t *testing.T) {
	valid := stream(t, outageRecord(), fleettest.Sample("https://b.example", now))
	for i := range valid {
		_, err := cache.ReadStream(bytes.NewReader(valid[:i]))
		require.ErrorIs(t, err, cache.ErrMalformedRecord, "cut at %d", i)
		for _, bit := range []byte{0x01, 0x80} {
			b := bytes.Clone(valid)
			b[i] ^= bit
			recs, err := cache.ReadStream(bytes.NewReader(b))
			require.ErrorIs(t, err, cache.ErrMalformedRecord, "byte %d ^ %#x", i, bit)
			require.Nil(t, recs)
		}
	}
	_, err := cache.ReadStream(bytes.NewReader(append(bytes.Clone(valid), 0)))
	assert.ErrorIs(t, err, cache.ErrMalformedRecord)

	boom := errors.New("disk on fire")
	_, err = cache.ReadStream(io.MultiReader(bytes.NewReader(valid[:40]), iotest.ErrReader(boom)))
	assert.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, cache.ErrMalformedRecord)
}

// recordSeeds are encodings to start fuzzing from: records of every class,
// and records of real robots.txt files.
func recordSeeds(t testing.TB) [][]byte {
	seeds := [][]byte{encode(t, outageRecord()), encode(t, fleettest.Sample("https://a.example", now))}
	for _, body := range sharedtest.CorpusSample(t, 200) {
		r := fleettest.Sample("https://a.example", now)
		r.Body = body
		seeds = append(seeds, encode(t, r))
	}
	return seeds
}

// FuzzRecord decodes fuzzed bytes as they are, and sealed with a valid
// checksum so that the fuzzer reaches past it: never a panic, and whatever
// decodes encodes to the same bytes again.
func FuzzRecord(f *testing.F) {
	for _, s := range recordSeeds(f) {
		f.Add(s[:len(s)-4]) // the fuzzer mutates what the checksum covers
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sealed := binary.LittleEndian.AppendUint32(bytes.Clone(body), crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		for _, b := range [][]byte{body, sealed} {
			var r cache.Record
			if err := r.UnmarshalBinary(b); err != nil {
				if !errors.Is(err, cache.ErrMalformedRecord) {
					t.Fatalf("error %v does not wrap ErrMalformedRecord", err)
				}
				continue
			}
			again, err := r.MarshalBinary()
			if err != nil {
				t.Fatalf("decoded, but does not encode: %v", err)
			}
			if !bytes.Equal(again, b) {
				t.Fatalf("decodes to a record that encodes differently:\n%q\n%q", b, again)
			}
			if r.Size() <= 0 {
				t.Fatal("a record of no size")
			}
			// As a cache holds it: the same record.
			if c, err := r.Compact().MarshalBinary(); err != nil || !bytes.Equal(c, b) {
				t.Fatalf("compact, encodes differently (%v):\n%q\n%q", err, b, c)
			}
		}
	})
}

// FuzzStream reads fuzzed export streams: never a panic, and a stream that
// reads holds records that write back to the same stream.
func FuzzStream(f *testing.F) {
	f.Add(stream(f, outageRecord(), fleettest.Sample("https://a.example", now)))
	f.Add([]byte("robots-cache\x01\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := cache.ReadStream(bytes.NewReader(data))
		if err != nil {
			if recs != nil {
				t.Fatal("records with an error")
			}
			return
		}
		if again := stream(t, recs...); !bytes.Equal(again, data) {
			t.Fatal("a stream that reads writes back differently")
		}
	})
}

// A record of a newer encoding is told apart from a malformed one.
func TestRecordNewerVersion(t *testing.T) {
	b := encode(t, fleettest.Sample("https://example.com", now))
	b[4] = 2
	body := b[:len(b)-4]
	b = binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	var r cache.Record
	err := r.UnmarshalBinary(b)
	assert.ErrorIs(t, err, cache.ErrMalformedRecord)
	assert.ErrorIs(t, err, cache.ErrNewerRecord)
	b[4] = 0
	err = r.UnmarshalBinary(b)
	assert.ErrorIs(t, err, cache.ErrMalformedRecord)
	assert.NotErrorIs(t, err, cache.ErrNewerRecord)
}

// Check refuses what comes from outside and no fetch could make: a fetch in
// the future beyond the clock skew a fleet's machines may have, a freshness
// over a day (RFC 9309 §2.4), a broken invariant. Skew is allowed once: a
// record can be fresh for at most a day and the skew from the reader's now.
func TestRecordCheck(t *testing.T) {
	rec := func(fetched time.Time, fresh time.Duration) *cache.Record {
		r := fleettest.Sample("https://example.com", fetched)
		r.FreshUntil = fetched.Add(fresh)
		return r
	}
	for name, tt := range map[string]struct {
		rec *cache.Record
		ok  bool
	}{
		"fetched now, fresh a day":                   {rec(now, 24*time.Hour), true},
		"fetched 4 minutes ahead, fresh a day":       {rec(now.Add(4*time.Minute), 24*time.Hour), true},
		"fetched a day ago, fresh a day":             {rec(now.Add(-24*time.Hour), 24*time.Hour), true},
		"fetched 6 minutes ahead":                    {rec(now.Add(6*time.Minute), time.Hour), false},
		"fresh a day and a second":                   {rec(now, 24*time.Hour+time.Second), false},
		"5 minutes ahead, fresh a day and 5 minutes": {rec(now.Add(5*time.Minute), 24*time.Hour+5*time.Minute), false},
		"fresh until before it was fetched":          {rec(now, -time.Hour), true}, // expired: it is fetched again
	} {
		t.Run(name, func(t *testing.T) {
			err := tt.rec.Check(now)
			if tt.ok {
				assert.NoError(t, err)
				assert.False(t, tt.rec.FreshUntil.After(now.Add(24*time.Hour+5*time.Minute)))
			} else {
				assert.ErrorIs(t, err, cache.ErrMalformedRecord)
			}
		})
	}
	bad := outageRecord()
	bad.Failures = 0
	assert.ErrorIs(t, bad.Check(now), cache.ErrMalformedRecord, "an invariant broken")
}
