// Package fetch retrieves an authority's /robots.txt with the HTTP semantics
// RFC 9309 §2.3 asks for and reports what happened, without judging it.
//
// A Fetcher sends one GET per hop with the configured User-Agent, Accept:
// text/plain, */*;q=0.1, Accept-Encoding: gzip and, when a copy is held, the
// conditional headers; never cookies or credentials. It follows 301, 302,
// 303, 307 and 308 redirects itself (five by default, http and https only,
// across hosts unless told to stay on the same site, with loop detection),
// under one deadline for all hops. It reads a 2xx body up to MaxBytes after
// gzip decoding, drops a line cut in half by that cap, and bounds response
// headers. gzip is the only encoding it asks for and decodes: a body in
// another encoding (deflate, br, …), or labeled gzip without being gzip, is
// returned as sent, not as a failure. Parsed as text, such a body yields
// warnings and no rules, so it allows everything (by design:
// undecodable bodies are parsed anyway). The Result records the status, headers, body, redirect chain,
// timings and, when something failed, a classified *Error. Package status
// turns a Result into a verdict. Read makes the same Result of a response
// the caller fetched itself.
//
// Whatever the redirects, the rules of the file fetched apply to the
// authority of the URL given to Fetch (RFC 9309 §2.3.1.2); the redirect chain
// is reported for diagnostics and caching only.
//
// Non-goals: deciding what a status means (package status), caching or
// retrying (the cache layer), parsing the body (package parser), rate
// limiting, and HTTP/3. A Fetcher starts no goroutine that outlives a call to
// Fetch and holds no connection between calls, so it needs no Close.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/crawlkit/robots/internal/authority"
	"golang.org/x/net/http/httpguts"
)

// Defaults and bounds of Config.
const (
	// DefaultUserAgent is sent when Config.UserAgent is empty.
	DefaultUserAgent = "robots (+https://github.com/crawlkit/robots)"
	// DefaultMaxBytes is the default, and the smallest allowed, body cap:
	// RFC 9309 §2.5 requires parsing at least 500 KiB.
	DefaultMaxBytes = 500 << 10
	// MaxMaxBytes is the largest body cap allowed, 32 MiB: 64 times what
	// RFC 9309 §2.5 asks for, and far above any real robots.txt (Google reads
	// 500 KiB). Parsing and compiling a body allocates at most 8 times its
	// size, whatever its shape, so a body at this cap costs under 300 MB in
	// all, its own bytes included; a cap of a gigabyte could cost gigabytes
	// per fetch.
	MaxMaxBytes = 32 << 20
	// DefaultTimeout bounds a whole fetch, all redirects included.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxRedirects is the number of consecutive redirects followed
	// (RFC 9309 §2.3.1.2: at least five).
	DefaultMaxRedirects = 5
	// DefaultMaxHeaderBytes bounds the response headers of each hop.
	DefaultMaxHeaderBytes = 64 << 10
)

// Request headers that do not depend on the configuration.
const (
	accept         = "text/plain, */*;q=0.1"
	acceptEncoding = "gzip"
)

