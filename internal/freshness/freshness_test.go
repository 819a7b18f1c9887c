package freshness_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots/internal/freshness"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// README, "Fetching and status", freshness column; RFC 9111 §4.2 and
// RFC 9309 §2.4 (at most 24 hours).
func TestLifetimeOf(t *testing.T) {
	const minTTL = time.Minute
	tests := []struct {
		name    string
		h       http.Header
		ttl     time.Duration
		src     freshness.Source
		clamped bool
	}{
		{"no headers: 24 h", header(), 24 * time.Hour, freshness.Default, false},
		{"max-age", header("Cache-Control", "max-age=3600"), time.Hour, freshness.MaxAge, false},
		{"max-age=60 honored", header("Cache-Control", "public, max-age=60"), time.Minute, freshness.MaxAge, false},
		{"a week clamped to 24 h", header("Cache-Control", "max-age=604800"), 24 * time.Hour, freshness.MaxAge, true},
		{"max-age=0 clamped up", header("Cache-Control", "max-age=0"), minTTL, freshness.MaxAge, true},
		{"Age subtracted", header("Cache-Control", "max-age=3600", "Age", "600"), 50 * time.Minute, freshness.MaxAge, false},
		{"Age beyond max-age", header("Cache-Control", "max-age=60", "Age", "120"), minTTL, freshness.MaxAge, true},
		{"invalid Age ignored", header("Cache-Control", "max-age=600", "Age", "soon"), 10 * time.Minute, freshness.MaxAge, false},
		{"huge Age", header("Cache-Control", "max-age=600", "Age", "99999999999999999999999"), minTTL, freshness.MaxAge, true},
		{"s-maxage wins", header("Cache-Control", "max-age=60, s-maxage=7200"), 2 * time.Hour, freshness.SMaxAge, false},
		{"no-store", header("Cache-Control", "no-store, max-age=3600"), minTTL, freshness.NoStore, false},
		{"no-cache", header("Cache-Control", "no-cache"), minTTL, freshness.NoCache, false},
		{"no-cache with fields", header("Cache-Control", `no-cache="Set-Cookie, X", max-age=60`), minTTL, freshness.NoCache, false},
		{"a bad max-age under a good s-maxage", header("Cache-Control", "max-age=abc, s-maxage=300"), 5 * time.Minute, freshness.SMaxAge, false},
		// RFC 9111 §4.2.1, §5.2.2.1: an invalid max-age means stale, not absent.
		{"max-age not a number: stale", header("Cache-Control", "max-age=abc"), minTTL, freshness.AgeInvalid, false},
		{"max-age without a value: stale", header("Cache-Control", "public, max-age"), minTTL, freshness.AgeInvalid, false},
		{"s-maxage invalid: stale", header("Cache-Control", "s-maxage=1h, max-age=600"), minTTL, freshness.AgeInvalid, false},
		{"an invalid max-age beside a valid one: stale", header("Cache-Control", "max-age=600", "Cache-Control", "max-age=x"), minTTL, freshness.AgeInvalid, false},
		{"quoted max-age accepted", header("Cache-Control", `max-age="120"`), 2 * time.Minute, freshness.MaxAge, false},
		{"bad stale-if-error ignored", header("Cache-Control", "stale-if-error, max-age=120"), 2 * time.Minute, freshness.MaxAge, false},
		{"unknown directive ignored", header("Cache-Control", "x-robots=1, max-age=120"), 2 * time.Minute, freshness.MaxAge, false},
		{"bad directive then good", header("Cache-Control", "public=1, max-age=120"), 2 * time.Minute, freshness.MaxAge, false},
		{"negative max-age: stale", header("Cache-Control", "max-age=-5"), minTTL, freshness.AgeInvalid, false},
		{"overflowing max-age clamped", header("Cache-Control", "max-age=99999999999"), 24 * time.Hour, freshness.MaxAge, true},
		{"two Cache-Control lines", header("Cache-Control", "public", "Cache-Control", "max-age=90"), 90 * time.Second, freshness.MaxAge, false},
		{"two max-ages: the smaller", header("Cache-Control", "max-age=900, max-age=300"), 5 * time.Minute, freshness.MaxAge, false},
		{"Expires minus Date", header("Expires", httpDate(now.Add(2*time.Hour)), "Date", httpDate(now.Add(-time.Hour))), 3 * time.Hour, freshness.Expires, false},
		{"Expires without Date", header("Expires", httpDate(now.Add(30*time.Minute))), 30 * time.Minute, freshness.Expires, false},
		{"Expires less Age", header("Expires", httpDate(now.Add(time.Hour)), "Date", httpDate(now), "Age", "1800"), 30 * time.Minute, freshness.Expires, false},
		{"Expires in the past", header("Expires", httpDate(now.Add(-time.Hour)), "Date", httpDate(now)), minTTL, freshness.Expires, true},
		{"Expires: 0", header("Expires", "0"), minTTL, freshness.ExpiresInvalid, false},
		{"Expires not a date", header("Expires", "tomorrow"), minTTL, freshness.ExpiresInvalid, false},
		{"max-age beats Expires", header("Cache-Control", "max-age=60", "Expires", httpDate(now.Add(5*time.Hour))), time.Minute, freshness.MaxAge, false},
		{"Last-Modified gives no heuristic", header("Last-Modified", httpDate(now.Add(-100*24*time.Hour))), 24 * time.Hour, freshness.Default, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := freshness.LifetimeOf(tt.h, now, minTTL)
			assert.Equal(t, freshness.Lifetime{TTL: tt.ttl, Source: tt.src, Clamped: tt.clamped}, got)
			assert.NotEqual(t, "unknown source", got.Source.String())
		})
	}
	// The minimum is itself bounded by the maximum.
	assert.Equal(t, 24*time.Hour, freshness.LifetimeOf(header("Cache-Control", "no-store"), now, 48*time.Hour).TTL)
	assert.Equal(t, time.Duration(0), freshness.LifetimeOf(header("Cache-Control", "no-store"), now, -time.Hour).TTL)
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{0, time.Minute}, {1, time.Minute}, {2, 2 * time.Minute}, {3, 4 * time.Minute},
		{6, 32 * time.Minute}, {7, time.Hour}, {8, time.Hour}, {1000, time.Hour},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, freshness.Backoff(tt.failures, 0.5), "failures=%d", tt.failures)
	}
	// Jitter stays within ±10 %.
	assert.Equal(t, 54*time.Second, freshness.Backoff(1, 0))
	assert.Equal(t, 66*time.Second, freshness.Backoff(1, 1))
	assert.Equal(t, 54*time.Minute, freshness.Backoff(9, -3), "u is clamped")
}
