package engine

import (
	"context"
	"time"

	"github.com/crawlkit/robots/cache"
)

// SignalFleet is a MemoryFleet that says when Acquire is called: a test
// knows a flight asked, and how many times it asked again while another
// held the lease. Exported for the package's external tests too.
type SignalFleet struct {
	*cache.MemoryFleet
	Asked chan struct{}
}

// NewSignalFleet returns an empty SignalFleet.
func NewSignalFleet() SignalFleet {
	return SignalFleet{cache.NewMemoryFleet(), make(chan struct{}, 1<<10)}
}

func (f SignalFleet) Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (cache.Grant, error) {
	g, err := f.MemoryFleet.Acquire(ctx, key, now, ttl)
	select {
	case f.Asked <- struct{}{}:
	default: // a test that counts that far has what it waits for
	}
	return g, err
}

// closedChan is a channel closed from the start.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// Settled returns a channel closed once the flight running for key now, if
// any, has ended: it stored its record, or ended without one. It is closed
// already when none runs. A test waits on it for a refresh that runs in the
// background, instead of polling for its result. Exported for the package's
// external tests.
func (c *Cache[V]) Settled(key string) <-chan struct{} {
	if fl := c.flightOf(key); fl != nil {
		return fl.done
	}
	return closedChan
}
