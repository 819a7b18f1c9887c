package engine

import (
	"context"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/status"
)

// The clock's readings lie between time.Now's before and after, on the
// monotonic clock, and carry the wall time of the anchor plus the monotonic
// time since.
func TestClock(t *testing.T) {
	var c clock
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
		assert.Equal(t, got.Sub(a.t), got.Round(0).Sub(a.t.Round(0)))
		assert.Equal(t, a.t.Location(), got.Location())
		assert.Equal(t, int64(a.t.Sub(base)), a.mono)
		assert.Equal(t, int64(a.t.Sub(baseWall)), a.wall)
	}
}

// Past reanchor, the wall clock is read again.
func TestClockReanchors(t *testing.T) {
	var c clock
	old := time.Now().Add(-reanchor) // as if the anchor had been taken a reanchor ago
	stale := &anchor{t: old, mono: int64(old.Sub(base)), wall: int64(old.Sub(baseWall))}
	c.anchor.Store(stale)
	got := c.Now()
	a := c.anchor.Load()
	require.NotSame(t, stale, a, "a new anchor")
	assert.Equal(t, got, a.t, "the reading is the new anchor")

	c.anchor.Store(stale)
	c.before(deadlineOf(time.Now().Round(0).Add(time.Hour)))
	assert.NotSame(t, stale, c.anchor.Load(), "a wall deadline reanchors too")

	fresh := c.anchor.Load()
	c.Now()
	c.before(deadlineOf(time.Now().Round(0).Add(time.Hour)))
	assert.Same(t, fresh, c.anchor.Load(), "an anchor younger than reanchor is kept")
}

// before says what Before says of a reading of Now, for deadlines with a
// monotonic reading and without, near and far, on both sides.
func TestClockBefore(t *testing.T) {
	var c clock
	now := time.Now()
	var deadlines []time.Time
	for _, d := range []time.Duration{-time.Hour, -time.Second, -time.Millisecond, time.Millisecond, time.Second, time.Hour, freshness.DefaultLifetime} {
		deadlines = append(deadlines, now.Add(d), now.Round(0).Add(d))
	}
	deadlines = append(deadlines, time.Time{}, time.Unix(0, 0), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-9999, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC),
		now.Round(0).In(time.FixedZone("far", 14*3600)).Add(time.Minute))
	for _, u := range deadlines {
		d := deadlineOf(u)
		assert.Equal(t, u != u.Round(0), d.kind() == monoDeadline, "%v", u)
		assert.Equal(t, c.Now().Before(u), c.before(d), "%v", u)
	}
	assert.False(t, c.before(deadline(0)), "no deadline: not before")
}

// The wall deadline of a time without a monotonic reading is judged on the
// wall clock, as Before judges it: a wall reading that runs ahead of the
// monotonic one (an NTP step since the anchor) shows.
func TestClockWallDeadline(t *testing.T) {
	var c clock
	now := time.Now()
	// An anchor whose wall reading is an hour ahead of the monotonic one
	// (before reads no more of it).
	a := &anchor{mono: int64(now.Sub(base)), wall: int64(now.Add(time.Hour).Sub(baseWall))}
	c.anchor.Store(a)
	wall := now.Round(0).Add(30 * time.Minute)
	assert.False(t, c.before(deadlineOf(wall)), "on the wall clock, half an hour ago")
	mono := now.Add(30 * time.Minute)
	assert.True(t, c.before(deadlineOf(mono)), "on the monotonic clock, in half an hour")
}

func TestClockAllocs(t *testing.T) {
	var c clock
	d := deadlineOf(time.Now().Round(0).Add(time.Hour))
	c.Now()
	assert.Zero(t, testing.AllocsPerRun(1000, func() { c.Now() }))
	assert.Zero(t, testing.AllocsPerRun(1000, func() { c.before(d) }))
}

// Hit answers what Lookup answers when Lookup hits, and nothing else; a
// Cache with a clock of its own has no hits to give.
func TestHit(t *testing.T) {
	now := time.Now()
	newCache := func(clk func() time.Time) *Cache[blob] {
		return New(Config[blob]{
			Bytes: 1 << 20, Grace: time.Second, Now: clk,
			Fetch:  func(context.Context, string, *cache.Record) (*cache.Record, func()) { panic("no fetch in this test") },
			Derive: func(*cache.Record, *Entry[blob]) blob { return nil },
		})
	}
	c := newCache(nil)
	rec := func(key string, until time.Time) *cache.Record {
		return &cache.Record{Authority: key, Class: status.Success, Body: []byte("x"), FetchedAt: now.Add(-time.Minute), FreshUntil: until}
	}
	tests := []struct {
		key   string
		until time.Time
		hit   bool
	}{
		{"https://mono-fresh.example", now.Add(time.Hour), true},
		{"https://wall-fresh.example", now.Round(0).Add(time.Hour), true},
		{"https://mono-expired.example", now.Add(-time.Millisecond), false},
		{"https://wall-expired.example", now.Round(0).Add(-time.Millisecond), false},
		{"https://zero.example", time.Time{}, false},
	}
	for _, tt := range tests {
		require.NoError(t, c.put(tt.key, rec(tt.key, tt.until)))
		e, ok := c.Hit(tt.key)
		assert.Equal(t, tt.hit, ok, tt.key)
		if tt.hit {
			got, served, _, err := c.Lookup(context.Background(), tt.key)
			require.NoError(t, err)
			assert.Equal(t, Hit, served, tt.key)
			assert.Same(t, got, e, tt.key)
		} else {
			assert.Nil(t, e, tt.key)
		}
	}
	_, ok := c.Hit("https://absent.example")
	assert.False(t, ok)

	injected := newCache(func() time.Time { return now })
	require.NoError(t, injected.put(tests[0].key, rec(tests[0].key, tests[0].until)))
	_, ok = injected.Hit(tests[0].key)
	assert.False(t, ok, "an injected clock: Lookup judges")
	assert.Equal(t, now, injected.Now())
}

