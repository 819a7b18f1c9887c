package fetch_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
	"github.com/stretchr/testify/assert"
)

// By design: the optional guard refuses loopback, private, link-local and
// unspecified addresses at dial time: a refused dial is a network error,
// unreachable. The server never sees a request.
func TestGuard(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		text(200, rules)(w, r)
	})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var d net.Dialer
	toServer := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}
	tests := []struct {
		name string
		cfg  fetch.Config
		url  string
	}{
		{"own transport", fetch.Config{}, srv.URL + "/robots.txt"},
		{"ipv4-mapped ipv6", fetch.Config{}, "http://[::ffff:127.0.0.1]:" + port + "/robots.txt"},
		{"localhost", fetch.Config{}, "http://localhost:" + port + "/robots.txt"},
		// A host name that resolves, here by the caller's dialer, to loopback.
		{"caller's dialer", fetch.Config{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: toServer}}},
			"http://public.example/robots.txt"},
		{"caller's client, default transport", fetch.Config{HTTPClient: &http.Client{}}, srv.URL + "/robots.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			res := get(t, cfg, tt.url)
			assert.Nil(t, res.Err, "off by default")

			cfg.BlockPrivateNetworks = true
			before := hits.Load()
			res = get(t, cfg, tt.url)
			failed(t, res, fetch.Blocked, "GET")
			assert.Zero(t, res.StatusCode)
			assert.Equal(t, before, hits.Load(), "no request reaches the server")
			outcome(t, res, status.DisallowAll, status.Unreachable)
		})
	}
}

// With the guard on, a caller's proxy is not used: it would hide the target.
func TestGuardIgnoresProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		text(200, rules)(w, r)
	}))
	t.Cleanup(proxy.Close)
	client := &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return url.Parse(proxy.URL) }}}

	res := get(t, fetch.Config{HTTPClient: client}, "http://public.example/robots.txt")
	assert.Nil(t, res.Err)
	assert.Equal(t, int32(1), proxied.Load(), "the proxy is used without the guard")

	res = get(t, fetch.Config{HTTPClient: client, BlockPrivateNetworks: true}, "http://robots-test.invalid/robots.txt")
	failed(t, res, fetch.DNS, "GET")
	assert.Equal(t, int32(1), proxied.Load(), "the proxy is not used with the guard")
	assert.Contains(t, res.Err.Error(), "robots-test.invalid")
}
