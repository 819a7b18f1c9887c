package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/client"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// server serves robots.txt and pages, and records every path it is asked.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newServer(t *testing.T, robotsTxt string, extra func(w http.ResponseWriter, r *http.Request) bool) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.RequestURI())
		s.mu.Unlock()
		if extra != nil && extra(w, r) {
			return
		}
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, robotsTxt)
			return
		}
		io.WriteString(w, "page "+r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// transport is a fresh transport per test, closed at its end, so no
// connection outlives it.
func transport(t *testing.T) *http.Transport {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

func newRobots(t *testing.T, hc *http.Client) *robots.Client {
	rc, err := robots.New(robots.Options{UserAgent: "TestBot/1.0", HTTPClient: hc, FetchTimeout: 5 * time.Second})
	require.NoError(t, err)
	return rc
}

func TestWrap(t *testing.T) {
	s := newServer(t, "User-agent: *\nDisallow: /private\n", nil)
	base := &http.Client{Transport: transport(t)}
	hc := client.Wrap(base, newRobots(t, base))
	require.NotSame(t, base, hc)
	assert.NotSame(t, base.Transport, hc.Transport, "the client given is not changed")

	resp, err := hc.Get(s.URL + "/public")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "page /public", string(body))

	_, err = hc.Get(s.URL + "/private/page")
	require.Error(t, err)
	assert.ErrorIs(t, err, robots.ErrDisallowed, "through the *url.Error of http.Client")
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	var re *robots.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "round-trip", re.Op)
	assert.Equal(t, s.URL+"/private/page", re.URL)

	assert.Equal(t, []string{"/robots.txt", "/public"}, s.asked(), "the server never saw the disallowed request")

	// /robots.txt itself passes straight through.
	resp, err = hc.Get(s.URL + "/robots.txt")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
}

// Every hop of a redirect goes through the transport, so a redirect into a
// disallowed path is refused before it is requested.
func TestRedirectHopChecked(t *testing.T) {
	s := newServer(t, "User-agent: *\nDisallow: /private\n", func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, "/private/target", http.StatusFound)
			return true
		}
		return false
	})
	base := &http.Client{Transport: transport(t)}
	hc := client.Wrap(base, newRobots(t, base))
	_, err := hc.Get(s.URL + "/go")
	assert.ErrorIs(t, err, robots.ErrDisallowed)
	assert.Equal(t, []string{"/robots.txt", "/go"}, s.asked())
}

// trackingBody records whether it was closed.
type trackingBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *trackingBody) Close() error {
	b.closed.Store(true)
	return nil
}

// The RoundTripper contract: the request is not modified, and its body is
// closed when the request is not sent.
func TestRoundTripperContract(t *testing.T) {
	s := newServer(t, "User-agent: *\nDisallow: /private\n", nil)
	base := &http.Client{Transport: transport(t)}
	tr := &client.Transport{Base: base.Transport, Robots: newRobots(t, base)}

	body := &trackingBody{Reader: strings.NewReader("payload")}
	req, err := http.NewRequest(http.MethodPost, s.URL+"/private/form", body)
	require.NoError(t, err)
	req.Header.Set("X-Test", "1")
	before := req.Clone(context.Background())
	_, err = tr.RoundTrip(req)
	assert.ErrorIs(t, err, robots.ErrDisallowed)
	assert.True(t, body.closed.Load(), "body closed")
	assert.Equal(t, before.URL, req.URL)
	assert.Equal(t, before.Header, req.Header)
	assert.Equal(t, before.Method, req.Method)

	// A request with no usable URL is refused with a typed error.
	bad := &http.Request{Method: "GET", URL: &url.URL{Scheme: "ftp", Host: "x", Path: "/a"}, Header: http.Header{}}
	_, err = tr.RoundTrip(bad)
	assert.ErrorIs(t, err, robots.ErrInvalidURL)

	// An allowed request goes through, body and all.
	req, err = http.NewRequest(http.MethodPost, s.URL+"/public", bytes.NewReader([]byte("x")))
	require.NoError(t, err)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
}

