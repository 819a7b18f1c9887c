package engine

import (
	"sync"
	"time"
)

// Bounds of the breaker.
const (
	// breakerAfter is how many failures in a row open the breaker.
	breakerAfter = 3
	// breakerMin and breakerMax bound how long it stays open: the first
	// interval, doubled after each failed probe.
	breakerMin = time.Second
	breakerMax = 30 * time.Second
)

// breaker is a circuit breaker in front of the fleet: after breakerAfter
// failures in a row, the fleet is skipped for an interval that grows from
// breakerMin to breakerMax while its probes fail, with one probe allowed
// per interval; one success closes it. While it is open, a flight fetches
// for itself instead of waiting out the fleet's timeout: a fleet that is
// down costs a timeout per interval, not one per new authority. Its zero
// value is closed and ready to use.
type breaker struct {
	mu       sync.Mutex
	failures int
	interval time.Duration // zero: closed
	until    time.Time     // open until then, then one probe
	probing  bool
}

// allow reports whether the fleet may be asked at now, and whether that
// ask is the probe of an open breaker: it is closed, or its interval is
// over and no other probe runs.
func (b *breaker) allow(now time.Time) (allowed, probe bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interval == 0 {
		return true, false
	}
	if b.probing || now.Before(b.until) {
		return false, false
	}
	b.probing = true
	return true, true
}

// record notes how an operation on the fleet went at now: one that works
// closes the breaker; a failure counts towards opening it, or, for the
// probe of an open breaker, doubles its interval. Failures of operations
// begun before it opened (a renewal, a publication) count for nothing
// while it is open: only probes move it.
func (b *breaker) record(ok, probe bool, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	switch {
	case ok:
		b.failures, b.interval = 0, 0
	case b.interval == 0:
		if b.failures++; b.failures >= breakerAfter {
			b.interval, b.until = breakerMin, now.Add(breakerMin)
		}
	case probe:
		b.interval = min(2*b.interval, breakerMax)
		b.until = now.Add(b.interval)
	}
}

// open reports whether the breaker skips the fleet now.
func (b *breaker) open() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.interval != 0
}
