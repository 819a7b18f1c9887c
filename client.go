package robots

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/authority"
	"github.com/crawlkit/robots/internal/bypass"
	"github.com/crawlkit/robots/internal/engine"
	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
)

// Client decides whether a crawler may fetch URLs. It fetches each
// authority's /robots.txt once, caches what it says for as long as its
// caching headers allow (within [MinTTL, 24 h]), and answers from the cache.
// However many goroutines ask about an authority that is not cached, it is
// fetched once; when a cached robots.txt expires, callers keep getting its
// answer while one refetch runs. A Client is safe for concurrent use and
// needs no Close: the only goroutines it starts are fetches, which end by
// themselves.
//
// A Client answers for the crawler names of its Options; As returns
// Clients that answer for others from the same fetches and cache.
//
// A Client must be made by New or As: the methods of a zero Client, or of a
// nil one, return an error saying so (Stats and Agents return nothing).
type Client struct {
	*core           // what every Client of one New shares
	agents []string // the crawler names this Client answers for, as given
	set    agentSet // their canonical form; empty for core.ownAgents
}

// core is what New makes and every Client of it shares: the cache, the
// fetches, their politeness, the fleet, the counts and the options.
type core struct {
	keys      authority.Memo // keys of authorities not written canonically
	userAgent string         // Options.UserAgent
	ownAgents []string       // Options' crawler names, which the cache's values are compiled for
	ownSet    agentSet       // their canonical form
	viewBytes int64          // what the rules of other agent sets may take per record (see As)
	fetcher   *fetch.Fetcher
	classify  status.Options
	cache     *engine.Cache[*compiled]
	policy    engine.Policy
	now       func() time.Time
	onFetch   func(FetchEvent)
	log       *slog.Logger
	stats     counters
}

// entry is what the cache holds for an authority.
type entry = engine.Entry[*compiled]

// New returns a Client configured by o. It fails only on a configuration that
// cannot work: no UserAgent, an invalid crawler name, or a fetch setting
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
	c := &core{
		userAgent: o.UserAgent,
		ownAgents: agents,
		ownSet:    agentSetOf(agents),
		viewBytes: o.cacheBytes() / viewShare,
		fetcher:   f,
		classify:  status.Options{DisallowOnAuthError: o.DisallowOn401403},
		now:       o.Now,
		onFetch:   o.OnFetch,
		log:       o.Logger,
	}
	cacheNow := c.now
	if c.now == nil {
		// Records are stamped by time.Now; the cache, which reads the clock
		// on every hit, keeps its own, cheaper to read (see engine.Cache.Hit).
		c.now = time.Now
	}
	minTTL := o.MinTTL
	if minTTL <= 0 {
		minTTL = DefaultMinTTL
	}
	c.policy = engine.Policy{MinTTL: min(minTTL, freshness.DefaultLifetime), AllowAfter: o.UnreachableAllowAfter}
	if c.policy.AllowAfter == 0 {
		c.policy.AllowAfter = DefaultUnreachableAllowAfter
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.cache = engine.New(engine.Config[*compiled]{
		Bytes:      o.cacheBytes(),
		Bodies:     o.BodyCodec,
		Fleet:      o.Fleet,
		MaxFetches: o.MaxConcurrentFetches,
		Outages:    o.MaxOutages,
		Grace:      o.fetchTimeout(),
		MaxBody:    o.maxBytes(),
		Policy:     c.policy,
		Now:        cacheNow,
		Fetch:      c.fetch,
		Derive:     c.derive,
		Logger:     c.log,
	})
	return &Client{core: c, agents: agents}, nil
}

// UserAgent returns the User-Agent the Client sends with robots.txt
// requests: its Options.UserAgent, shared by the Clients As makes.
// client.Transport sends it with page requests that carry none.
func (c *Client) UserAgent() string {
	if !c.made() {
		return ""
	}
	return c.core.userAgent
}

// Agents returns the names the Client obeys robots.txt groups for:
// those of its Options, or those given to As.
func (c *Client) Agents() []string {
	if c == nil {
		return nil
	}
	return append([]string(nil), c.agents...)
}

// errNotNew is the cause of every error of a Client not made by New.
var errNotNew = errors.New("the Client was not made by robots.New")

// made reports whether c was made by New or As.
func (c *Client) made() bool { return c != nil && c.core != nil }

// Allowed reports whether the crawler may fetch rawURL, an absolute http or
// https URL. It fetches the authority's robots.txt if it is not cached, or
// its entry has expired; ctx bounds only this caller's wait. The error is an
// *Error wrapping ErrInvalidURL for a URL that is not absolute http(s) or
// that net/url refuses, or ctx's error; a failed fetch is not an error but
// an answer (see Decision). On a cache hit Allowed allocates nothing,
// whatever the shape of the URL.
func (c *Client) Allowed(ctx context.Context, rawURL string) (bool, error) {
	if !c.made() {
		return false, newError("allowed", rawURL, errNotNew)
	}
	key, path, err := c.keys.Split(rawURL)
	if err != nil {
		return false, invalidURL("allowed", rawURL, err)
	}
	if urlpath.IsRobotsTxt(path) {
		return true, nil // RFC 9309 §2.2.2: never needs a fetch
	}
	e, _, now, err := c.lookup(ctx, key)
	if err != nil {
		return false, newError("allowed", rawURL, err)
	}
	return c.allowed(key, e, path, now), nil
}