// Config configures a Fetcher. Its zero value is ready to use: every zero
// field means the documented default.
type Config struct {
	// UserAgent is the User-Agent header sent with every request. Empty
	// means DefaultUserAgent.
	UserAgent string

	// HTTPClient supplies the transport. Nil means a transport of the
	// Fetcher's own: direct or through the proxy named by the environment,
	// HTTP/2 when the server offers it, no connection kept after a fetch.
	// Never http.DefaultClient.
	//
	// When HTTPClient is set, only its Transport (nil meaning
	// http.DefaultTransport) and its Timeout are used: the Fetcher follows
	// redirects itself, so CheckRedirect is ignored, and it never sends
	// cookies, so Jar is ignored. A Timeout shorter than Config.Timeout
	// becomes the fetch's deadline. HTTPClient is never modified. When its
	// Transport is an *http.Transport, the Fetcher uses a clone of it, with
	// MaxHeaderBytes as its response header limit and keep-alives off; any
	// other RoundTripper is used as is, so MaxHeaderBytes is then up to it
	// and BlockPrivateNetworks cannot be enforced (New fails).
	HTTPClient *http.Client

	// MaxBytes is the most bytes of a 2xx body read, after gzip decoding.
	// Values below DefaultMaxBytes (including zero) mean DefaultMaxBytes;
	// values above MaxMaxBytes (32 MiB) mean MaxMaxBytes. A fetch holds at most
	// MaxBytes+1 bytes of body and 1/16 of that besides while it grows its
	// buffer; a small file costs little whatever the cap. A body of 4 to 512
	// KiB is held in a buffer at most a quarter larger than it, which
	// Result.Release hands on to later fetches.
	MaxBytes int64

	// Timeout bounds a whole fetch, all redirects and the body included.
	// Zero or negative means DefaultTimeout.
	Timeout time.Duration

	// MaxRedirects is the most consecutive redirects followed. Zero means
	// DefaultMaxRedirects; a negative value means none is followed.
	MaxRedirects int

	// SameSiteRedirects, when set, refuses a redirect to another site than
	// the one of the URL given to Fetch. Two hosts are on the same site when
	// they are equal or share their registrable domain (public suffix plus
	// one label, as in "www.example.co.uk" and "example.co.uk"); scheme and
	// port may differ, so an http to https redirect stays allowed. IP
	// addresses are on the same site only as themselves.
	SameSiteRedirects bool

	// BlockPrivateNetworks, when set, refuses to connect to loopback,
	// private (RFC 1918, RFC 4193), link-local, unspecified, "this network"
	// (0.0.0.0/8) and shared (100.64.0.0/10) addresses, IPv4-mapped IPv6
	// forms included. The check is made on the address actually dialed, on
	// every hop, so neither a redirect nor a DNS answer can get around it.
	// With it, the Fetcher's own transport dials directly (a proxy would hide
	// the target), and a cloned transport's proxy is dropped too. Off by
	// default: crawler tests run against servers on loopback.
	BlockPrivateNetworks bool

	// MaxHeaderBytes bounds the response headers of each hop, status line
	// included. Zero or negative means DefaultMaxHeaderBytes. It applies to
	// the Fetcher's own transport and to clones of an *http.Transport (see
	// HTTPClient). net/http counts bytes it has buffered, so a response may
	// be refused a few KiB below the bound.
	MaxHeaderBytes int64

	// Now returns the current time for Result.Start and Result.End. Nil
	// means time.Now. Deadlines are not affected: they run on the real clock.
	Now func() time.Time
}

// Validators are the validators of the copy a caller holds, sent back so
// that an unchanged file costs a 304 (RFC 9110 §13.1).
type Validators struct {
	// ETag is sent as If-None-Match when not empty.
	ETag string
	// LastModified is sent as If-Modified-Since when not empty.
	LastModified string
}

// Fetcher retrieves robots.txt files. It is safe for concurrent use.
type Fetcher struct {
	rt           http.RoundTripper
	userAgent    string
	maxBytes     int64
	timeout      time.Duration
	maxRedirects int
	sameSite     bool
	now          func() time.Time
}

// New returns a Fetcher configured by cfg. It fails only when
// BlockPrivateNetworks is set with an HTTPClient whose Transport is not an
// *http.Transport, since the guard could not be enforced.
func New(cfg Config) (*Fetcher, error) {
	return newFetcher(cfg, blockedAddr)
}

// newFetcher is New with the guard's policy as a parameter, so that tests can
// block one loopback server and not another.
func newFetcher(cfg Config, blocked func(netip.AddrPort) bool) (*Fetcher, error) {
	f := &Fetcher{
		userAgent:    cfg.UserAgent,
		maxBytes:     min(max(cfg.MaxBytes, DefaultMaxBytes), MaxMaxBytes),
		timeout:      cfg.Timeout,
		maxRedirects: cfg.MaxRedirects,
		sameSite:     cfg.SameSiteRedirects,
		now:          cfg.Now,
	}
	if f.userAgent == "" {
		f.userAgent = DefaultUserAgent
	}
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	switch {
	case f.maxRedirects == 0:
		f.maxRedirects = DefaultMaxRedirects
	case f.maxRedirects < 0:
		f.maxRedirects = 0
	}
	if f.now == nil {
		f.now = time.Now
	}
	headerBytes := cfg.MaxHeaderBytes
	if headerBytes <= 0 {
		headerBytes = DefaultMaxHeaderBytes
	}
	if !cfg.BlockPrivateNetworks {
		blocked = nil
	}
	if cfg.HTTPClient == nil {
		f.rt = ownTransport(headerBytes, blocked)
		return f, nil
	}
	if t := cfg.HTTPClient.Timeout; t > 0 && t < f.timeout {
		f.timeout = t
	}
	rt, err := callerTransport(cfg.HTTPClient.Transport, headerBytes, blocked)
	if err != nil {
		return nil, err
	}
	f.rt = rt
	return f, nil
}

