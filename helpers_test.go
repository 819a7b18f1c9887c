package robots_test

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
)

// clock is a settable clock for Options.Now: tests move through expiry and
// backoff without sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// site is a test server for one robots.txt: it counts the robots.txt
// requests it gets, and answers with handler.
type site struct {
	*httptest.Server
	mu          sync.Mutex
	handler     http.HandlerFunc
	requests    atomic.Int32
	conditional atomic.Int32
}

func newSite(t *testing.T, handler http.HandlerFunc) *site {
	s := &site{handler: handler}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		s.requests.Add(1)
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			s.conditional.Add(1)
		}
	}
	s.mu.Lock()
	h := s.handler
	s.mu.Unlock()
	h(w, r)
}

// set changes the site's answer from now on.
func (s *site) set(h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// robotsTxt answers /robots.txt with body and the given header pairs, and
// every other path with 200 "page".
func robotsTxt(body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			w.Write([]byte("page"))
			return
		}
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Add(header[i], header[i+1])
		}
		w.Write([]byte(body))
	}
}

// statusCode answers every request with code and the given header pairs.
func statusCode(code int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Add(header[i], header[i+1])
		}
		w.WriteHeader(code)
	}
}

// newClient returns a Client for the crawler "TestBot" on clk, with o's
// other settings.
func newClient(t *testing.T, clk *clock, o robots.Options) *robots.Client {
	t.Helper()
	if o.UserAgent == "" {
		o.UserAgent = "TestBot/1.0 (+https://example.com/bot)"
	}
	if clk != nil {
		o.Now = clk.Now
	}
	if o.FetchTimeout == 0 {
		o.FetchTimeout = 5 * time.Second
	}
	c, err := robots.New(o)
	require.NoError(t, err)
	return c
}

// router is an HTTP client whose dials go to test servers by host name, so
// tests can use real-looking authorities: "example.test:80" and
// "example.test:443" can be two servers, one plain, one TLS.
type router struct {
	mu     sync.Mutex
	routes map[string]string // "host:port" -> listener address
}

func (rt *router) route(hostport, addr string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.routes[hostport] = addr
}

func newRouter(t *testing.T) (*router, *http.Client) {
	rt := &router{routes: map[string]string{}}
	dial := func(ctx context.Context, network, hostport string) (net.Conn, error) {
		rt.mu.Lock()
		addr, ok := rt.routes[hostport]
		rt.mu.Unlock()
		if !ok {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: hostport, IsNotFound: true}}
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	tr := &http.Transport{
		DialContext:     dial,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // httptest certificates
	}
	t.Cleanup(tr.CloseIdleConnections)
	return rt, &http.Client{Transport: tr}
}

// hostOf returns "host:port" of a test server's URL.
func hostOf(s *httptest.Server) string {
	return strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
}

func newTextLogger(w *strings.Builder) *slog.Logger {
	var mu sync.Mutex
	return slog.New(slog.NewTextHandler(lockedWriter{w: w, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// onFetch makes o's OnFetch send every FetchEvent to the channel it
// returns. OnFetch runs once a fetch's result is cached: a test waits on
// the channel for a refetch running in the background.
func onFetch(o *robots.Options) <-chan robots.FetchEvent {
	ch := make(chan robots.FetchEvent, 100)
	o.OnFetch = func(e robots.FetchEvent) { ch <- e }
	return ch
}

// gate holds the requests of the handlers it wraps until it is opened, and
// says when each arrives: a test knows a fetch is under way, and that it
// cannot end before the test lets it.
type gate struct {
	arrived chan struct{}
	release chan struct{}
}

func newGate() *gate {
	return &gate{arrived: make(chan struct{}, 100), release: make(chan struct{})}
}

// hold wraps h: each request arrives, then waits for open.
func (g *gate) hold(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g.arrived <- struct{}{}
		<-g.release
		h(w, r)
	}
}

func (g *gate) open() { close(g.release) }
