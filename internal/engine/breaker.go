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
// breakerMin to breakerMax while it keeps failing, with one probe allowed
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

// allow reports whether the fleet may be asked at now: the breaker is
// closed, or its interval is over and no other probe runs.
func (b *breaker) allow(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interval == 0 {
		return true
	}
	if b.probing || now.Before(b.until) {
		return false
	}
	b.probing = true
	return true
}

// record notes how an operation on the fleet went at now.
func (b *breaker) record(ok bool, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	if ok {
		b.failures, b.interval = 0, 0
		return
	}
	b.failures++
	if b.interval == 0 && b.failures < breakerAfter {
		return
	}
	b.interval = min(max(2*b.interval, breakerMin), breakerMax)
	b.until = now.Add(b.interval)
}

// open reports whether the breaker skips the fleet now.
func (b *breaker) open() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.interval != 0
}
