package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/crawlkit/robots/internal/freshness"
)

// Fleet is a tier of Records shared by the processes of a crawler fleet, so
// that each authority's robots.txt is fetched once for all of them, and an
// authority's backoff holds for all of them. Redis (package redisfleet) and
// MemoryFleet implement it; fleettest.Run checks an implementation.
//
// To keep fetches to one per authority, a fleet hands out fetch leases: the
// process that gets one fetches, renewing the lease while it does, and
// publishes; the others wait for the publication, asking again (Acquire)
// so that a released or expired lease passes to one of them at once, or
// serve the copy they hold. A lease is an efficiency lock: when it runs out
// before its holder publishes, another process may take over and fetch
// too, but the late holder can no longer publish, so the record its
// successor published stays.
//
// Every method takes the caller's clock where time matters, and is bounded
// by ctx. A Fleet is safe for concurrent use. Records it returns are the
// caller's: decoded afresh or never shared with another caller.
type Fleet interface {
	// Get returns the record of key, nil when the fleet has none.
	Get(ctx context.Context, key string) (*Record, error)

	// Acquire, in one atomic step: returns key's record when it is fresh at
	// now; otherwise takes key's fetch lease for ttl when no one holds it,
	// returning it with the stale record, if any; otherwise returns the
	// stale record, if any, and when the holder's lease ends.
	Acquire(ctx context.Context, key string, now time.Time, ttl time.Duration) (Grant, error)

	// Publish stores rec as key's record and ends the lease l, only while l
	// still holds at now: otherwise it stores nothing and returns an error
	// wrapping ErrLeaseLost.
	Publish(ctx context.Context, l Lease, rec *Record, now time.Time) error

	// Renew extends the lease l to now+ttl, only while l still holds at
	// now, and returns it with its new end; otherwise it extends nothing and
	// returns an error wrapping ErrLeaseLost. A holder renews its lease while
	// its fetch runs, so that leases can be short: a holder that dies holds
	// the others back for one short lease, whatever its fetch's timeout.
	Renew(ctx context.Context, l Lease, ttl time.Duration, now time.Time) (Lease, error)

	// Release ends l without publishing, if l still holds, so that the
	// next Acquire grants the lease at once. A lease that no longer holds
	// is not an error.
	Release(ctx context.Context, l Lease) error
}

// Lease is the right to fetch one authority's robots.txt for the fleet and
// publish the result.
type Lease struct {
	// Key is the authority.
	Key string
	// Token identifies this holding of the lease; only it can publish.
	Token string
	// Until is when the lease runs out, by the clock of its holder.
	Until time.Time
}

// Grant is what Acquire found.
type Grant struct {
	// Record is the fleet's record of the key: fresh when Lease is nil and
	// HeldUntil is zero; otherwise stale, or nil when there is none.
	Record *Record
	// Lease is set when the caller now holds the key's fetch lease: it is
	// to fetch, then Publish or Release.
	Lease *Lease
	// HeldUntil is set when another process holds the lease: when that
	// lease runs out at the latest, by the caller's clock.
	HeldUntil time.Time
}

// ErrLeaseLost is wrapped by the error of Publish when the lease no longer
// holds: it ran out, or was released, and maybe taken by another.
var ErrLeaseLost = errors.New("fetch lease lost")

// Retention is how long past its freshness a fleet keeps a record. A stale
// record still serves, as the good copy during an outage and to revalidate
// a file with a 304; after this it may be dropped.
const Retention = 7 * 24 * time.Hour

// Expires is when a fleet may drop r: Retention after its freshness ends.
func (r *Record) Expires() time.Time { return r.FreshUntil.Add(Retention) }

// maxSkew is how far ahead of the reader's clock a shared record may have
// been fetched: clocks of a fleet's machines disagree by that much at most.
const maxSkew = 5 * time.Minute

// Check reports why r, which comes from outside the process (a fleet, an
// import), is not to be trusted at now: it breaks a Record's invariants, was
// fetched in the future (beyond a few minutes of clock skew), or claims a
// freshness no fetch gives (over a day from its fetch, RFC 9309 §2.4), which
// would keep the authority from ever being fetched again. The skew is
// allowed once: FetchedAt and FreshUntil come from one clock, so a record
// that passes is fresh for at most a day and the skew past now. Records
// from outside are input like any other.
func (r *Record) Check(now time.Time) error {
	switch {
	case r.FetchedAt.After(now.Add(maxSkew)):
		return fmt.Errorf("%w: the record of %q was fetched at %v, in the future", ErrMalformedRecord, r.Authority, r.FetchedAt)
	case r.FreshUntil.Sub(r.FetchedAt) > freshness.DefaultLifetime:
		return fmt.Errorf("%w: the record of %q is fresh for %v, over %v", ErrMalformedRecord, r.Authority, r.FreshUntil.Sub(r.FetchedAt), freshness.DefaultLifetime)
	}
	return r.Expand().validate(true)
}
