// Package robotscolly makes a Colly collector (github.com/gocolly/colly/v2)
// obey robots.txt as a robots.Client reads it, by RFC 9309 and Google's
// interpretation: every request the collector would send, the links it
// follows, its asynchronous requests and its redirects included, is checked
// first; a disallowed one is never sent; and requests to a site are spaced
// by its Crawl-delay.
//
//	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
//	c := colly.NewCollector(colly.UserAgent("ExampleBot/1.0 (+https://example.com/bot)"))
//	g := &robotscolly.Guard{Robots: rc, Refused: func(r *colly.Request, err error) { … }}
//	g.Obey(c)
//
// A Guard works from callbacks and the redirect handler, never from the
// transport. Colly's SetProxy and SetProxyFunc replace the collector's
// transport with a new *http.Transport whenever the current one is not an
// *http.Transport, so a checking RoundTripper given to WithTransport (such
// as package client's Transport) silently stops checking once a proxy is
// set; callbacks and the redirect handler survive any change of transport.
//
// Non-goals: Colly's own robots.txt support (leave IgnoreRobotsTxt set, as
// it is by default: Colly would fetch every robots.txt a second time and
// read it by other rules), rate limits other than the site's Crawl-delay
// (Colly's LimitRule does those), and robots meta tags.
package robotscolly

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/crawlkit/robots"
)

// DefaultMaxDelay is the longest Crawl-delay a Guard obeys unless told
// otherwise: a site asking for more is crawled at one request a minute.
const DefaultMaxDelay = time.Minute

// maxRedirects is the number of redirects Colly follows by default: its
// own redirect handler stops there, with the last response.
const maxRedirects = 10

// Guard makes colly.Collectors obey robots.txt, as a robots.Client reads
// it: before every request, and before following every redirect, it asks
// the Client; it refuses what robots.txt disallows; and it waits until the
// site's Crawl-delay has passed since the last request to the site's host.
// Requests are spaced per host name: a host's ports and schemes share its
// turns. The wait before a redirect is followed counts against the
// collector's request timeout (SetRequestTimeout, 10 s by default), as all
// of one exchange does: a redirect on a site whose Crawl-delay is longer
// fails with a timeout, and is never sent early.
//
// A Guard is safe for concurrent use, as colly.Async needs, and one Guard
// may guard several collectors, which then share the spacing of requests
// per host.
type Guard struct {
	// Robots decides. It must not be nil: Obey panics if it is.
	Robots *robots.Client

	// Refused, when set, is called for every request the Guard refuses,
	// and for every redirect it does not let a request follow, with why:
	// an error for which errors.Is(err, robots.ErrDisallowed) and
	// errors.Is(err, colly.ErrRobotsTxtBlocked) both hold when robots.txt
	// disallows the URL (or cannot be fetched: RFC 9309 §2.3.1.4);
	// otherwise the *robots.Error of a URL that could not be checked, or the
	// context's error when the collector's context ended during a
	// Crawl-delay wait. A refusal by robots.txt is a *robots.Error whose URL
	// is the URL refused: for a redirect, r is the request redirected and
	// the error names the redirect's target. Refused may be called from
	// many goroutines at once, as Colly's other callbacks are.
	//
	// A refused request is aborted in an OnRequest callback, where Colly
	// reports nothing (Visit returns nil for it): Refused is where those
	// show. A refused redirect also fails its request, with that error
	// wrapped in a *url.Error, as OnError callbacks and (unless the
	// collector is Async) Visit see it.
	Refused func(r *colly.Request, err error)

	// MaxDelay caps the Crawl-delay obeyed: a longer one counts as
	// MaxDelay. Zero or negative means DefaultMaxDelay.
	MaxDelay time.Duration

	// Redirect, when set, decides whether a request follows a redirect,
	// as a handler given to Colly's SetRedirectHandler would; the Guard
	// checks the redirect's target only when it returns nil. Nil means
	// Colly's default: at most 10 redirects, and an Authorization header
	// dropped when the host changes.
	//
	// Obey installs the Guard with SetRedirectHandler: a redirect handler
	// set before Obey (with SetRedirectHandler or COLLY_FOLLOW_REDIRECTS)
	// is replaced, and one set after Obey replaces the Guard's check of
	// redirects. Give a redirect policy here instead.
	Redirect func(req *http.Request, via []*http.Request) error

	// Now and Sleep are the clock; nil means time.Now and a timer that
	// ends early with ctx. Tests set both to move time without waiting.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error

	mu       sync.Mutex
	next     map[string]time.Time        // host → when its next request may start
	inFlight map[*url.URL]*colly.Request // requests being sent, by their URL as sent first
}

