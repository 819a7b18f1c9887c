package engine_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/engine"
	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/status"
)

var policy = engine.Policy{MinTTL: time.Minute, Jitter: func() float64 { return 0.5 }}

const key = "https://example.com"

func result(code int, body string, header ...string) *fetch.Result {
	return &fetch.Result{URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: code,
		Header: header2(header...), Body: []byte(body)}
}

func header2(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// classify is status.Classify of a conditional request when validators
// were sent, as the fetcher records it.
func classify(r *fetch.Result, at time.Time) status.Outcome {
	r.Conditional = r.StatusCode == http.StatusNotModified
	return status.Classify(r, at)
}

func next(held *cache.Record, r *fetch.Result, at time.Time) *cache.Record {
	return policy.Next(key, held, r, classify(r, at), at)
}

// README, "Fetching and status", the freshness column.
func TestNextGood(t *testing.T) {
	res := result(200, "User-agent: *\nDisallow: /x\n", "Cache-Control", "max-age=600", "ETag", `"v1"`, "Set-Cookie", "a=b")
	res.Redirects = []fetch.Hop{{URL: key + "/old", StatusCode: 301, Location: "/robots.txt"}}
	r := next(nil, res, now)
	assert.Equal(t, status.Success, r.Class)
	assert.Equal(t, key, r.Authority)
	assert.Same(t, unsafe.StringData(r.URL), unsafe.StringData(r.Authority), "one string for both")
	assert.Equal(t, now, r.FetchedAt)
	assert.Equal(t, now.Add(10*time.Minute), r.FreshUntil)
	assert.Equal(t, `"v1"`, r.Headers().Get("Etag"))
	assert.Empty(t, r.Headers().Get("Set-Cookie"), "only the headers caching needs are kept")
	assert.Zero(t, r.Failures)
	assert.Nil(t, r.Good)
	assert.Equal(t, fetch.Validators{ETag: `"v1"`}, r.Validators())
	// Expanded, for Derive to read without decompressing; the Cache
	// compacts it to store it.
	assert.Equal(t, "User-agent: *\nDisallow: /x\n", string(r.Body))
	assert.Equal(t, http.Header{"Cache-Control": {"max-age=600"}, "Etag": {`"v1"`}}, r.Header)
	assert.Same(t, r, r.Expand())

	// The record shares the Result's body until it is compacted, which
	// copies it; the rest is its own. The Result is then the caller's to
	// change.
	assert.Same(t, unsafe.SliceData(res.Body), unsafe.SliceData(r.Body))
	c := r.Compact()
	res.Body[0], res.Redirects[0].URL = 'X', "changed"
	res.Header.Set("Etag", "changed")
	assert.Equal(t, byte('U'), c.File()[0])
	assert.Equal(t, key+"/old", r.Redirects[0].URL)
	assert.Equal(t, `"v1"`, r.Headers().Get("Etag"))

	// A 404 is as good as a file for caching (RFC 9309 §2.3.1.3).
	r = next(nil, result(404, "", "Cache-Control", "max-age=120"), now)
	assert.Equal(t, status.Unavailable, r.Class)
	assert.Nil(t, r.Body)
	assert.Equal(t, now.Add(2*time.Minute), r.FreshUntil)
}

// RFC 9111 §4.3.4: a 304 updates the stored headers with its own, and the
// freshness comes from the result.
func TestNext304(t *testing.T) {
	held := next(nil, result(200, "User-agent: *\nDisallow: /x\n",
		"Cache-Control", "max-age=600", "ETag", `"v1"`, "Age", "300", "Date", httpDate(now)), now)
	require.Equal(t, now.Add(5*time.Minute), held.FreshUntil, "max-age less Age")
	later := now.Add(time.Hour)

	t.Run("a bare 304 gives the stored max-age again, not 24 h", func(t *testing.T) {
		r := next(held, result(304, ""), later)
		assert.Equal(t, status.Success, r.Class)
		assert.Equal(t, later, r.FetchedAt)
		assert.Equal(t, later.Add(10*time.Minute), r.FreshUntil, "the stored Age is the old response's: dropped")
		assert.Equal(t, held.File(), r.File())
		assert.True(t, r.SameBody(held), "a renewal shares the body held: what was compiled of it holds")
		assert.Equal(t, `"v1"`, r.Headers().Get("Etag"))
	})
	t.Run("the 304's headers replace the stored ones", func(t *testing.T) {
		r := next(held, result(304, "", "Cache-Control", "max-age=60", "ETag", `"v2"`, "Age", "30"), later)
		assert.Equal(t, later.Add(30*time.Second+30*time.Second), r.FreshUntil, "max-age=60 less the 304's Age, clamped to MinTTL")
		assert.Equal(t, `"v2"`, r.Headers().Get("Etag"))
		assert.Equal(t, "max-age=60", r.Headers().Get("Cache-Control"))
		assert.Equal(t, `"v1"`, held.Headers().Get("Etag"), "the held record is unchanged")
	})
	t.Run("a 304 ends an outage and renews its good copy", func(t *testing.T) {
		out := next(held, result(503, ""), later)
		require.True(t, out.Unreachable())
		r := next(out, result(304, ""), later.Add(time.Hour))
		assert.False(t, r.Unreachable())
		assert.Zero(t, r.Failures)
		assert.True(t, r.UnreachableSince.IsZero())
		assert.Nil(t, r.Good)
		assert.Equal(t, held.File(), r.File())
		assert.True(t, r.SameBody(held), "a renewal shares the body held: what was compiled of it holds")
	})
	t.Run("a 304 with nothing held is a failure", func(t *testing.T) {
		r := next(nil, result(304, ""), later)
		assert.True(t, r.Unreachable())
		assert.Contains(t, r.Outcome, "no copy is held")
	})
}

// RFC 9309 §2.3.1.4, and by design: failures back off, the outage keeps its
// start and its good copy.
func TestNextOutage(t *testing.T) {
	good := next(nil, result(200, "User-agent: *\nDisallow: /x\n", "ETag", `"v1"`), now)

	first := next(good, result(503, ""), now.Add(25*time.Hour))
	assert.Equal(t, status.Unreachable, first.Class)
	assert.Equal(t, 1, first.Failures)
	assert.Equal(t, now.Add(25*time.Hour), first.UnreachableSince)
	assert.Same(t, good, first.Good)
	assert.Nil(t, first.Body)
	assert.Equal(t, now.Add(25*time.Hour+freshness.Backoff(1, 0.5)), first.FreshUntil)
	assert.Equal(t, fetch.Validators{ETag: `"v1"`}, first.Validators(), "refetches revalidate the good copy")

	second := next(first, result(500, ""), now.Add(26*time.Hour))
	assert.Equal(t, 2, second.Failures)
	assert.Equal(t, first.UnreachableSince, second.UnreachableSince, "the outage's start stays")
	assert.Same(t, good, second.Good)
	assert.Equal(t, now.Add(26*time.Hour+freshness.Backoff(2, 0.5)), second.FreshUntil)

	// Retry-After, not backoff (RFC 9110 §10.2.3).
	third := next(second, result(429, "", "Retry-After", "7200"), now.Add(27*time.Hour))
	assert.Equal(t, now.Add(29*time.Hour), third.FreshUntil)
	assert.Equal(t, "7200", third.Headers().Get("Retry-After"))

	// No result at all: unreachable, from the URL alone.
	none := policy.Next(key, nil, nil, status.Classify(nil, now), now)
	assert.Equal(t, key+"/robots.txt", none.URL)
	assert.True(t, none.Unreachable())
	assert.Nil(t, none.Good)

	// A success ends it.
	back := next(third, result(200, "User-agent: *\nAllow: /\n"), now.Add(30*time.Hour))
	assert.Zero(t, back.Failures)
	assert.Nil(t, back.Good)
}

// A record is made within what a record encodes, whatever the response, so
// that one hostile authority never breaks Export or its publication: 65 Age
// headers, a header value over the limit, an outcome or a URL over it, more
// redirects than a record holds.
func TestNextStaysEncodable(t *testing.T) {
	long := strings.Repeat("\xff", cache.MaxStringBytes+1)
	res := result(200, "User-agent: *\nDisallow: /x\n")
	for range 65 {
		res.Header.Add("Age", "1")
	}
	for i := range 70 {
		res.Header.Add("Cache-Control", fmt.Sprintf("x-%d", i))
	}
	res.Header.Add("Cache-Control", "max-age=600")
	res.Header.Set("Etag", long)
	res.Header.Set("Date", long)
	res.FinalURL = key + "/" + long
	for i := range cache.MaxRedirects + 5 {
		res.Redirects = append(res.Redirects, fetch.Hop{URL: fmt.Sprintf("%s/%d", key, i), StatusCode: 301, Location: long})
	}
	out := classify(res, now)
	out.Reason = long
	r := policy.Next(key, nil, res, out, now)
	_, err := r.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, []string{"1"}, r.Headers().Values("Age"), "read once: its first value")
	assert.Len(t, r.Headers().Values("Cache-Control"), cache.MaxHeaderValues-len(cache.KeptHeaders)+1)
	assert.Empty(t, r.Headers().Get("Etag"), "over the limit: dropped, not cut")
	assert.Empty(t, r.Headers().Get("Date"))
	assert.Len(t, r.Outcome, cache.MaxStringBytes)
	assert.Len(t, r.FinalURL, cache.MaxStringBytes)
	assert.Len(t, r.Redirects, cache.MaxRedirects)
	assert.Len(t, r.Redirects[0].Location, cache.MaxStringBytes)
	assert.Equal(t, now.Add(10*time.Minute-time.Second), r.FreshUntil, "max-age less the first Age, read from the response itself")

	// An outage that follows keeps within the limits too.
	fail := result(503, "")
	fail.Header = res.Header
	o := policy.Next(key, r, fail, classify(fail, now), now)
	_, err = o.MarshalBinary()
	assert.NoError(t, err)
}

