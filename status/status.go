// Package status says what a fetch of robots.txt means for a crawler: follow
// the rules of the body, allow everything, disallow everything, or keep the
// copy held; and when the server asked to be left alone, until when.
//
// Classify is a pure function of a fetch.Result and the current time. It
// implements the table "Fetching and status" of the README,
// after RFC 9309 §2.3.1 and Google's interpretation:
//
//   - 2xx: the rules of the body (Rules); 204 or an empty body: AllowAll.
//     A body the fetcher does not decode (deflate, br, labeled gzip but not
//     gzip) is Rules too: parsed as text, it yields warnings and no rules.
//   - 4xx other than 429: the file is unavailable: AllowAll (Google:
//     "as if there's no robots.txt"); with Options.DisallowOnAuthError, 401
//     and 403 are DisallowAll.
//   - a 6th redirect, a loop, a missing or unusable Location, a non-http(s)
//     target, a refused cross-site redirect, or a 3xx the fetcher does not
//     follow: unavailable as well (Google: "treat this as a 404"): AllowAll.
//   - 429, 5xx, a status outside 200–599, and every network failure (DNS,
//     refused, reset, TLS, timeout, body cut short, oversized headers,
//     malformed response, blocked address): unreachable: DisallowAll
//     (RFC 9309 §2.3.1.4), with Retry-After as a hint when sent.
//   - 304 to a conditional request: NotModified.
//
// Non-goals: remembering anything. Keeping a good copy through an outage,
// switching to allow-all after 30 days unreachable, backoff, and freshness
// belong to the cache layer, which gets from an Outcome what it needs
// (Unreachable, RetryAfter). A canceled fetch has no outcome: package fetch
// returns an error for it, never a Result.
package status

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crawlkit/robots/fetch"
)

// Verdict is what a crawler must do with an authority's URLs.
type Verdict uint8

// The verdicts.
const (
	// Rules: parse the body and follow its rules.
	Rules Verdict = iota + 1
	// AllowAll: every URL of the authority may be fetched.
	AllowAll
	// DisallowAll: no URL of the authority may be fetched.
	DisallowAll
	// NotModified: the copy held is current; keep its rules.
	NotModified
)

var verdictNames = [...]string{Rules: "rules", AllowAll: "allow all", DisallowAll: "disallow all", NotModified: "not modified"}

// String returns a short lowercase name of v, such as "allow all".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) && verdictNames[v] != "" {
		return verdictNames[v]
	}
	return "Verdict(" + strconv.Itoa(int(v)) + ")"
}

// Class says which row of the README's status table a fetch fell in: what the cache
// layer needs to know beyond the verdict.
type Class uint8

// The classes of Outcome.
const (
	// Success: a 2xx with a body. Verdict Rules.
	Success Class = iota + 1
	// Empty: a 204, or a 2xx with an empty body (after the cap dropped a
	// cut line, if any). Verdict AllowAll.
	Empty
	// Unavailable: a 4xx other than 429. Verdict AllowAll.
	Unavailable
	// RedirectFailed: redirects that led to no file: one too many, a loop,
	// no usable Location, a non-http(s) target, a refused cross-site
	// redirect, or a 3xx status that is not followed (300, 305, 306, or a
	// 304 to an unconditional request). Unavailable, like a 404: verdict
	// AllowAll.
	RedirectFailed
	// AuthDenied: a 401 or 403 with Options.DisallowOnAuthError. Verdict
	// DisallowAll.
	AuthDenied
	// Unreachable: a 429, a 5xx, a status outside 200–599, or a network
	// failure. Verdict DisallowAll.
	Unreachable
	// Unchanged: a 304 to a conditional request. Verdict NotModified.
	Unchanged
)

var classNames = [...]string{
	Success:        "success",
	Empty:          "empty",
	Unavailable:    "unavailable",
	RedirectFailed: "redirect failed",
	AuthDenied:     "auth denied",
	Unreachable:    "unreachable",
	Unchanged:      "unchanged",
}

