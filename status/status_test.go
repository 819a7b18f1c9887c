package status

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"
	"unsafe"

	"github.com/crawlkit/robots/fetch"
	"github.com/stretchr/testify/assert"
)

var now = time.Date(2026, 10, 21, 7, 28, 0, 0, time.UTC)

func result(code int, body string) *fetch.Result {
	return &fetch.Result{StatusCode: code, Header: http.Header{}, Body: []byte(body)}
}

func failure(c fetch.Class, code int) *fetch.Result {
	return &fetch.Result{StatusCode: code, Err: &fetch.Error{Class: c, Op: "GET", URL: "http://example.com/robots.txt", Err: errors.New("cause")}}
}

// One case per row of the README's table "Fetching and status", as far as a
// single fetch decides it; the rows about memory across fetches are the
// cache's.
func TestClassify(t *testing.T) {
	conditional304 := result(304, "")
	conditional304.Conditional = true
	tests := []struct {
		name    string
		r       *fetch.Result
		verdict Verdict
		class   Class
	}{
		// 2xx: parse the body.
		{"200", result(200, "User-agent: *\nDisallow: /\n"), Rules, Success},
		{"206", result(206, "User-agent: *\n"), Rules, Success},
		{"299", result(299, "x"), Rules, Success},
		{"200 html", result(200, "<html></html>"), Rules, Success},
		// 204 or empty body: allow-all.
		{"204", result(204, ""), AllowAll, Empty},
		{"204 with a body", result(204, "User-agent: *\nDisallow: /\n"), AllowAll, Empty},
		{"200 empty", result(200, ""), AllowAll, Empty},
		// Redirects that lead nowhere: unavailable, allow-all (Google: like a 404).
		{"6th redirect", failure(fetch.TooManyRedirects, 302), AllowAll, RedirectFailed},
		{"loop", failure(fetch.RedirectLoop, 301), AllowAll, RedirectFailed},
		{"no usable Location", failure(fetch.BadLocation, 302), AllowAll, RedirectFailed},
		{"non-http(s) target", failure(fetch.ForbiddenScheme, 307), AllowAll, RedirectFailed},
		{"cross-site refused", failure(fetch.CrossSiteRedirect, 308), AllowAll, RedirectFailed},
		{"300 not followed", result(300, ""), AllowAll, RedirectFailed},
		{"305 not followed", result(305, ""), AllowAll, RedirectFailed},
		{"304 unconditional", result(304, ""), AllowAll, RedirectFailed},
		// 4xx except 429: unavailable, allow-all.
		{"400", result(400, ""), AllowAll, Unavailable},
		{"401", result(401, ""), AllowAll, Unavailable},
		{"403", result(403, ""), AllowAll, Unavailable},
		{"404", result(404, ""), AllowAll, Unavailable},
		{"410", result(410, ""), AllowAll, Unavailable},
		{"451", result(451, ""), AllowAll, Unavailable},
		{"499", result(499, ""), AllowAll, Unavailable},
		// 429, 5xx, a status outside 100–599: unreachable.
		{"429", result(429, ""), DisallowAll, Unreachable},
		{"500", result(500, ""), DisallowAll, Unreachable},
		{"503", result(503, ""), DisallowAll, Unreachable},
		{"599", result(599, ""), DisallowAll, Unreachable},
		{"99", result(99, ""), DisallowAll, Unreachable},
		{"600", result(600, ""), DisallowAll, Unreachable},
		{"0", result(0, ""), DisallowAll, Unreachable},
		{"-1", result(-1, ""), DisallowAll, Unreachable},
		{"final 1xx", result(101, ""), DisallowAll, Unreachable},
		// Network errors: unreachable.
		{"dns", failure(fetch.DNS, 0), DisallowAll, Unreachable},
		{"refused", failure(fetch.Refused, 0), DisallowAll, Unreachable},
		{"reset", failure(fetch.Reset, 200), DisallowAll, Unreachable},
		{"tls", failure(fetch.TLS, 0), DisallowAll, Unreachable},
		{"timeout", failure(fetch.Timeout, 0), DisallowAll, Unreachable},
		{"body cut short", failure(fetch.BodyCut, 200), DisallowAll, Unreachable},
		{"oversized headers", failure(fetch.HeadersTooLarge, 0), DisallowAll, Unreachable},
		{"malformed", failure(fetch.BadResponse, 0), DisallowAll, Unreachable},
		{"blocked", failure(fetch.Blocked, 0), DisallowAll, Unreachable},
		{"other", failure(fetch.Other, 0), DisallowAll, Unreachable},
		// 304 to a conditional refetch: keep the cached rules.
		{"304 conditional", conditional304, NotModified, Unchanged},
		{"nil", nil, DisallowAll, Unreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Classify(tt.r, now)
			assert.Equal(t, tt.verdict, o.Verdict, o.Reason)
			assert.Equal(t, tt.class, o.Class, o.Reason)
			assert.NotEmpty(t, o.Reason)
			assert.Contains(t, o.Reason, tt.class.String())
			if tt.r != nil {
				assert.Equal(t, tt.r.StatusCode, o.StatusCode)
			}
			assert.Equal(t, tt.class == Unreachable, o.Unreachable())
			assert.Equal(t, tt.class == Unavailable || tt.class == RedirectFailed, o.Unavailable())
			assert.Equal(t, o, Classify(tt.r, now), "pure: the same input gives the same outcome")
		})
	}
}