// The record of a fetch and the values of its kept headers are one
// allocation; the headers' map takes two more (the map and its table).
// Without a kept header, the record is all.
func TestNextAllocations(t *testing.T) {
	cases := []struct {
		name   string
		header http.Header
		allocs float64
	}{
		{"kept headers", http.Header{"Content-Type": {"text/plain"}, "Date": {"Fri, 27 Nov 2026 14:00:00 GMT"},
			"Cache-Control": {"max-age=86400"}, "Etag": {`"12-5f2e8c1d"`}, "Last-Modified": {"Mon, 02 Nov 2026 10:00:00 GMT"}}, 3},
		{"none kept", http.Header{"Content-Type": {"text/plain"}}, 1},
		{"only too long", http.Header{"Etag": {strings.Repeat("x", cache.MaxStringBytes+1)}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := &fetch.Result{URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: 200,
				Body: []byte("User-agent: *\nDisallow: /x\n"), Header: c.header}
			out := status.Classify(res, now)
			var r *cache.Record
			assert.Equal(t, c.allocs, testing.AllocsPerRun(100, func() { r = policy.Next(key, nil, res, out, now) }))
			require.NotNil(t, r)
			if c.allocs == 1 {
				assert.Nil(t, r.Header)
			} else {
				assert.Equal(t, []string{"max-age=86400"}, r.Header["Cache-Control"])
			}
		})
	}
}

