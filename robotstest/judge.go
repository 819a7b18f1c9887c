package robotstest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// MaxLifetime is the longest a robots.txt answer binds a crawler, and the
// longest its caching headers or Retry-After can ask it to wait: 24 hours
// (RFC 9309 §2.4: crawlers SHOULD NOT use a cached copy for longer).
const MaxLifetime = 24 * time.Hour

// maxListed is how many violations AssertObeyed lists.
const maxListed = 50

// Kind is the kind of a Violation.
type Kind uint8

// The kinds of Violation.
const (
	// Disallowed: a page request the robots.txt in force disallowed for
	// the crawler.
	Disallowed Kind = iota + 1
	// TooSoon: a page request that came sooner after the previous page
	// request than the Crawl-delay in force for the crawler allows.
	TooSoon
	// RefetchedRobots: a fetch of robots.txt while the previous answer was
	// still fresh by its Cache-Control header, or before the time its
	// Retry-After header asked for.
	RefetchedRobots
)

// String returns a short lowercase name of k, such as "disallowed".
func (k Kind) String() string {
	switch k {
	case Disallowed:
		return "disallowed"
	case TooSoon:
		return "too soon"
	case RefetchedRobots:
		return "refetched robots.txt"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Violation is one request by which a crawler failed to obey robots.txt.
type Violation struct {
	// Kind says what the request broke.
	Kind Kind
	// Request is the request that broke it.
	Request Request
	// Rule is the Disallow rule that forbade the request, as written, with
	// its line number; the zero Rule when no rule did (every other Kind, and
	// an unreachable robots.txt, which disallows everything).
	Rule parser.Rule
	// Reason explains the violation for people, citing the line of
	// robots.txt or the header field that the request broke. When the
	// requests met more than one robots.txt, it says which: version 1 is
	// NewSite's, and each SetRobots makes the next.
	Reason string
}

// String describes the violation on one line: the request and the reason.
func (v Violation) String() string {
	return fmt.Sprintf("%s %s (User-Agent %q): %s", v.Request.Method, v.Request.Path, v.Request.UserAgent, v.Reason)
}

// Violations returns the requests by which the crawler called agent failed
// to obey robots.txt, in the order the site received them. agent is a
// crawler's name or full User-Agent product, as matcher.Compile takes it.
// Every request the site recorded is judged by the rules for agent,
// whatever User-Agent it sent.
//
// A page request is judged by the robots.txt the crawler should be
// following when it arrives: the last answer /robots.txt gave before it,
// for MaxLifetime after that answer; what /robots.txt answers at the time
// of the request when it was never fetched or that answer is older.
// Robots.txt parsed from an answer binds the crawler by its first
// ParsedBytes; a 4xx other than 429, a 204, and a 3xx that leads to no
// file the site serves allow everything; a 429, a 5xx or a status past 599
// means robots.txt cannot be reached, so the last other answer the site gave stands, and
// without one everything is disallowed (RFC 9309 §2.3.1).
//
// A page request is too soon when it follows the previous page request by
// less than the Crawl-delay that robots.txt sets for the crawler (the
// largest of the groups that apply, as matcher.Matcher.CrawlDelay reads
// it). Requests for robots.txt do not count.
//
// A fetch of robots.txt is one too many when it comes while the previous
// answer is still fresh: for the s-maxage, or else the max-age, of its
// Cache-Control, less its Age, as the library reads them (no-store and
// no-cache make it never fresh), or, for a 429
// or 5xx, until its Retry-After; for MaxLifetime at most. An answer without
// those header fields may be fetched again at any time: RFC 9309 §2.4 lets
// a crawler cache robots.txt, and does not make it.
func (s *Site) Violations(agent string) []Violation {
	s.mu.Lock()
	recs := slices.Clone(s.requests)
	s.mu.Unlock()
	j := judge{agent: agent, name: parser.NameOf(agent), matchers: map[*version]*matcher.Matcher{}}
	for _, r := range recs {
		j.multi = j.multi || r.version != recs[0].version
	}
	var out []Violation
	for _, r := range recs {
		out = j.check(r, out)
	}
	return out
}

// AssertObeyed reports whether the crawler called agent obeyed robots.txt,
// as Violations judges it. When it did not, or the site received more than
// MaxRequests requests, it fails t with t.Errorf, listing the violations,
// and returns false.
func (s *Site) AssertObeyed(t testing.TB, agent string) bool {
	t.Helper()
	vs := s.Violations(agent)
	s.mu.Lock()
	dropped, limit := s.dropped, s.limit
	s.mu.Unlock()
	if len(vs) == 0 && dropped == 0 {
		return true
	}
	var b strings.Builder
	plural := "s"
	if len(vs) == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "robotstest: %s did not obey robots.txt: %d violation%s", agent, len(vs), plural)
	for i, v := range vs {
		if i == maxListed {
			fmt.Fprintf(&b, "\n\t… and %d more", len(vs)-i)
			break
		}
		b.WriteString("\n\t" + v.String())
	}
	if dropped > 0 {
		fmt.Fprintf(&b, "\n\t%d requests past the first %d (MaxRequests) were not judged", dropped, limit)
	}
	t.Errorf("%s", b.String())
	return false
}

// judge walks the request log in order, keeping what a crawler that obeys
// robots.txt would know at each request.
type judge struct {
	agent    string
	name     string // agent's crawler name, to find the lines that name it
	multi    bool   // robots.txt changed under the crawler: messages say which version
	matchers map[*version]*matcher.Matcher

	served   *version  // the last answer to a robots.txt fetch, nil before one
	servedAt time.Time // when it was given
	good     *version  // the last answer served that was not unreachable
	paged    bool      // a page was requested …
	pagedAt  time.Time // … at this time
}

func (j *judge) check(r record, out []Violation) []Violation {
	if r.Robots {
		if r.fetch {
			out = j.fetched(r, out)
		}
		return out // the target of a redirect is part of its fetch
	}
	v := r.version
	if j.served != nil && r.Time.Sub(j.servedAt) < MaxLifetime {
		v = j.served
	}
	if v.unreachable() && j.good != nil {
		v = j.good // RFC 9309 §2.4: a cached copy stands while robots.txt is unreachable
	}
	bad := func(k Kind, rule parser.Rule, format string, args ...any) {
		out = append(out, Violation{Kind: k, Request: r.Request, Rule: rule, Reason: fmt.Sprintf(format, args...)})
	}
	if v.unreachable() {
		bad(Disallowed, parser.Rule{}, "disallowed: %s answered %d, which disallows everything (RFC 9309 §2.3.1.4)",
			j.file(v), v.status)
	}
	if v.rules != nil {
		m := j.matcher(v)
		if res := m.Match(r.Path); !res.Allowed {
			bad(Disallowed, res.Rule, "disallowed by %s line %d: %s", j.file(v), res.Rule.Line, res.Rule)
		}
		delay := m.CrawlDelay()
		if gap := r.Time.Sub(j.pagedAt); j.paged && gap < delay {
			bad(TooSoon, parser.Rule{}, "too soon: %s after the previous page request, under the Crawl-delay of %s%s",
				gap, delay, j.delaySource(m, v, delay))
		}
	}
	j.paged, j.pagedAt = true, r.Time
	return out
}

// fetched judges a fetch of robots.txt and remembers its answer.
func (j *judge) fetched(r record, out []Violation) []Violation {
	if j.served != nil {
		until, why := freshUntil(j.served, j.servedAt)
		if r.Time.Before(until) {
			out = append(out, Violation{Kind: RefetchedRobots, Request: r.Request, Reason: fmt.Sprintf(
				"robots.txt fetched again %s after the previous fetch, whose answer stayed fresh for %s (%s)",
				r.Time.Sub(j.servedAt), until.Sub(j.servedAt), why)})
		}
	}
	j.served, j.servedAt = r.version, r.Time
	if !r.version.unreachable() {
		j.good = r.version
	}
	return out
}

func (j *judge) matcher(v *version) *matcher.Matcher {
	m, ok := j.matchers[v]
	if !ok {
		m = matcher.Compile(v.rules, j.agent)
		j.matchers[v] = m
	}
	return m
}

// file names the robots.txt of v in a message.
func (j *judge) file(v *version) string {
	if j.multi {
		return fmt.Sprintf("robots.txt version %d", v.n)
	}
	return "robots.txt"
}

// delaySource names the user-agent line whose Crawl-delay is delay, among
// the lines of the groups that apply, when it can be found.
func (j *judge) delaySource(m *matcher.Matcher, v *version, delay time.Duration) string {
	applies := map[int]bool{}
	for _, a := range m.Agents() {
		applies[a.Line] = true
	}
	for _, g := range v.rules.Groups {
		for _, a := range g.Agents {
			if applies[a.Line] && a.CrawlDelay == delay && (a.IsGlobal() || parser.IsValidName(j.name) && a.Names(j.name)) {
				return fmt.Sprintf(" that %s sets for line %d (User-agent: %s)", j.file(v), a.Line, a.Value)
			}
		}
	}
	return ""
}

// unreachable reports whether the answer means robots.txt cannot be
// reached: a 429 or a 5xx, or a status past 599 (RFC 9309 §2.3.1.3-4).
func (v *version) unreachable() bool {
	return v.status == http.StatusTooManyRequests || v.status >= 500
}

// freshUntil returns until when an answer given at at is fresh, and the
// header field that says so; at itself and "" when it is not fresh at all.
func freshUntil(v *version, at time.Time) (time.Time, string) {
	if v.unreachable() {
		ra := v.header.Get("Retry-After")
		if d, ok := deltaSeconds(ra); ok {
			return at.Add(d), "Retry-After: " + ra
		}
		if t, err := http.ParseTime(ra); err == nil {
			if limit := at.Add(MaxLifetime); t.After(limit) {
				t = limit
			}
			return t, "Retry-After: " + ra
		}
		return at, ""
	}
	// The lifetime the library itself computes, less the minimum it keeps
	// even for no-store; only an s-maxage or a max-age binds a crawler
	// (RFC 9309 allows caching and does not require it).
	lt := freshness.LifetimeOf(v.header, at, 0)
	if (lt.Source != freshness.SMaxAge && lt.Source != freshness.MaxAge) || lt.TTL <= 0 {
		return at, ""
	}
	return at.Add(lt.TTL), "Cache-Control: " + strings.Join(v.header.Values("Cache-Control"), ", ")
}

// deltaSeconds reads a number of seconds (RFC 9111 §1.2.2), at most
// MaxLifetime.
func deltaSeconds(s string) (time.Duration, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) || err == nil && n > uint64(MaxLifetime/time.Second) {
		return MaxLifetime, true
	}
	return time.Duration(n) * time.Second, err == nil
}