func TestDisallowOnAuthError(t *testing.T) {
	opts := Options{DisallowOnAuthError: true}
	for code, want := range map[int]Verdict{401: DisallowAll, 403: DisallowAll, 404: AllowAll, 400: AllowAll, 429: DisallowAll} {
		o := opts.Classify(result(code, ""), now)
		assert.Equal(t, want, o.Verdict, "%d", code)
		if code == 401 || code == 403 {
			assert.Equal(t, AuthDenied, o.Class)
			assert.True(t, o.Unavailable())
			assert.False(t, o.Unreachable())
		}
	}
}

// RFC 9110 §10.2.3: Retry-After is delay-seconds or an HTTP-date. By design:
// clamped to [1 min, 24 h].
func TestRetryAfter(t *testing.T) {
	tests := []struct {
		value string
		want  time.Time
	}{
		{"", time.Time{}},
		{"0", now.Add(time.Minute)},
		{"59", now.Add(time.Minute)},
		{"60", now.Add(time.Minute)},
		{"61", now.Add(61 * time.Second)},
		{" 120 ", now.Add(2 * time.Minute)},
		{"86400", now.Add(24 * time.Hour)},
		{"86401", now.Add(24 * time.Hour)},
		{"99999999999999999999999999999999", now.Add(24 * time.Hour)},
		{"Wed, 21 Oct 2026 09:28:00 GMT", now.Add(2 * time.Hour)},     // IMF-fixdate
		{"Wednesday, 21-Oct-26 09:28:00 GMT", now.Add(2 * time.Hour)}, // RFC 850
		{"Wed Oct 21 09:28:00 2026", now.Add(2 * time.Hour)},          // asctime
		{"Wed, 21 Oct 2026 07:28:30 GMT", now.Add(time.Minute)},       // 30 s ahead: clamped up
		{"Tue, 20 Oct 2026 07:28:00 GMT", now.Add(time.Minute)},       // in the past
		{"Fri, 21 Oct 2050 07:28:00 GMT", now.Add(24 * time.Hour)},    // far ahead
		{"-1", time.Time{}},                                           // not delay-seconds
		{"1.5", time.Time{}},                                          // not delay-seconds
		{"+60", time.Time{}},                                          // not delay-seconds
		{"tomorrow", time.Time{}},                                     // neither form
		{"2026-10-21T09:28:00Z", time.Time{}},                         // not an HTTP-date
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			r := result(503, "")
			if tt.value != "" {
				r.Header.Set("Retry-After", tt.value)
			}
			assert.Equal(t, tt.want, Classify(r, now).RetryAfter)
		})
	}
}

// Retry-After is a hint for unreachable outcomes only: a 301 or a 404 with
// one is not a reason to wait.
func TestRetryAfterOnlyWhenUnreachable(t *testing.T) {
	for _, code := range []int{200, 301, 404} {
		r := result(code, "x")
		r.Header.Set("Retry-After", "3600")
		assert.True(t, Classify(r, now).RetryAfter.IsZero(), "%d", code)
	}
	r := failure(fetch.BodyCut, 503)
	r.Header = http.Header{"Retry-After": {"3600"}}
	assert.Equal(t, now.Add(time.Hour), Classify(r, now).RetryAfter)
}

func TestClassifyDoesNotModify(t *testing.T) {
	r := result(503, "body")
	r.Header.Set("Retry-After", "120")
	before := fmt.Sprintf("%#v", *r)
	Classify(r, now)
	assert.Equal(t, before, fmt.Sprintf("%#v", *r))
}

func TestNames(t *testing.T) {
	for v := Rules; v <= NotModified; v++ {
		assert.NotContains(t, v.String(), "Verdict(")
	}
	for c := Success; c <= Unchanged; c++ {
		assert.NotContains(t, c.String(), "Class(")
	}
	assert.Equal(t, "Verdict(0)", Verdict(0).String())
	assert.Equal(t, "Class(99)", Class(99).String())
	assert.Equal(t, "503 Service Unavailable: unreachable", Classify(result(503, ""), now).Reason)
	assert.Equal(t, "599: unreachable", Classify(result(599, ""), now).Reason)
	assert.Equal(t, "dns: unreachable (cause)", Classify(failure(fetch.DNS, 0), now).Reason)
}

// A cache keeps a Reason per authority: those of named statuses are made
// once and shared; the others are made each time, so that a server's odd
// statuses cannot grow the table.
func TestReasonsShared(t *testing.T) {
	a, b := Classify(result(200, "x"), now), Classify(result(200, "y"), now)
	assert.Equal(t, "200 OK: success", a.Reason)
	assert.Same(t, unsafe.StringData(a.Reason), unsafe.StringData(b.Reason))
	odd1, odd2 := Classify(result(299, "x"), now), Classify(result(299, "x"), now)
	assert.Equal(t, odd1.Reason, odd2.Reason)
	assert.NotSame(t, unsafe.StringData(odd1.Reason), unsafe.StringData(odd2.Reason))
}
