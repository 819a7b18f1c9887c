package robots_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/parser"
)

const disallowPrivate = "User-agent: *\nDisallow: /private\n"

func allowed(t *testing.T, c *robots.Client, rawURL string) bool {
	t.Helper()
	ok, err := c.Allowed(context.Background(), rawURL)
	require.NoError(t, err)
	return ok
}

func check(t *testing.T, c *robots.Client, rawURL string) robots.Decision {
	t.Helper()
	d, err := c.Check(context.Background(), rawURL)
	require.NoError(t, err)
	return d
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		o       robots.Options
		agents  []string
		wantErr string
	}{
		{"name from the user agent", robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"}, []string{"ExampleBot"}, ""},
		{"a name with digits", robots.Options{UserAgent: "MJ12bot/v1.4.8 (+http://mj12bot.com/)"}, []string{"MJ12bot"}, ""},
		{"a name with a dot", robots.Options{UserAgent: "Mail.RU_Bot/2.0"}, []string{"Mail.RU_Bot"}, ""},
		{"explicit tokens", robots.Options{UserAgent: "Mozilla/5.0 (compatible; ExampleBot/0.1)", Agents: []string{"ExampleBot", "Example-Family"}}, []string{"ExampleBot", "Example-Family"}, ""},
		{"no user agent", robots.Options{}, nil, "UserAgent is required"},
		{"blank user agent", robots.Options{UserAgent: "  "}, nil, "UserAgent is required"},
		{"control character", robots.Options{UserAgent: "Bot\r\nX-Evil: 1"}, nil, "control character"},
		{"Mozilla", robots.Options{UserAgent: "Mozilla/5.0 (compatible; ExampleBot/0.1)"}, nil, "starts with Mozilla"},
		{"no leading name", robots.Options{UserAgent: "(compatible) ExampleBot"}, nil, "does not start with the crawler's name"},
		{"invalid name", robots.Options{UserAgent: "x", Agents: []string{"Example Bot"}}, nil, "not a name"},
		{"name with version", robots.Options{UserAgent: "x", Agents: []string{"ExampleBot/1.0"}}, nil, "not a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := robots.New(tt.o)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var re *robots.Error
				assert.ErrorAs(t, err, &re)
				assert.Equal(t, "new", re.Op)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.agents, c.Agents())
		})
	}
}

func TestInvalidURL(t *testing.T) {
	c := newClient(t, nil, robots.Options{})
	for _, u := range []string{"", "example.com/a", "/path", "ftp://example.com/a", "https://", "http://:80/", "https://example.com:99999/", "http://exa mple.com/", "https://example.com/" + strings.Repeat("a", 10000)} {
		_, err := c.Allowed(context.Background(), u)
		assert.ErrorIs(t, err, robots.ErrInvalidURL, "Allowed(%q)", u)
		_, err = c.Check(context.Background(), u)
		assert.ErrorIs(t, err, robots.ErrInvalidURL, "Check(%q)", u)
		assert.ErrorIs(t, c.Invalidate(u), robots.ErrInvalidURL)
	}
	_, err := c.CrawlDelay(context.Background(), "nope")
	assert.ErrorIs(t, err, robots.ErrInvalidURL)
	_, err = c.Sitemaps(context.Background(), "nope")
	assert.ErrorIs(t, err, robots.ErrInvalidURL)
	assert.Zero(t, c.Stats().Fetches)
}

func TestAllowedAndCheck(t *testing.T) {
	s := newSite(t, robotsTxt("User-agent: TestBot\nCrawl-delay: 2\nDisallow: /private\nAllow: /private/public\n\nUser-agent: *\nDisallow: /\n\nSitemap: https://example.com/sitemap.xml\n",
		"Cache-Control", "max-age=600", "ETag", `"v1"`))
	clk := newClock()
	c := newClient(t, clk, robots.Options{})

	assert.True(t, allowed(t, c, s.URL+"/"))
	assert.False(t, allowed(t, c, s.URL+"/private/x"))
	assert.True(t, allowed(t, c, s.URL+"/private/public/y"))

	d := check(t, c, s.URL+"/private/x?q=1#frag")
	assert.Equal(t, robots.Decision{
		Allowed:    false,
		Reason:     robots.RuleMatched,
		Rule:       parser.Rule{Pattern: "/private", Line: 3},
		Agents:     []parser.Agent{{Value: "TestBot", Line: 1, CrawlDelay: 2 * time.Second}},
		RobotsURL:  s.URL + "/robots.txt",
		FinalURL:   s.URL + "/robots.txt",
		StatusCode: 200,
		Outcome:    d.Outcome,
		FetchedAt:  clk.Now(),
		FreshUntil: clk.Now().Add(10 * time.Minute),
	}, d)
	assert.Equal(t, "200 OK: success", d.Outcome, "as Decision.Outcome's doc shows")

	delay, err := c.CrawlDelay(context.Background(), s.URL+"/any")
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, delay)
	maps, err := c.Sitemaps(context.Background(), s.URL+"/any")
	require.NoError(t, err)
	assert.Equal(t, []string{"https://example.com/sitemap.xml"}, maps)

	// RFC 9309 §2.2.2: /robots.txt is allowed even under "Disallow: /".
	d = check(t, c, s.URL+"/robots.txt")
	assert.True(t, d.Allowed)
	assert.Equal(t, robots.RobotsTxt, d.Reason)

	assert.Equal(t, int32(1), s.requests.Load(), "one fetch served every question")
	st := c.Stats()
	assert.Equal(t, uint64(1), st.Fetches)
	assert.Equal(t, uint64(1), st.Misses)
	assert.Equal(t, uint64(6), st.Hits, "3 allowed and 2 checks (one of /robots.txt, which reads the file) less the miss, crawl-delay, sitemaps")
	assert.Equal(t, 1, st.Entries)
	assert.Empty(t, st.FetchErrors)
}

