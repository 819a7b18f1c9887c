// Package cache remembers, per authority, what its robots.txt said and until
// when that holds: an LRU of immutable entries, freshness computed from the
// response's caching headers with the caller's clock, and exponential backoff
// for authorities that cannot be reached.
//
// The cache decides how long things last; it knows nothing of rules or
// matching. An Entry's Value is the caller's (package robots stores compiled
// rules there) and is never looked into.
//
// Non-goals: fetching; background expiry (entries expire lazily, when read);
// stores outside the process (an entry holds compiled values, not bytes).
package cache

import "time"

// Entry is what the cache holds for one authority. An entry is immutable once
// stored: to change it, store a new one.
type Entry struct {
	// Value is the caller's payload for the authority's current state, such
	// as compiled rules or an allow-all verdict. The cache never reads it.
	Value any

	// FetchedAt is when the response Value comes from was received.
	FetchedAt time.Time

	// FreshUntil is when the entry stops being fresh: until then it is used
	// without fetching again. For an unreachable authority it is the time
	// of the next attempt.
	FreshUntil time.Time

	// ETag and LastModified are the response's validators, sent back on a
	// conditional refetch (If-None-Match, If-Modified-Since).
	ETag, LastModified string

	// Good is the last good copy (rules or an unavailable verdict) kept while
	// the authority is unreachable, for use instead of Value; nil when there
	// is none, or when this entry is good itself.
	Good *Entry

	// UnreachableSince is when the current run of failed fetches began; zero
	// when the last fetch succeeded.
	UnreachableSince time.Time

	// Failures counts the consecutive failed fetches, for backoff.
	Failures int
}

// Fresh reports whether e may be used at now without fetching again.
func (e *Entry) Fresh(now time.Time) bool {
	return now.Before(e.FreshUntil)
}

// Unreachable reports whether the last fetch of the authority failed.
func (e *Entry) Unreachable() bool {
	return !e.UnreachableSince.IsZero()
}

// Store maps authorities to entries. Implementations are safe for concurrent
// use, bound their size, and return the very *Entry that was put. Get is on
// every caller's hot path: it must not serialize goroutines.
// cachetest.Run checks an implementation.
type Store interface {
	// Get returns the entry for key, and whether there is one.
	Get(key string) (*Entry, bool)
	// Put stores e for key, replacing any entry there; it may evict others.
	Put(key string, e *Entry)
	// Delete removes the entry for key, if any.
	Delete(key string)
	// Len returns the number of entries held.
	Len() int
}
