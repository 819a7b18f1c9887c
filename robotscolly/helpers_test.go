package robotscolly

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

	"go.uber.org/goleak"
)

// Every test leaves no goroutine behind: an Async collector's fetches and
// the Guard's waits end with the crawl.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// clock is a fake clock: Sleep moves it forward instead of waiting, and
// records how long it was asked to wait. It serves one goroutine's sleeps
// at a time, as a synchronous collector makes them; fixed, it serves many,
// keeping the sleeps only.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	fixed  bool // Sleep does not move now
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
	c.sleeps = append(c.sleeps, d)
	if !c.fixed {
		c.now = c.now.Add(d)
	}
	return nil
}

// hit is one request a server got: its path, when by the test's clock, and
// its Authorization header.
type hit struct {
	path string
	at   time.Time
	auth string
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
	s.hits = append(s.hits, hit{r.URL.Path, now(), r.Header.Get("Authorization")})
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

// pageTimes returns when each page but robots.txt was requested, in order.
func (s *server) pageTimes() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var at []time.Time
	for _, h := range s.hits {
		if h.path != "/robots.txt" {
			at = append(at, h.at)
		}
	}
	return at
}

// pages is the site the crawls run on: the home page links to two public
// pages and a private one, and one public page to another private one and
// to a page elsewhere.
var pages = map[string]string{
	"/":  `<a href="/a">a</a> <a href="/private/secret">secret</a> <a href="/b">b</a>`,
	"/a": `<a href="/private/other">other</a> <a href="/c">c</a> <a href="https://elsewhere.example/">elsewhere</a>`,
	"/b": `b`,
	"/c": `c`,
	// Linked from nowhere else: only a crawler that ignores robots.txt asks.
	"/private/secret": `secret`,
	"/private/other":  `other`,
}

// newSite serves pages and robotsTxt, recording every request with the
// time now tells. /to?u=URL redirects to URL (302), and /hop/N to /hop/N+1.
func newSite(t *testing.T, robotsTxt string, now func() time.Time) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r, now)
		switch {
		case r.URL.Path == "/robots.txt":
			io.WriteString(w, robotsTxt)
			return
		case r.URL.Path == "/to":
			http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
			return
		case strings.HasPrefix(r.URL.Path, "/hop/"):
			http.Redirect(w, r, "/hop/"+r.URL.Path[len("/hop/"):]+"x", http.StatusFound)
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
