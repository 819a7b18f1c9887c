// Package client makes an http.Client obey robots.txt: every request it
// sends, and every redirect it follows, is first checked with a
// robots.Client, and a disallowed one fails without reaching the server.
//
//	hc := client.Wrap(http.DefaultClient, rc)
//	resp, err := hc.Get("https://example.com/private/page")
//	if errors.Is(err, robots.ErrDisallowed) { … }
//
// Requests for /robots.txt pass straight through, and so do the robots.txt
// fetches of the robots.Client itself, so wrapping the very client that
// fetches robots.txt cannot recurse.
//
// Non-goals: crawl-delay or rate limiting (see robots.Client.CrawlDelay),
// and robots meta tags or X-Robots-Tag headers, which govern indexing, not
// fetching.
package client

import (
	"net/http"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/bypass"
	"github.com/crawlkit/robots/internal/urlpath"
)

// Transport is an http.RoundTripper that sends a request through Base only
// if Robots allows its URL. It keeps the RoundTripper contract: it does not
// modify the request, closes its body when it does not send it, and is safe
// for concurrent use.
type Transport struct {
	// Base sends the requests that are allowed. Nil means
	// http.DefaultTransport.
	Base http.RoundTripper
	// Robots decides. It must not be nil.
	Robots *robots.Client
}

// RoundTrip sends req through Base when robots.txt allows its URL. When it
// does not, RoundTrip returns an error for which
// errors.Is(err, robots.ErrDisallowed) holds, and the server never sees the
// request. When robots.txt cannot be consulted (the request's context ends
// first, or its URL is not http(s)), the error says so, as an *robots.Error.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if bypass.Is(req.Context()) || req.URL != nil && urlpath.Path(req.URL.EscapedPath()) == "/robots.txt" {
		return base.RoundTrip(req)
	}
	if req.URL == nil {
		closeBody(req)
		return nil, &robots.Error{Op: "round-trip", Err: robots.ErrInvalidURL}
	}
	u := req.URL.String()
	ok, err := t.Robots.Allowed(req.Context(), u)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if !ok {
		closeBody(req)
		return nil, &robots.Error{Op: "round-trip", URL: u, Err: robots.ErrDisallowed}
	}
	return base.RoundTrip(req)
}

// closeBody closes the body of a request that will not be sent, as the
// RoundTripper contract requires.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// Wrap returns a copy of hc whose requests, redirects included, are checked
// with rc first: its Transport is a Transport over hc's (nil meaning
// http.DefaultTransport). hc itself is not changed; a nil hc stands for
// http.DefaultClient.
func Wrap(hc *http.Client, rc *robots.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	wrapped := *hc
	wrapped.Transport = &Transport{Base: hc.Transport, Robots: rc}
	return &wrapped
}
