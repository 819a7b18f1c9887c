package engine

import (
	"math"
	"sync/atomic"
	"time"
)

// base is the origin of the clock's integer readings: a reading of time.Now
// with both clocks, and baseWall its wall reading alone, so that t.Sub(base)
// measures on the monotonic clock when t has a monotonic reading, and
// t.Sub(baseWall) always on the wall clock.
var (
	base     = time.Now()
	baseWall = base.Round(0)
)

// reanchor is how long the clock goes without reading the wall clock.
const reanchor = time.Second

// clock is time.Now at half its cost, the clock of a Cache whose Config.Now
// is nil: it reads the wall clock at most once per reanchor and, in
// between, adds the time the monotonic clock measured since. A reading of
// time.Now takes both clocks; the monotonic one alone is cheaper.
//
// Its readings carry the current monotonic reading exactly, so comparing
// them with times from time.Now (as the expiry of a record fetched by this
// process is) gives what comparing time.Now's would. Their wall reading
// differs from time.Now's only by the wall clock's own adjustments (an NTP
// step or slew, a suspend) during the last reanchor, so comparisons with
// wall times from elsewhere (a cache.Fleet's or an imported record's expiry) are
// off by at most that: less than the one-second resolution of HTTP's
// freshness.
//
// Its cheapest use is fresh, which judges a deadline without building a
// time.Time: the same comparison cache.Record.Fresh makes of a reading of Now,
// in integers. The zero value is ready to use and safe for concurrent use.
type clock struct {
	anchor atomic.Pointer[anchor]
}

// anchor is a reading of time.Now, and it in integers.
type anchor struct {
	t    time.Time
	mono int64 // t.Sub(base): on the monotonic clock
	wall int64 // t.Sub(baseWall): on the wall clock
}

// sinceBase is the current monotonic reading in integers.
func sinceBase() int64 { return int64(time.Since(base)) }

// load returns the anchor for the monotonic reading m, reading the wall
// clock anew when the one held is reanchor old, or was never taken.
func (c *clock) load(m int64) *anchor {
	if a := c.anchor.Load(); a != nil && m-a.mono < int64(reanchor) {
		return a
	}
	t := time.Now()
	a := &anchor{t: t, mono: int64(t.Sub(base)), wall: int64(t.Sub(baseWall))}
	c.anchor.Store(a)
	return a
}

// Now returns the current time.
func (c *clock) Now() time.Time {
	m := sinceBase()
	a := c.load(m)
	if m <= a.mono {
		return a.t // just read: the reading itself
	}
	return a.t.Add(time.Duration(m - a.mono))
}

// deadline is a time in the clock's integers, to compare with a reading
// without building one: its nanoseconds since base, on the clock its kind
// says, times four, plus its kind. One word, as every entry keeps one.
type deadline int64

// The kinds of deadline.
const (
	noDeadline   = iota // not computed: fresh says false
	monoDeadline        // from a time with a monotonic reading
	wallDeadline        // from a wall time alone
	kindBits     = 2
)

// makeDeadline returns the deadline at nanoseconds since base on the clock
// of kind. A time beyond 73 years of base is held as 73 years, as far on
// its side of any reading of a running process.
func makeDeadline(at int64, kind uint8) deadline {
	at = min(max(at, math.MinInt64>>kindBits), math.MaxInt64>>kindBits)
	return deadline(at<<kindBits | int64(kind))
}

func (d deadline) kind() uint8 { return uint8(d & (1<<kindBits - 1)) }
func (d deadline) at() int64   { return int64(d) >> kindBits }

// deadlineOf returns t in the clock's integers. A time with a monotonic
// reading compares on that clock, as time.Time's Before does; another on
// the wall clock. Sub saturates, so that a time centuries away stays on its
// side of any reading.
func deadlineOf(t time.Time) deadline {
	if t != t.Round(0) { // Round(0) strips the monotonic reading
		return makeDeadline(int64(t.Sub(base)), monoDeadline)
	}
	return makeDeadline(int64(t.Sub(baseWall)), wallDeadline)
}

// before reports whether a reading of Now taken at this moment would be
// before d, reading only the monotonic clock but once per reanchor.
func (c *clock) before(d deadline) bool {
	m := sinceBase()
	switch d.kind() {
	case monoDeadline:
		// A reading of Now carries the monotonic reading m exactly.
		return m < d.at()
	case wallDeadline:
		a := c.load(m)
		return a.wall+max(m-a.mono, 0) < d.at()
	}
	return false
}
