package fetch_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// now is the fixed instant of the tests' clock.
var now = time.Date(2026, 10, 21, 7, 28, 0, 0, time.UTC)

const rules = "User-agent: *\nDisallow: /private/\n"

// newFetcher returns a Fetcher for cfg, with the tests' clock unless cfg
// has one.
func newFetcher(t testing.TB, cfg fetch.Config) *fetch.Fetcher {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return now }
	}
	f, err := fetch.New(cfg)
	require.NoError(t, err)
	return f
}

// get fetches url with a Fetcher for cfg and requires that Fetch itself
// succeeds: every failure of the server must land in Result.Err.
func get(t testing.TB, cfg fetch.Config, url string) *fetch.Result {
	t.Helper()
	res, err := newFetcher(t, cfg).Fetch(context.Background(), url, fetch.Validators{})
	require.NoError(t, err)
	require.NotNil(t, res)
	return res
}

// serve starts an httptest server for h, closed when the test ends.
func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// text returns a handler that answers code with body as text/plain.
func text(code int, body string) http.HandlerFunc {
	b := []byte(body) // once: the benchmarks count the server's allocations too
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		w.Write(b)
	}
}

// outcome classifies res at the tests' instant and checks its verdict and
// class.
func outcome(t testing.TB, res *fetch.Result, v status.Verdict, c status.Class) status.Outcome {
	t.Helper()
	o := status.Classify(res, now)
	assert.Equal(t, v, o.Verdict, "verdict; reason: %s", o.Reason)
	assert.Equal(t, c, o.Class, "class; reason: %s", o.Reason)
	return o
}

// failed checks that res ended with an error of class c during op.
func failed(t testing.TB, res *fetch.Result, c fetch.Class, op string) {
	t.Helper()
	require.NotNil(t, res.Err, "Result.Err")
	assert.Equal(t, c, res.Err.Class, "class of %v", res.Err)
	assert.Equal(t, op, res.Err.Op, "op of %v", res.Err)
}

// rawServer serves each TCP connection with handle once the request head has
// been read, for what an http.Handler cannot do: malformed status lines,
// resets, silence. It returns the server's base URL; the listener and every
// connection are closed, and every handler waited for, when the test ends.
func rawServer(t testing.TB, handle func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || strings.TrimRight(line, "\r\n") == "" {
						break
					}
				}
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}

// hostClient returns an HTTP client that connects to the test server of the
// host of each request, as DNS would: it lets one test use several host
// names.
func hostClient(hosts map[string]*httptest.Server) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			if srv, ok := hosts[host]; ok {
				addr = srv.Listener.Addr().String()
			}
			return d.DialContext(ctx, network, addr)
		},
	}}
}

// waitClosed reads from c, saying nothing, until the client closes it.
func waitClosed(c net.Conn) { io.Copy(io.Discard, c) }
