package engine_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/engine"
	"github.com/crawlkit/robots/status"
)

// lookupOnCaller is Lookup called from a frame a fetch can find on its
// stack when it runs on the caller's goroutine.
//
//go:noinline
func lookupOnCaller(ctx context.Context, c *engine.Cache[*val], key string) (*engine.Entry[*val], engine.Served, error) {
	e, served, _, err := c.Lookup(ctx, key)
	return e, served, err
}

// onCallerFetch wraps o.fetch to report, per fetch, whether it ran on the
// goroutine of the caller who started it (through lookupOnCaller).
func onCallerFetch(o *origin, onCaller chan<- bool) func(context.Context, string, *cache.Record) (*cache.Record, func()) {
	return func(ctx context.Context, key string, held *cache.Record) (*cache.Record, func()) {
		buf := make([]byte, 64<<10)
		onCaller <- strings.Contains(string(buf[:runtime.Stack(buf, false)]), "lookupOnCaller")
		return o.fetch(ctx, key, held)
	}
}

// valueKey keys a context value of the tests.
type valueKey struct{}

// A caller who would wait for a flight whatever happens (its context
// cannot end) runs the flight it starts itself; one whose context can end
// leaves it to a goroutine of its own, as does a flight with a Fleet (it
// may answer early with a stale copy) and one queued for a slot.
func TestFlightOnItsCaller(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	defer cancel()
	cases := []struct {
		name   string
		ctx    context.Context
		fleet  bool
		inline bool
	}{
		{"background", context.Background(), false, true},
		{"a value but no end", context.WithValue(context.Background(), valueKey{}, 1), false, true},
		{"can be canceled", canceled, false, false},
		{"with a fleet", context.Background(), true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrigin(&clock{t: now})
			onCaller := make(chan bool, 1)
			c := newCache(t, o, func(cfg *engine.Config[*val]) {
				cfg.Fetch = onCallerFetch(o, onCaller)
				if tc.fleet {
					cfg.Fleet = cache.NewMemoryFleet()
				}
			})
			e, served, err := lookupOnCaller(tc.ctx, c, keyA)
			require.NoError(t, err)
			assert.Equal(t, engine.Waited, served)
			assert.Equal(t, "User-agent: *\nDisallow: /call-1\n", e.Value.body)
			assert.Equal(t, tc.inline, <-onCaller)
			require.NoError(t, c.Flush(context.Background())) // the fleet's publication, if any, is done
		})
	}
}

// A flight queued for a slot runs in a goroutine when the slot frees, even
// for a caller who would wait whatever happens.
func TestQueuedFlightNotOnItsCaller(t *testing.T) {
	o := newOrigin(&clock{t: now})
	o.hold(1)
	onCaller := make(chan bool, 2)
	c := newCache(t, o, func(cfg *engine.Config[*val]) {
		cfg.MaxFetches = 1
		cfg.Fetch = onCallerFetch(o, onCaller)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan error, 1)
	go func() {
		_, _, err := lookupOnCaller(ctx, c, keyA) // takes the only slot
		first <- err
	}()
	<-o.started
	assert.False(t, <-onCaller)
	second := make(chan error, 1)
	go func() {
		_, _, err := lookupOnCaller(context.Background(), c, keyB) // queued
		second <- err
	}()
	for c.Stats().Queued == 0 {
		runtime.Gosched()
	}
	o.release(1)
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	assert.False(t, <-onCaller)
}

// While a caller runs the flight it started, the others asking about the
// same authority wait for it, one fetch for all; one whose context ends
// leaves at once, and the fetch goes on for the rest.
func TestFlightOnItsCallerShared(t *testing.T) {
	o := newOrigin(&clock{t: now})
	o.hold(1)
	onCaller := make(chan bool, 1)
	c := newCache(t, o, func(cfg *engine.Config[*val]) { cfg.Fetch = onCallerFetch(o, onCaller) })

	type answer struct {
		body   string
		served engine.Served
		err    error
	}
	ask := func(ctx context.Context, out chan<- answer) {
		e, served, err := lookupOnCaller(ctx, c, keyA)
		a := answer{served: served, err: err}
		if e != nil {
			a.body = e.Value.body
		}
		out <- a
	}
	owner := make(chan answer, 1)
	go ask(context.Background(), owner)
	<-o.started
	require.True(t, <-onCaller, "the first caller runs the flight")

	const n = 10
	others := make(chan answer, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ask(context.Background(), others)
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	leaver := make(chan answer, 1)
	go ask(ctx, leaver)
	for c.Waiters(keyA) < n+2 { // all have joined: none comes after the fetch
		runtime.Gosched()
	}
	cancel()
	left := <-leaver // the fetch is still held
	assert.ErrorIs(t, left.err, context.Canceled)

	o.release(1)
	wg.Wait()
	close(others)
	want := "User-agent: *\nDisallow: /call-1\n"
	a := <-owner
	require.NoError(t, a.err)
	assert.Equal(t, want, a.body)
	for a := range others {
		require.NoError(t, a.err)
		assert.Equal(t, want, a.body)
		assert.Equal(t, engine.Waited, a.served)
	}
	assert.Equal(t, 1, o.fetches(keyA))
}

// deep uses about n KiB of stack, as a fetch, parse and compile do.
//
//go:noinline
func deep(n int) byte {
	var frame [1 << 10]byte
	frame[n%len(frame)] = byte(n)
	if n == 0 {
		return frame[0]
	}
	return deep(n-1) + frame[(n+1)%len(frame)]
}

// BenchmarkColdLookup is a Lookup of an authority with nothing held: the
// flight made for it, run on the caller's goroutine when its context cannot
// end, on a goroutine of its own when it can, with a fetch and a derivation
// that take 10 KiB of stack and nothing else.
func BenchmarkColdLookup(b *testing.B) {
	canceled, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{
		{"ctx=background", context.Background()},
		{"ctx=cancelable", canceled},
	} {
		b.Run(bc.name, func(b *testing.B) {
			clk := &clock{t: now}
			c := engine.New(engine.Config[*val]{
				Bytes:  1 << 20, // evicts: the benchmark measures flights, not a growing table
				Policy: policy,
				Now:    clk.Now,
				Fetch: func(_ context.Context, key string, held *cache.Record) (*cache.Record, func()) {
					res := file(key, "User-agent: *\nDisallow: /private/\n", "Cache-Control", "max-age=86400")
					at := clk.Now()
					deep(10)
					return policy.Next(key, held, res, status.Classify(res, at), at), nil
				},
				Derive: func(rec *cache.Record, _ *engine.Entry[*val]) *val { deep(10); return &val{body: bodyOf(rec)} },
			})
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if _, _, _, err := c.Lookup(bc.ctx, "https://h"+strconv.Itoa(i)+".example"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