func TestConcurrentUse(t *testing.T) {
	s := newServer(t, "User-agent: *\nDisallow: /private\n", nil)
	base := &http.Client{Transport: transport(t)}
	hc := client.Wrap(base, newRobots(t, base))
	var wg sync.WaitGroup
	var refused atomic.Int32
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			path := "/public"
			if i%2 == 0 {
				path = "/private"
			}
			resp, err := hc.Get(s.URL + path)
			if errors.Is(err, robots.ErrDisallowed) {
				refused.Add(1)
				return
			}
			if assert.NoError(t, err) {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}(i)
	}
	wg.Wait()
	assert.Equal(t, int32(20), refused.Load())
	robotsFetches := 0
	for _, p := range s.asked() {
		if p == "/robots.txt" {
			robotsFetches++
		}
	}
	assert.Equal(t, 1, robotsFetches)
}

// The robots.Client may fetch robots.txt with the very client that Wrap
// returned: its fetches, redirects included, pass through unchecked, so
// nothing recurses or waits on itself.
func TestNoRecursion(t *testing.T) {
	s := newServer(t, "", func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/robots.txt":
			http.Redirect(w, r, "/real-robots.txt", http.StatusMovedPermanently)
			return true
		case "/real-robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return true
		}
		return false
	})
	rt := &client.Transport{Base: transport(t)}
	wrapped := &http.Client{Transport: rt}
	rt.Robots = newRobots(t, wrapped) // robots.txt fetched through rt itself

	// A guard against a wait on itself, which would never end; not a
	// measure of time: the answers come in milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/private/x", nil)
	_, err := wrapped.Do(req)
	assert.ErrorIs(t, err, robots.ErrDisallowed)
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/ok", nil)
	resp, err := wrapped.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
}

func TestWrapNil(t *testing.T) {
	base := &http.Client{Transport: transport(t)}
	hc := client.Wrap(nil, newRobots(t, base))
	tr, ok := hc.Transport.(*client.Transport)
	require.True(t, ok)
	assert.Nil(t, tr.Base, "nil Base means http.DefaultTransport")
}

// By design: errors never carry a URL's password. http.Client strips it from
// its *url.Error; the robots.Error inside must not quote it either.
func TestErrorsRedactPassword(t *testing.T) {
	s := newServer(t, "User-agent: *\nDisallow: /private\n", nil)
	base := &http.Client{Transport: transport(t)}
	tr := &client.Transport{Base: base.Transport, Robots: newRobots(t, base)}
	withPassword := func(rawURL string) *url.URL {
		u, err := url.Parse(rawURL)
		require.NoError(t, err)
		u.User = url.UserPassword("crawler", "hunter2")
		return u
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	other := newServer(t, "", nil) // not cached: a canceled request waits on its fetch
	tests := []struct {
		name   string
		ctx    context.Context
		url    *url.URL
		target error
	}{
		{"disallowed", context.Background(), withPassword(s.URL + "/private/x"), robots.ErrDisallowed},
		{"invalid URL", context.Background(), withPassword("ftp://example.com/x"), robots.ErrInvalidURL},
		{"canceled", canceled, withPassword(other.URL + "/x"), context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := (&http.Request{Method: http.MethodGet, URL: tt.url, Header: http.Header{}}).WithContext(tt.ctx)
			_, err := tr.RoundTrip(req)
			require.ErrorIs(t, err, tt.target)
			assert.NotContains(t, err.Error(), "hunter2")
			var re *robots.Error
			require.ErrorAs(t, err, &re)
			assert.NotContains(t, re.URL, "hunter2")
			assert.Contains(t, re.URL, "crawler:xxxxx@", "redacted as url.URL.Redacted does")
		})
	}
}

// http.Client.CloseIdleConnections reaches the wrapped transport through
// the Transport.
func TestCloseIdleConnectionsForwarded(t *testing.T) {
	base := &idleCounter{}
	hc := client.Wrap(&http.Client{Transport: base}, newRobots(t, &http.Client{Transport: transport(t)}))
	hc.CloseIdleConnections()
	assert.Equal(t, int32(1), base.closed.Load())

	// A Base without the method is left alone.
	(&client.Transport{Base: roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, nil })}).CloseIdleConnections()
}

type idleCounter struct {
	http.RoundTripper
	closed atomic.Int32
}