// FuzzNext makes records of fuzzed responses: every one encodes.
func FuzzNext(f *testing.F) {
	f.Add(200, "Age: 1\nAge: 2\nCache-Control: max-age=60", "/robots.txt", "")
	f.Add(301, "Location: /%zz\xff\xff", "/\xff", "redirect failed")
	f.Add(503, "Retry-After: 120", "", "503 Service Unavailable")
	f.Fuzz(func(t *testing.T, code int, headers, final, reason string) {
		res := result(code, "User-agent: *\nDisallow: /\n")
		for _, line := range strings.Split(headers, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				res.Header.Add(k, strings.TrimSpace(v))
			}
		}
		res.FinalURL = key + final
		out := classify(res, now)
		if reason != "" {
			out.Reason = reason
		}
		held := policy.Next(key, nil, result(200, "x"), classify(result(200, "x"), now), now)
		for _, h := range []*cache.Record{nil, held} {
			r := policy.Next(key, h, res, out, now)
			if _, err := r.MarshalBinary(); err != nil {
				t.Fatalf("a record that does not encode: %v", err)
			}
		}
	})
}

// BenchmarkNext is the record a fetch of a corpus-sized file with a real
// server's headers makes: on every cold authority's path.
func BenchmarkNext(b *testing.B) {
	body := []byte(strings.Repeat("User-agent: *\nDisallow: /some/path/here\n", 80))
	h := http.Header{"Content-Type": {"text/plain"}, "Date": {"Fri, 27 Nov 2026 14:00:00 GMT"}, "Cache-Control": {"max-age=86400"},
		"Etag": {`"12-5f2e8c1d"`}, "Last-Modified": {"Mon, 02 Nov 2026 10:00:00 GMT"}}
	res := &fetch.Result{URL: key + "/robots.txt", FinalURL: key + "/robots.txt", StatusCode: 200, Body: body, Header: h}
	out := status.Classify(res, now)
	b.ReportAllocs()
	for b.Loop() {
		policy.Next(key, nil, res, out, now)
	}
}
