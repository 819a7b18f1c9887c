// Package matcher decides whether a URL path is allowed by a parsed
// robots.txt file, for a crawler known by one or more product tokens.
//
// Compile selects the groups that apply to the crawler and compiles their
// rules once; the Matcher it returns is immutable, safe for concurrent use,
// and answers Allowed and Match without allocating for paths up to a few
// hundred bytes.
//
// Semantics (RFC 9309 §2.2; Google's interpretation where the RFC is silent):
//
//   - Group selection: a user-agent line applies to a crawler when the line's
//     product token (its value up to the first character outside [A-Za-z_-])
//     equals one of the crawler's tokens, ignoring case. All such groups merge;
//     only when there are none do the "*" groups apply, merged. With neither,
//     everything is allowed.
//   - Matching: paths and patterns are put into one canonical percent-encoded
//     form first (see RFC 9309 §2.2.2, Figure 4). '*' in a pattern matches any
//     run of octets, '$' as its last octet anchors it at the end of the path.
//     The matching rule with the most octets in its canonical pattern wins; on
//     a tie, allow wins. Empty patterns match nothing. Matching is
//     case-sensitive. "/robots.txt" is always allowed.
//   - Google's index.html rule is kept: an Allow whose last segment starts
//     with "index.htm" also allows its directory ("Allow: /a/index.html"
//     allows "/a/").
//
// Matching costs time linear in the length of the path for plain rules,
// whatever their number; each wildcard rule that could beat the best plain
// match costs at most a few linear scans of the path. There is no
// backtracking, so hostile patterns cannot blow up.
//
// Non-goals: fetching or parsing robots.txt (packages fetch and parser), and
// interpreting crawl-delay or other non-rule records beyond reporting them.
package matcher

import (
	"slices"
	"time"
	"unsafe"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// Matcher answers whether paths are allowed for one crawler. It is
// immutable and safe for concurrent use.
type Matcher struct {
	text  string       // the arena every span refers to (see compile.go)
	nodes []node       // the trie over the rules' literal heads; nodes[0] is the root
	index [][128]uint8 // child indexes of nodes of many children: octet -> child+1
	wild  []wildRule   // wildcard rules, grouped by node, best first
	segs  []span       // the segments of the wildcard rules
	rules []rule       // the rules of the selected groups, in file order

	agents     []parser.Agent // the user-agent lines of the selected groups
	groups     int            // number of selected groups
	crawlDelay time.Duration

	usage        *usageRules // the Content-Usage rules of the selected groups; nil for none
	signal       usage.Signal
	signalRecord parser.ContentSignal
}

// Reason says why a Result is what it is.
type Reason uint8

// The reasons of a Result.
const (
	// NoGroup: no group names the crawler and there is no "*" group, so
	// every path is allowed (RFC 9309 §2.2.1).
	NoGroup Reason = iota + 1
	// NoRuleMatched: groups apply but none of their rules matches the path,
	// so it is allowed (RFC 9309 §2.2.2).
	NoRuleMatched
	// RuleMatched: Result.Rule is the most specific matching rule and
	// decides.
	RuleMatched
	// RobotsTxt: the path is /robots.txt, which is always allowed
	// (RFC 9309 §2.2.2).
	RobotsTxt
)

var reasonNames = [...]string{
	NoGroup:       "no group for the agent",
	NoRuleMatched: "no rule matched",
	RuleMatched:   "rule matched",
	RobotsTxt:     "robots.txt is always allowed",
}

// String describes the reason in a few words.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "unknown reason"
}

// Result is the verdict on one path, with its reason.
type Result struct {
	// Allowed reports whether the crawler may fetch the path.
	Allowed bool
	// Reason says how the verdict was reached.
	Reason Reason
	// Rule is the rule that decided, as written in the file, when Reason is
	// RuleMatched; the zero Rule otherwise.
	Rule parser.Rule
}

// Allowed reports whether the crawler may fetch path, a URL path with an
// optional "?query" as sent on the wire ("/a/b?c=d"). A fragment is ignored;
// an empty path is "/". Raw non-ASCII octets and percent-escapes are
// normalized as patterns are, so "/ツ" and "/%E3%83%84" are the same path.
func (m *Matcher) Allowed(path string) bool {
	return m.Match(path).Allowed
}

