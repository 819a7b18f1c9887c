package main

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/crawlkit/robots"
	"github.com/gocolly/colly/v2"
)

// DefaultMaxDelay is the longest Crawl-delay a Guard obeys unless told
// otherwise: a site asking for more is crawled at one request a minute.
const DefaultMaxDelay = time.Minute

// Guard makes a colly.Collector obey robots.txt, as a robots.Client reads
// it: before every request it asks the Client, aborts the request if
// robots.txt disallows it, and otherwise waits until the site's Crawl-delay
// has passed since the last request to it.
//
// It works from an OnRequest callback, not from the transport. Colly's
// SetProxy and SetProxyFunc replace the collector's transport with a new
// *http.Transport whenever the current one is not an *http.Transport, so a
// checking RoundTripper installed with WithTransport (such as
// client.Transport) silently stops checking once a proxy is set. Callbacks
// survive any change of transport. (The robots.txt fetches are the
// Client's own: to send them through the proxy too, give the Client an
// HTTPClient with that proxy.)
//
// A Guard is safe for concurrent use, as colly.Async needs.
type Guard struct {
	// Robots decides. It must not be nil.
	Robots *robots.Client

	// Refused, when set, is called for every request the Guard aborts, with
	// why: an error for which errors.Is(err, robots.ErrDisallowed) holds
	// when robots.txt disallows the URL; otherwise the *robots.Error of a
	// URL that could not be checked, or the context's error when the
	// collector's context ended during a Crawl-delay wait. Colly's Visit
	// returns nil for an aborted request, so this is where refusals show.
	Refused func(r *colly.Request, err error)

	// MaxDelay caps the Crawl-delay obeyed: a longer one counts as
	// MaxDelay. Zero or negative means DefaultMaxDelay.
	MaxDelay time.Duration

	// Now and Sleep are the clock; nil means time.Now and a timer that
	// ends early with ctx. Tests set both to move time without waiting.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error

	mu   sync.Mutex
	next map[string]time.Time // host → when its next request may start
}

// Obey registers the Guard on c. Register it before callbacks that should
// see only the requests that will be sent.
func (g *Guard) Obey(c *colly.Collector) {
	c.OnRequest(func(r *colly.Request) {
		ctx := c.Context
		if ctx == nil {
			ctx = context.Background()
		}
		if err := g.check(ctx, r); err != nil {
			r.Abort()
			if g.Refused != nil {
				g.Refused(r, err)
			}
		}
	})
}

// check returns nil when r may be sent now, after waiting for its site's
// Crawl-delay, and why not otherwise.
func (g *Guard) check(ctx context.Context, r *colly.Request) error {
	u := r.URL.String()
	ok, err := g.Robots.Allowed(ctx, u)
	if err != nil {
		return err
	}
	if !ok {
		return &robots.Error{Op: "allowed", URL: u, Err: robots.ErrDisallowed}
	}
	delay, err := g.Robots.CrawlDelay(ctx, u)
	if err != nil {
		return err
	}
	maxDelay := g.MaxDelay
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	now := g.now()
	at := g.reserve(strings.ToLower(r.URL.Hostname()), now, min(delay, maxDelay))
	if wait := at.Sub(now); wait > 0 {
		return g.sleep(ctx, wait)
	}
	return nil
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