// README, "Fetching and status", one row each, through the Client.
func TestStatusRows(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		opts    robots.Options
		allowed bool
		reason  robots.Reason
	}{
		{"200 rules", robotsTxt(disallowPrivate), robots.Options{}, false, robots.RuleMatched},
		{"204", statusCode(http.StatusNoContent), robots.Options{}, true, robots.NoGroup},
		{"empty body", robotsTxt(""), robots.Options{}, true, robots.NoGroup},
		{"HTML with 200", robotsTxt("<html><body>Disallow: /private</body></html>"), robots.Options{}, true, robots.NoGroup},
		{"404", statusCode(http.StatusNotFound), robots.Options{}, true, robots.Unavailable},
		{"410", statusCode(http.StatusGone), robots.Options{}, true, robots.Unavailable},
		{"401", statusCode(http.StatusUnauthorized), robots.Options{}, true, robots.Unavailable},
		{"403", statusCode(http.StatusForbidden), robots.Options{}, true, robots.Unavailable},
		{"401 with the option", statusCode(http.StatusUnauthorized), robots.Options{DisallowOn401403: true}, false, robots.AuthDenied},
		{"403 with the option", statusCode(http.StatusForbidden), robots.Options{DisallowOn401403: true}, false, robots.AuthDenied},
		{"429", statusCode(http.StatusTooManyRequests), robots.Options{}, false, robots.Unreachable},
		{"500", statusCode(http.StatusInternalServerError), robots.Options{}, false, robots.Unreachable},
		{"503", statusCode(http.StatusServiceUnavailable), robots.Options{}, false, robots.Unreachable},
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/robots.txt", http.StatusFound)
		}, robots.Options{}, true, robots.Unavailable},
		{"redirect to ftp", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "ftp://example.com/robots.txt", http.StatusMovedPermanently)
		}, robots.Options{}, true, robots.Unavailable},
		{"301 to a 404", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				http.Redirect(w, r, "/gone.txt", http.StatusMovedPermanently)
				return
			}
			http.NotFound(w, r)
		}, robots.Options{}, true, robots.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.handler)
			c := newClient(t, newClock(), tt.opts)
			d := check(t, c, s.URL+"/private/x")
			assert.Equal(t, tt.allowed, d.Allowed)
			assert.Equal(t, tt.reason, d.Reason, d.Outcome)
			assert.False(t, d.Stale)
			if want, ok := outcomes[tt.name]; ok {
				assert.Equal(t, want, d.Outcome, "as Decision.Outcome's doc shows")
			}
		})
	}
}

// outcomes are the Decision.Outcome texts its doc comment shows.
var outcomes = map[string]string{
	"404": "404 Not Found: unavailable",
	"503": "503 Service Unavailable: unreachable",
}

// A 6th consecutive redirect is unavailable (allow all); 5 are followed.
func TestRedirectLimit(t *testing.T) {
	chain := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var i int
			fmt.Sscanf(r.URL.Path, "/r%d", &i)
			switch {
			case r.URL.Path == "/robots.txt" && n > 0:
				http.Redirect(w, r, "/r1", http.StatusFound)
			case r.URL.Path == "/robots.txt" || i >= n:
				w.Write([]byte(disallowPrivate))
			default:
				http.Redirect(w, r, fmt.Sprintf("/r%d", i+1), http.StatusTemporaryRedirect)
			}
		}
	}
	c := newClient(t, newClock(), robots.Options{})
	five := newSite(t, chain(5))
	d := check(t, c, five.URL+"/private")
	assert.False(t, d.Allowed)
	assert.Equal(t, robots.RuleMatched, d.Reason)
	assert.Len(t, d.Redirects, 5)
	assert.Equal(t, five.URL+"/r5", d.FinalURL)

	six := newSite(t, chain(6))
	d = check(t, c, six.URL+"/private")
	assert.True(t, d.Allowed)
	assert.Equal(t, robots.Unavailable, d.Reason)
}

