package robots

import (
	"net/http"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/engine"
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
)

// compiled is what a Client derives from a cache.Record to answer with. It
// is immutable but for its views, which grow as Clients made by As ask,
// through the cache's Grow (see Client.compileView). For a record of an
// outage, it holds the good copy's compiled form, if any.
type compiled struct {
	verdict status.Verdict // Rules, AllowAll or DisallowAll
	outage  bool           // the record is of an outage

	rules *matcher.Matcher      // for Rules, for the core's agents
	views atomic.Pointer[views] // for Rules, the rules for other agent sets, compiled on demand; nil before the first
	good  *compiled             // the good copy's form during an outage, nil when none
}

// The compiled forms that hold no rules are shared by every record that
// has them (an authority without a robots.txt, most often): they never
// change, as views are only ever of rules.
var (
	allowAll      = &compiled{verdict: status.AllowAll}
	disallowAll   = &compiled{verdict: status.DisallowAll}
	outageNoCopy  = &compiled{verdict: status.DisallowAll, outage: true}
	sharedVerdict = [...]*compiled{allowAll, disallowAll, outageNoCopy}
)

// Size returns the bytes v holds beyond its record: none for a form
// shared by every record that has it.
func (v *compiled) Size() int64 {
	if v == nil || slices.Contains(sharedVerdict[:], v) {
		return 0
	}
	n := int64(unsafe.Sizeof(*v))
	if v.rules != nil {
		n += v.rules.Size()
	}
	return n + v.views.Load().size() + v.good.Size()
}

// derive compiles rec. The compiled form of the good copy held is reused
// when rec keeps the same copy (an outage goes on, or a 304 renews it), so
// that neither reparses the file.
func (c *core) derive(rec *cache.Record, held *entry) *compiled {
	var prev *compiled
	var prevFile *cache.Record
	if held != nil {
		prev, prevFile = held.Value.goodCopy(), held.Record().GoodCopy()
	}
	g := rec.GoodCopy()
	var gc *compiled
	if g != nil {
		gc = c.compile(g, prev, prevFile)
	}
	if rec.Unreachable() {
		if gc == nil {
			return outageNoCopy
		}
		return &compiled{verdict: status.DisallowAll, outage: true, good: gc}
	}
	return gc
}

// goodCopy returns the compiled form of the good copy v stands for.
func (v *compiled) goodCopy() *compiled {
	if v.outage {
		return v.good
	}
	return v
}

// compile returns the compiled form of the good record g, reusing prev,
// compiled from prevFile, when it is of the very same body, with the rules
// prev keeps for other agent sets.
func (c *core) compile(g *cache.Record, prev *compiled, prevFile *cache.Record) *compiled {
	switch c.verdictOf(g) {
	case status.AllowAll:
		return allowAll
	case status.DisallowAll:
		return disallowAll
	}
	if prev != nil && prev.rules != nil && g.SameBody(prevFile) {
		return prev
	}
	v := &compiled{verdict: status.Rules}
	// The Matcher keeps nothing of the parsed file, whose memory the next
	// file's parse reuses.
	parser.ParseFunc(g.File(), func(r *parser.Robots) { v.rules = matcher.Compile(r, c.ownAgents...) })
	return v
}

// verdictOf says what the good record g means for this Client. A 401 or 403
// follows this Client's DisallowOn401403 whatever the Client that made the
// record thought, so that Clients sharing records may differ on it.
func (c *core) verdictOf(g *cache.Record) status.Verdict {
	switch g.Class {
	case status.Success, status.Empty:
		return status.Rules
	case status.Unavailable, status.AuthDenied:
		if (g.StatusCode == http.StatusUnauthorized || g.StatusCode == http.StatusForbidden) && c.classify.DisallowOnAuthError {
			return status.DisallowAll
		}
		return status.AllowAll
	case status.RedirectFailed:
		return status.AllowAll
	}
	return status.DisallowAll
}

// instant is the time a question is judged at: a reading of the clock, or,
// after a engine.Cache.Hit, which reads none, the cache's clock, read only
// if the answer depends on the time.
type instant struct {
	t    time.Time
	core *core // non-nil: read the cache's clock
}

