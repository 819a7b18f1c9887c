package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The breaker opens after breakerAfter failures in a row, lets one probe
// through per interval, doubles the interval while probes fail (up to
// breakerMax), and closes at the first success.
func TestBreaker(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var b breaker
	for range breakerAfter - 1 {
		assert.True(t, b.allow(now))
		b.record(false, now)
	}
	assert.True(t, b.allow(now), "still closed")
	assert.False(t, b.open())
	b.record(true, now)
	for range breakerAfter - 1 {
		b.record(false, now)
	}
	assert.True(t, b.allow(now), "a success starts the count again")
	b.record(false, now)
	assert.True(t, b.open())
	assert.False(t, b.allow(now.Add(breakerMin-time.Millisecond)), "open for breakerMin")
	assert.True(t, b.allow(now.Add(breakerMin)), "then one probe")
	assert.False(t, b.allow(now.Add(breakerMin)), "only one")
	b.record(false, now.Add(breakerMin))
	assert.False(t, b.allow(now.Add(2*breakerMin+time.Millisecond)), "the probe failed: twice as long")
	assert.True(t, b.allow(now.Add(3*breakerMin)))
	at := now.Add(3 * breakerMin)
	for range 10 {
		b.record(false, at)
		at = at.Add(time.Hour)
	}
	assert.Equal(t, breakerMax, b.interval, "at most breakerMax")
	assert.True(t, b.allow(at))
	b.record(true, at)
	assert.False(t, b.open())
	assert.True(t, b.allow(at))
	assert.True(t, b.allow(at), "closed: every call")
}