// RFC 9309 §2.3.1.2: rules reached through a redirect to another host apply
// to the authority first asked, not to the one redirected to.
func TestCrossHostRedirect(t *testing.T) {
	other := newSite(t, robotsTxt("User-agent: *\nDisallow: /moved-rules\n"))
	first := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/robots.txt", http.StatusMovedPermanently)
	})
	c := newClient(t, newClock(), robots.Options{})
	d := check(t, c, first.URL+"/moved-rules/x")
	assert.False(t, d.Allowed)
	assert.Equal(t, first.URL+"/robots.txt", d.RobotsURL)
	assert.Equal(t, other.URL+"/robots.txt", d.FinalURL)
	require.Len(t, d.Redirects, 1)
	assert.Equal(t, http.StatusMovedPermanently, d.Redirects[0].StatusCode)

	assert.True(t, allowed(t, c, other.URL+"/elsewhere"))
	assert.Equal(t, 2, c.Stats().Entries, "the redirect target is an authority of its own")
	assert.Equal(t, int32(2), other.requests.Load(), "once for the redirect, once for itself")
}

func TestSameSiteRedirects(t *testing.T) {
	other := newSite(t, robotsTxt("User-agent: *\nDisallow: /\n"))
	first := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/robots.txt", http.StatusFound)
	})
	c := newClient(t, newClock(), robots.Options{SameSiteRedirects: true})
	d := check(t, c, first.URL+"/x")
	assert.True(t, d.Allowed, "a refused redirect is unavailable: allow all")
	assert.Equal(t, robots.Unavailable, d.Reason)
	assert.Zero(t, other.requests.Load())
}

func TestExpiryAndRefetch(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		ttl    time.Duration
	}{
		{"no caching headers: 24 h", nil, 24 * time.Hour},
		{"max-age=60 honored", []string{"Cache-Control", "max-age=60"}, time.Minute},
		{"a week clamped to 24 h", []string{"Cache-Control", "max-age=604800"}, 24 * time.Hour},
		{"Age subtracted", []string{"Cache-Control", "max-age=3600", "Age", "1200"}, 40 * time.Minute},
		{"no-store kept MinTTL", []string{"Cache-Control", "no-store"}, time.Minute},
		{"s-maxage", []string{"Cache-Control", "max-age=60, s-maxage=300"}, 5 * time.Minute},
		// RFC 9111 §4.2.1: an invalid max-age means stale, so MinTTL, not 24 h.
		{"invalid max-age kept MinTTL", []string{"Cache-Control", "max-age=one-day"}, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, robotsTxt(disallowPrivate, tt.header...))
			clk := newClock()
			var o robots.Options
			fetched := onFetch(&o)
			c := newClient(t, clk, o)
			start := clk.Now()
			d := check(t, c, s.URL+"/x")
			<-fetched
			assert.Equal(t, start.Add(tt.ttl), d.FreshUntil)

			clk.Advance(tt.ttl - time.Second)
			allowed(t, c, s.URL+"/x")
			assert.Equal(t, int32(1), s.requests.Load(), "still fresh")

			s.set(robotsTxt("User-agent: *\nDisallow: /x\n", tt.header...))
			clk.Advance(time.Second)
			d = check(t, c, s.URL+"/x")
			assert.True(t, d.Allowed, "expired: the copy held answers while it is refetched")
			assert.True(t, d.Stale)
			<-fetched
			assert.False(t, allowed(t, c, s.URL+"/x"), "then the new rules")
			assert.Equal(t, int32(2), s.requests.Load())
			assert.Equal(t, uint64(1), c.Stats().StaleAnswers)
		})
	}
}

func TestMinTTLOption(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate, "Cache-Control", "max-age=0"))
	clk := newClock()
	c := newClient(t, clk, robots.Options{MinTTL: 10 * time.Minute})
	d := check(t, c, s.URL+"/x")
	assert.Equal(t, clk.Now().Add(10*time.Minute), d.FreshUntil)
}

