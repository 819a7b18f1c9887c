package fetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlockedAddr(t *testing.T) {
	blocked := []string{
		"127.0.0.1", "127.255.255.254", "::1", // loopback
		"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "fc00::1", "fd12:3456::1", // private
		"169.254.169.254", "fe80::1", "224.0.0.251", "ff02::1", "ff01::1", // link-local, interface-local
		"0.0.0.0", "::", "0.1.2.3", // unspecified, "this network"
		"100.64.0.1", "100.127.255.255", // shared address space
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0", // IPv4-mapped
	}
	allowed := []string{
		"8.8.8.8", "93.184.216.34", "172.32.0.1", "192.169.0.1", "100.128.0.1", "11.0.0.1",
		"2001:4860:4860::8888", "2606:4700::1111", "::ffff:8.8.8.8",
	}
	for _, s := range blocked {
		assert.True(t, blockedAddr(netip.AddrPortFrom(netip.MustParseAddr(s), 80)), s)
	}
	for _, s := range allowed {
		assert.False(t, blockedAddr(netip.AddrPortFrom(netip.MustParseAddr(s), 80)), s)
	}
	assert.True(t, blockedAddr(netip.AddrPort{}), "an invalid address is refused")
}

// By design: the guard is checked at dial time on every hop, so a redirect
// cannot lead to a blocked address. Both servers are on loopback; the
// policy blocks the second one only, as if the first were public.
func TestGuardOnRedirect(t *testing.T) {
	var hits atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	}))
	t.Cleanup(internal.Close)
	public := httptest.NewServer(http.RedirectHandler(internal.URL+"/robots.txt", http.StatusFound))
	t.Cleanup(public.Close)
	internalAddr := netip.MustParseAddrPort(internal.Listener.Addr().String())
	blockInternal := func(ap netip.AddrPort) bool { return ap == internalAddr }

	for name, client := range map[string]*http.Client{
		"own transport":    nil,
		"caller transport": {Transport: &http.Transport{DialContext: (&net.Dialer{}).DialContext}},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := newFetcher(Config{BlockPrivateNetworks: true, HTTPClient: client}, blockInternal)
			require.NoError(t, err)
			res, err := f.Fetch(context.Background(), public.URL+"/robots.txt", Validators{})
			require.NoError(t, err)
			require.NotNil(t, res.Err)
			assert.Equal(t, Blocked, res.Err.Class)
			assert.Equal(t, opGet, res.Err.Op)
			assert.Equal(t, internal.URL+"/robots.txt", res.Err.URL)
			assert.Equal(t, internal.URL+"/robots.txt", res.FinalURL)
			assert.Zero(t, res.StatusCode, "no response from the final URL")
			assert.Nil(t, res.Header)
			assert.Len(t, res.Redirects, 1)
			assert.Zero(t, hits.Load())
		})
	}
}

// The own transport: no connection kept, no transparent decompression, the
// header cap, and no proxy when the guard is on (a proxy would hide the
// target). ProxyFromEnvironment caches the environment once per process, so
// this is checked on the configuration rather than end to end.
func TestOwnTransport(t *testing.T) {
	for _, guarded := range []bool{false, true} {
		var blocked func(netip.AddrPort) bool
		if guarded {
			blocked = blockedAddr
		}
		tr := ownTransport(1234, blocked)
		assert.True(t, tr.DisableKeepAlives)
		assert.True(t, tr.DisableCompression)
		assert.Equal(t, int64(1234), tr.MaxResponseHeaderBytes)
		assert.Equal(t, guarded, tr.Proxy == nil, "guarded: %v", guarded)
	}
}
