package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/crawlkit/robots/cache"
)

// The fleet protocol: how a flight obtains its record when a Fleet is set.

// Bounds of the fleet protocol.
const (
	// DefaultLease is the term of a fleet lease a flight takes; it renews
	// it every third of a term until it publishes (which it does within
	// FleetTimeout, less than the two thirds of a term left), so that a
	// holder that dies holds the others back one term at most, whatever
	// its fetch's timeout.
	DefaultLease = 5 * time.Second
	// MaxHeldLease is the longest another holder's lease may have left: a
	// fleet that says one is held for longer (a planted or misconfigured
	// lease) is not waited for: the flight fetches for itself.
	MaxHeldLease = time.Minute
	// pollMin and pollMax bound the interval at which a flight asks again
	// while another process holds the lease.
	pollMin = 5 * time.Millisecond
	pollMax = 250 * time.Millisecond
)

// errWaitedTooLong ends a wait for another process's publication that
// outlived the grace and two lease terms by the real clock.
var errWaitedTooLong = errors.New("no record published within the fetch's grace")

// errFleetDown is why a flight fetches for itself while the breaker is
// open.
var errFleetDown = errors.New("the fleet failed repeatedly: skipped for a while")

// viaFleet obtains fl's record through the fleet: its fresh record; or,
// with the lease, a fetch, published once the record is stored (share); or,
// while another process holds the lease, its publication, asked for again
// with the same Acquire, so that a lease released or run out passes to this
// flight at once. Any failure of the fleet, or a fleet the breaker skips,
// falls back to a fetch of this process. A record from the fleet that
// stands for an outage without a good copy gets the copy held here (graft).
// It reports false when fl did not get that far: it is queued for a fetch
// slot, or ended.
func (c *Cache[V]) viaFleet(fl *flight[V], held *cache.Record) (*cache.Record, func(), bool) {
	key := fl.key
	deadline := time.Now().Add(c.cfg.Grace + 2*c.lease)
	offered := false
	for wait := pollMin; ; wait = min(2*wait, pollMax) {
		now := c.cfg.Now()
		allowed, probe := c.breaker.allow(now)
		if !allowed {
			return c.fallback(fl, held, errFleetDown)
		}
		g, err := c.acquire(key, now, probe)
		if err != nil {
			return c.fallback(fl, held, err)
		}
		switch {
		case g.Lease != nil && c.abandon(fl):
			// Taken when the holder it waited for let the lease go, for a
			// flight no one wants any more, or superseded: let it go too.
			c.release(*g.Lease)
			c.releaseSlot(fl) // held when it came back from the queue
			return nil, nil, false
		case g.Lease != nil && !c.trySlot(fl):
			// Never hold the fleet's lease while queued for a slot: the
			// others would wait for a fetch that has not begun. The wait
			// counts neither against the grace nor against the deadline.
			c.release(*g.Lease)
			if !c.parkLocked(fl) {
				return nil, nil, false
			}
			fl.begin(c.cfg.Now())
			deadline = time.Now().Add(c.cfg.Grace + 2*c.lease)
			wait = pollMin / 2
			continue
		case g.Lease != nil:
			fl.lease = c.hold(*g.Lease)
			rec, after := c.fetch(key, graft(newer(held, g.Record), held))
			c.releaseSlot(fl)
			return rec, after, true
		case g.HeldUntil.IsZero():
			c.releaseSlot(fl) // held when it came back from the queue
			c.fleetHits.Add(1)
			return graft(g.Record, held), nil, true
		}
		c.releaseSlot(fl) // not needed while another fetches
		if g.Record != nil && !offered {
			c.offer(fl, graft(g.Record, held))
			offered = true
		}
		if time.Now().After(deadline) {
			return c.fallback(fl, held, errWaitedTooLong)
		}
		if c.abandon(fl) {
			return nil, nil, false
		}
		time.Sleep(wait)
	}
}

// trySlot gives fl a fetch slot if it has none and one is free, and reports
// whether fl holds one.
func (c *Cache[V]) trySlot(fl *flight[V]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fl.slot || c.takeSlot(fl)
}

// parkLocked is park under c.mu.
func (c *Cache[V]) parkLocked(fl *flight[V]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.park(fl)
}

// abandon ends fl, waiting for another process's publication, if it was
// superseded (its record would not be stored) or no one wants it any more,
// and reports whether it did.
func (c *Cache[V]) abandon(fl *flight[V]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !fl.superseded && c.wanted(fl) {
		return false
	}
	c.end(fl)
	return true
}