func BenchmarkClock(b *testing.B) {
	var sink time.Time
	var fresh bool
	b.Run("time.Now", func(b *testing.B) {
		for b.Loop() {
			sink = time.Now()
		}
	})
	b.Run("Now", func(b *testing.B) {
		var c clock
		for b.Loop() {
			sink = c.Now()
		}
	})
	b.Run("before/mono", func(b *testing.B) {
		var c clock
		d := deadlineOf(time.Now().Add(time.Hour))
		for b.Loop() {
			fresh = c.before(d)
		}
	})
	b.Run("before/wall", func(b *testing.B) {
		var c clock
		d := deadlineOf(time.Now().Round(0).Add(time.Hour))
		for b.Loop() {
			fresh = c.before(d)
		}
	})
	_, _ = sink, fresh
}

// An entry is fresh as its stored record was (cache.Record.Fresh): on the
// monotonic clock when the record's expiry and the reading both carry it,
// which the entry's deadline keeps though its record does not (cache.Hold
// drops it), else on the wall clock. The entry below is built with a
// deadline and a record that disagree, a wall clock step between them, so
// that each answer says which clock it read.
func TestEntryFreshOnTheClockOfItsRecord(t *testing.T) {
	start := time.Now()
	key := "https://a.example"
	rec := (&cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt",
		Class: status.Empty, FetchedAt: start, FreshUntil: start.Add(time.Hour)}).Compact()
	e := newEntry(rec, blob(nil))
	require.Equal(t, uint8(monoDeadline), e.fresh.kind())
	assert.True(t, e.freshAt(start.Add(59*time.Minute)))
	assert.True(t, e.freshAt(start.Add(time.Hour-1)))
	assert.False(t, e.freshAt(start.Add(time.Hour)), "fresh until, not at, its deadline")
	assert.False(t, e.freshAt(start.Add(61*time.Minute)))
	assert.True(t, e.freshAt(start.Round(0).Add(59*time.Minute)), "a wall reading alone")
	assert.False(t, e.freshAt(start.Round(0).Add(61*time.Minute)))

	// The wall clock stepped: the record says it expires a day later on
	// the wall clock, the deadline an hour later on the monotonic one.
	e.Held = cache.Hold(&cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt",
		Class: status.Empty, FetchedAt: start.Round(0), FreshUntil: start.Round(0).Add(24 * time.Hour)})
	assert.False(t, e.freshAt(start.Add(2*time.Hour)), "monotonic: the deadline")
	assert.True(t, e.freshAt(start.Round(0).Add(2*time.Hour)), "wall: the record")

	// A record of wall times alone is judged on the wall clock.
	wall := newEntry(&cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt",
		Class: status.Empty, FetchedAt: start.Round(0), FreshUntil: start.Round(0).Add(time.Hour)}, blob(nil))
	assert.Equal(t, uint8(wallDeadline), wall.fresh.kind())
	assert.True(t, wall.freshAt(start.Add(59*time.Minute)))
	assert.False(t, wall.freshAt(start.Add(61*time.Minute)))
}

// A deadline keeps its time to the nanosecond, and its kind, within 73
// years of base; beyond, it keeps the bound, on the same side.
func TestDeadlineFields(t *testing.T) {
	const bound = math.MaxInt64 >> kindBits
	for _, at := range []int64{0, 1, -1, 1<<40 + 1, -(1<<40 + 1), bound, -bound - 1} {
		for _, kind := range []uint8{noDeadline, monoDeadline, wallDeadline} {
			d := makeDeadline(at, kind)
			assert.Equal(t, at, d.at(), "%d, kind %d", at, kind)
			assert.Equal(t, kind, d.kind(), "%d, kind %d", at, kind)
		}
	}
	assert.Equal(t, int64(bound), makeDeadline(math.MaxInt64, monoDeadline).at())
	assert.Equal(t, int64(-bound-1), makeDeadline(math.MinInt64, wallDeadline).at())
	assert.Equal(t, uint8(wallDeadline), makeDeadline(math.MinInt64, wallDeadline).kind())
	assert.Equal(t, uintptr(8), unsafe.Sizeof(deadline(0)))
}
