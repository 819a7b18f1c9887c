package cache

import (
	"net/http"
	"time"
	"unsafe"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
)

// Record is what one authority's robots.txt fetches came to: the facts of
// the last fetch (where it went, the status and what it means, the headers
// that matter, the body) and the state they leave behind (how long it holds,
// and, during an outage, the failures so far and the last good copy). It is
// plain data: it can be encoded (MarshalBinary), exported, and shared
// between processes through a Fleet. What a crawler answers with, such as
// compiled rules, is derived from it by each process and never stored in it.
//
// A Record is immutable once it is stored or published: to change one, make
// a new one.
type Record struct {
	// Authority is the cache key of the authority the record is about:
	// lowercase scheme and host, and the port when it is not the default
	// ("https://example.com", "http://example.com:8080").
	Authority string

	// URL is the robots.txt URL requested first; FinalURL is where the
	// last response came from, after Redirects.
	URL, FinalURL string
	// Redirects are the redirect responses on the way, in order.
	Redirects []fetch.Hop

	// StatusCode is the status of the last response, 0 when none.
	StatusCode int
	// Class is the row of the "Fetching and status" table the fetch fell
	// in; never status.Unchanged (a 304 renews the copy held instead).
	Class status.Class
	// Truncated reports that the file was longer than the cap and Body is
	// its beginning. (Beside Class, where it takes no word of its own.)
	Truncated bool
	// Outcome describes the fetch for people, as status.Outcome.Reason.
	Outcome string

	// Header holds the last response's headers that caching depends on
	// (see KeptHeaders), nil when there are none.
	Header http.Header
	// Body is the robots.txt file for Class Success: at most the fetch's
	// cap, after decompression. It is nil for other classes.
	Body []byte

	// FetchedAt is when the response the record stands for was received,
	// or, for a failed fetch, when it failed.
	FetchedAt time.Time
	// FreshUntil is when the record stops answering without a fetch: the
	// end of the file's freshness or, for an unreachable authority, the
	// time of the next attempt.
	FreshUntil time.Time

	// Failures counts the consecutive failed fetches (Class Unreachable);
	// zero when the last fetch succeeded.
	Failures int
	// UnreachableSince is when the current outage began, zero when the last
	// fetch succeeded.
	UnreachableSince time.Time
	// Good is, during an outage, the last good copy: the record of the last
	// fetch that said something about the file (a file, an empty file, a
	// 4xx). Nil when there is none, and always nil in a good record.
	Good *Record

	// A compact record's Header and Body (see Compact).
	z string
}

// KeptHeaders are the response headers a Record keeps: those freshness,
// revalidation and backoff are computed from.
var KeptHeaders = [...]string{"Age", "Cache-Control", "Date", "Etag", "Expires", "Last-Modified", "Retry-After"}

// Fresh reports whether r answers at now without a fetch.
func (r *Record) Fresh(now time.Time) bool { return now.Before(r.FreshUntil) }

// Unreachable reports whether the last fetch failed: the server or the
// network did not say anything about the file.
func (r *Record) Unreachable() bool { return r.Class == status.Unreachable }

// GoodCopy returns the good copy r stands for: r itself when its fetch said
// something about the file, else the copy it keeps, if any.
func (r *Record) GoodCopy() *Record {
	if r == nil || !r.Unreachable() {
		return r
	}
	return r.Good
}

// Validators returns those of r's good copy, to send on a refetch.
func (r *Record) Validators() fetch.Validators {
	g := r.GoodCopy()
	if g == nil {
		return fetch.Validators{}
	}
	return fetch.Validators{ETag: g.header("Etag"), LastModified: g.header("Last-Modified")}
}

// Size is the number of bytes r holds in memory: its own fields and
// everything they point to, the good copy included.
func (r *Record) Size() int64 {
	if r == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*r)) + int64(len(r.URL)+len(r.Outcome)+cap(r.Body))
	if !within(r.Authority, r.URL) {
		n += int64(len(r.Authority)) // else the URL's beginning, counted with it
	}
	if unsafe.StringData(r.FinalURL) != unsafe.StringData(r.URL) || len(r.FinalURL) != len(r.URL) {
		n += int64(len(r.FinalURL)) // else one string, counted once
	}
	n += int64(len(r.z))
	n += int64(cap(r.Redirects)) * int64(unsafe.Sizeof(fetch.Hop{}))
	for _, h := range r.Redirects {
		n += int64(len(h.URL) + len(h.Location))
	}
	if r.Header != nil {
		n += mapOverhead
		for k, vs := range r.Header {
			n += headerEntry + int64(len(k)) + int64(cap(vs))*int64(unsafe.Sizeof(""))
			for _, v := range vs {
				n += int64(len(v))
			}
		}
	}
	return n + r.Good.Size()
}

// within reports whether s is held in t's memory.
func within(s, t string) bool {
	if len(s) == 0 || len(t) == 0 {
		return len(s) == 0
	}
	start, end := uintptr(unsafe.Pointer(unsafe.StringData(t))), uintptr(unsafe.Pointer(unsafe.StringData(t)))+uintptr(len(t))
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= start && p+uintptr(len(s)) <= end
}

// Estimates of what the runtime spends besides the bytes a Record's fields
// point to: a small map's header and buckets, and one header entry's slot
// and slice header. Tests compare Size with the heap.
const (
	mapOverhead = 256
	headerEntry = 64
)
