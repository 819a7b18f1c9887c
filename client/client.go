// Package client makes an http.Client obey robots.txt: every request it
// sends, and every redirect it follows, is first checked with a
// robots.Client, and a disallowed one fails without reaching the server.
//
//	hc := client.Wrap(http.DefaultClient, rc)
//	resp, err := hc.Get("https://example.com/private/page")
//	if errors.Is(err, robots.ErrDisallowed) { … }
//
// Requests for /robots.txt pass straight through, decided as
// robots.Client.Allowed decides them, and so do the robots.txt fetches of
// the robots.Client itself, so wrapping the very client that fetches
// robots.txt cannot recurse.
//
// A request that carries no User-Agent header of its own is sent with the
// robots.Client's (robots.Options.UserAgent), so that the crawler
// identifies itself on its pages as on robots.txt, where Go would send
// "Go-http-client/1.1"; one that sets its own, even empty, keeps it.
//
// Non-goals: crawl-delay or rate limiting (see robots.Client.CrawlDelay),
// and robots meta tags or X-Robots-Tag headers, which govern indexing, not
// fetching.
package client

import (
	"errors"
	"net/http"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/bypass"
)

// Transport is an http.RoundTripper that sends a request through Base only
// if Robots allows its URL, with Robots' User-Agent when the request has
// none. It keeps the RoundTripper contract: it does not modify the request
// (it sends a copy to add the User-Agent), closes its body when it does not
// send it, and is safe for concurrent use.
type Transport struct {
	// Base sends the requests that are allowed. Nil means
	// http.DefaultTransport.
	Base http.RoundTripper
	// Robots decides. Nil makes every request fail, unsent, with an error
	// saying so: there is no default robots.Client, since one needs the
	// crawler's User-Agent.
	Robots *robots.Client
}

// errNoRobots is why a Transport without a robots.Client sends nothing.
var errNoRobots = errors.New("client: Transport.Robots is nil: nothing to check robots.txt with")

// RoundTrip sends req through Base when robots.txt allows its URL, as
// Robots.Allowed decides it: a request for /robots.txt itself is allowed
// without a fetch, and one for /robots.txt with a query is another URL,
// decided by the rules (RFC 9309 §2.2.2). When robots.txt does not allow the
// URL, RoundTrip returns an error for which errors.Is(err,
// robots.ErrDisallowed) holds, and the server never sees the request. When
// robots.txt cannot be consulted (the request's context ends first, its URL
// is not http(s), or Robots is nil), the error says so, as a *robots.Error.
// No error quotes the URL's password. A request sent without a User-Agent
// header is sent as a copy with Robots.UserAgent().
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if bypass.Is(req.Context()) {
		return t.base().RoundTrip(req) // the robots.Client's own fetch
	}
	if req.URL == nil {
		closeBody(req)
		return nil, &robots.Error{Op: "round-trip", Err: robots.ErrInvalidURL}
	}
	if t.Robots == nil {
		closeBody(req)
		return nil, &robots.Error{Op: "round-trip", URL: req.URL.Redacted(), Err: errNoRobots}
	}
	ok, err := t.Robots.Allowed(req.Context(), req.URL.String())
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if !ok {
		closeBody(req)
		return nil, &robots.Error{Op: "round-trip", URL: req.URL.Redacted(), Err: robots.ErrDisallowed}
	}
	return t.base().RoundTrip(identified(req, t.Robots.UserAgent()))
}

// identified returns req, or, when it has no User-Agent header, a copy of
// it that sends ua: a RoundTripper may not modify the request it is given.
// A header present but empty is the caller's choice (Go then sends none)
// and is kept.
func identified(req *http.Request, ua string) *http.Request {
	if _, ok := req.Header["User-Agent"]; ok || ua == "" {
		return req
	}
	r := *req
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = make(http.Header, 1)
	}
	r.Header["User-Agent"] = []string{ua}
	return &r
}

// CloseIdleConnections closes the idle connections of Base (of
// http.DefaultTransport when Base is nil) if it has such a method, as
// http.Client.CloseIdleConnections does for its Transport.
func (t *Transport) CloseIdleConnections() {
	if ci, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
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
// http.DefaultClient. A nil rc makes every request fail, unsent, with an
// error saying so.
func Wrap(hc *http.Client, rc *robots.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	wrapped := *hc
	wrapped.Transport = &Transport{Base: hc.Transport, Robots: rc}
	return &wrapped
}
