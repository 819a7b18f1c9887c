package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
)

// clock is a fake clock: Sleep moves it forward instead of waiting.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

// hit is one request the site got: its path and when, by the test's clock.
type hit struct {
	path string
	at   time.Time
}

// site is an httptest server that records the requests it gets.
type site struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

func (s *site) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p []string
	for _, h := range s.hits {
		p = append(p, h.path)
	}
	return p
}

// pages: the home page links to public pages, a private one, a redirect to
// a private one, and another site; /a links back and onward.
var pages = map[string]string{
	"/":   `<a href="/a">a</a> <a href="private/secret">secret</a> <a href="/go">go</a> <a href="https://elsewhere.example/">elsewhere</a> <a href="/b#top">b</a>`,
	"/a":  `<a href="/">home</a> <a href="/c">c</a> <a href="/a">self</a>`,
	"/b":  `b`,
	"/c":  `<p>no links</p>`,
	"/go": "", // redirects to /private/target
	// Linked from nowhere but a redirect: only a crawler that ignores
	// robots.txt asks.
	"/private/secret": `secret`,
	"/private/target": `target`,
}

func newSite(t *testing.T, robotsTxt string, now func() time.Time) *site {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, hit{r.URL.Path, now()})
		s.mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, robotsTxt)
			return
		case "/go":
			http.Redirect(w, r, "/private/target", http.StatusFound)
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><body>"+body+"</body></html>")
	}))
	t.Cleanup(s.Close)
	return s
}

// newCrawler returns a Crawler on the fake clock, writing to out.
func newCrawler(t *testing.T, clk *clock, out io.Writer) *Crawler {
	c, err := New("ExampleBot/1.0", out)
	require.NoError(t, err)
	c.Now, c.Sleep = clk.Now, clk.Sleep
	return c
}

// The loop: breadth first on one site; disallowed pages, and a redirect to
// one, never reach the site; Crawl-delay between requests, as the site
// sees them.
func TestCrawl(t *testing.T) {
	clk := newClock()
	start := clk.Now()
	s := newSite(t, "User-agent: *\nDisallow: /private/\nCrawl-delay: 3\n", clk.Now)
	var out strings.Builder
	require.NoError(t, newCrawler(t, clk, &out).Crawl(context.Background(), s.URL+"/", 50))

	assert.Equal(t, []string{"/robots.txt", "/", "/a", "/go", "/b", "/c"}, s.paths(), "no /private/, no second /a")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 6, out.String())
	assert.Equal(t, "fetched    "+s.URL+"/ 200", lines[0])
	assert.Equal(t, "fetched    "+s.URL+"/a 200", lines[1])
	assert.Equal(t, "disallowed "+s.URL+"/private/secret", lines[2])
	// The wrapped http.Client refused the redirect's target itself.
	assert.True(t, strings.HasPrefix(lines[3], "disallowed "+s.URL+"/go ("), lines[3])
	assert.Contains(t, lines[3], robots.ErrDisallowed.Error())
	assert.Equal(t, "fetched    "+s.URL+"/b 200", lines[4])
	assert.Equal(t, "fetched    "+s.URL+"/c 200", lines[5])

	// Crawl-delay: 3, by the fake clock: none before the first page, 3 s
	// between the starts of the others.
	s.mu.Lock()
	defer s.mu.Unlock()
	var at []time.Time
	for _, h := range s.hits {
		if h.path != "/robots.txt" && h.path != "/private/target" {
			at = append(at, h.at)
		}
	}
	require.Len(t, at, 5)
	assert.Equal(t, start, at[0])
	for i := 1; i < len(at); i++ {
		assert.Equal(t, 3*time.Second, at[i].Sub(at[i-1]), "request %d", i)
	}
}

// The requests are errors.Is-able: the wrapped client's refusal is
// robots.ErrDisallowed.
func TestWrappedClientRefuses(t *testing.T) {
	clk := newClock()
	s := newSite(t, "User-agent: *\nDisallow: /private/\n", clk.Now)
	c := newCrawler(t, clk, io.Discard)
	req, err := http.NewRequest(http.MethodGet, s.URL+"/go", nil)
	require.NoError(t, err)
	_, err = c.HTTP.Do(req)
	assert.True(t, errors.Is(err, robots.ErrDisallowed), "%v", err)
	assert.NotContains(t, s.paths(), "/private/target")
}

func TestCrawlLimits(t *testing.T) {
	tests := []struct {
		name     string
		robots   string
		maxPages int
		maxDelay time.Duration
		paths    []string
		sleeps   []time.Duration
	}{
		{"max pages", "User-agent: *\nDisallow: /private/\n", 2, 0,
			[]string{"/robots.txt", "/", "/a"}, nil},
		{"a Crawl-delay above MaxDelay counts as MaxDelay", "User-agent: *\nCrawl-delay: 86400\nDisallow: /private/\n", 2, 0,
			[]string{"/robots.txt", "/", "/a"}, []time.Duration{DefaultMaxDelay}},
		{"MaxDelay set", "User-agent: *\nCrawl-delay: 86400\nDisallow: /private/\n", 3, 5 * time.Second,
			[]string{"/robots.txt", "/", "/a", "/go"}, []time.Duration{5 * time.Second, 5 * time.Second}},
		{"robots.txt allows all", "", 3, 0,
			[]string{"/robots.txt", "/", "/a", "/private/secret"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			s := newSite(t, tt.robots, clk.Now)
			c := newCrawler(t, clk, io.Discard)
			c.MaxDelay = tt.maxDelay
			require.NoError(t, c.Crawl(context.Background(), s.URL+"/", tt.maxPages))
			assert.Equal(t, tt.paths, s.paths())
			assert.Equal(t, tt.sleeps, clk.sleeps)
		})
	}
}

func TestCrawlErrors(t *testing.T) {
	clk := newClock()
	s := newSite(t, "User-agent: *\nCrawl-delay: 1\n", clk.Now)
	c := newCrawler(t, clk, io.Discard)
	for _, start := range []string{"example.com/", "ftp://example.com/", "https://"} {
		assert.ErrorContains(t, c.Crawl(context.Background(), start, 5), "not an http(s) URL")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.Crawl(ctx, s.URL+"/", 5), context.Canceled)
	assert.Empty(t, s.paths())

	var out strings.Builder
	c.Out = &out
	require.NoError(t, c.Crawl(context.Background(), "http://127.0.0.1:99999/", 5))
	assert.Contains(t, out.String(), "invalid    http://127.0.0.1:99999/: ")
}

func TestRunUsage(t *testing.T) {
	var stdout, stderr strings.Builder
	assert.Equal(t, 2, run(context.Background(), nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: crawl")
}
