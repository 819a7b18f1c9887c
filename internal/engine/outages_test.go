package engine

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/status"
)

// outageAt is the record of key's outage, its next retry in retry, with a
// good copy of body when body is not empty.
func outageAt(now time.Time, key string, retry time.Duration, body string) *cache.Record {
	r := &cache.Record{Authority: key, URL: key + "/robots.txt", FinalURL: key + "/robots.txt", Class: status.Unreachable,
		Failures: 2, UnreachableSince: now.Add(-time.Hour), FetchedAt: now, FreshUntil: now.Add(retry)}
	if body != "" {
		r.Good = &cache.Record{Authority: key, URL: r.URL, FinalURL: r.URL, StatusCode: 200, Class: status.Success,
			Body: []byte(body), FetchedAt: now.Add(-2 * time.Hour), FreshUntil: now.Add(-time.Hour)}
	}
	return r
}

func TestPoliteness(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	p := newPoliteness(3, 1<<20)
	p.note("a", outageAt(now, "a", 2*time.Minute, "User-agent: *\nDisallow: /\n"), true)
	o, ok := p.get("a")
	require.True(t, ok)
	assert.Equal(t, 2, o.Failures)
	assert.Equal(t, now.Add(-time.Hour), o.Since)
	assert.Equal(t, now, o.Last)
	assert.Equal(t, now.Add(2*time.Minute), o.NextRetry)
	require.NotNil(t, o.Good, "held: the table owns the copy")

	rec := o.Record()
	assert.True(t, rec.Unreachable())
	assert.Equal(t, now.Add(2*time.Minute), rec.FreshUntil)
	assert.Same(t, o.Good, rec.Good)
	_, err := rec.MarshalBinary()
	assert.NoError(t, err, "an outage's record is a valid record")
	assert.NoError(t, rec.Check(now))

	p.note("a", outageAt(now, "a", 2*time.Minute, "x"), false)
	o, _ = p.get("a")
	assert.Nil(t, o.Good, "the local tier holds the copy: the table does not")
	assert.Zero(t, p.copyBytes.Load())

	p.note("a", &cache.Record{Authority: "a", Class: status.Success, Body: []byte("x")}, false)
	_, ok = p.get("a")
	assert.False(t, ok, "a success ends the outage")
	assert.Equal(t, DefaultOutages, newPoliteness(0, 0).max)
}

// Past its bound the table drops the outages whose retry time has passed
// first, then those retried soonest: never a day's Retry-After before a
// minute's backoff, whatever the order they came in.
func TestPolitenessEvictsSoonestRetryFirst(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	p := newPoliteness(3, 1<<20)
	p.note("day", outageAt(now, "day", 24*time.Hour, ""), true)
	p.note("passed", outageAt(now.Add(-time.Hour), "passed", time.Minute, ""), true)
	p.note("hour", outageAt(now, "hour", time.Hour, ""), true)
	p.note("minute", outageAt(now, "minute", time.Minute, ""), true)
	_, ok := p.get("passed")
	assert.False(t, ok, "its retry time had passed: first out")
	p.note("two-hours", outageAt(now, "two-hours", 2*time.Hour, ""), true)
	_, ok = p.get("minute")
	assert.False(t, ok, "then the one retried soonest")
	for _, k := range []string{"day", "hour", "two-hours"} {
		_, ok := p.get(k)
		assert.True(t, ok, k)
	}
	// A retry moved later moves the outage back.
	p.note("hour", outageAt(now, "hour", 48*time.Hour, ""), true)
	p.note("three-hours", outageAt(now, "three-hours", 3*time.Hour, ""), true)
	_, ok = p.get("two-hours")
	assert.False(t, ok)
	var order []string
	for _, o := range p.snapshot() {
		order = append(order, o.key)
	}
	assert.Equal(t, []string{"three-hours", "day", "hour"}, order, "retried soonest first")
	p.delete("day")
	assert.Equal(t, 2, p.len())
}

// The good copies the table holds stay within their bytes: past them the
// copies of the outages retried soonest go, their backoff stays. A copy the
// local tier evicts is adopted only for an outage the table knows.
func TestPolitenessCopiesBound(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	body := string(make([]byte, 1000))
	one := outageAt(now, "x", time.Hour, body).Good.Size()
	p := newPoliteness(100, 3*one)
	for i, retry := range []time.Duration{time.Hour, 3 * time.Hour, 2 * time.Hour, 4 * time.Hour} {
		p.note(fmt.Sprint(i), outageAt(now, fmt.Sprint(i), retry, ""), true)
		p.adopt(fmt.Sprint(i), outageAt(now, fmt.Sprint(i), retry, body))
	}
	assert.Equal(t, 3*one, p.copyBytes.Load())
	o, _ := p.get("0")
	assert.Nil(t, o.Good, "retried soonest: its copy went")
	assert.Equal(t, 4, p.len(), "its backoff stayed")
	for _, k := range []string{"1", "2", "3"} {
		o, _ := p.get(k)
		assert.NotNil(t, o.Good, k)
	}
	p.adopt("unknown", outageAt(now, "unknown", time.Hour, body))
	_, ok := p.get("unknown")
	assert.False(t, ok, "no outage, nothing adopted")
	p.delete("1")
	assert.Equal(t, 2*one, p.copyBytes.Load())
}

// An outage costs what outageBytes says, beside its key, and a full default
// table what DefaultOutages documents (about 11 MB).
func TestOutageEntrySize(t *testing.T) {
	const n = 20_000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("https://host-%d.example", i)
	}
	p := newPoliteness(n, 0)
	now := time.Now()
	recs := make([]*cache.Record, n)
	for i := range recs {
		recs[i] = outageAt(now, keys[i], time.Duration(i)*time.Second, "")
	}
	_, kept := sharedtest.Memory(func() {
		for i, k := range keys {
			p.note(k, recs[i], true)
		}
	})
	per := float64(kept) / n
	t.Logf("%.0f bytes per outage, keys of %d bytes held elsewhere", per, len(keys[0]))
	assert.Less(t, per, float64(outageBytes))
	assert.Less(t, (per+float64(len(keys[0])))*DefaultOutages, 12e6)
	runtime.KeepAlive(p)
	runtime.KeepAlive(recs)
}
