// Package fleettest checks that a cache.Fleet keeps the contract the robots
// Client relies on. An implementation runs it from its own tests:
//
//	func TestMyFleet(t *testing.T) {
//		fleettest.Run(t, func(t *testing.T) cache.Fleet { return newMyFleet(t) })
//	}
//
// Leases are given short lifetimes (Lease, below), and the suite waits for
// them to run out by the real clock as well as by the clock it passes, so
// that a fleet whose leases expire by a server's clock (Redis) is checked
// as one that judges by its callers' clock (cache.MemoryFleet).
//
// Non-goals: performance, and the bounds a fleet keeps on its size.
package fleettest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
)

// Lease is the lifetime of the leases the suite takes.
const Lease = 400 * time.Millisecond

// Run checks the Fleet contract on fleets made by newFleet, which returns an
// empty fleet for the test it is given (and cleans it up with t.Cleanup).
func Run(t *testing.T, newFleet func(t *testing.T) cache.Fleet) {
	ctx := context.Background()
	t.Run("empty: no record, and the lease", func(t *testing.T) {
		f := newFleet(t)
		rec, err := f.Get(ctx, keyA)
		require.NoError(t, err)
		assert.Nil(t, rec)
		g, err := f.Acquire(ctx, keyA, time.Now(), Lease)
		require.NoError(t, err)
		require.NotNil(t, g.Lease, "no one holds the lease: it is granted")
		assert.Equal(t, keyA, g.Lease.Key)
		assert.NotEmpty(t, g.Lease.Token)
		assert.Nil(t, g.Record)
		assert.True(t, g.HeldUntil.IsZero())
	})
	t.Run("a held lease is not granted twice", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		first := acquire(t, f, keyA, now)
		require.NotNil(t, first.Lease)
		g := acquire(t, f, keyA, now)
		assert.Nil(t, g.Lease)
		assert.Nil(t, g.Record)
		assert.False(t, g.HeldUntil.IsZero(), "the holder's lease end is reported")
		assert.False(t, g.HeldUntil.After(now.Add(Lease+time.Second)), "and it is within the lease")
		other := acquire(t, f, keyB, now)
		assert.NotNil(t, other.Lease, "leases of other keys are independent")
	})
	t.Run("one lease among many callers", func(t *testing.T) {
		f := newFleet(t)
		const callers = 32
		now := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		leases := 0
		start := make(chan struct{})
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				g, err := f.Acquire(ctx, keyA, now, time.Minute)
				assert.NoError(t, err)
				if g.Lease != nil {
					mu.Lock()
					leases++
					mu.Unlock()
				}
			}()
		}
		close(start)
		wg.Wait()
		assert.Equal(t, 1, leases)
	})
	t.Run("a publication is the record, fresh, and ends the lease", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		g := acquire(t, f, keyA, now)
		require.NotNil(t, g.Lease)
		rec := Sample(keyA, now)
		require.NoError(t, f.Publish(ctx, *g.Lease, rec, now))
		got, err := f.Get(ctx, keyA)
		require.NoError(t, err)
		Equal(t, rec, got)
		g = acquire(t, f, keyA, now.Add(time.Second))
		assert.Nil(t, g.Lease, "fresh: no lease")
		assert.True(t, g.HeldUntil.IsZero())
		Equal(t, rec, g.Record)
	})
	t.Run("a stale record comes with the lease, or with the holder", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		g := acquire(t, f, keyA, now)
		rec := Sample(keyA, now.Add(-2*time.Hour)) // fresh for an hour, so stale now
		require.NoError(t, f.Publish(ctx, *g.Lease, rec, now))
		g = acquire(t, f, keyA, now)
		require.NotNil(t, g.Lease, "the publication ended the lease; the record is stale")
		Equal(t, rec, g.Record)
		g = acquire(t, f, keyA, now)
		assert.Nil(t, g.Lease)
		assert.False(t, g.HeldUntil.IsZero())
		Equal(t, rec, g.Record)
	})
	t.Run("a lease runs out; a late publication is refused", func(t *testing.T) {
		f := newFleet(t)
		first := acquire(t, f, keyA, time.Now())
		require.NotNil(t, first.Lease)
		second := takeOver(t, f, keyA)
		rec := Sample(keyA, time.Now())
		require.NoError(t, f.Publish(ctx, *second.Lease, rec, time.Now()))
		late := Sample(keyA, time.Now())
		late.Body = []byte("User-agent: *\nDisallow: /late\n")
		err := f.Publish(ctx, *first.Lease, late, time.Now())
		require.ErrorIs(t, err, cache.ErrLeaseLost)
		got, err := f.Get(ctx, keyA)
		require.NoError(t, err)
		Equal(t, rec, got) // the successor's record stays
	})
	t.Run("a lease that ran out publishes nothing", func(t *testing.T) {
		f := newFleet(t)
		g := acquire(t, f, keyA, time.Now())
		takeOver(t, f, keyA) // by now the first lease has run out by both clocks
		err := f.Publish(ctx, *g.Lease, Sample(keyA, time.Now()), time.Now())
		require.ErrorIs(t, err, cache.ErrLeaseLost)
		got, err := f.Get(ctx, keyA)
		require.NoError(t, err)
		assert.Nil(t, got)
	})
	t.Run("a renewed lease outlives its first term, and still publishes", func(t *testing.T) {
		f := newFleet(t)
		g := acquire(t, f, keyA, time.Now())
		require.NotNil(t, g.Lease)
		l := *g.Lease
		end := time.Now().Add(3 * Lease)
		for time.Now().Before(end) { // three terms, by both clocks
			var err error
			l, err = f.Renew(ctx, l, Lease, time.Now())
			require.NoError(t, err, "renewed within its term")
			assert.Equal(t, g.Lease.Token, l.Token)
			held := acquire(t, f, keyA, time.Now())
			require.Nil(t, held.Lease, "still held: no one else gets it")
			assert.False(t, held.HeldUntil.After(time.Now().Add(Lease+time.Second)), "and it ends within a term")
			time.Sleep(Lease / 4) // the lease's own clock runs: a Redis's
		}
		require.NoError(t, f.Publish(ctx, l, Sample(keyA, time.Now()), time.Now()))
		_, err := f.Renew(ctx, l, Lease, time.Now())
		require.ErrorIs(t, err, cache.ErrLeaseLost, "published: the lease is over")
	})
	t.Run("a lease that ran out is not renewed", func(t *testing.T) {
		f := newFleet(t)
		first := acquire(t, f, keyA, time.Now())
		second := takeOver(t, f, keyA)
		_, err := f.Renew(ctx, *first.Lease, time.Hour, time.Now())
		require.ErrorIs(t, err, cache.ErrLeaseLost)
		_, err = f.Renew(ctx, cache.Lease{Key: keyA, Token: "forged"}, time.Hour, time.Now())
		require.ErrorIs(t, err, cache.ErrLeaseLost)
		g := acquire(t, f, keyA, time.Now())
		require.Nil(t, g.Lease)
		assert.False(t, g.HeldUntil.After(second.Lease.Until.Add(time.Second)), "the successor's lease was not extended")
	})
	t.Run("a released lease passes to the next caller at once", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		g := acquire(t, f, keyA, now)
		waiter := acquire(t, f, keyA, now)
		require.Nil(t, waiter.Lease)
		require.NoError(t, f.Release(ctx, *g.Lease))
		next := acquire(t, f, keyA, now) // long before the lease would have run out
		require.NotNil(t, next.Lease, "a waiter asking again gets it")
	})
	t.Run("release", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		g := acquire(t, f, keyA, now)
		require.NoError(t, f.Release(ctx, *g.Lease))
		next := acquire(t, f, keyA, now)
		require.NotNil(t, next.Lease, "released: granted again")
		assert.NotEqual(t, g.Lease.Token, next.Lease.Token)
		require.ErrorIs(t, f.Publish(ctx, *g.Lease, Sample(keyA, now), now), cache.ErrLeaseLost)
		require.NoError(t, f.Release(ctx, *g.Lease), "releasing a lease that no longer holds is no error")
		g = acquire(t, f, keyA, now)
		assert.Nil(t, g.Lease, "and it did not release its successor's")
	})
	t.Run("a forged token publishes nothing", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		g := acquire(t, f, keyA, now)
		forged := *g.Lease
		forged.Token = "forged"
		require.ErrorIs(t, f.Publish(ctx, forged, Sample(keyA, now), now), cache.ErrLeaseLost)
		other := cache.Lease{Key: keyB, Token: g.Lease.Token, Until: g.Lease.Until}
		require.ErrorIs(t, f.Publish(ctx, other, Sample(keyB, now), now), cache.ErrLeaseLost, "a token is good for its key only")
		rec, err := f.Get(ctx, keyA)
		require.NoError(t, err)
		assert.Nil(t, rec)
	})
	t.Run("failures are shared: the fleet backs off together", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		g := acquire(t, f, keyA, now)
		failed := Sample(keyA, now)
		failed.Class, failed.StatusCode, failed.Outcome = status.Unreachable, 429, "429 Too Many Requests: unreachable"
		failed.Body, failed.Truncated = nil, false
		failed.Failures, failed.UnreachableSince = 3, now.Add(-time.Hour)
		failed.Header = http.Header{"Retry-After": {"120"}}
		failed.FreshUntil = now.Add(2 * time.Minute)
		failed.Good = Sample(keyA, now.Add(-2*time.Hour))
		require.NoError(t, f.Publish(ctx, *g.Lease, failed, now))
		g = acquire(t, f, keyA, now.Add(time.Minute))
		assert.Nil(t, g.Lease, "no one fetches before the retry time")
		Equal(t, failed, g.Record)
		g = acquire(t, f, keyA, now.Add(2*time.Minute+time.Second))
		assert.NotNil(t, g.Lease, "the retry time has come")
	})
	t.Run("records are the caller's own", func(t *testing.T) {
		f := newFleet(t)
		now := time.Now()
		g := acquire(t, f, keyA, now)
		rec := Sample(keyA, now)
		require.NoError(t, f.Publish(ctx, *g.Lease, rec, now))
		want, _ := rec.MarshalBinary()
		rec.Body[0] = 'X' // the publisher's copy changes after publishing
		got, err := f.Get(ctx, keyA)
		require.NoError(t, err)
		have, _ := got.MarshalBinary()
		assert.Equal(t, want, have)
		got.Body[0] = 'Y' // and a reader's changes reach no one
		again, err := f.Get(ctx, keyA)
		require.NoError(t, err)
		have, _ = again.MarshalBinary()
		assert.Equal(t, want, have)
	})
	t.Run("a canceled context is an error", func(t *testing.T) {
		f := newFleet(t)
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := f.Get(canceled, keyA)
		assert.ErrorIs(t, err, context.Canceled)
		_, err = f.Acquire(canceled, keyA, time.Now(), Lease)
		assert.ErrorIs(t, err, context.Canceled)
		g := acquire(t, f, keyA, time.Now())
		assert.ErrorIs(t, f.Publish(canceled, *g.Lease, Sample(keyA, time.Now()), time.Now()), context.Canceled)
		_, err = f.Renew(canceled, *g.Lease, Lease, time.Now())
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, f.Release(canceled, *g.Lease), context.Canceled)
	})
}