// Check is Allowed, explained: the Decision says which rule decided and what
// the robots.txt fetch behind it was. For /robots.txt itself it is allowed
// with Reason RobotsTxt, and, unlike Allowed, reads the file (fetching it if
// needed) to say what it states about itself: the fetch fields and Usage, as
// Usage answers.
func (c *Client) Check(ctx context.Context, rawURL string) (Decision, error) {
	if !c.made() {
		return Decision{}, newError("check", rawURL, errNotNew)
	}
	key, path, err := c.keys.Split(rawURL)
	if err != nil {
		return Decision{}, invalidURL("check", rawURL, err)
	}
	e, served, now, err := c.lookup(ctx, key)
	if err != nil {
		return Decision{}, newError("check", rawURL, err)
	}
	d := c.decide(key, e, path, now)
	d.Stale = d.Stale || served == engine.Stale
	return d, nil
}

// CrawlDelay returns the largest Crawl-delay of the robots.txt groups that
// apply to the crawler on rawURL's authority; zero when there is none.
// Crawl-delay is not part of RFC 9309: honouring it is the crawler's choice.
func (c *Client) CrawlDelay(ctx context.Context, rawURL string) (time.Duration, error) {
	_, m, err := c.rules(ctx, "crawl-delay", rawURL)
	if err != nil || m == nil {
		return 0, err
	}
	return m.CrawlDelay(), nil
}

// Sitemaps returns the Sitemap URLs of rawURL's authority's robots.txt, in
// file order, each once; none when there is no file.
func (c *Client) Sitemaps(ctx context.Context, rawURL string) ([]string, error) {
	src, _, err := c.rules(ctx, "sitemaps", rawURL)
	if err != nil || src.e == nil {
		return nil, err
	}
	file := src.fields()
	if file.BodyLen() == 0 {
		return nil, nil
	}
	// The file is read again: a crawler asks once per site, and keeping
	// the list would cost every authority held about 400 bytes on the real
	// corpus. Copies: the parsed file's memory is reused.
	var urls []string
	parser.ParseFunc(file.File(), func(r *parser.Robots) {
		if len(r.Sitemaps) > 0 {
			urls = make([]string, len(r.Sitemaps))
		}
		for i, u := range r.Sitemaps {
			urls[i] = strings.Clone(u)
		}
	})
	return urls, nil
}

// rules returns the good record that answers for rawURL's authority now,
// with no entry when none does, and its rules for c's agents, nil when it
// has none (its verdict is not Rules).
func (c *Client) rules(ctx context.Context, op, rawURL string) (source, *matcher.Matcher, error) {
	if !c.made() {
		return source{}, nil, newError(op, rawURL, errNotNew)
	}
	key, _, err := c.keys.Split(rawURL)
	if err != nil {
		return source{}, nil, invalidURL(op, rawURL, err)
	}
	e, _, now, err := c.lookup(ctx, key)
	if err != nil {
		return source{}, nil, newError(op, rawURL, err)
	}
	v, src, _ := c.basis(e, now)
	if v == nil {
		return source{}, nil, nil
	}
	return src, c.matcherOf(key, v, src), nil
}

// Invalidate forgets what is cached for rawURL's authority, its backoff
// included, so that the next question fetches its robots.txt again; a fetch
// already under way will not store its result. With a Fleet, the next
// question takes the fleet's record if it is fresh.
func (c *Client) Invalidate(rawURL string) error {
	if !c.made() {
		return newError("invalidate", rawURL, errNotNew)
	}
	a, err := authority.Parse(rawURL)
	if err != nil {
		return invalidURL("invalidate", rawURL, err)
	}
	c.cache.Invalidate(a.Key)
	return nil
}

// Flush waits until the robots.txt records this Client fetched for a Fleet
// before the call have been published (or their publication failed, within
// its timeout), or until ctx ends, and then returns ctx's error. Callers get their answer
// as soon as a record is stored locally; its publication follows in the
// background. A process about to exit, or a test that reads the Fleet after
// an answer, flushes first. Without a Fleet, Flush returns at once.
func (c *Client) Flush(ctx context.Context) error {
	if !c.made() {
		return &Error{Op: "flush", Err: errNotNew}
	}
	if err := c.cache.Flush(ctx); err != nil {
		return &Error{Op: "flush", Err: err}
	}
	return nil
}