// RFC 9309 §2.3.1.4 and Google: unreachable, then reachable.
func TestUnreachableThenReachable(t *testing.T) {
	s := newSite(t, statusCode(http.StatusServiceUnavailable))
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	d := check(t, c, s.URL+"/page")
	<-fetched
	assert.False(t, d.Allowed)
	assert.Equal(t, robots.Unreachable, d.Reason)
	assert.Equal(t, http.StatusServiceUnavailable, d.StatusCode)
	assert.Equal(t, clk.Now(), d.UnreachableSince)
	// Backoff: the first retry comes 1 min ± 10 % later, not before.
	assert.WithinRange(t, d.FreshUntil, clk.Now().Add(54*time.Second), clk.Now().Add(66*time.Second))

	for i := 0; i < 50; i++ {
		allowed(t, c, s.URL+"/page")
	}
	assert.Equal(t, int32(1), s.requests.Load(), "no refetch per call while backing off")

	s.set(robotsTxt(disallowPrivate))
	clk.Advance(67 * time.Second)
	d = check(t, c, s.URL+"/page")
	assert.False(t, d.Allowed, "the outage's answer stands while the retry runs")
	<-fetched
	d = check(t, c, s.URL+"/page")
	assert.True(t, d.Allowed)
	assert.Equal(t, robots.NoRuleMatched, d.Reason)
	assert.True(t, d.UnreachableSince.IsZero())
	assert.Equal(t, int32(2), s.requests.Load())
	assert.Equal(t, map[string]uint64{"status": 1}, c.Stats().FetchErrors)
}

func TestBackoffGrows(t *testing.T) {
	s := newSite(t, statusCode(http.StatusBadGateway))
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	var waits []time.Duration
	for i := 0; i < 9; i++ {
		check(t, c, s.URL+"/") // the first waits; the others start a retry
		<-fetched
		d := check(t, c, s.URL+"/")
		waits = append(waits, d.FreshUntil.Sub(clk.Now()))
		clk.Advance(waits[i] + time.Second)
	}
	assert.Equal(t, int32(9), s.requests.Load())
	for i, want := range []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60} {
		want *= time.Minute
		assert.InDelta(t, float64(want), float64(waits[i]), float64(want)/10+1, "wait %d", i)
	}
}

// 200, then 503 for good: the good copy answers, marked stale, for the whole
// outage, however long (RFC 9309 §2.3.1.4 lets a crawler keep a cached copy;
// Google does). It never flips to disallow-all and back.
func TestGoodCopyForTheWholeOutage(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate))
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	start := clk.Now()
	assert.False(t, allowed(t, c, s.URL+"/private"))
	<-fetched

	s.set(statusCode(http.StatusServiceUnavailable))
	clk.Advance(24 * time.Hour)
	outage := clk.Now()
	check(t, c, s.URL+"/private") // expired: a refetch starts
	<-fetched
	for day := 0; day < 45; day++ {
		d := check(t, c, s.URL+"/private")
		assert.False(t, d.Allowed, "day %d: the good copy still disallows", day)
		assert.True(t, d.Stale)
		assert.Equal(t, robots.RuleMatched, d.Reason)
		assert.Equal(t, start, d.FetchedAt, "the copy used is the one fetched first")
		assert.Equal(t, outage, d.UnreachableSince)
		assert.True(t, check(t, c, s.URL+"/public").Allowed, "day %d: and allows what it allowed", day)
		clk.Advance(24 * time.Hour)
		check(t, c, s.URL+"/private") // retried (hourly by now): one refetch
		<-fetched
	}
}

// During an outage, whatever reads the file reads the good copy: the rules
// a Client made by As compiles for its agents, and the Sitemap lines.
func TestGoodCopyReadAgainDuringAnOutage(t *testing.T) {
	const file = "User-agent: *\nDisallow: /private\n\nUser-agent: OtherBot\nDisallow: /other\n\nSitemap: https://x.example/map.xml\n"
	s := newSite(t, robotsTxt(file))
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	assert.False(t, allowed(t, c, s.URL+"/private"))
	<-fetched

	s.set(statusCode(http.StatusServiceUnavailable))
	clk.Advance(24 * time.Hour)
	check(t, c, s.URL+"/private") // expired: a refetch starts, and fails
	<-fetched
	require.True(t, check(t, c, s.URL+"/private").Stale, "the good copy answers")

	other, err := c.As("OtherBot")
	require.NoError(t, err)
	d := check(t, other, s.URL+"/other")
	assert.False(t, d.Allowed, "OtherBot's group of the good copy")
	assert.True(t, d.Stale)
	assert.True(t, allowed(t, other, s.URL+"/private"))
	maps, err := c.Sitemaps(context.Background(), s.URL+"/")
	require.NoError(t, err)
	assert.Equal(t, []string{"https://x.example/map.xml"}, maps)
}

// Unreachable from the start, with no good copy: disallow everything for
// UnreachableAllowAfter (30 days), then allow everything (Google), and keep
// retrying, hourly.
func TestUnreachableWithoutCopy(t *testing.T) {
	s := newSite(t, statusCode(http.StatusServiceUnavailable))
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	d := check(t, c, s.URL+"/page")
	<-fetched
	assert.False(t, d.Allowed)
	assert.Equal(t, robots.Unreachable, d.Reason)

	clk.Advance(30*24*time.Hour - time.Minute)
	check(t, c, s.URL+"/page")
	<-fetched
	d = check(t, c, s.URL+"/page")
	assert.False(t, d.Allowed, "still within 30 days")
	assert.False(t, d.Stale)

	clk.Advance(2 * time.Minute)
	d = check(t, c, s.URL+"/page")
	assert.True(t, d.Allowed)
	assert.Equal(t, robots.UnreachableTooLong, d.Reason)
	assert.Less(t, d.FreshUntil.Sub(clk.Now()), 67*time.Minute, "still retried, hourly")
}

