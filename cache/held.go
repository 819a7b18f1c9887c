package cache

import (
	"math"
	"time"

	"github.com/crawlkit/robots/status"
)

// Held is a Record as a cache holds it for long. The records a fetch makes
// most, a file or a status fetched from the URL asked, with no redirect,
// no failure and no good copy, its times in UTC or the local zone, it holds
// compact in fields of its own: 80 bytes where a compact Record takes 240,
// a cache of millions holding one per authority. Any other record it holds
// as the Record. The zero Held holds no record.
//
// A Held is a value, to be kept inside what a cache keeps per authority,
// and read through its methods; it is immutable.
type Held struct {
	full *Record // the record, when it is not held in the fields below

	// A record of the common form: its URL, which is also its FinalURL,
	// its Authority being the URL's beginning; its Outcome; its packed
	// headers and compressed body (Record.z); FetchedAt and FreshUntil as
	// Unix nanoseconds, in time.Local when local is set, else in UTC; the
	// rest of its fields.
	url, outcome, z string
	fetched, fresh  int64
	statusCode      int16
	class           status.Class
	truncated       bool
	local           bool
}

// robotsPath is what follows the authority in the URL of a record Held
// keeps in fields.
const robotsPath = "/robots.txt"

// Hold returns r as a cache holds it: in fields of its own when r, which
// should be compact (see Record.Compact), has the common form, else r
// itself. Read back (Held.Record), the record is r, but for the monotonic
// clock readings of its times, which are dropped as an encoding drops
// them.
func Hold(r *Record) Held {
	if !commonForm(r) {
		return Held{full: r}
	}
	return Held{url: r.URL, outcome: r.Outcome, z: r.z,
		fetched: r.FetchedAt.UnixNano(), fresh: r.FreshUntil.UnixNano(), local: r.FetchedAt.Location() == time.Local,
		statusCode: int16(r.StatusCode), class: r.Class, truncated: r.Truncated}
}

// commonForm reports whether Held keeps r in fields: all that r holds is
// in them.
func commonForm(r *Record) bool {
	return r != nil && r.Body == nil && r.Header == nil && r.Redirects == nil && r.Good == nil &&
		r.Failures == 0 && r.UnreachableSince.IsZero() && r.Class != status.Unreachable &&
		r.URL != "" && r.FinalURL == r.URL && len(r.URL) == len(r.Authority)+len(robotsPath) &&
		r.URL[:len(r.Authority)] == r.Authority && r.URL[len(r.Authority):] == robotsPath &&
		0 <= r.StatusCode && r.StatusCode <= math.MaxInt16 &&
		inNanos(r.FetchedAt) && inNanos(r.FreshUntil) && r.FetchedAt.Location() == r.FreshUntil.Location() &&
		(r.FetchedAt.Location() == time.UTC || r.FetchedAt.Location() == time.Local)
}

// inNanos reports whether t's Unix time in nanoseconds fits an int64, as
// it does from 1678 to 2262.
func inNanos(t time.Time) bool {
	return t.After(time.Unix(0, math.MinInt64)) && t.Before(time.Unix(0, math.MaxInt64))
}

// Record returns the record h holds: the Record itself when Hold kept it
// whole, else a compact Record of its own; nil for the zero Held.
func (h *Held) Record() *Record {
	if h.url == "" {
		return h.full
	}
	r := h.Fields()
	return &r
}

// Fields returns the record h holds, as a value: it reads the record
// without allocating. The zero Record for the zero Held.
func (h *Held) Fields() Record {
	if h.url == "" {
		if h.full == nil {
			return Record{}
		}
		return *h.full
	}
	return Record{Authority: h.Authority(), URL: h.url, FinalURL: h.url, StatusCode: int(h.statusCode),
		Class: h.class, Truncated: h.truncated, Outcome: h.outcome,
		FetchedAt: h.time(h.fetched), FreshUntil: h.time(h.fresh), z: h.z}
}

// time returns the time of ns Unix nanoseconds, in h's zone.
func (h *Held) time(ns int64) time.Time {
	t := time.Unix(0, ns) // in time.Local
	if !h.local {
		t = t.UTC()
	}
	return t
}

// Authority returns the record's Authority, without allocating.
func (h *Held) Authority() string {
	if h.url == "" {
		if h.full == nil {
			return ""
		}
		return h.full.Authority
	}
	return h.url[:len(h.url)-len(robotsPath)]
}

// FetchedAt returns the record's FetchedAt, without allocating.
func (h *Held) FetchedAt() time.Time {
	if h.url == "" {
		if h.full == nil {
			return time.Time{}
		}
		return h.full.FetchedAt
	}
	return h.time(h.fetched)
}

// FreshUntil returns the record's FreshUntil, without allocating.
func (h *Held) FreshUntil() time.Time {
	if h.url == "" {
		if h.full == nil {
			return time.Time{}
		}
		return h.full.FreshUntil
	}
	return h.time(h.fresh)
}

// Outage returns the record when it is of an outage (Record.Unreachable):
// such a record is held whole, so Outage allocates nothing. Nil for any
// other.
func (h *Held) Outage() *Record {
	if h.full != nil && h.full.Unreachable() {
		return h.full
	}
	return nil
}

// Size is the number of bytes the record h holds takes in memory beside h:
// what the fields point to, or, for a record held whole, its Size.
func (h *Held) Size() int64 {
	if h.url == "" {
		return h.full.Size()
	}
	return int64(len(h.url) + len(h.outcome) + len(h.z))
}