// graft returns rec, a record from the fleet, with the good copy of held
// when rec stands for an outage and has no copy, or an older one: another
// process that started cold, or whose store dropped the copy, knows less
// than this one, and a copy-less outage would turn the copy's answers into
// disallow-all.
func graft(rec, held *cache.Record) *cache.Record {
	g := held.GoodCopy()
	if rec == nil || !rec.Unreachable() || g == nil || g == rec.Good ||
		rec.Good != nil && !g.FetchedAt.After(rec.Good.FetchedAt) {
		return rec
	}
	r := *rec
	r.Good = g
	return &r
}

// fallback fetches fl's key in this process after the fleet failed with
// err; it reports false when fl is queued for a fetch slot (it fetches
// without the fleet when it gets one), or ended.
func (c *Cache[V]) fallback(fl *flight[V], held *cache.Record, err error) (*cache.Record, func(), bool) {
	switch {
	case errors.Is(err, errFleetDown):
		c.log.Debug("robots: fleet skipped; fetching robots.txt locally", "authority", fl.key)
	case errors.Is(err, errWaitedTooLong):
		c.log.Warn("robots: no fleet publication came; fetching robots.txt locally", "authority", fl.key)
	default:
		c.fleetErrors.Add(1)
		c.log.Warn("robots: fleet failed; fetching robots.txt locally", "authority", fl.key, "err", err)
	}
	c.fallbacks.Add(1)
	fl.local = true
	if !c.trySlot(fl) && !c.parkLocked(fl) {
		return nil, nil, false
	}
	rec, after := c.fetch(fl.key, held)
	c.releaseSlot(fl)
	return rec, after, true
}

// share publishes rec, the record fl stored, under the lease fl holds,
// once its callers have their answer; or releases the lease when fl was
// superseded, so that a fetch begun before Invalidate or Observe becomes
// current nowhere. A publication that fails releases the lease too, so that
// the others need not wait for it to run out.
func (c *Cache[V]) share(fl *flight[V], rec *cache.Record) {
	l, lost := fl.lease.end()
	c.mu.Lock()
	superseded := fl.superseded
	c.mu.Unlock()
	switch {
	case lost:
		c.leaseLost.Add(1)
		c.log.Info("robots: fetch lease lost before publishing; the fleet keeps its record", "authority", fl.key)
		return
	case superseded:
		c.release(l)
		return
	}
	err := c.fleetOp("publish", fl.key, func(ctx context.Context) error {
		return c.cfg.Fleet.Publish(ctx, l, rec, c.cfg.Now())
	})
	switch {
	case errors.Is(err, cache.ErrLeaseLost):
		c.leaseLost.Add(1)
		c.log.Info("robots: fetch lease lost before publishing; the fleet keeps its record", "authority", fl.key)
	case err != nil:
		c.fleetErrors.Add(1)
		c.log.Warn("robots: publishing to the fleet failed", "authority", fl.key, "err", err)
		c.release(l)
	}
}

// holding is a fleet lease a flight holds, renewed in the background every
// third of a term until the flight publishes or releases it.
type holding struct {
	stop, done chan struct{}
	shared     chan struct{} // closed once the flight published or released it
	lease      cache.Lease   // the lease as last renewed; written by the renewer until done
	lost       bool          // a renewal found it lost
}

// hold starts renewing l, and counts it among the leases Flush waits for.
func (c *Cache[V]) hold(l cache.Lease) *holding {
	h := &holding{stop: make(chan struct{}), done: make(chan struct{}), shared: make(chan struct{}), lease: l}
	c.mu.Lock()
	if c.sharing == nil {
		c.sharing = map[*holding]struct{}{}
	}
	c.sharing[h] = struct{}{}
	c.mu.Unlock()
	go func() {
		defer close(h.done)
		tick := time.NewTicker(c.lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
			var renewed cache.Lease
			err := c.fleetOp("renew", l.Key, func(ctx context.Context) (err error) {
				renewed, err = c.cfg.Fleet.Renew(ctx, h.lease, c.lease, c.cfg.Now())
				return err
			})
			switch {
			case errors.Is(err, cache.ErrLeaseLost):
				h.lost = true
				return
			case err != nil:
				c.fleetErrors.Add(1) // tried again at the next tick
				c.log.Warn("robots: renewing a fleet lease failed", "authority", l.Key, "err", err)
			default:
				h.lease = renewed
			}
		}
	}()
	return h
}

// shared notes that h was published or released: Flush need not wait for
// it.
func (c *Cache[V]) shared(h *holding) {
	c.mu.Lock()
	delete(c.sharing, h)
	c.mu.Unlock()
	close(h.shared)
}