func TestUnreachableAllowAfterOption(t *testing.T) {
	s := newSite(t, statusCode(http.StatusInternalServerError))
	clk := newClock()
	never := newClient(t, clk, robots.Options{UnreachableAllowAfter: -1})
	soon := newClient(t, clk, robots.Options{UnreachableAllowAfter: time.Hour})
	assert.False(t, allowed(t, never, s.URL+"/x"))
	assert.False(t, allowed(t, soon, s.URL+"/x"))
	clk.Advance(400 * 24 * time.Hour)
	assert.False(t, allowed(t, never, s.URL+"/x"), "never allow while unreachable")
	assert.True(t, allowed(t, soon, s.URL+"/x"))
}

func TestRetryAfter(t *testing.T) {
	for _, ra := range []string{"7200", time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC).Format(http.TimeFormat)} {
		t.Run(ra, func(t *testing.T) {
			s := newSite(t, statusCode(http.StatusTooManyRequests, "Retry-After", ra))
			clk := newClock()
			var o robots.Options
			fetched := onFetch(&o)
			c := newClient(t, clk, o)
			d := check(t, c, s.URL+"/x")
			<-fetched
			assert.False(t, d.Allowed)
			assert.Equal(t, clk.Now().Add(2*time.Hour), d.FreshUntil)

			clk.Advance(2*time.Hour - time.Second)
			allowed(t, c, s.URL+"/x")
			assert.Equal(t, int32(1), s.requests.Load(), "no refetch before Retry-After")
			clk.Advance(time.Second)
			assert.False(t, allowed(t, c, s.URL+"/x"))
			<-fetched
			assert.Equal(t, int32(2), s.requests.Load())
		})
	}
}

