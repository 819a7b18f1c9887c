// Package freshness computes how long a robots.txt response stays fresh
// (RFC 9111 as the project's design table reads it, within RFC 9309 §2.4's
// 24 hours) and how long to back off from an authority that cannot be
// reached. Pure functions: the time is the caller's.
package freshness

import (
	"math/bits"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/cachecontrol/cacheobject"
)

// DefaultLifetime is how long a response without caching headers stays
// fresh, and the longest any response does (RFC 9309 §2.4: crawlers SHOULD
// NOT use a cached robots.txt for more than 24 hours).
const DefaultLifetime = 24 * time.Hour

// Source names what decided a lifetime.
type Source uint8

// The sources of a lifetime, in the order they are consulted.
const (
	// NoStore: Cache-Control: no-store; the minimum lifetime applies.
	NoStore Source = iota + 1
	// NoCache: Cache-Control: no-cache; the minimum lifetime applies.
	NoCache
	// SMaxAge: Cache-Control: s-maxage (a crawler is a shared cache).
	SMaxAge
	// MaxAge: Cache-Control: max-age.
	MaxAge
	// Expires: the Expires header, less the Date header.
	Expires
	// ExpiresInvalid: an Expires header that is "0" or not a date, which
	// means already expired (RFC 9111 §5.3); the minimum lifetime applies.
	ExpiresInvalid
	// AgeInvalid: the s-maxage or max-age that governs has a value that is
	// not delta-seconds (a sign, a letter, nothing), which means stale
	// (RFC 9111 §4.2.1, §5.2.2.1); the minimum lifetime applies.
	AgeInvalid
	// Default: no caching header; DefaultLifetime applies. There is no
	// heuristic freshness from Last-Modified.
	Default
)

var sourceNames = [...]string{
	NoStore:        "Cache-Control: no-store",
	NoCache:        "Cache-Control: no-cache",
	SMaxAge:        "Cache-Control: s-maxage",
	MaxAge:         "Cache-Control: max-age",
	Expires:        "Expires",
	ExpiresInvalid: "invalid Expires",
	AgeInvalid:     "invalid Cache-Control max-age or s-maxage",
	Default:        "no caching headers",
}

// String names the header that decided.
func (s Source) String() string {
	if int(s) < len(sourceNames) && sourceNames[s] != "" {
		return sourceNames[s]
	}
	return "unknown source"
}

// Lifetime is how long a response stays fresh, and why.
type Lifetime struct {
	// TTL is the time from receipt during which the response is fresh.
	TTL time.Duration
	// Source is what decided TTL.
	Source Source
	// Clamped reports that the headers asked for less than the minimum or
	// more than the maximum, and TTL is the bound instead.
	Clamped bool
}

// LifetimeOf returns how long a response with header h, received at now,
// stays fresh: s-maxage, else max-age, else Expires minus Date (or now when
// Date is missing or invalid), less the response's Age; 24 hours without
// caching headers; the minimum for no-store, no-cache, an Expires that is
// invalid or 0, and a governing s-maxage or max-age whose value is not
// delta-seconds. The result is clamped to [minTTL, DefaultLifetime]. Any
// other directive that does not parse, or is unknown, is ignored.
func LifetimeOf(h http.Header, now time.Time, minTTL time.Duration) Lifetime {
	minTTL = min(max(minTTL, 0), DefaultLifetime)
	cc := parseCacheControl(h.Values("Cache-Control"))
	age := deltaSeconds(h.Get("Age"))
	var ttl time.Duration
	var src Source
	switch {
	case cc.NoStore:
		return Lifetime{TTL: minTTL, Source: NoStore}
	case cc.NoCachePresent:
		return Lifetime{TTL: minTTL, Source: NoCache}
	case cc.badSMaxAge || cc.SMaxAge < 0 && cc.badMaxAge:
		// A shared cache obeys s-maxage over max-age (RFC 9111 §5.2.2.10),
		// so only the one that governs can make the response stale.
		return Lifetime{TTL: minTTL, Source: AgeInvalid}
	case cc.SMaxAge >= 0:
		ttl, src = seconds(int64(cc.SMaxAge))-age, SMaxAge
	case cc.MaxAge >= 0:
		ttl, src = seconds(int64(cc.MaxAge))-age, MaxAge
	case len(h.Values("Expires")) > 0:
		expires, err := http.ParseTime(h.Get("Expires"))
		if err != nil {
			return Lifetime{TTL: minTTL, Source: ExpiresInvalid}
		}
		date, err := http.ParseTime(h.Get("Date"))
		if err != nil {
			date = now
		}
		ttl, src = expires.Sub(date)-age, Expires
	default:
		return Lifetime{TTL: DefaultLifetime, Source: Default}
	}
	switch {
	case ttl < minTTL:
		return Lifetime{TTL: minTTL, Source: src, Clamped: true}
	case ttl > DefaultLifetime:
		return Lifetime{TTL: DefaultLifetime, Source: src, Clamped: true}
	}
	return Lifetime{TTL: ttl, Source: src}
}

func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }

