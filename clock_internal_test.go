package robots

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wallClock's readings lie between time.Now's before and after, on the
// monotonic clock, and carry the wall time of the anchor plus the monotonic
// time since.
func TestWallClock(t *testing.T) {
	var c wallClock
	for range 1000 {
		before := time.Now()
		got := c.Now()
		after := time.Now()
		require.False(t, got.Before(before), "reading %v before %v", got, before)
		require.False(t, got.After(after), "reading %v after %v", got, after)

		a := c.anchor.Load()
		require.NotNil(t, a)
		// The wall reading is the anchor's plus what the monotonic clock
		// measured since it: exactly, to the nanosecond.
		assert.Equal(t, got.Sub(*a), got.Round(0).Sub(a.Round(0)))
		assert.Equal(t, a.Location(), got.Location())
	}
}

// Past reanchor, the wall clock is read again.
func TestWallClockReanchors(t *testing.T) {
	var c wallClock
	old := time.Now().Add(-reanchor) // as if the anchor had been taken a reanchor ago
	c.anchor.Store(&old)
	got := c.Now()
	a := c.anchor.Load()
	require.NotSame(t, &old, a, "a new anchor")
	assert.Equal(t, got, *a, "the reading is the new anchor")

	fresh := time.Now()
	c.anchor.Store(&fresh)
	c.Now()
	assert.Same(t, &fresh, c.anchor.Load(), "an anchor younger than reanchor is kept")
}

func TestWallClockAllocs(t *testing.T) {
	var c wallClock
	c.Now()
	assert.Zero(t, testing.AllocsPerRun(1000, func() { c.Now() }))
}

var clockSink time.Time

// BenchmarkClock compares wallClock with time.Now, in the same run.
func BenchmarkClock(b *testing.B) {
	b.Run("time.Now", func(b *testing.B) {
		for b.Loop() {
			clockSink = time.Now()
		}
	})
	b.Run("wallClock", func(b *testing.B) {
		var c wallClock
		for b.Loop() {
			clockSink = c.Now()
		}
	})
}
