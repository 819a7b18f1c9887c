package engine

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/status"
)

// Policy turns fetches into Records, and says what an outage answers: the
// freshness column of the "Fetching and status" table of the project's
// design, and its rows for an unreachable authority.
type Policy struct {
	// MinTTL is the shortest lifetime of a record, whatever its headers;
	// it is clamped to [0, freshness.DefaultLifetime].
	MinTTL time.Duration
	// Jitter returns a uniform random number in [0, 1) for Backoff; nil
	// means math/rand/v2.
	Jitter func() float64
	// AllowAfter is how long an outage without a good copy answers
	// disallow-all before it answers allow-all; negative: never (see
	// Policy.Outage).
	AllowAfter time.Duration
}

// Next returns the record that follows held (nil when there is none) after
// a fetch of key's robots.txt at now, whose result is res (nil when no fetch
// could be made) and outcome out:
//
//   - a 304 to the validators of held's good copy renews that copy: its
//     stored headers are updated with the 304's (RFC 9111 §4.3.4), and its
//     freshness computed from the result, so that a bare 304 gives the
//     stored max-age again;
//   - a fetch that said something about the file (a 2xx, a 4xx, redirects
//     that led nowhere) is a new good record, fresh for LifetimeOf its
//     headers;
//   - a failure (429, 5xx, the network) extends the outage: one more
//     failure, the outage's start kept, held's good copy kept, and the next
//     attempt after Retry-After or Backoff.
//
// The record is within what a record encodes (cache.MaxStringBytes and the
// other limits), whatever the response: a longer string is cut, a header
// value over the limit dropped, a header that is read once keeps its first
// value, redirects past the limit are dropped, and a status code of more
// than three digits (from a caller's RoundTripper) is recorded as none, so that one hostile
// response never makes a record that cannot be exported or shared. It is
// expanded (an outage's good copy is the one held, compact), its Body
// res.Body: the Cache derives from it as it is, without decompressing, and
// stores it compact (cache.Record.Compact), a copy, before res goes back to
// the caller of the fetch, whose it is. A 304 renews the good copy held,
// compact as it is held.
func (p Policy) Next(key string, held *cache.Record, res *fetch.Result, out status.Outcome, now time.Time) *cache.Record {
	var h http.Header
	if res != nil {
		h = res.Header
	}
	if out.Verdict == status.NotModified {
		if g := held.GoodCopy(); g != nil {
			header := updateHeaders(g.Headers(), h)
			r := g.WithHeader(header) // the same body: what was compiled of it holds
			r.FetchedAt, r.FreshUntil = now, now.Add(freshness.LifetimeOf(header, now, p.MinTTL).TTL)
			return r
		}
		// Validators are sent only with a copy held, so this cannot happen;
		// should it, the 304 says nothing: count it as a failure.
		out = status.Outcome{Verdict: status.DisallowAll, Class: status.Unreachable,
			Reason: out.Reason + ", but no copy is held", StatusCode: out.StatusCode}
	}
	r, values := newRecord(h)
	*r = cache.Record{Authority: key, StatusCode: statusCode(out.StatusCode), Class: out.Class,
		Outcome: clip(out.Reason), Header: keepHeaders(h, values), FetchedAt: now}
	if res != nil {
		r.URL, r.FinalURL, r.Redirects = clip(res.URL), clip(res.FinalURL), hops(res.Redirects)
	} else {
		r.URL = key + "/robots.txt"
		r.FinalURL = r.URL
	}
	if strings.HasPrefix(r.URL, key) {
		// The authority is the URL's beginning: one string for both, as
		// the record's Size counts them (and the cache's key).
		r.Authority = r.URL[:len(key)]
	}
	if !out.Unreachable() {
		if out.Class == status.Success && res != nil {
			// Shared with the Result until the Cache compacts the
			// record, which copies it: no copy is made for Derive.
			r.Body, r.Truncated = res.Body, res.Truncated
		}
		r.FreshUntil = now.Add(freshness.LifetimeOf(h, now, p.MinTTL).TTL)
		return r
	}
	r.Class, r.Failures, r.UnreachableSince = status.Unreachable, 1, now
	if held != nil {
		r.Good = held.GoodCopy()
		if held.Unreachable() {
			r.Failures, r.UnreachableSince = min(held.Failures+1, cache.MaxFailures), held.UnreachableSince
		}
	}
	if r.FreshUntil = out.RetryAfter; r.FreshUntil.IsZero() {
		jitter := p.Jitter
		if jitter == nil {
			jitter = rand.Float64
		}
		r.FreshUntil = now.Add(freshness.Backoff(r.Failures, jitter()))
	}
	return r
}

