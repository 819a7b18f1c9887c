package robots

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
)

// state is what a cache entry holds for an authority: what its last fetch
// said, ready to answer with. It is immutable.
type state struct {
	verdict   status.Verdict // Rules, AllowAll or DisallowAll
	class     status.Class
	outcome   string
	status    int
	robotsURL string
	finalURL  string
	redirects []fetch.Hop
	rules     *matcher.Matcher // for verdict Rules
	sitemaps  []string
}

// newState turns a fetch that said something about the file into a state.
func newState(res *fetch.Result, out status.Outcome, agents []string) *state {
	s := &state{verdict: out.Verdict, class: out.Class, outcome: out.Reason, status: out.StatusCode}
	if res != nil {
		s.robotsURL, s.finalURL, s.redirects = res.URL, res.FinalURL, res.Redirects
	}
	if out.Verdict == status.Rules || out.Class == status.Empty {
		// An empty file is a file without groups: everything allowed.
		var r *parser.Robots
		if res != nil && len(res.Body) > 0 {
			r = parser.Parse(res.Body)
			// Copies: the parsed file, which they point into, is not kept.
			s.sitemaps = make([]string, len(r.Sitemaps))
			for i, u := range r.Sitemaps {
				s.sitemaps[i] = strings.Clone(u)
			}
		}
		s.verdict, s.rules = status.Rules, matcher.Compile(r, agents...)
	}
	return s
}

// next returns the entry that follows old (nil when none) after a fetch
// whose result is res and outcome out, at now. This is the "Fetching and
// status" table of DESIGN.md, with its freshness column.
func (c *Client) next(old *cache.Entry, res *fetch.Result, out status.Outcome, now time.Time) *cache.Entry {
	var h http.Header
	if res != nil {
		h = res.Header
	}
	ttl := cache.LifetimeOf(h, now, c.minTTL).TTL
	switch {
	case out.Verdict == status.NotModified:
		// A 304 to the validators of the copy held: renew it as it is.
		if held := goodCopy(old); held != nil {
			e := *held
			e.FetchedAt, e.FreshUntil = now, now.Add(ttl)
			if v := h.Get("ETag"); v != "" {
				e.ETag = v
			}
			if v := h.Get("Last-Modified"); v != "" {
				e.LastModified = v
			}
			return &e
		}
		// Nothing held to renew (it cannot happen: validators are sent
		// only with a copy): count it as a failure, fetch afresh next.
		out = status.Outcome{Verdict: status.DisallowAll, Class: status.Unreachable,
			Reason: out.Reason + ", but no copy is held", StatusCode: out.StatusCode}
	case !out.Unreachable():
		return &cache.Entry{
			Value:        newState(res, out, c.agents),
			FetchedAt:    now,
			FreshUntil:   now.Add(ttl),
			ETag:         h.Get("ETag"),
			LastModified: h.Get("Last-Modified"),
		}
	}
	// Unreachable: remember since when, keep the last good copy, and back
	// off, however many callers ask in the meantime.
	e := &cache.Entry{Value: newState(res, out, c.agents), FetchedAt: now, UnreachableSince: now, Failures: 1}
	if old != nil {
		e.Good = goodCopy(old)
		if old.Unreachable() {
			e.UnreachableSince, e.Failures = old.UnreachableSince, old.Failures+1
		}
	}
	retry := out.RetryAfter
	if retry.IsZero() {
		retry = now.Add(cache.Backoff(e.Failures, rand.Float64()))
	}
	e.FreshUntil = retry
	return e
}

// goodCopy returns the good copy e stands for: e itself when its fetch said
// something about the file, else the copy it keeps, if any.
func goodCopy(e *cache.Entry) *cache.Entry {
	if e == nil {
		return nil
	}
	if !e.Unreachable() {
		return e
	}
	return e.Good
}

// validators returns those of the good copy old stands for, if any.
func validators(old *cache.Entry) fetch.Validators {
	if g := goodCopy(old); g != nil {
		return fetch.Validators{ETag: g.ETag, LastModified: g.LastModified}
	}
	return fetch.Validators{}
}

// basis returns the entry whose state answers at now, and whether it is a
// stale good copy standing in for an unreachable authority; nil with the
// reason when the answer is a blanket one.
func (c *Client) basis(e *cache.Entry, now time.Time) (use *cache.Entry, stale bool, blanket Reason) {
	if !e.Unreachable() {
		return e, false, 0
	}
	if g := e.Good; g != nil && (c.allowAfter < 0 || now.Sub(g.FetchedAt) <= c.allowAfter) {
		return g, true, 0
	}
	if c.allowAfter >= 0 && now.Sub(e.UnreachableSince) > c.allowAfter {
		return nil, false, UnreachableTooLong
	}
	return nil, false, Unreachable
}

// fromMatcher maps the matcher's reasons to a Decision's.
var fromMatcher = [...]Reason{
	matcher.RuleMatched:   RuleMatched,
	matcher.NoRuleMatched: NoRuleMatched,
	matcher.NoGroup:       NoGroup,
	matcher.RobotsTxt:     RobotsTxt,
}

// allowed is the verdict of entry e on the wire path at now.
func (c *Client) allowed(e *cache.Entry, path string, now time.Time) bool {
	use, _, blanket := c.basis(e, now)
	if use == nil {
		return blanket == UnreachableTooLong
	}
	s := use.Value.(*state)
	switch s.verdict {
	case status.Rules:
		return s.rules.Allowed(path)
	case status.AllowAll:
		return true
	default:
		return false
	}
}

// decide is allowed, explained.
func (c *Client) decide(e *cache.Entry, path string, now time.Time) Decision {
	use, stale, blanket := c.basis(e, now)
	d := Decision{Stale: stale, FreshUntil: e.FreshUntil, UnreachableSince: e.UnreachableSince}
	src := e
	if use != nil {
		src = use
	}
	s := src.Value.(*state)
	d.RobotsURL, d.FinalURL, d.Redirects = s.robotsURL, s.finalURL, s.redirects
	d.StatusCode, d.Outcome, d.FetchedAt = s.status, s.outcome, src.FetchedAt
	if use == nil {
		d.Reason, d.Allowed = blanket, blanket == UnreachableTooLong
		return d
	}
	switch s.verdict {
	case status.Rules:
		res := s.rules.Match(path)
		d.Allowed, d.Rule, d.Agents = res.Allowed, res.Rule, s.rules.Agents()
		d.Reason = fromMatcher[res.Reason]
	case status.AllowAll:
		d.Allowed, d.Reason = true, Unavailable
	default:
		d.Reason = AuthDenied
	}
	return d
}