// A 304 to a conditional refetch renews the copy held without reparsing.
func TestConditionalRefetch(t *testing.T) {
	s := newSite(t, nil)
	s.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` && r.Header.Get("If-Modified-Since") == "Sat, 21 Nov 2026 10:00:00 GMT" {
			w.Header().Set("Cache-Control", "max-age=120")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		robotsTxt(disallowPrivate, "ETag", `"v1"`, "Last-Modified", "Sat, 21 Nov 2026 10:00:00 GMT", "Cache-Control", "max-age=60")(w, r)
	})
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	assert.False(t, allowed(t, c, s.URL+"/private"))
	<-fetched

	clk.Advance(time.Minute)
	assert.False(t, allowed(t, c, s.URL+"/private"), "expired: the copy answers while it is revalidated")
	assert.Equal(t, http.StatusNotModified, (<-fetched).Result.StatusCode)
	d := check(t, c, s.URL+"/private")
	assert.False(t, d.Allowed, "rules kept")
	assert.Equal(t, robots.RuleMatched, d.Reason)
	assert.Equal(t, clk.Now(), d.FetchedAt)
	assert.Equal(t, clk.Now().Add(2*time.Minute), d.FreshUntil, "freshness from the 304")
	assert.Equal(t, int32(2), s.requests.Load())
	assert.Equal(t, int32(1), s.conditional.Load())

	clk.Advance(2 * time.Minute)
	allowed(t, c, s.URL+"/private")
	<-fetched
	assert.Equal(t, int32(2), s.conditional.Load(), "validators kept across renewals")
}

// RFC 9111 §4.3.4: a 304 updates the stored headers with its own, and the
// freshness is computed from the result: a bare 304 gives back the stored
// max-age, not 24 hours.
func TestBare304KeepsTheStoredMaxAge(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		robotsTxt(disallowPrivate, "ETag", `"v1"`, "Cache-Control", "max-age=600")(w, r)
	})
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	allowed(t, c, s.URL+"/private")
	<-fetched
	clk.Advance(10 * time.Minute)
	allowed(t, c, s.URL+"/private")
	assert.Equal(t, http.StatusNotModified, (<-fetched).Result.StatusCode)
	d := check(t, c, s.URL+"/private")
	assert.Equal(t, clk.Now().Add(10*time.Minute), d.FreshUntil)
	assert.False(t, d.Allowed)
}

// A 304 while unreachable renews the good copy it was asked about.
func TestConditionalRefetchAfterOutage(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate, "ETag", `"v1"`))
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	c := newClient(t, clk, o)
	allowed(t, c, s.URL+"/")
	<-fetched
	s.set(statusCode(http.StatusServiceUnavailable))
	clk.Advance(25 * time.Hour)
	allowed(t, c, s.URL+"/")
	<-fetched
	assert.True(t, check(t, c, s.URL+"/private").Stale)
	s.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	})
	clk.Advance(time.Hour)
	allowed(t, c, s.URL+"/")
	<-fetched
	d := check(t, c, s.URL+"/private")
	assert.False(t, d.Stale)
	assert.False(t, d.Allowed)
	assert.True(t, d.UnreachableSince.IsZero())
	assert.Equal(t, int32(3), s.requests.Load())
}

func TestSchemesKeptApart(t *testing.T) {
	plain := newSite(t, robotsTxt("User-agent: *\nDisallow: /plain-only\n"))
	secure := httptest.NewTLSServer(robotsTxt("User-agent: *\nDisallow: /tls-only\n"))
	t.Cleanup(secure.Close)
	rt, hc := newRouter(t)
	rt.route("example.test:80", hostOf(plain.Server))
	rt.route("example.test:443", hostOf(secure))
	c := newClient(t, newClock(), robots.Options{HTTPClient: hc})

	assert.False(t, allowed(t, c, "http://example.test/plain-only"))
	assert.True(t, allowed(t, c, "http://example.test/tls-only"))
	assert.False(t, allowed(t, c, "https://example.test/tls-only"))
	assert.True(t, allowed(t, c, "https://example.test/plain-only"))
	// One authority, however spelled: case, default port, userinfo.
	assert.False(t, allowed(t, c, "HTTPS://Example.TEST:443/tls-only"))
	assert.False(t, allowed(t, c, "https://user:pw@example.test./tls-only?x#y"))
	st := c.Stats()
	assert.Equal(t, 2, st.Entries)
	assert.Equal(t, uint64(2), st.Fetches)
}

// The cache is bounded by bytes: past the budget, the least recently used
// authorities go, and are fetched again when asked about.
func TestEviction(t *testing.T) {
	rt, hc := newRouter(t)
	// Files of 480 KB of distinct rules that neither compress nor share
	// much of a trie (each starts with its own number) take about 0.66 MB
	// each with their compiled rules and their body compressed: the
	// smallest budget (16 × 500 KiB) holds about twelve, so sixteen
	// overflow it.
	var big strings.Builder
	big.WriteString("User-agent: *\nDisallow: /private/a-rather-long-path-to-fill-the-file/0\n")
	for i := 0; big.Len() < 480<<10; i++ {
		fmt.Fprintf(&big, "Disallow: /%016x/private/a-rather-long-path-to-fill-the-file\n", scramble(uint64(i)))
	}
	s := newSite(t, robotsTxt(big.String()))
	const hosts = 16
	for i := 0; i < hosts; i++ {
		rt.route(fmt.Sprintf("h%d.test:80", i), hostOf(s.Server))
	}
	c := newClient(t, newClock(), robots.Options{HTTPClient: hc, CacheBytes: 1})
	for i := 0; i < hosts; i++ {
		assert.False(t, allowed(t, c, fmt.Sprintf("http://h%d.test/private/a-rather-long-path-to-fill-the-file/0", i)))
	}
	st := c.Stats()
	assert.Less(t, st.Entries, hosts)
	assert.Positive(t, st.Entries)
	assert.Equal(t, uint64(hosts-st.Entries), st.Evictions)
	assert.LessOrEqual(t, st.Bytes, int64(16*500<<10))
	allowed(t, c, "http://h0.test/") // the least recently used, evicted: fetched again
	assert.Equal(t, int32(hosts+1), s.requests.Load())
	allowed(t, c, fmt.Sprintf("http://h%d.test/", hosts-1)) // the most recent: still held
	assert.Equal(t, int32(hosts+1), s.requests.Load())
}

func TestInvalidate(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate))
	c := newClient(t, newClock(), robots.Options{})
	assert.False(t, allowed(t, c, s.URL+"/private"))
	s.set(robotsTxt("User-agent: *\nAllow: /\n"))
	assert.False(t, allowed(t, c, s.URL+"/private"), "cached")
	require.NoError(t, c.Invalidate(s.URL+"/anything"))
	assert.True(t, allowed(t, c, s.URL+"/private"))
	assert.Equal(t, int32(2), s.requests.Load())
}

// A caller that gives up gets its context's error; the others, and the
// cache, are unaffected.
func TestCallerCancelsMidFetch(t *testing.T) {
	g := newGate()
	s := newSite(t, g.hold(robotsTxt(disallowPrivate)))
	c := newClient(t, newClock(), robots.Options{})

	ctx, cancel := context.WithCancel(context.Background())
	canceled := make(chan error, 1)
	go func() {
		_, err := c.Allowed(ctx, s.URL+"/private")
		canceled <- err
	}()
	<-g.arrived
	others := make(chan bool, 3)
	for i := 0; i < 3; i++ {
		go func() {
			ok, err := c.Allowed(context.Background(), s.URL+"/private")
			assert.NoError(t, err)
			others <- ok
		}()
	}
	cancel()
	err := <-canceled
	require.ErrorIs(t, err, context.Canceled)
	var re *robots.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "allowed", re.Op)

	g.open()
	for i := 0; i < 3; i++ {
		assert.False(t, <-others)
	}
	assert.False(t, allowed(t, c, s.URL+"/private"), "the cache holds the rules")
	assert.Equal(t, int32(1), s.requests.Load())
}

func TestDeadlineBeforeAsking(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate))
	c := newClient(t, newClock(), robots.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Allowed(ctx, s.URL+"/x")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, s.requests.Load(), "no fetch for a caller already gone")
	for _, p := range []string{"/robots.txt", "/%72obots%2Etxt", "/robots.txt#frag"} {
		ok, err := c.Allowed(ctx, s.URL+p)
		assert.NoError(t, err, "%s needs no fetch", p)
		assert.True(t, ok)
	}
	for _, p := range []string{"/robots.txt?x=1", "/Robots.txt", "/robots.txt/"} {
		_, err := c.Allowed(ctx, s.URL+p)
		assert.ErrorIs(t, err, context.Canceled, "%s is not robots.txt: it needs the file", p)
	}
}

func TestFetchTimeout(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	clk := newClock()
	c := newClient(t, clk, robots.Options{FetchTimeout: 200 * time.Millisecond})
	d := check(t, c, s.URL+"/x")
	assert.False(t, d.Allowed)
	assert.Equal(t, robots.Unreachable, d.Reason)
	assert.Equal(t, map[string]uint64{"timeout": 1}, c.Stats().FetchErrors)
}

func TestOnFetchAndLogger(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate))
	down := newSite(t, statusCode(http.StatusServiceUnavailable))
	var events []robots.FetchEvent
	var mu sync.Mutex
	var logs strings.Builder
	c := newClient(t, newClock(), robots.Options{
		OnFetch: func(e robots.FetchEvent) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		},
		Logger: newTextLogger(&logs),
	})
	allowed(t, c, s.URL+"/a")
	allowed(t, c, s.URL+"/b")
	allowed(t, c, down.URL+"/c")
	require.Len(t, events, 2)
	u, _ := url.Parse(s.URL)
	assert.Equal(t, "http://"+u.Host, events[0].Authority)
	assert.Equal(t, 200, events[0].Result.StatusCode)
	assert.False(t, events[0].Unreachable)
	assert.True(t, events[1].Unreachable)
	assert.Contains(t, logs.String(), "robots.txt unreachable")
	assert.Contains(t, logs.String(), "robots.txt fetched")
}

// The Result OnFetch gets is the hook's: what it does with the body
// changes neither the rules nor what the cache keeps or exports.
func TestOnFetchOwnsItsResult(t *testing.T) {
	s := newSite(t, robotsTxt(disallowPrivate))
	c := newClient(t, newClock(), robots.Options{
		OnFetch: func(e robots.FetchEvent) { clear(e.Result.Body) },
	})
	assert.False(t, allowed(t, c, s.URL+"/private/a"))
	assert.True(t, allowed(t, c, s.URL+"/public"))
	var buf bytes.Buffer
	require.NoError(t, c.Export(&buf))
	other := newClient(t, newClock(), robots.Options{})
	require.NoError(t, other.Import(&buf))
	assert.Equal(t, 1, other.Stats().Entries)
	d, err := other.Check(context.Background(), s.URL+"/private/a")
	require.NoError(t, err)
	assert.False(t, d.Allowed, "the exported copy is the file as fetched")
	assert.Zero(t, other.Stats().Fetches, "answered from the import")
}

func TestErrorsWrap(t *testing.T) {
	c := newClient(t, nil, robots.Options{})
	_, err := c.Allowed(context.Background(), "ftp://x/")
	var re *robots.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "allowed", re.Op)
	assert.Equal(t, "ftp://x/", re.URL)
	assert.True(t, strings.HasPrefix(err.Error(), `robots: allowed "ftp://x/": invalid URL`), err.Error())
	// errors.Is sees through a *url.Error, as http.Client returns.
	assert.ErrorIs(t, &url.Error{Op: "Get", URL: "ftp://x/", Err: err}, robots.ErrInvalidURL)
	assert.False(t, errors.Is(err, robots.ErrDisallowed))
	long := (&robots.Error{Op: "check", URL: strings.Repeat("x", 300), Err: robots.ErrInvalidURL}).Error()
	assert.Less(t, len(long), 260)
}

func TestReasonString(t *testing.T) {
	for r := robots.RuleMatched; r <= robots.UnreachableTooLong; r++ {
		assert.NotEqual(t, "unknown reason", r.String())
	}
	assert.Equal(t, "unknown reason", robots.Reason(0).String())
}

// A zero Client, or a nil one, fails at once with an error saying it was not
// made by New, instead of a nil pointer panic at the first request.
func TestClientNotMadeByNew(t *testing.T) {
	ctx := context.Background()
	const u = "https://user:hunter2@example.com/x"
	for name, rc := range map[string]*robots.Client{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			_, err := rc.Allowed(ctx, u)
			errs := []error{err}
			_, err = rc.Check(ctx, u)
			errs = append(errs, err)
			_, err = rc.CrawlDelay(ctx, u)
			errs = append(errs, err)
			_, err = rc.Sitemaps(ctx, u)
			errs = append(errs, err, rc.Invalidate(u), rc.Export(&strings.Builder{}), rc.Import(strings.NewReader("")))
			body := &closeCounter{Reader: strings.NewReader("User-agent: *\n")}
			errs = append(errs, rc.Observe("https://example.com/robots.txt", &http.Response{StatusCode: 200, Body: body, Header: http.Header{}}))
			for i, err := range errs {
				require.Error(t, err, "call %d", i)
				assert.Contains(t, err.Error(), "not made by robots.New", "call %d", i)
				assert.NotContains(t, err.Error(), "hunter2", "call %d", i)
				var re *robots.Error
				assert.ErrorAs(t, err, &re, "call %d", i)
			}
			assert.Equal(t, 1, body.closes, "Observe closes the body whatever happens")
			assert.Equal(t, robots.Stats{}, rc.Stats())
			assert.Empty(t, rc.Agents())
		})
	}
}

// By design: errors never carry a URL's password (url.URL.Redacted).
func TestErrorsRedactPassword(t *testing.T) {
	rc, err := robots.New(robots.Options{UserAgent: "TestBot/1.0"})
	require.NoError(t, err)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		ctx    context.Context
		url    string
		target error
	}{
		{context.Background(), "ftp://crawler:hunter2@example.com/x", robots.ErrInvalidURL},
		{context.Background(), "https://crawler:hunter2@exa mple.com/x", robots.ErrInvalidURL},
		{context.Background(), "https://crawler:hunter2\\@example.com/x", robots.ErrInvalidURL},
		{canceled, "http://crawler:hunter2@127.0.0.1:1/x", context.Canceled},
	} {
		_, err := rc.Allowed(tt.ctx, tt.url)
		require.ErrorIs(t, err, tt.target, tt.url)
		assert.NotContains(t, err.Error(), "hunter2", tt.url)
		assert.Contains(t, err.Error(), "crawler:xxxxx@", tt.url)
		var re *robots.Error
		require.ErrorAs(t, err, &re)
		assert.NotContains(t, re.URL, "hunter2")
	}
	// An Error made by hand is redacted when printed.
	e := &robots.Error{Op: "allowed", URL: "https://u:hunter2@example.com/", Err: robots.ErrDisallowed}
	assert.NotContains(t, e.Error(), "hunter2")
}

// closeCounter is a body that counts its Close calls.
type closeCounter struct {
	*strings.Reader
	closes int
}

func (c *closeCounter) Close() error {
	c.closes++
	return nil
}

// By design: an undecodable body (deflate, br, or labeled gzip but
// not gzip: only gzip is asked for and decoded) is parsed anyway, as text; it
// yields warnings, not rules, so everything is allowed, even what the
// encoded file disallows.
func TestUndecodableBodyParsedAnyway(t *testing.T) {
	var deflated bytes.Buffer
	zw := zlib.NewWriter(&deflated)
	_, err := zw.Write([]byte("User-agent: *\nDisallow: /\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	tests := []struct {
		name, encoding string
		body           []byte
	}{
		{"deflate", "deflate", deflated.Bytes()},
		{"br", "br", []byte("\x1b\x19\x00\xf8\xa5\x40\xc2\xc4\xbc\x94\x11\x0e\x00\x00User-agent\xff\x00/")},
		{"mislabeled gzip", "gzip", deflated.Bytes()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, robotsTxt(string(tt.body), "Content-Encoding", tt.encoding))
			var got []byte
			c := newClient(t, newClock(), robots.Options{OnFetch: func(e robots.FetchEvent) {
				require.NotNil(t, e.Result)
				got = e.Result.Body
			}})
			d, err := c.Check(context.Background(), s.URL+"/private/page")
			require.NoError(t, err)
			assert.True(t, d.Allowed)
			assert.Equal(t, robots.NoGroup, d.Reason, "no group could be read")
			assert.Equal(t, http.StatusOK, d.StatusCode)
			assert.Equal(t, "200 OK: success", d.Outcome, "a file, not a failure")

			// What was parsed is the body as sent, and the parser says why it
			// found no rules.
			assert.Equal(t, tt.body, got)
			r := parser.Parse(got)
			assert.Empty(t, r.Groups)
			assert.NotEmpty(t, r.Warnings)
		})
	}
}