// Obey makes c obey robots.txt: it registers the Guard's callbacks on c
// and installs its redirect handler (see Redirect). Obey c before
// anything else is registered on it, unless you mean what follows.
// Callbacks run in the order they were registered: an OnRequest callback
// registered before Obey sees every request, the refused ones too, and may
// change it before it is checked; one registered after sees only the
// requests that will be sent, and must not change their URL, which would
// send a URL that was not checked.
//
// A collector made by c.Clone has none of c's callbacks: Obey it too.
func (g *Guard) Obey(c *colly.Collector) {
	if g.Robots == nil {
		panic("robotscolly: Guard.Robots is nil")
	}
	c.OnRequest(func(r *colly.Request) {
		ctx := c.Context
		if ctx == nil {
			ctx = context.Background()
		}
		if err := g.check(ctx, r.URL); err != nil {
			r.Abort()
			g.refused(r, err)
		}
	})
	// A redirect is followed by the http.Client, from the request's own
	// exchange: the redirect handler is the only place to see the next
	// request before it is sent. Its Refused callback wants the Colly
	// request, which the handler knows only by the URL first sent (via[0],
	// the URL the Request holds until a response comes): the requests
	// being sent are remembered by that URL from the moment their headers
	// go, the last callback before the exchange, until a response or an
	// error ends it.
	// A request aborted as its headers go fails with Colly's
	// ErrAbortedBeforeRequest: OnError forgets it.
	c.OnRequestHeaders(g.track)
	c.OnResponseHeaders(func(r *colly.Response) { g.untrack(r.Request) })
	c.OnError(func(r *colly.Response, _ error) { g.untrack(r.Request) })
	c.SetRedirectHandler(g.checkRedirect)
}

// checkRedirect is the collector's redirect handler: the policy first,
// then robots.txt and the Crawl-delay of the redirect's target.
func (g *Guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if err := g.redirectPolicy(req, via); err != nil {
		return err // not followed: nothing to check
	}
	if err := g.check(req.Context(), req.URL); err != nil {
		if r := g.sender(via[0].URL); r != nil {
			g.refused(r, err)
		}
		return err
	}
	return nil
}

// redirectPolicy is Redirect, or Colly's default when it is nil.
func (g *Guard) redirectPolicy(req *http.Request, via []*http.Request) error {
	if g.Redirect != nil {
		return g.Redirect(req, via)
	}
	if len(via) >= maxRedirects {
		return http.ErrUseLastResponse
	}
	if req.URL.Host != via[len(via)-1].URL.Host {
		req.Header.Del("Authorization")
	}
	return nil
}

// check returns nil when u may be requested now, after waiting for its
// host's Crawl-delay, and why not otherwise.
func (g *Guard) check(ctx context.Context, u *url.URL) error {
	raw := u.String()
	ok, err := g.Robots.Allowed(ctx, raw)
	if err != nil {
		return err
	}
	if !ok {
		return &robots.Error{Op: "allowed", URL: u.Redacted(), Err: errDisallowed{}}
	}
	delay, err := g.Robots.CrawlDelay(ctx, raw)
	if err != nil {
		return err
	}
	maxDelay := g.MaxDelay
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	now := g.now()
	at := g.reserve(strings.ToLower(u.Hostname()), now, min(delay, maxDelay))
	if wait := at.Sub(now); wait > 0 {
		return g.sleep(ctx, wait)
	}
	return nil
}

func (g *Guard) refused(r *colly.Request, err error) {
	if g.Refused != nil {
		g.Refused(r, err)
	}
}

// errDisallowed is the cause of a refusal by robots.txt: it is
// robots.ErrDisallowed, and Colly's own ErrRobotsTxtBlocked, so that code
// written for either recognises it.
type errDisallowed struct{}

func (errDisallowed) Error() string { return robots.ErrDisallowed.Error() }

// Is reports whether target is robots.ErrDisallowed or
// colly.ErrRobotsTxtBlocked.
func (errDisallowed) Is(target error) bool {
	return target == robots.ErrDisallowed || target == colly.ErrRobotsTxtBlocked
}

// maxHosts is the number of hosts past which reserve forgets the ones
// whose next request may start already: they would be answered "now"
// anyway.
const maxHosts = 4096

// reserve books the next start of a request to host, at now or later, and
// returns it; the one after may start delay later. Concurrent requests to
// one host get starts delay apart.
func (g *Guard) reserve(host string, now time.Time, delay time.Duration) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	at := now
	if next, ok := g.next[host]; ok && next.After(now) {
		at = next
	}
	if delay <= 0 {
		return at
	}
	if g.next == nil {
		g.next = make(map[string]time.Time)
	}
	if len(g.next) >= maxHosts {
		for h, next := range g.next {
			if !next.After(now) {
				delete(g.next, h)
			}
		}
	}
	g.next[host] = at.Add(delay)
	return at
}

// track remembers r as being sent, by its URL.
func (g *Guard) track(r *colly.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inFlight == nil {
		g.inFlight = make(map[*url.URL]*colly.Request)
	}
	g.inFlight[r.URL] = r
}

// untrack forgets r, whose exchange has ended. A redirect has changed
// r.URL by then, so r is looked for by value as well as by its URL.
func (g *Guard) untrack(r *colly.Request) {
	if r == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inFlight[r.URL] == r {
		delete(g.inFlight, r.URL)
		return
	}
	for u, s := range g.inFlight {
		if s == r {
			delete(g.inFlight, u)
			return
		}
	}
}

// sender returns the request being sent whose first URL is u, or nil.
func (g *Guard) sender(u *url.URL) *colly.Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inFlight[u]
}

func (g *Guard) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func (g *Guard) sleep(ctx context.Context, d time.Duration) error {
	if g.Sleep != nil {
		return g.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