// errOwnTimeout is the cause of the fetch's own deadline, which tells it
// apart from the caller's.
var errOwnTimeout = errors.New("fetch deadline")

// Fetch retrieves robotsURL, following redirects, and returns what happened.
// Every failure of the server or the network is recorded in Result.Err; the
// returned error is non-nil only when robotsURL is unusable (class InvalidURL,
// wrapping the parse error) or when ctx is canceled or its deadline passes
// before the fetch completes (class Canceled, and errors.Is(err,
// context.Canceled) or errors.Is(err, context.DeadlineExceeded) holds). A
// canceled fetch returns no Result: cancellation says nothing about the
// server.
//
// robotsURL is normally the RobotsURL of an authority; its userinfo and
// fragment are dropped. The validators are sent on every hop: the copy they
// describe came from the end of the same redirect chain.
func (f *Fetcher) Fetch(ctx context.Context, robotsURL string, v Validators) (*Result, error) {
	st := new(fetching)
	first, target, targetURL, err := requestTarget(robotsURL, &st.target)
	if err != nil {
		return nil, &Error{Class: InvalidURL, Op: opGet, URL: robotsURL, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Class: Canceled, Op: opGet, URL: targetURL, Err: err}
	}
	res := &st.res
	res.URL = targetURL
	res.Conditional = sendable(v.ETag) || sendable(v.LastModified)
	res.Start = f.now()
	fctx, cancel := context.WithTimeoutCause(ctx, f.timeout, errOwnTimeout)
	defer cancel()

	var seen map[string]bool // the URLs requested, made at the first redirect
	// The first hop's request and header values; later hops make their own.
	req, values := &st.req, st.values[:0]
	for {
		next, nextURL, op, err := f.hop(fctx, res, first, target, targetURL, v, req, values, &seen)
		if err == nil && next == nil {
			break
		}
		if err == nil {
			seen[nextURL] = true
			target, targetURL, req, values = next, nextURL, nil, nil
			continue
		}
		if ctx.Err() != nil {
			return nil, &Error{Class: Canceled, Op: op, URL: res.FinalURL, Err: ctx.Err()}
		}
		res.Err = f.classify(fctx, op, res.FinalURL, err)
		break
	}
	res.End = f.now()
	return res, nil
}

// fetching is what a fetch allocates at once: its Result, and its first
// hop's request, with the request's target and header values, which live
// while the Result is made. One allocation instead of four; they are
// collected together, once nothing holds the Result nor the first request.
// It takes 768 bytes on 64-bit platforms (704, and the allocator's header
// for an object of more than 512 bytes), 48 more than the four took apart:
// three allocations fewer on every fetch are worth more than that.
type fetching struct {
	res    Result
	req    http.Request
	target url.URL
	values [maxRequestHeaders]string
}

// hop makes one request to target, whose canonical form is targetURL, and
// records its response in res. It returns the next target when the
// response is a redirect to follow, and otherwise the error that ended the
// fetch, if any, with the operation that failed. into, when not nil, is
// where the request is made, and values the memory of its header values, of
// capacity maxRequestHeaders; both are used by no other request. *seen holds the URLs requested so far, once a
// redirect was received.
func (f *Fetcher) hop(ctx context.Context, res *Result, first authority.Authority, target *url.URL, targetURL string, v Validators, into *http.Request, values []string, seen *map[string]bool) (next *url.URL, nextURL, op string, err error) {
	res.FinalURL, res.StatusCode, res.Header = targetURL, 0, nil
	// What http.NewRequestWithContext makes of target, without parsing its
	// string again. Each hop has headers of its own: a RoundTripper may
	// change them. made does not escape: it is copied to where the request
	// lives, as WithContext copies its receiver.
	made := (&http.Request{
		Method:     http.MethodGet,
		URL:        target,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     f.requestHeader(v, values),
		Host:       target.Host,
	}).WithContext(ctx)
	req := into
	if req == nil {
		req = new(http.Request)
	}
	*req = *made
	resp, err := f.rt.RoundTrip(req)
	if err != nil {
		return nil, "", opGet, err
	}
	defer resp.Body.Close()
	res.StatusCode, res.Header = resp.StatusCode, resp.Header
	if isRedirect(resp.StatusCode) {
		loc := resp.Header.Get("Location")
		res.Redirects = append(res.Redirects, Hop{URL: res.FinalURL, StatusCode: resp.StatusCode, Location: loc})
		if *seen == nil {
			*seen = map[string]bool{res.URL: true}
		}
		next, nextURL, err := f.redirectTarget(first, target, loc, len(res.Redirects), *seen)
		return next, nextURL, opRedirect, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", "", nil // the body of an error says nothing we use; it is not read
	}
	res.Body, res.lent, res.Truncated, err = readBody(resp, f.maxBytes)
	return nil, "", opBody, err
}