// deltaSeconds parses an Age value (RFC 9111 §1.2.2): a non-negative number
// of seconds, saturating; anything else counts as 0.
func deltaSeconds(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	n, err := strconv.ParseUint(v, 10, 63)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return DefaultLifetime * 2 // older than anything we keep
		}
		return 0
	}
	return seconds(int64(min(n, uint64(2*DefaultLifetime/time.Second))))
}

// directives are the Cache-Control directives a lifetime depends on, with
// whether an s-maxage or a max-age was present with an invalid value.
type directives struct {
	cacheobject.ResponseCacheDirectives
	badSMaxAge, badMaxAge bool
}

// parseCacheControl parses Cache-Control field values leniently: each
// directive on its own, so that one that does not parse is ignored instead
// of voiding the others (cacheobject stops at the first error), except that
// an s-maxage or max-age with an invalid value is remembered as such: it
// means stale, not absent (RFC 9111 §4.2.1).
func parseCacheControl(values []string) directives {
	all := directives{ResponseCacheDirectives: cacheobject.ResponseCacheDirectives{
		MaxAge: -1, SMaxAge: -1, StaleIfError: -1, StaleWhileRevalidate: -1}}
	for _, v := range values {
		for more := true; more; {
			var d string
			d, v, more = nextDirective(v)
			if !all.common(d) {
				all.parse(d)
			}
		}
	}
	return all
}

// parse adds the directive d, parsed by cacheobject.
func (all *directives) parse(d string) {
	cd, err := cacheobject.ParseResponseCacheControl(d)
	if err != nil {
		// cacheobject reports a bad stale-if-error as a bad max-age,
		// so the directive's own name decides.
		switch directiveName(d) {
		case "s-maxage":
			all.badSMaxAge = true
		case "max-age":
			all.badMaxAge = true
		}
		return
	}
	all.NoStore = all.NoStore || cd.NoStore
	all.NoCachePresent = all.NoCachePresent || cd.NoCachePresent
	all.age(cd.MaxAge, cd.SMaxAge)
}

// age adds a max-age and an s-maxage, -1 for none: of repeated ages the
// smallest, the most restrictive, holds (RFC 9111 §4.2.1).
func (all *directives) age(maxAge, sMaxAge cacheobject.DeltaSeconds) {
	if maxAge >= 0 && (all.MaxAge < 0 || maxAge < all.MaxAge) {
		all.MaxAge = maxAge
	}
	if sMaxAge >= 0 && (all.SMaxAge < 0 || sMaxAge < all.SMaxAge) {
		all.SMaxAge = sMaxAge
	}
}

// common adds the directive d and reports true when it is one that servers
// commonly send, spelled as they do (lowercase; an age of one to nine
// digits), which it adds as parse would, without cacheobject's
// allocations; it reports false for any other, which it leaves to parse.
func (all *directives) common(d string) bool {
	d = strings.TrimLeft(d, " \t") // cacheobject skips whitespace before a directive
	switch d {
	case "public", "private", "must-revalidate", "proxy-revalidate", "no-transform", "immutable":
		return true // nothing a lifetime depends on
	case "no-store":
		all.NoStore = true
		return true
	case "no-cache":
		all.NoCachePresent = true
		return true
	}
	name, v, _ := strings.Cut(d, "=")
	if name != "max-age" && name != "s-maxage" || len(v) == 0 || len(v) > 9 {
		return false
	}
	n := cacheobject.DeltaSeconds(0)
	for i := range len(v) {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
		n = n*10 + cacheobject.DeltaSeconds(v[i]-'0')
	}
	if name == "max-age" {
		all.age(n, -1)
	} else {
		all.age(-1, n)
	}
	return true
}

// directiveName returns the lowercase name of directive d ("max-age" of
// " Max-Age=abc").
func directiveName(d string) string {
	name, _, _ := strings.Cut(d, "=")
	return strings.ToLower(strings.TrimSpace(name))
}

// nextDirective returns the first directive of the Cache-Control value v,
// up to the first comma that is not inside a quoted string, and what
// follows that comma, if there is one.
func nextDirective(v string) (d, rest string, more bool) {
	quoted := false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			quoted = !quoted
		case '\\':
			if quoted {
				i++
			}
		case ',':
			if !quoted {
				return v[:i], v[i+1:], true
			}
		}
	}
	return v, "", false
}

// Backoff bounds: the first retry of an unreachable authority waits
// MinBackoff, each further failure doubles the wait, up to MaxBackoff.
const (
	MinBackoff = time.Minute
	MaxBackoff = time.Hour
)

// Backoff returns how long to wait before fetching again after failures
// consecutive failed fetches (1 for the first): exponential from MinBackoff
// to MaxBackoff, then multiplied by a jitter factor in [0.9, 1.1) taken from
// u, a uniform random number in [0, 1). Time and randomness are the caller's.
func Backoff(failures int, u float64) time.Duration {
	d := MaxBackoff
	if n := failures - 1; n < bits.Len64(uint64(MaxBackoff/MinBackoff)) {
		d = min(MinBackoff<<max(n, 0), MaxBackoff)
	}
	u = min(max(u, 0), 1)
	return time.Duration(float64(d) * (0.9 + 0.2*u))
}