// String returns a short lowercase name of c, such as "unreachable".
func (c Class) String() string {
	if int(c) < len(classNames) && classNames[c] != "" {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// Bounds of Outcome.RetryAfter, relative to the time of classification.
const (
	MinRetryAfter = time.Minute
	MaxRetryAfter = 24 * time.Hour
)

// Outcome is what a fetch means.
type Outcome struct {
	// Verdict is what the crawler is to do.
	Verdict Verdict
	// Class is the row of the README's status table the fetch fell in: what the
	// cache layer needs to know beyond the verdict.
	Class Class

	// Reason explains the outcome in a few words, for people: the status
	// or failure and what it means, such as "503 Service Unavailable:
	// unreachable".
	Reason string

	// StatusCode is the status of the last response, 0 when none.
	StatusCode int

	// RetryAfter is when the server asked to be fetched again, from the
	// Retry-After header of an unreachable outcome (seconds or an HTTP
	// date), clamped to [now+MinRetryAfter, now+MaxRetryAfter]. It is zero
	// when the header is absent or invalid, or the outcome is not
	// Unreachable: the cache then applies its own backoff.
	RetryAfter time.Time
}

// Unreachable reports whether the outcome says nothing about the file: the
// server or the network failed. The cache keeps a good copy through it, and
// after 30 days of it may allow everything (RFC 9309 §2.3.1.4).
func (o Outcome) Unreachable() bool { return o.Class == Unreachable }

// Unavailable reports whether the server answered that there is no file to
// follow: a 4xx or redirects that led nowhere. Such an outcome is as good
// as a file for caching.
func (o Outcome) Unavailable() bool {
	return o.Class == Unavailable || o.Class == RedirectFailed || o.Class == AuthDenied
}

// Options adjusts Classify.
type Options struct {
	// DisallowOnAuthError makes 401 Unauthorized and 403 Forbidden mean
	// DisallowAll instead of AllowAll: some site owners use them to keep
	// crawlers out, though Google asks them not to.
	DisallowOnAuthError bool
}

// Classify returns the outcome of r with the default Options.
func Classify(r *fetch.Result, now time.Time) Outcome {
	return Options{}.Classify(r, now)
}

// Classify returns the outcome of r, a fetch that completed (not canceled),
// at time now, which is used only to clamp RetryAfter. A nil r is
// unreachable.
func (o Options) Classify(r *fetch.Result, now time.Time) Outcome {
	if r == nil {
		return Outcome{Verdict: DisallowAll, Class: Unreachable, Reason: "no fetch result: unreachable"}
	}
	out := Outcome{StatusCode: r.StatusCode}
	code := r.StatusCode
	switch {
	case r.Err != nil:
		switch r.Err.Class {
		case fetch.TooManyRedirects, fetch.RedirectLoop, fetch.BadLocation, fetch.ForbiddenScheme, fetch.CrossSiteRedirect:
			out.Verdict, out.Class = AllowAll, RedirectFailed
		default:
			out.Verdict, out.Class = DisallowAll, Unreachable
		}
		out.Reason = r.Err.Class.String() + ": " + out.Class.String()
		if r.Err.Err != nil {
			out.Reason += " (" + r.Err.Err.Error() + ")"
		}
	case code >= 200 && code <= 299:
		if code == http.StatusNoContent || len(r.Body) == 0 {
			out.Verdict, out.Class = AllowAll, Empty
		} else {
			out.Verdict, out.Class = Rules, Success
		}
	case code == http.StatusNotModified && r.Conditional:
		out.Verdict, out.Class = NotModified, Unchanged
	case code >= 300 && code <= 399:
		out.Verdict, out.Class = AllowAll, RedirectFailed
	case (code == http.StatusUnauthorized || code == http.StatusForbidden) && o.DisallowOnAuthError:
		out.Verdict, out.Class = DisallowAll, AuthDenied
	case code >= 400 && code <= 499 && code != http.StatusTooManyRequests:
		out.Verdict, out.Class = AllowAll, Unavailable
	default: // 429, 5xx, and statuses outside 200–599
		out.Verdict, out.Class = DisallowAll, Unreachable
	}
	if out.Reason == "" {
		out.Reason = reasonOf(code, out.Class)
	}
	if out.Class == Unreachable {
		out.RetryAfter = retryAfter(r.Header, now)
	}
	return out
}

// reasons holds the Reasons of the statuses with a name, made once: a cache
// keeps one per authority, and they are few ("200 OK: success").
var reasons sync.Map // reasonKey -> string

type reasonKey struct {
	code  int
	class Class
}

// reasonOf returns the Reason of a response of status code in class.
func reasonOf(code int, class Class) string {
	k := reasonKey{code, class}
	if s, ok := reasons.Load(k); ok {
		return s.(string)
	}
	s := statusText(code) + ": " + class.String()
	if http.StatusText(code) != "" { // the others may be any of a thousand
		reasons.Store(k, s)
	}
	return s
}

// statusText returns "503 Service Unavailable", or "599" for a status
// without a name.
func statusText(code int) string {
	s := strconv.Itoa(code)
	if t := http.StatusText(code); t != "" {
		s += " " + t
	}
	return s
}

// retryAfter returns the time the Retry-After header of h asks for
// (RFC 9110 §10.2.3: a number of seconds or an HTTP date), clamped to
// [now+MinRetryAfter, now+MaxRetryAfter]; zero when the header is absent or
// is neither form.
func retryAfter(h http.Header, now time.Time) time.Time {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return time.Time{}
	}
	var d time.Duration
	if secs, ok := seconds(v); ok {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return time.Time{}
	}
	return now.Add(min(max(d, MinRetryAfter), MaxRetryAfter))
}

// seconds parses a delay-seconds value (1*DIGIT), saturating at one more
// than MaxRetryAfter so that no number of digits overflows.
func seconds(v string) (int64, bool) {
	const limit = int64(MaxRetryAfter/time.Second) + 1
	var n int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = min(n*10+int64(c-'0'), limit)
	}
	return n, true
}