// headedRecord is a Record and the memory of its kept headers' values,
// allocated at once: Next's record lives and dies with its headers (the
// Cache stores a compact copy, which holds neither).
type headedRecord struct {
	rec    cache.Record
	values [len(cache.KeptHeaders)]string
}

// newRecord returns a new Record for the kept headers of h and, when h has
// any, the memory for their values, of capacity len(cache.KeptHeaders), in
// the same allocation.
func newRecord(h http.Header) (*cache.Record, []string) {
	for _, k := range cache.KeptHeaders {
		for _, v := range h[k] {
			if len(v) <= cache.MaxStringBytes { // what keepHeaders keeps
				hr := new(headedRecord)
				return &hr.rec, hr.values[:0]
			}
		}
	}
	return new(cache.Record), nil
}

// updateHeaders returns the stored headers updated with those of a 304
// (RFC 9111 §4.3.4): each kept header the 304 carries replaces the stored
// one. The stored Age goes in any case: it was the age of the stored
// response when received, and the 304 makes it current again (§4.2.3).
func updateHeaders(stored, fresh http.Header) http.Header {
	out := keepHeaders(stored, nil)
	if out != nil {
		delete(out, "Age")
	}
	for k, vs := range keepHeaders(fresh, nil) {
		if out == nil {
			out = make(http.Header, len(cache.KeptHeaders))
		}
		out[k] = vs
	}
	return out
}

// keepHeaders returns the kept headers of h, in a map of their own (a
// record never shares memory with the response it came from), within what
// a record encodes: a value over cache.MaxStringBytes is dropped, not cut
// (a cut date or max-age would say something else); a header that
// freshness and validation read once (Age, Date, ETag, …) keeps its first
// value; Cache-Control, whose every value counts, keeps as many as the
// limit leaves. The values kept share one array: values, when not nil
// (empty, its capacity the room it has), else an array of their own.
func keepHeaders(h http.Header, values []string) http.Header {
	var kept http.Header
	room := cache.MaxHeaderValues - (len(cache.KeptHeaders) - 1)
	for _, k := range cache.KeptHeaders {
		start := len(values)
		for _, v := range h[k] {
			if len(v) <= cache.MaxStringBytes && len(values)-start < room {
				if values == nil {
					values = make([]string, 0, len(cache.KeptHeaders))
				}
				values = append(values, v)
			}
			if k != "Cache-Control" && len(values) > start {
				break
			}
		}
		if len(values) > start {
			if kept == nil {
				kept = make(http.Header, len(cache.KeptHeaders))
			}
			kept[k] = values[start:len(values):len(values)]
		}
	}
	return kept
}

// clip returns s, cut to cache.MaxStringBytes, in memory of its own when
// cut: what a record keeps of a string for people (a URL, an outcome).
func clip(s string) string {
	if len(s) <= cache.MaxStringBytes {
		return s
	}
	return strings.Clone(s[:cache.MaxStringBytes])
}

// statusCode returns code when a record can hold it (three digits at
// most), else 0, no status: a RoundTripper of the caller's may answer with
// any number.
func statusCode(code int) int {
	if code < 0 || code > 999 {
		return 0
	}
	return code
}

// hops returns a record's copy of the redirects of a fetch, at most
// cache.MaxRedirects of them, each clipped.
func hops(rs []fetch.Hop) []fetch.Hop {
	if len(rs) == 0 {
		return nil
	}
	out := slices.Clone(rs[:min(len(rs), cache.MaxRedirects)])
	for i := range out {
		out[i].URL, out[i].Location, out[i].StatusCode = clip(out[i].URL), clip(out[i].Location), statusCode(out[i].StatusCode)
	}
	return out
}