const (
	keyA = "https://a.example"
	keyB = "http://b.example:8080"
)

func acquire(t *testing.T, f cache.Fleet, key string, now time.Time) cache.Grant {
	t.Helper()
	g, err := f.Acquire(context.Background(), key, now, Lease)
	require.NoError(t, err)
	if g.Lease != nil {
		require.Equal(t, key, g.Lease.Key)
	}
	return g
}

// takeOver waits, by the real clock, until a lease of key taken earlier has
// run out and a new one is granted, and returns it.
func takeOver(t *testing.T, f cache.Fleet, key string) cache.Grant {
	t.Helper()
	var g cache.Grant
	require.Eventually(t, func() bool {
		g = acquire(t, f, key, time.Now())
		return g.Lease != nil
	}, 5*time.Second, Lease/10, "the lease never ran out")
	return g
}

// Sample returns a record of key fetched at fetched, fresh for an hour, with
// every field set that a good record has: redirects, kept headers, a body.
func Sample(key string, fetched time.Time) *cache.Record {
	return &cache.Record{
		Authority:  key,
		URL:        key + "/robots.txt",
		FinalURL:   key + "/robots-final.txt",
		Redirects:  []fetch.Hop{{URL: key + "/robots.txt", StatusCode: 301, Location: "/robots-final.txt"}},
		StatusCode: 200, Class: status.Success, Outcome: "200 OK: rules",
		Header:     http.Header{"Cache-Control": {"max-age=3600"}, "Etag": {`"v1"`}},
		Body:       []byte(fmt.Sprintf("User-agent: *\nDisallow: /private\n# %s\n", key)),
		FetchedAt:  fetched.Truncate(time.Millisecond),
		FreshUntil: fetched.Truncate(time.Millisecond).Add(time.Hour),
	}
}

// Equal asserts that got is the record want: the same encoding.
func Equal(t *testing.T, want, got *cache.Record) {
	t.Helper()
	require.NotNil(t, got)
	w, err := want.MarshalBinary()
	require.NoError(t, err)
	g, err := got.MarshalBinary()
	require.NoError(t, err)
	if !bytes.Equal(w, g) {
		assert.Equal(t, want, got)
	}
}