// at is the instant of the reading t.
func at(t time.Time) instant { return instant{t: t} }

// time returns the instant's reading.
func (i instant) time() time.Time {
	if i.core != nil {
		return i.core.cache.Now()
	}
	return i.t
}

// basis returns what answers for e at now: the compiled file and the record
// it comes from; for an outage, what the engine's outage policy says: the
// good copy, for the whole outage, or, with none, nothing and the blanket
// reason (disallow, and after UnreachableAllowAfter allow).
func (c *core) basis(e *entry, now instant) (v *compiled, src source, blanket Reason) {
	rec := e.Held.Outage()
	if rec == nil {
		return e.Value, source{e: e}, 0
	}
	switch c.policy.Outage(rec, now.time) {
	case engine.FromCopy:
		if e.Value.good != nil { // derive compiles every good copy
			return e.Value.good, source{e: e, good: rec.Good}, 0
		}
	case engine.AllowAll:
		return nil, source{e: e}, UnreachableTooLong
	}
	return nil, source{e: e}, Unreachable
}

// source is the record an answer comes from: the entry's own, or, during
// an outage, its good copy.
type source struct {
	e    *entry
	good *cache.Record // the good copy answered from; nil: e's own record
}

// fields returns the source's record as a value, without allocating.
func (s source) fields() cache.Record {
	if s.good != nil {
		return *s.good
	}
	return s.e.Held.Fields()
}

// fromMatcher maps the matcher's reasons to a Decision's.
var fromMatcher = [...]Reason{
	matcher.RuleMatched:   RuleMatched,
	matcher.NoRuleMatched: NoRuleMatched,
	matcher.NoGroup:       NoGroup,
	matcher.RobotsTxt:     RobotsTxt,
}

// allowed is the verdict of entry e, held for the authority key, on the
// wire path at now.
func (c *Client) allowed(key string, e *entry, path string, now instant) bool {
	v, src, blanket := c.basis(e, now)
	if v == nil {
		return blanket == UnreachableTooLong
	}
	switch v.verdict {
	case status.Rules:
		return c.matcherOf(key, v, src).Allowed(path)
	case status.AllowAll:
		return true
	default:
		return false
	}
}

// decide is allowed, explained.
func (c *Client) decide(key string, e *entry, path string, now instant) Decision {
	v, src, blanket := c.basis(e, now)
	own := e.Held.Fields()
	rec := &own
	if src.good != nil {
		rec = src.good
	}
	d := Decision{
		Stale:            src.good != nil,
		RobotsURL:        rec.URL,
		FinalURL:         rec.FinalURL,
		Redirects:        slices.Clone(rec.Redirects), // the cache's are not the caller's to change
		StatusCode:       rec.StatusCode,
		Outcome:          rec.Outcome,
		FetchedAt:        rec.FetchedAt,
		FreshUntil:       own.FreshUntil,
		UnreachableSince: own.UnreachableSince,
	}
	robotsTxt := urlpath.IsRobotsTxt(path)
	if robotsTxt {
		// RFC 9309 §2.2.2: always allowed, whatever the file or its
		// fetch; what the file states about itself still counts below.
		d.Allowed, d.Reason = true, RobotsTxt
	}
	if v == nil {
		if !robotsTxt {
			d.Reason, d.Allowed = blanket, blanket == UnreachableTooLong
		}
		return d
	}
	if robotsTxt {
		if v.verdict == status.Rules {
			m := c.matcherOf(key, v, src)
			u := m.Usage(path)
			d.Agents, d.Usage, d.UsageRule = m.Agents(), u.Prefs, u.Rule
		}
		return d
	}
	switch v.verdict {
	case status.Rules:
		m := c.matcherOf(key, v, src)
		res := m.Match(path)
		d.Allowed, d.Rule, d.Agents = res.Allowed, res.Rule, m.Agents()
		d.Reason = fromMatcher[res.Reason]
		if d.Allowed {
			u := m.Usage(path)
			d.Usage, d.UsageRule = u.Prefs, u.Rule
		}
	case status.AllowAll:
		d.Allowed, d.Reason = true, Unavailable
	default:
		d.Reason = AuthDenied
	}
	return d
}
