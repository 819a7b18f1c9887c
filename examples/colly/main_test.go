package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/client"
)

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
// pages and a private one, and one public page to another private one and
// to a page elsewhere.
var pages = map[string]string{
	"/":  `<a href="/a">a</a> <a href="/private/secret">secret</a> <a href="/b">b</a>`,
	"/a": `<a href="/private/other">other</a> <a href="/c">c</a> <a href="https://elsewhere.example/">elsewhere</a>`,
	"/b": `b`,
	"/c": `c`,
	// Linked from nowhere: only a crawler that ignores robots.txt asks.
	"/private/secret": `secret`,
	"/private/other":  `other`,
}

// newSite serves pages and robotsTxt, recording every request with the
// time now tells.
func newSite(t *testing.T, robotsTxt string, now func() time.Time) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r, now)
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, robotsTxt)
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
// underneath): the disallowed pages never reach the site, the others go
// through the proxy, and the site sees them Crawl-delay apart.
func TestCrawlThroughProxy(t *testing.T) {
	clk := newClock()
	start := clk.Now()
	site := newSite(t, robotsTxt, clk.Now)
	proxy := newProxy(t)
	var out strings.Builder
	g := &Guard{Now: clk.Now, Sleep: clk.Sleep}
	err := crawl(context.Background(), site.URL+"/", config{agent: "ExampleBot", maxPages: 50, proxy: proxy.URL, guard: g}, &out)
	require.NoError(t, err)

	// Depth first, in link order; robots.txt once, fetched by the
	// robots.Client itself, directly.
	assert.Equal(t, []string{"/robots.txt", "/", "/a", "/c", "/b"}, site.paths())
	assert.Equal(t, []string{"/", "/a", "/c", "/b"}, proxy.paths(), "the pages went through the proxy")
	assert.Equal(t,
		"fetched    "+site.URL+"/ 200\n"+
			"fetched    "+site.URL+"/a 200\n"+
			"disallowed "+site.URL+"/private/other\n"+
			"fetched    "+site.URL+"/c 200\n"+
			"disallowed "+site.URL+"/private/secret\n"+
			"fetched    "+site.URL+"/b 200\n",
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

// Why the Guard is a callback: a robots-checking transport given to
// WithTransport refuses a disallowed page until SetProxyFunc replaces it;
// after that, the page is fetched. The Guard refuses it either way.
func TestSetProxyFuncDropsTheTransport(t *testing.T) {
	site := newSite(t, robotsTxt, time.Now)
	proxy := newProxy(t)
	proxyURL, err := url.Parse(proxy.URL)
	require.NoError(t, err)
	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})
	require.NoError(t, err)
	secret := site.URL + "/private/secret"

	tests := []struct {
		name      string
		guard     bool // the Guard, else a client.Transport
		setProxy  bool
		requested bool // the site got /private/secret
	}{
		{"transport", false, false, false},
		{"transport, then SetProxyFunc", false, true, true},
		{"guard", true, false, false},
		{"guard, then SetProxyFunc", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := colly.NewCollector(colly.UserAgent("ExampleBot/1.0"), colly.AllowURLRevisit())
			var refused error
			if tt.guard {
				(&Guard{Robots: rc, Refused: func(_ *colly.Request, err error) { refused = err }}).Obey(c)
			} else {
				c.WithTransport(&client.Transport{Robots: rc, Base: &http.Transport{}})
			}
			if tt.setProxy {
				c.SetProxyFunc(http.ProxyURL(proxyURL))
			}
			before := len(site.paths())
			err := c.Visit(secret)
			requested := slices.Contains(site.paths()[before:], "/private/secret")
			assert.Equal(t, tt.requested, requested, "the site got the disallowed page")
			if tt.requested {
				return
			}
			if tt.guard {
				assert.NoError(t, err, "colly's Visit says nothing of an aborted request")
				err = refused
			}
			assert.ErrorIs(t, err, robots.ErrDisallowed)
		})
	}
}

// What Refused gets: ErrDisallowed for a disallowed URL (or a site whose
// robots.txt is unreachable: RFC 9309 §2.3.1.4), and the cause, not
// ErrDisallowed, for a request that could not be checked.
func TestRefused(t *testing.T) {
	site := newSite(t, robotsTxt, time.Now)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name       string
		ctx        context.Context
		url        string
		disallowed bool
		cause      error
	}{
		{"disallowed", context.Background(), site.URL + "/private/x", true, nil},
		{"robots.txt unreachable", context.Background(), down.URL + "/page", true, nil},
		{"collector's context ended", canceled, site.URL + "/b", false, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})
			require.NoError(t, err)
			c := colly.NewCollector(colly.StdlibContext(tt.ctx))
			var got []error
			(&Guard{Robots: rc, Refused: func(_ *colly.Request, err error) { got = append(got, err) }}).Obey(c)
			fetched := false
			c.OnResponse(func(*colly.Response) { fetched = true })
			require.NoError(t, c.Visit(tt.url))
			assert.False(t, fetched)
			require.Len(t, got, 1)
			assert.Equal(t, tt.disallowed, errors.Is(got[0], robots.ErrDisallowed), "%v", got[0])
			if tt.cause != nil {
				assert.ErrorIs(t, got[0], tt.cause)
			}
		})
	}
}