// end stops the renewals and returns the lease as last renewed, and
// whether a renewal found it lost.
func (h *holding) end() (cache.Lease, bool) {
	close(h.stop)
	<-h.done
	return h.lease, h.lost
}

// offer serves rec, the fleet's stale record, to the callers of fl while
// another process refreshes it, when this process has no copy of its own.
func (c *Cache[V]) offer(fl *flight[V], rec *cache.Record) {
	if fl.stale != nil || !servable(rec.Unreachable(), rec.FetchedAt, c.cfg.Now()) {
		return
	}
	if _, ok := c.local.get(fl.key); ok {
		return
	}
	e, err := c.derive(rec, nil)
	if err != nil || !c.commit(fl, e, false) {
		return
	}
	fl.stale = e
	close(fl.early)
}

// newer returns whichever of a and b was fetched last.
func newer(a, b *cache.Record) *cache.Record {
	if a == nil || b != nil && b.FetchedAt.After(a.FetchedAt) {
		return b
	}
	return a
}

// fleetOp runs one operation on the fleet, bounded by FleetTimeout, with a
// panic contained as an error, and tells the breaker how it went: a lost
// lease is the protocol at work and a record that cannot be used is bad
// data from a fleet that works; any other error is a failure of the fleet.
func (c *Cache[V]) fleetOp(op, key string, fn func(ctx context.Context) error) error {
	return c.fleetProbe(op, key, false, fn)
}

// fleetProbe is fleetOp, for the breaker's probe when probe is set.
func (c *Cache[V]) fleetProbe(op, key string, probe bool, fn func(ctx context.Context) error) (err error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.FleetTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			c.panics.Add(1)
			c.log.Error("robots: fleet panicked", "op", op, "authority", key, "panic", p)
			err = fmt.Errorf("fleet %s of %s panicked: %v", op, key, p)
		}
		c.breaker.record(err == nil || errors.Is(err, cache.ErrLeaseLost) || errors.Is(err, cache.ErrMalformedRecord), probe, c.cfg.Now())
	}()
	return fn(ctx)
}

// acquire runs cache.Fleet.Acquire (the breaker's probe, when probe is set)
// and holds its grant to the contract: a record
// that is trustworthy, fresh when granted as fresh, a holder whose lease
// has not run out. A bad stale record that comes with the lease is dropped
// (and the fetch that follows repairs the fleet); any other departure is an
// error, after which the lease, if any, is released.
func (c *Cache[V]) acquire(key string, now time.Time, probe bool) (g cache.Grant, err error) {
	err = c.fleetProbe("acquire", key, probe, func(ctx context.Context) error {
		g, err = c.cfg.Fleet.Acquire(ctx, key, now, c.lease)
		return err
	})
	if err != nil {
		return g, err
	}
	if g.Record != nil {
		if bad := c.admit(g.Record, key, now); bad != nil {
			if g.Lease == nil {
				return g, bad
			}
			c.fleetErrors.Add(1)
			c.log.Warn("robots: the fleet's record cannot be trusted; fetching to replace it", "authority", key, "err", bad)
			g.Record = nil
		}
	}
	switch {
	case g.Lease != nil && g.Lease.Key != key:
		err = fmt.Errorf("fleet granted a lease of %q for %q", g.Lease.Key, key)
	case g.Lease != nil:
	case !g.HeldUntil.IsZero():
		if !now.Before(g.HeldUntil) {
			err = fmt.Errorf("fleet says a lease of %q held until %v, which is past", key, g.HeldUntil)
		} else if left := g.HeldUntil.Sub(now); left > MaxHeldLease {
			err = fmt.Errorf("fleet says a lease of %q held for %v more, over the %v any holder takes", key, left, MaxHeldLease)
		}
	case g.Record == nil:
		err = fmt.Errorf("fleet granted nothing for %q: no record, no lease, no holder", key)
	case !g.Record.Fresh(now):
		err = fmt.Errorf("fleet granted a stale record of %q (fresh until %v) as fresh", key, g.Record.FreshUntil)
	}
	if err != nil && g.Lease != nil {
		c.release(*g.Lease)
	}
	return g, err
}

func (c *Cache[V]) release(l cache.Lease) {
	if err := c.fleetOp("release", l.Key, func(ctx context.Context) error { return c.cfg.Fleet.Release(ctx, l) }); err != nil {
		c.fleetErrors.Add(1)
		c.log.Warn("robots: releasing a fleet lease failed", "authority", l.Key, "err", err)
	}
}
