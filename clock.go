package robots

import (
	"sync/atomic"
	"time"
)

// wallClock is time.Now at half its cost, for the cache-hit path: it reads
// the wall clock at most once per reanchor and, in between, adds the time
// the monotonic clock measured since. A reading of time.Now takes both
// clocks; time.Since takes only the monotonic one.
//
// Its readings carry the current monotonic reading exactly, so comparing
// them with times from time.Now (as the expiry of a record fetched by this
// process is) gives what comparing time.Now's would. Their wall reading
// differs from time.Now's only by the wall clock's own adjustments (an NTP
// step or slew, a suspend) during the last reanchor, so comparisons with
// wall times from elsewhere (a Fleet's or an imported record's expiry) are
// off by at most that: less than the one-second resolution of HTTP's
// freshness. The zero value is ready to use and safe for concurrent use.
type wallClock struct {
	anchor atomic.Pointer[time.Time]
}

// reanchor is how long a wallClock goes without reading the wall clock.
const reanchor = time.Second

// Now returns the current time.
func (c *wallClock) Now() time.Time {
	if a := c.anchor.Load(); a != nil {
		if d := time.Since(*a); d < reanchor {
			return a.Add(d)
		}
	}
	t := time.Now()
	c.anchor.Store(&t)
	return t
}
