package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
)

// ownTransport returns the transport of a Fetcher without HTTPClient. It
// keeps no connection after a fetch: a robots.txt is fetched once a day per
// authority, and idle connections would leave goroutines behind that only a
// Close could stop. Compression is not left to the transport, which would
// decode gzip without a cap. blocked, when not nil, is the guard's policy.
func ownTransport(headerBytes int64, blocked func(netip.AddrPort) bool) *http.Transport {
	d := &net.Dialer{}
	t := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		DisableKeepAlives:      true,
		DisableCompression:     true,
		MaxResponseHeaderBytes: headerBytes,
	}
	if blocked != nil {
		d.ControlContext = guardControl(blocked)
		t.Proxy = nil
	}
	return t
}

var errGuardTransport = errors.New("fetch: BlockPrivateNetworks needs an *http.Transport (or nil) as HTTPClient.Transport")

// callerTransport returns the round tripper to use for a caller's transport
// rt: a clone when rt is an *http.Transport (nil meaning
// http.DefaultTransport), with the header cap, without keep-alives and, when
// blocked is not nil, with the guard on every dial; rt itself otherwise.
func callerTransport(rt http.RoundTripper, headerBytes int64, blocked func(netip.AddrPort) bool) (http.RoundTripper, error) {
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, ok := rt.(*http.Transport)
	if !ok {
		if blocked != nil {
			return nil, errGuardTransport
		}
		return rt, nil
	}
	c := t.Clone()
	c.MaxResponseHeaderBytes = headerBytes
	c.DisableKeepAlives = true
	c.DisableCompression = true
	if blocked == nil {
		return c, nil
	}
	c.Proxy = nil
	c.DialContext, c.DialTLSContext = guardDials(c, blocked)
	//lint:ignore SA1019 the deprecated dial functions are folded into the guarded ones
	c.Dial, c.DialTLS = nil, nil
	return c, nil
}

// guardDials returns the dial functions of t with the guard on: t's own,
// wrapped, when it sets any (the deprecated Dial and DialTLS included), and a
// dialer that refuses blocked addresses before connecting otherwise.
func guardDials(t *http.Transport, blocked func(netip.AddrPort) bool) (dial, dialTLS dialFunc) {
	//lint:ignore SA1019 a caller's transport may still set the deprecated fields
	oldDial, oldDialTLS := t.Dial, t.DialTLS
	switch {
	case t.DialContext != nil:
		dial = guardDial(t.DialContext, blocked)
	case oldDial != nil:
		dial = guardDial(func(_ context.Context, network, addr string) (net.Conn, error) {
			return oldDial(network, addr)
		}, blocked)
	default:
		dial = (&net.Dialer{ControlContext: guardControl(blocked)}).DialContext
	}
	switch {
	case t.DialTLSContext != nil:
		dialTLS = guardDial(t.DialTLSContext, blocked)
	case oldDialTLS != nil:
		dialTLS = guardDial(func(_ context.Context, network, addr string) (net.Conn, error) {
			return oldDialTLS(network, addr)
		}, blocked)
	}
	return dial, dialTLS
}
