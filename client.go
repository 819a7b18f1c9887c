package robots

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/authority"
	"github.com/crawlkit/robots/internal/bypass"
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/status"
)

// Client decides whether a crawler may fetch URLs. It fetches each
// authority's /robots.txt once, caches what it says for as long as its
// caching headers allow (within [MinTTL, 24 h]), and answers from the cache.
// However many goroutines ask about an authority that is not cached, it is
// fetched once. A Client is safe for concurrent use and needs no Close: it
// starts no goroutine of its own outside a fetch.
type Client struct {
	agents     []string
	fetcher    *fetch.Fetcher
	classify   status.Options
	store      cache.Store
	flight     singleflight.Group
	now        func() time.Time
	minTTL     time.Duration
	allowAfter time.Duration // negative: never
	onFetch    func(FetchEvent)
	log        *slog.Logger
	stats      counters
}

// New returns a Client configured by o. It fails only on a configuration that
// cannot work: no UserAgent, an invalid product token, or a fetch setting
// the HTTPClient cannot honour.
func New(o Options) (*Client, error) {
	if err := validUserAgent(o.UserAgent); err != nil {
		return nil, &Error{Op: "new", Err: err}
	}
	agents, err := o.agentsOf()
	if err != nil {
		return nil, &Error{Op: "new", Err: err}
	}
	f, err := fetch.New(o.fetchConfig())
	if err != nil {
		return nil, &Error{Op: "new", Err: err}
	}
	c := &Client{
		agents:     agents,
		fetcher:    f,
		classify:   status.Options{DisallowOnAuthError: o.DisallowOn401403},
		store:      o.Store,
		now:        o.Now,
		minTTL:     o.MinTTL,
		allowAfter: o.UnreachableAllowAfter,
		onFetch:    o.OnFetch,
		log:        o.Logger,
	}
	if c.store == nil {
		c.store = cache.NewLRU(o.CacheSize)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.minTTL <= 0 {
		c.minTTL = DefaultMinTTL
	}
	c.minTTL = min(c.minTTL, cache.DefaultLifetime)
	if c.allowAfter == 0 {
		c.allowAfter = DefaultUnreachableAllowAfter
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Agents returns the product tokens the Client obeys robots.txt groups for.
func (c *Client) Agents() []string {
	return append([]string(nil), c.agents...)
}

// Allowed reports whether the crawler may fetch rawURL, an absolute http or
// https URL. It fetches the authority's robots.txt if it is not cached, or
// its entry has expired; ctx bounds only this caller's wait. The error is an
// *Error wrapping ErrInvalidURL for a URL that is not absolute http(s), or
// ctx's error; a failed fetch is not an error but an answer (see Decision).
func (c *Client) Allowed(ctx context.Context, rawURL string) (bool, error) {
	a, err := authority.Parse(rawURL)
	if err != nil {
		return false, invalidURL("allowed", rawURL, err)
	}
	if isRobotsTxt(a.PathQuery) {
		return true, nil // RFC 9309 §2.2.2: never needs a fetch
	}
	e, now, err := c.entry(ctx, a)
	if err != nil {
		return false, &Error{Op: "allowed", URL: rawURL, Err: err}
	}
	return c.allowed(e, a.PathQuery, now), nil
}

// Check is Allowed, explained: the Decision says which rule decided and what
// the robots.txt fetch behind it was.
func (c *Client) Check(ctx context.Context, rawURL string) (Decision, error) {
	a, err := authority.Parse(rawURL)
	if err != nil {
		return Decision{}, invalidURL("check", rawURL, err)
	}
	if isRobotsTxt(a.PathQuery) {
		return Decision{Allowed: true, Reason: RobotsTxt, RobotsURL: a.RobotsURL()}, nil
	}
	e, now, err := c.entry(ctx, a)
	if err != nil {
		return Decision{}, &Error{Op: "check", URL: rawURL, Err: err}
	}
	return c.decide(e, a.PathQuery, now), nil
}

// CrawlDelay returns the largest Crawl-delay of the robots.txt groups that
// apply to the crawler on rawURL's authority; zero when there is none.
// Crawl-delay is not part of RFC 9309: honouring it is the crawler's choice.
func (c *Client) CrawlDelay(ctx context.Context, rawURL string) (time.Duration, error) {
	s, err := c.rulesState(ctx, "crawl-delay", rawURL)
	if err != nil || s == nil || s.rules == nil {
		return 0, err
	}
	return s.rules.CrawlDelay(), nil
}

// Sitemaps returns the Sitemap URLs of rawURL's authority's robots.txt, in
// file order, each once; none when there is no file.
func (c *Client) Sitemaps(ctx context.Context, rawURL string) ([]string, error) {
	s, err := c.rulesState(ctx, "sitemaps", rawURL)
	if err != nil || s == nil {
		return nil, err
	}
	return append([]string(nil), s.sitemaps...), nil
}

// rulesState returns the state whose file answers for rawURL's authority
// now, nil when no file does.
func (c *Client) rulesState(ctx context.Context, op, rawURL string) (*state, error) {
	a, err := authority.Parse(rawURL)
	if err != nil {
		return nil, invalidURL(op, rawURL, err)
	}
	e, now, err := c.entry(ctx, a)
	if err != nil {
		return nil, &Error{Op: op, URL: rawURL, Err: err}
	}
	use, _, _ := c.basis(e, now)
	if use == nil {
		return nil, nil
	}
	return use.Value.(*state), nil
}

// Invalidate forgets what is cached for rawURL's authority, so that the next
// question fetches its robots.txt again. A fetch already under way still
// stores its result.
func (c *Client) Invalidate(rawURL string) error {
	a, err := authority.Parse(rawURL)
	if err != nil {
		return invalidURL("invalidate", rawURL, err)
	}
	c.flight.Forget(a.Key)
	c.store.Delete(a.Key)
	return nil
}

// Stats returns the Client's counts so far.
func (c *Client) Stats() Stats {
	s := Stats{
		Hits:    c.stats.hits.load(),
		Misses:  c.stats.misses.load(),
		Fetches: c.stats.fetches.Load(),
		Entries: c.store.Len(),
	}
	if ev, ok := c.store.(interface{ Evictions() uint64 }); ok {
		s.Evictions = ev.Evictions()
	}
	c.stats.mu.Lock()
	if len(c.stats.errors) > 0 {
		s.FetchErrors = make(map[string]uint64, len(c.stats.errors))
		for k, v := range c.stats.errors {
			s.FetchErrors[k] = v
		}
	}
	c.stats.mu.Unlock()
	return s
}

// isRobotsTxt reports whether the wire path pq is /robots.txt itself. Its
// canonical form starts with "/r", or with "/%" for an escaped 'r', so most
// paths are ruled out without canonicalizing them: the matcher does that once.
func isRobotsTxt(pq string) bool {
	if len(pq) < len("/robots.txt") || pq[1] != 'r' && pq[1] != '%' {
		return false
	}
	return urlpath.Path(pq) == "/robots.txt"
}

func invalidURL(op, rawURL string, cause error) *Error {
	return &Error{Op: op, URL: rawURL, Err: fmt.Errorf("%w: %w", ErrInvalidURL, cause)}
}

// entry returns a usable entry for authority a: the cached one while fresh,
// else the result of a fetch, shared with every other caller asking about a
// meanwhile. It returns the time the entry is to be judged at.
func (c *Client) entry(ctx context.Context, a authority.Authority) (*cache.Entry, time.Time, error) {
	now := c.now()
	if e, ok := c.store.Get(a.Key); ok && e.Fresh(now) {
		c.stats.hits.add()
		return e, now, nil
	}
	c.stats.misses.add()
	if err := ctx.Err(); err != nil {
		return nil, now, err // do not start a fetch for a caller already gone
	}
	// The fetch is detached from this caller: another caller's cancellation
	// must not fail it, nor must this one's fail theirs. Each caller waits
	// on its own context.
	detached := context.WithoutCancel(ctx)
	ch := c.flight.DoChan(a.Key, func() (any, error) {
		return c.refresh(detached, a), nil
	})
	select {
	case r := <-ch:
		return r.Val.(*cache.Entry), c.now(), nil
	case <-ctx.Done():
		return nil, now, ctx.Err()
	}
}

// refresh fetches a's robots.txt, stores the entry it leads to and returns
// it. It runs once per authority at a time, inside the flight.
func (c *Client) refresh(ctx context.Context, a authority.Authority) *cache.Entry {
	// Look again: a flight that ended while this one was being set up may
	// have stored a fresh entry already.
	old, _ := c.store.Get(a.Key)
	if old != nil && old.Fresh(c.now()) {
		return old
	}
	res, err := c.fetcher.Fetch(bypass.With(ctx), a.RobotsURL(), validators(old))
	c.stats.fetches.Add(1)
	if err != nil {
		// Only a canceled context or an unusable URL fail Fetch; neither
		// can happen here. Should one, the authority counts as unreachable.
		res = nil
		c.log.Error("robots.txt fetch failed unexpectedly", "authority", a.Key, "err", err)
	}
	now := c.now()
	out := c.classify.Classify(res, now)
	e := c.next(old, res, out, now)
	c.store.Put(a.Key, e)
	c.report(a.Key, res, out, e)
	return e
}

// report counts, logs and hands on one fetch.
func (c *Client) report(key string, res *fetch.Result, out status.Outcome, e *cache.Entry) {
	attrs := []any{"authority", key, "outcome", out.Reason, "fresh_until", e.FreshUntil}
	if out.Unreachable() {
		class := "status"
		if res != nil && res.Err != nil {
			class = res.Err.Class.String()
			attrs = append(attrs, "err", res.Err)
		}
		c.stats.fetchError(class)
		c.log.Warn("robots.txt unreachable", append(attrs, "failures", e.Failures)...)
	} else {
		c.log.Debug("robots.txt fetched", attrs...)
	}
	if c.onFetch != nil {
		c.onFetch(FetchEvent{Authority: key, Result: res, Outcome: out.Reason,
			Unreachable: out.Unreachable(), FreshUntil: e.FreshUntil})
	}
}