// Stats returns the Client's counts so far, which it shares with every
// Client of the same New (see As).
func (c *Client) Stats() Stats {
	if !c.made() {
		return Stats{}
	}
	cs := c.cache.Stats()
	s := Stats{
		Hits:           c.stats.hits.load(),
		Misses:         c.stats.misses.Load(),
		StaleAnswers:   c.stats.stale.Load(),
		Fetches:        c.stats.fetches.Load(),
		Entries:        cs.Entries,
		Bytes:          cs.Bytes,
		Evictions:      cs.Evictions,
		Outages:        cs.Outages,
		QueuedFetches:  cs.Queued,
		FleetHits:      cs.FleetHits,
		FleetErrors:    cs.FleetErrors,
		FleetFallbacks: cs.FleetFallbacks,
		LeasesLost:     cs.LeasesLost,
		FleetDown:      cs.FleetDown,
		Panics:         cs.Panics + c.stats.panics.Load(),
		Observed:       c.stats.observed.Load(),
		Imported:       c.stats.imported.Load(),
		AgentCompiles:  c.stats.agentCompiles.Load(),
		ExportSkipped:  c.stats.exportSkipped.Load(),
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

func invalidURL(op, rawURL string, cause error) *Error {
	return newError(op, rawURL, fmt.Errorf("%w: %w", ErrInvalidURL, cause))
}

// lookup returns the entry that answers for the authority key, counted, and
// the instant to judge it at. A fresh entry comes from the cache's Hit when
// it has one, which reads no time.
func (c *core) lookup(ctx context.Context, key string) (*entry, engine.Served, instant, error) {
	if e, ok := c.cache.Hit(key); ok {
		c.stats.hits.add()
		return e, engine.Hit, instant{core: c}, nil
	}
	e, served, now, err := c.cache.Lookup(ctx, key)
	switch {
	case err != nil:
	case served == engine.Hit:
		c.stats.hits.add()
	case served == engine.Stale:
		c.stats.stale.Add(1)
	default:
		c.stats.misses.Add(1)
	}
	return e, served, at(now), err
}

// fetch fetches key's robots.txt and returns the record that follows held,
// and its report, which the cache runs once the record is stored. The cache
// runs fetch once per authority at a time, detached from callers.
//
// The record shares the fetch's body until the cache compacts it, which
// copies it; the report runs after that, and, unless an OnFetch hook is
// given the body, releases it for the bodies of later fetches.
func (c *core) fetch(ctx context.Context, key string, held *cache.Record) (*cache.Record, func()) {
	res := c.get(bypass.With(ctx), key, held.Validators())
	c.stats.fetches.Add(1)
	now := c.now()
	out := c.classify.Classify(res, now)
	rec := c.policy.Next(key, held, res, out, now)
	return rec, func() {
		c.report(key, res, out, rec)
		if c.onFetch == nil {
			res.Release()
		}
	}
}

// get runs one fetch; nil when none could be made, which the status table
// counts as unreachable. Only a canceled context or an unusable URL fail
// Fetch, and neither can happen here; a transport that panics is a failed
// fetch too.
func (c *core) get(ctx context.Context, key string, v fetch.Validators) (res *fetch.Result) {
	defer func() {
		if p := recover(); p != nil {
			c.stats.panics.Add(1)
			c.log.Error("robots.txt fetch panicked", "authority", key, "panic", p)
			res = nil
		}
	}()
	res, err := c.fetcher.Fetch(ctx, key+"/robots.txt", v)
	if err != nil {
		c.log.Error("robots.txt fetch failed unexpectedly", "authority", key, "err", err)
		return nil
	}
	return res
}

// report counts, logs and hands on one fetch.
func (c *core) report(key string, res *fetch.Result, out status.Outcome, rec *cache.Record) {
	attrs := func() []any { return []any{"authority", key, "outcome", out.Reason, "fresh_until", rec.FreshUntil} }
	if out.Unreachable() {
		class := "status"
		a := attrs()
		if res != nil && res.Err != nil {
			class = res.Err.Class.String()
			a = append(a, "err", res.Err)
		}
		c.stats.fetchError(class)
		c.log.Warn("robots.txt unreachable", append(a, "failures", rec.Failures)...)
	} else if c.log.Enabled(context.Background(), slog.LevelDebug) { // the attributes cost allocations
		c.log.Debug("robots.txt fetched", attrs()...)
	}
	if c.onFetch != nil {
		c.hook(FetchEvent{Authority: key, Result: res, Outcome: out.Reason,
			Unreachable: out.Unreachable(), FreshUntil: rec.FreshUntil})
	}
}

// hook calls OnFetch, containing a panic: the decision is made regardless.
func (c *core) hook(ev FetchEvent) {
	defer func() {
		if p := recover(); p != nil {
			c.stats.panics.Add(1)
			c.log.Error("robots: Options.OnFetch panicked", "authority", ev.Authority, "panic", p)
		}
	}()
	c.onFetch(ev)
}