// classify wraps the error that ended a fetch in an *Error. The fetch's own
// deadline is recognized first: whatever the transport made of it, it is a
// Timeout.
func (f *Fetcher) classify(fctx context.Context, op, u string, err error) *Error {
	var e *Error
	if errors.As(err, &e) { // a redirect refused by redirectTarget
		return e
	}
	if fctx.Err() != nil && context.Cause(fctx) == errOwnTimeout {
		return &Error{Class: Timeout, Op: op, URL: u, Err: fmt.Errorf("no complete response within %v", f.timeout)}
	}
	return &Error{Class: classOf(err, op), Op: op, URL: u, Err: err}
}

// maxRequestHeaders is the most headers a request of a fetch carries.
const maxRequestHeaders = 5

// requestHeader returns the headers sent with a request of a fetch, their
// values in vals (empty, of capacity maxRequestHeaders, no other request's)
// or, when vals is nil, in an array of their own. Validators that are not
// valid header values are not sent: a bad copy must not make the file
// unreachable.
func (f *Fetcher) requestHeader(v Validators, vals []string) http.Header {
	// The values share one array, each slice capped at its own element so
	// that appending to one cannot write over the next.
	if vals == nil {
		vals = make([]string, 0, maxRequestHeaders)
	}
	h := make(http.Header, maxRequestHeaders)
	add := func(key, value string) {
		vals = append(vals, value)
		h[key] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	add("User-Agent", f.userAgent)
	add("Accept", accept)
	add("Accept-Encoding", acceptEncoding)
	if sendable(v.ETag) {
		add("If-None-Match", v.ETag)
	}
	if sendable(v.LastModified) {
		add("If-Modified-Since", v.LastModified)
	}
	return h
}

// sendable reports whether a validator is sent: it is not empty and is a
// valid header value.
func sendable(validator string) bool {
	return validator != "" && httpguts.ValidHeaderFieldValue(validator)
}

// robotsPath is the path of every robots.txt (RFC 9309 §2.3).
const robotsPath = "/robots.txt"

// requestTarget returns the authority of rawURL, the URL to request for it,
// canonical and without userinfo or fragment, and that URL's String. The URL
// is made in into when it need not be parsed (into nil: in a url.URL of its
// own), else it is url.Parse's.
func requestTarget(rawURL string, into *url.URL) (authority.Authority, *url.URL, string, error) {
	a, err := authority.Parse(rawURL)
	if err != nil {
		return authority.Authority{}, nil, "", err
	}
	if a.PathQuery == robotsPath {
		// The common case, the robots.txt of a canonical authority, is
		// what url.Parse makes of it (a host escape aside, which it
		// decodes), without parsing it again.
		scheme := a.Scheme()
		if host := a.Key[len(scheme)+len("://"):]; !strings.Contains(host, "%") {
			s := rawURL
			if len(s) != len(a.Key)+len(robotsPath) || s[:len(a.Key)] != a.Key || s[len(a.Key):] != robotsPath {
				s = a.Key + robotsPath
			}
			if into == nil {
				into = new(url.URL)
			}
			*into = url.URL{Scheme: scheme, Host: host, Path: robotsPath}
			return a, into, s, nil
		}
	}
	u, err := url.Parse(a.Key + a.PathQuery)
	if err != nil { // a malformed escape in the path, which Parse keeps
		return authority.Authority{}, nil, "", err
	}
	return a, u, u.String(), nil
}