// Match is Allowed, explained: it also returns the rule that decided.
func (m *Matcher) Match(path string) Result {
	if !urlpath.IsCanonicalPath(path) {
		// Canonicalize into a buffer on the stack: the string made from it
		// does not outlive this call.
		var buf [512]byte
		b := urlpath.AppendPath(buf[:0], path)
		path = unsafe.String(unsafe.SliceData(b), len(b))
	}
	if path == "/robots.txt" {
		return Result{Allowed: true, Reason: RobotsTxt}
	}
	if m.groups == 0 {
		return Result{Allowed: true, Reason: NoGroup}
	}
	win := m.best(path)
	if win < 0 {
		return Result{Allowed: true, Reason: NoRuleMatched}
	}
	r := m.rules[win]
	return Result{Allowed: r.allow, Reason: RuleMatched,
		Rule: parser.Rule{Allow: r.allow, Pattern: r.written.in(m.text), Line: int(r.line)}}
}

// MatchOnce answers one question about r without compiling it: the result
// is Compile(r, agents...).Match(path), at a cost linear in the number of the
// crawler's rules and without building the trie. For more than a few
// questions about one file, Compile once and ask the Matcher.
func MatchOnce(r *parser.Robots, path string, agents ...string) Result {
	agents = productTokens(agents)
	path = urlpath.Path(path)
	if path == "/robots.txt" {
		return Result{Allowed: true, Reason: RobotsTxt}
	}
	var groups []*parser.Group
	if r != nil {
		groups = selectGroups(r, agents)
	}
	if len(groups) == 0 {
		return Result{Allowed: true, Reason: NoGroup}
	}
	var top uint64 // as in Matcher.best
	var win parser.Rule
	idx := int32(0)
	var ps []pattern
	var segs []span
	for _, g := range groups {
		for _, rl := range g.Rules {
			ps, segs = appendPatterns(ps[:0], segs[:0], urlpath.Pattern(rl.Pattern), rl.Allow)
			for _, p := range ps {
				if r := full(p.rank, idx); r > top && p.matches(path) {
					top, win = r, rl
				}
			}
			idx++
		}
	}
	if top == 0 {
		return Result{Allowed: true, Reason: NoRuleMatched}
	}
	return Result{Allowed: win.Allow, Reason: RuleMatched, Rule: win}
}

// Agents returns the user-agent lines of the groups that apply to the
// crawler, in file order; none when no group applies.
func (m *Matcher) Agents() []parser.Agent {
	return slices.Clone(m.agents)
}

// Size returns the number of bytes m holds in memory: the Matcher and every
// array it owns, measured from their capacities. A cache that holds many
// Matchers bounds its memory with it.
func (m *Matcher) Size() int64 {
	n := int64(unsafe.Sizeof(*m)) + int64(len(m.text))
	n += int64(cap(m.nodes)) * int64(unsafe.Sizeof(node{}))
	n += int64(cap(m.index)) * int64(unsafe.Sizeof([128]uint8{}))
	n += int64(cap(m.wild)) * int64(unsafe.Sizeof(wildRule{}))
	n += int64(cap(m.segs)) * int64(unsafe.Sizeof(span{}))
	n += int64(cap(m.rules)) * int64(unsafe.Sizeof(rule{}))
	n += int64(cap(m.agents)) * int64(unsafe.Sizeof(parser.Agent{}))
	for _, a := range m.agents {
		n += int64(len(a.Value))
	}
	n += int64(len(m.signalRecord.Value))
	return n + m.usage.size()
}

// CrawlDelay returns the largest crawl-delay among the groups that apply to
// the crawler; zero when none has one. Crawl-delay is not part of RFC 9309.
func (m *Matcher) CrawlDelay() time.Duration {
	return m.crawlDelay
}

