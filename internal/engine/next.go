package engine

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/status"
)

// Policy turns fetches into Records: the freshness column of the
// "Fetching and status" table of the project's DESIGN.md.
type Policy struct {
	// MinTTL is the shortest lifetime of a record, whatever its headers;
	// it is clamped to [0, freshness.DefaultLifetime].
	MinTTL time.Duration
	// Jitter returns a uniform random number in [0, 1) for Backoff; nil
	// means math/rand/v2.
	Jitter func() float64
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
func (p Policy) Next(key string, held *cache.Record, res *fetch.Result, out status.Outcome, now time.Time) *cache.Record {
	var h http.Header
	if res != nil {
		h = res.Header
	}
	if out.Verdict == status.NotModified {
		if g := held.GoodCopy(); g != nil {
			r := *g
			r.Header = updateHeaders(g.Header, h)
			r.FetchedAt, r.FreshUntil = now, now.Add(freshness.LifetimeOf(r.Header, now, p.MinTTL).TTL)
			return &r
		}
		// Validators are sent only with a copy held, so this cannot happen;
		// should it, the 304 says nothing: count it as a failure.
		out = status.Outcome{Verdict: status.DisallowAll, Class: status.Unreachable,
			Reason: out.Reason + ", but no copy is held", StatusCode: out.StatusCode}
	}
	r := &cache.Record{Authority: key, URL: key + "/robots.txt", StatusCode: out.StatusCode, Class: out.Class,
		Outcome: out.Reason, Header: keepHeaders(h), FetchedAt: now}
	r.FinalURL = r.URL
	if res != nil {
		r.URL, r.FinalURL, r.Redirects = res.URL, res.FinalURL, slices.Clone(res.Redirects)
	}
	if !out.Unreachable() {
		if out.Class == status.Success && res != nil {
			// A copy: the fetch's buffer has room to spare, and the Result
			// is the caller's to keep.
			r.Body, r.Truncated = slices.Clone(res.Body), res.Truncated
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

// updateHeaders returns the stored headers updated with those of a 304
// (RFC 9111 §4.3.4): each kept header the 304 carries replaces the stored
// one. The stored Age goes in any case: it was the age of the stored
// response when received, and the 304 makes it current again (§4.2.3).
func updateHeaders(stored, fresh http.Header) http.Header {
	out := keepHeaders(stored)
	if out != nil {
		delete(out, "Age")
	}
	for k, vs := range keepHeaders(fresh) {
		if out == nil {
			out = make(http.Header, len(cache.KeptHeaders))
		}
		out[k] = vs
	}
	return out
}

// keepHeaders returns the kept headers of h, in a map of their own: a
// record never shares memory with the response it came from.
func keepHeaders(h http.Header) http.Header {
	var kept http.Header
	for _, k := range cache.KeptHeaders {
		if vs := h.Values(k); len(vs) > 0 {
			if kept == nil {
				kept = make(http.Header, 2)
			}
			kept[k] = append([]string(nil), vs...)
		}
	}
	return kept
}
