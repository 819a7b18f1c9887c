package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The breaker opens after breakerAfter failures in a row, lets one probe
// through per interval, doubles the interval when a probe fails (up to
// breakerMax), and closes at the first success.
func TestBreaker(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var b breaker
	allowed := func(at time.Time) bool { ok, _ := b.allow(at); return ok }
	for range breakerAfter - 1 {
		assert.True(t, allowed(now))
		b.record(false, false, now)
	}
	assert.True(t, allowed(now), "still closed")
	assert.False(t, b.open())
	b.record(true, false, now)
	for range breakerAfter - 1 {
		b.record(false, false, now)
	}
	assert.True(t, allowed(now), "a success starts the count again")
	b.record(false, false, now)
	assert.True(t, b.open())
	assert.False(t, allowed(now.Add(breakerMin-time.Millisecond)), "open for breakerMin")
	ok, probe := b.allow(now.Add(breakerMin))
	assert.True(t, ok, "then one probe")
	assert.True(t, probe)
	assert.False(t, allowed(now.Add(breakerMin)), "only one")
	b.record(false, true, now.Add(breakerMin))
	assert.False(t, allowed(now.Add(3*breakerMin-time.Millisecond)), "the probe failed: twice as long")
	assert.True(t, allowed(now.Add(3*breakerMin)))
	at := now.Add(3 * breakerMin)
	for range 10 {
		b.record(false, true, at)
		at = at.Add(time.Hour)
		allowed(at)
	}
	assert.Equal(t, breakerMax, b.interval, "at most breakerMax")
	b.record(true, true, at)
	assert.False(t, b.open())
	assert.True(t, allowed(at))
	assert.True(t, allowed(at), "closed: every call")
}

// While it is open, only its probe moves the breaker: the failures of
// operations begun before it opened (the other acquires in flight when the
// fleet died, renewals, publications) do not lengthen its first interval.
func TestBreakerIgnoresStragglers(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var b breaker
	for range 8 { // eight acquires were in flight when the fleet died
		b.record(false, false, now)
	}
	assert.True(t, b.open())
	assert.Equal(t, breakerMin, b.interval)
	ok, probe := b.allow(now.Add(breakerMin))
	assert.True(t, ok && probe, "a probe a second later")
	b.record(false, false, now.Add(breakerMin)) // a straggler while the probe runs
	ok, _ = b.allow(now.Add(breakerMin))
	assert.False(t, ok, "the probe still runs")
	b.record(false, true, now.Add(breakerMin))
	assert.Equal(t, 2*breakerMin, b.interval)
}