func (c *idleCounter) CloseIdleConnections() { c.closed.Add(1) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// RFC 9309 §2.2.2: /robots.txt is implicitly allowed; /robots.txt?x=1 is
// another URL, decided by the rules. The Transport decides each as Allowed
// does.
func TestRobotsTxtDecidedAsAllowed(t *testing.T) {
	s := newServer(t, "User-agent: *\nDisallow: /\n", nil)
	base := &http.Client{Transport: transport(t)}
	rc := newRobots(t, base)
	hc := client.Wrap(base, rc)
	ctx := context.Background()
	for _, path := range []string{"/robots.txt", "/robots.txt?x=1", "/%72obots.txt", "/robots.txt?", "/robots.txt#top"} {
		allowed, err := rc.Allowed(ctx, s.URL+path)
		require.NoError(t, err, path)
		resp, err := hc.Get(s.URL + path)
		if allowed {
			require.NoError(t, err, path)
			resp.Body.Close()
		} else {
			assert.ErrorIs(t, err, robots.ErrDisallowed, path)
		}
	}
	allowed, _ := rc.Allowed(ctx, s.URL+"/robots.txt?x=1")
	assert.False(t, allowed, "Disallow: / covers /robots.txt?x=1")
	for _, p := range s.asked() {
		assert.NotContains(t, p, "x=1", "the Transport never sent what Allowed refuses")
	}
}

// A Transport without a robots.Client, or with one not made by robots.New,
// fails every request at once with a clear error, and sends nothing.
func TestNoRobotsClient(t *testing.T) {
	s := newServer(t, "", nil)
	tests := []struct {
		name string
		hc   *http.Client
		want string
	}{
		{"Wrap(nil, nil)", client.Wrap(nil, nil), "Transport.Robots is nil"},
		{"zero Transport", &http.Client{Transport: &client.Transport{}}, "Transport.Robots is nil"},
		{"zero robots.Client", client.Wrap(&http.Client{Transport: transport(t)}, &robots.Client{}), "not made by robots.New"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &trackingBody{Reader: strings.NewReader("payload")}
			req, err := http.NewRequest(http.MethodPost, s.URL+"/page", body)
			require.NoError(t, err)
			_, err = tt.hc.Do(req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var re *robots.Error
			assert.ErrorAs(t, err, &re)
			assert.True(t, body.closed.Load(), "body closed")
		})
	}
	assert.Empty(t, s.asked(), "nothing was sent")
}

// A page request that names no User-Agent is sent with the crawler's
// (robots.Options.UserAgent), on every hop of a redirect, as robots.txt
// is; one that names its own keeps it, even an empty one. The request the
// caller made is not changed (the RoundTripper contract).
func TestPagesCarryTheCrawlersUserAgent(t *testing.T) {
	const crawler = "TestBot/1.0"
	var mu sync.Mutex
	seen := map[string][]string{} // path → User-Agent values sent
	s := newServer(t, "User-agent: *\nDisallow: /private\n", func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		seen[r.URL.Path] = append(seen[r.URL.Path], r.Header.Values("User-Agent")...)
		mu.Unlock()
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/target", http.StatusFound)
			return true
		}
		return false
	})
	base := &http.Client{Transport: transport(t)}
	hc := client.Wrap(base, newRobots(t, base))
	get := func(path string, header ...string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
		require.NoError(t, err)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header[header[i]] = []string{header[i+1]}
		}
		before := req.Header.Clone()
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, before, req.Header, "the caller's request is not changed")
	}
	get("/plain")
	get("/own", "User-Agent", "Custom/2.0")
	get("/empty", "User-Agent", "")
	get("/moved")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{crawler}, seen["/robots.txt"])
	assert.Equal(t, []string{crawler}, seen["/plain"], "Go would have sent Go-http-client/1.1")
	assert.Equal(t, []string{"Custom/2.0"}, seen["/own"])
	assert.Empty(t, seen["/empty"], "an empty User-Agent is the caller's choice: none is sent")
	assert.Equal(t, []string{crawler}, seen["/moved"])
	assert.Equal(t, []string{crawler}, seen["/target"], "the redirect's hop too")
}

// A Transport used directly, without Wrap, identifies the crawler too.
func TestTransportIdentifiesTheCrawler(t *testing.T) {
	var got atomic.Value
	s := newServer(t, "", func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/page" {
			got.Store(r.UserAgent())
		}
		return false
	})
	base := &http.Client{Transport: transport(t)}
	rt := &client.Transport{Base: base.Transport, Robots: newRobots(t, base)}
	req, err := http.NewRequest(http.MethodGet, s.URL+"/page", nil)
	require.NoError(t, err)
	req.Header = nil // a RoundTripper may be given a request without a header map
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "TestBot/1.0", got.Load())
	assert.Nil(t, req.Header, "the caller's request is not changed")
}