// best returns the index in m.rules of the winning rule for the canonical
// path, or -1 when no rule matches.
func (m *Matcher) best(path string) int32 {
	var top uint64 // rank of the best match so far; 0 is below every rule
	win := int32(-1)
	// Nodes that carry wildcard rules are visited after the walk, when the
	// best plain match is known and prunes most of them.
	var pending [16]int32
	np := 0
	n, pos := int32(0), 0
	for {
		nd := &m.nodes[n]
		if nd.prefixRule >= 0 {
			if r := full(nd.prefixRank, nd.prefixRule); r > top {
				top, win = r, nd.prefixRule
			}
		}
		if nd.wildLo < nd.wildHi {
			if np == len(pending) {
				// A path this deep in wildcard rules: flush the oldest.
				top, win = m.wildcards(&m.nodes[pending[0]], path, nil, top, win)
				copy(pending[:], pending[1:])
				np--
			}
			pending[np] = n
			np++
		}
		if pos == len(path) {
			if nd.exactRule >= 0 {
				if r := full(nd.exactRank, nd.exactRule); r > top {
					top, win = r, nd.exactRule
				}
			}
			break
		}
		i := m.edge(nd, path[pos])
		if i < 0 {
			break
		}
		n = nd.child + i
		pos++
		tail := m.nodes[n].tail.in(m.text)
		if len(path)-pos < len(tail) || path[pos:pos+len(tail)] != tail {
			break
		}
		pos += len(tail)
	}
	if np > 0 {
		// Summarize the path only when enough rules wait to pay for it:
		// summing costs about as much as one search of the path.
		candidates := int32(0)
		for _, n := range pending[:np] {
			candidates += m.nodes[n].wildHi - m.nodes[n].wildLo
		}
		var has *octets
		if candidates > 3 {
			sum := summarize(path)
			has = &sum
		}
		for _, n := range pending[:np] {
			top, win = m.wildcards(&m.nodes[n], path, has, top, win)
		}
	}
	return win
}

// edge returns the child of nd whose edge starts with c, as an offset from
// nd.child, or -1.
func (m *Matcher) edge(nd *node, c byte) int32 {
	if nd.index >= 0 {
		if c >= 0x80 {
			return -1 // canonical paths are ASCII; so are edges
		}
		return int32(m.index[nd.index][c]) - 1
	}
	edges := m.text[nd.edges : nd.edges+uint32(nd.nedges)]
	for i := 0; i < len(edges); i++ {
		if edges[i] == c {
			return int32(i)
		}
	}
	return -1
}

// wildcards tries the wildcard rules of node nd, best first, that could beat
// the match of rank top. has, when not nil, summarizes the path: a rule that
// needs an octet, or a pair of adjacent octets, that the path lacks is
// skipped unsearched.
func (m *Matcher) wildcards(nd *node, path string, has *octets, top uint64, win int32) (uint64, int32) {
	for i := nd.wildLo; i < nd.wildHi; i++ {
		w := &m.wild[i]
		if w.rank <= top {
			break
		}
		if len(path) >= int(w.minLen) && (has == nil || has.covers(&w.needs)) &&
			matchSegments(path, int(w.head), w.anchored, m.text, m.segs[w.segs.off:w.segs.off+w.segs.n]) {
			return w.rank, w.rule
		}
	}
	return top, win
}

// octets is a summary of a string for ruling out substring matches: the set
// of its octets (canonical strings are ASCII, so 128 bits hold it exactly)
// and a 128-bit hashed set of its pairs of adjacent octets. If s occurs in t,
// the summary of t covers that of s.
type octets struct {
	single, pairs [2]uint64
}

// add adds the octets and pairs of s to o.
func (o *octets) add(s string) {
	t := summarize(s)
	for i := range o.single {
		o.single[i] |= t.single[i]
		o.pairs[i] |= t.pairs[i]
	}
}

// summarize returns the summary of s. The sets are kept in locals, in
// registers, and written once.
func summarize(s string) octets {
	if s == "" {
		return octets{}
	}
	var s0, s1, p0, p1 uint64
	prev := s[0] & 0x7f
	if prev < 64 {
		s0 = 1 << prev
	} else {
		s1 = 1 << (prev & 63)
	}
	for i := 1; i < len(s); i++ {
		c := s[i] & 0x7f
		bit := uint64(1) << (c & 63)
		h := (prev*13 ^ c) & 0x7f
		pbit := uint64(1) << (h & 63)
		if c < 64 {
			s0 |= bit
		} else {
			s1 |= bit
		}
		if h < 64 {
			p0 |= pbit
		} else {
			p1 |= pbit
		}
		prev = c
	}
	return octets{single: [2]uint64{s0, s1}, pairs: [2]uint64{p0, p1}}
}

// covers reports whether o holds every octet and pair that n holds.
func (o *octets) covers(n *octets) bool {
	return n.single[0]&^o.single[0]|n.single[1]&^o.single[1]|
		n.pairs[0]&^o.pairs[0]|n.pairs[1]&^o.pairs[1] == 0
}
