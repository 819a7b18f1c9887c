package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/crawlkit/robots/robotscolly"
)

// Every test leaves no goroutine behind: the crawl ends with its pages.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// clock is a fake clock: Sleep moves it forward instead of waiting. It
// serves one goroutine's sleeps at a time, as a synchronous collector
// makes them.
type clock struct {
	mu  sync.Mutex
	now time.Time
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
	return nil
}

// hit is one request a server got: its path and when, by the test's clock.
type hit struct {
	path string
	at   time.Time
}

// server is an httptest server that records the requests it gets.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

func (s *server) record(r *http.Request, now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits = append(s.hits, hit{r.URL.Path, now()})
}

// paths returns the paths requested so far, in order.
func (s *server) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p []string
	for _, h := range s.hits {
		p = append(p, h.path)
	}
	return p
}

// pages is the site the crawls run on: the home page links to two public
// pages and a private one, one public page to another private one and to
// a page elsewhere, and the other to a page that moved to a private one.
var pages = map[string]string{
	"/":  `<a href="/a">a</a> <a href="/private/secret">secret</a> <a href="/b">b</a>`,
	"/a": `<a href="/private/other">other</a> <a href="/c">c</a> <a href="https://elsewhere.example/">elsewhere</a>`,
	"/b": `<a href="/old">old</a>`,
	"/c": `c`,
	// Linked from nowhere: only a crawler that ignores robots.txt asks.
	"/private/secret": `secret`,
	"/private/other":  `other`,
}

// newSite serves pages and robotsTxt, and redirects /old to
// /private/old, recording every request with the time now tells.
func newSite(t *testing.T, robotsTxt string, now func() time.Time) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r, now)
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, robotsTxt)
			return
		}
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/private/old", http.StatusMovedPermanently)
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>"+body+"</body></html>")
	}))
	t.Cleanup(s.Close)
	return s
}

// newProxy is a forward HTTP proxy that records what it forwards.
func newProxy(t *testing.T) *server {
	p := &server{}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// A request to a proxy carries the absolute URL it wants.
			pr.Out.URL.Scheme, pr.Out.URL.Host = pr.In.URL.Scheme, pr.In.URL.Host
		},
		Transport: tr,
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.record(r, time.Now)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

const robotsTxt = "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n"

// The command's crawl, through a proxy set with SetProxy (SetProxyFunc
// underneath): the disallowed pages never reach the site, nor the one a
// redirect leads to, the others go through the proxy, and the site sees
// them Crawl-delay apart.
func TestCrawlThroughProxy(t *testing.T) {
	clk := newClock()
	start := clk.Now()
	site := newSite(t, robotsTxt, clk.Now)
	proxy := newProxy(t)
	var out strings.Builder
	g := &robotscolly.Guard{Now: clk.Now, Sleep: clk.Sleep}
	err := crawl(context.Background(), site.URL+"/", config{agent: "ExampleBot", maxPages: 50, proxy: proxy.URL, guard: g}, &out)
	require.NoError(t, err)

	// Depth first, in link order; robots.txt once, fetched by the
	// robots.Client itself, directly.
	assert.Equal(t, []string{"/robots.txt", "/", "/a", "/c", "/b", "/old"}, site.paths())
	assert.Equal(t, []string{"/", "/a", "/c", "/b", "/old"}, proxy.paths(), "the pages went through the proxy")
	assert.Equal(t,
		"fetched    "+site.URL+"/ 200\n"+
			"fetched    "+site.URL+"/a 200\n"+
			"disallowed "+site.URL+"/private/other\n"+
			"fetched    "+site.URL+"/c 200\n"+
			"disallowed "+site.URL+"/private/secret\n"+
			"fetched    "+site.URL+"/b 200\n"+
			"disallowed "+site.URL+"/private/old\n",
		out.String())

	// Crawl-delay: 2, counted by the fake clock: no wait before the first
	// page, then 2 s between pages, as the site saw them.
	site.mu.Lock()
	defer site.mu.Unlock()
	pagesAt := site.hits[1:]
	assert.Equal(t, start, pagesAt[0].at)
	for i := 1; i < len(pagesAt); i++ {
		assert.Equal(t, 2*time.Second, pagesAt[i].at.Sub(pagesAt[i-1].at), "between %s and %s", pagesAt[i-1].path, pagesAt[i].path)
	}
}

func TestRunUsage(t *testing.T) {
	var stdout, stderr strings.Builder
	assert.Equal(t, 2, run(context.Background(), nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: colly")
	assert.Equal(t, 2, run(context.Background(), []string{"-nope"}, &stdout, &stderr))
}