// A Crawl-delay above MaxDelay counts as MaxDelay; zero means a minute.
func TestMaxDelay(t *testing.T) {
	tests := []struct {
		name     string
		maxDelay time.Duration
		want     time.Duration
	}{
		{"default", 0, DefaultMaxDelay},
		{"set", 5 * time.Second, 5 * time.Second},
		{"above the file's", 2 * time.Hour, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			site := newSite(t, "User-agent: *\nCrawl-delay: 3600\n", clk.Now)
			g := &Guard{Now: clk.Now, Sleep: clk.Sleep, MaxDelay: tt.maxDelay}
			require.NoError(t, crawl(context.Background(), site.URL+"/b", config{agent: "ExampleBot", maxPages: 5, guard: g}, io.Discard))
			require.NoError(t, crawl(context.Background(), site.URL+"/c", config{agent: "ExampleBot", maxPages: 5, guard: g}, io.Discard))
			site.mu.Lock()
			defer site.mu.Unlock()
			var at []time.Time
			for _, h := range site.hits {
				if h.path != "/robots.txt" {
					at = append(at, h.at)
				}
			}
			require.Len(t, at, 2)
			assert.Equal(t, tt.want, at[1].Sub(at[0]))
		})
	}
}

// reserve gives requests to one host starts delay apart, whatever the
// order and concurrency of the callers, and leaves other hosts alone.
func TestReserve(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var g Guard
	assert.Equal(t, t0, g.reserve("a.test", t0, 2*time.Second), "the first waits not")
	assert.Equal(t, t0.Add(2*time.Second), g.reserve("a.test", t0, 2*time.Second))
	assert.Equal(t, t0.Add(4*time.Second), g.reserve("a.test", t0.Add(time.Second), 2*time.Second))
	assert.Equal(t, t0, g.reserve("b.test", t0, 2*time.Second), "another host")
	assert.Equal(t, t0.Add(10*time.Second), g.reserve("a.test", t0.Add(10*time.Second), 2*time.Second), "long after")
	assert.Equal(t, t0.Add(12*time.Second), g.reserve("a.test", t0.Add(10*time.Second), 0), "no delay still waits its turn")

	const callers = 64
	var wg sync.WaitGroup
	starts := make([]time.Time, callers)
	for i := range callers {
		wg.Go(func() { starts[i] = g.reserve("c.test", t0, time.Second) })
	}
	wg.Wait()
	slices.SortFunc(starts, time.Time.Compare)
	for i, s := range starts {
		assert.Equal(t, t0.Add(time.Duration(i)*time.Second), s)
	}
}

// The map of hosts is bounded: past maxHosts, hosts whose turn has come are
// forgotten.
func TestReserveForgets(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var g Guard
	for i := range 3 * maxHosts {
		g.reserve(fmt.Sprintf("h%d.test", i), t0.Add(time.Duration(i)*time.Second), time.Second)
	}
	assert.LessOrEqual(t, len(g.next), maxHosts+1)
}

// An Async collector calls the Guard from many goroutines: the disallowed
// pages are still never requested.
func TestAsync(t *testing.T) {
	site := newSite(t, "User-agent: *\nDisallow: /private/\n", time.Now)
	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})
	require.NoError(t, err)
	u, err := url.Parse(site.URL)
	require.NoError(t, err)
	c := colly.NewCollector(colly.Async(true), colly.AllowedDomains(u.Hostname())) // not elsewhere.example
	require.NoError(t, c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}))
	var mu sync.Mutex
	var refused []string
	(&Guard{Robots: rc, Refused: func(r *colly.Request, err error) {
		mu.Lock()
		defer mu.Unlock()
		if errors.Is(err, robots.ErrDisallowed) {
			refused = append(refused, r.URL.Path)
		}
	}}).Obey(c)
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	require.NoError(t, c.Visit(site.URL+"/"))
	c.Wait()
	got := site.paths()
	slices.Sort(got)
	assert.Equal(t, []string{"/", "/a", "/b", "/c", "/robots.txt"}, got)
	slices.Sort(refused)
	assert.Equal(t, []string{"/private/other", "/private/secret"}, refused)
}

func TestRunUsage(t *testing.T) {
	var stdout, stderr strings.Builder
	assert.Equal(t, 2, run(context.Background(), nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: colly")
	assert.Equal(t, 2, run(context.Background(), []string{"-nope"}, &stdout, &stderr))
}
