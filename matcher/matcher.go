// Package matcher decides whether a URL path is allowed by a parsed
// robots.txt file, for a crawler known by one or more product tokens.
//
// Compile selects the groups that apply to the crawler and compiles their
// rules once; the Matcher it returns is immutable, safe for concurrent use,
// and answers Allowed and Match without allocating for paths up to a few
// hundred bytes. Match allocates only to report a rule of a file of more
// than a few rules that matched a path not in canonical form: the pattern
// of a plain rule is read from the path it matched, canonicalized.
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
// whatever their number. A file of a few rules for the crawler (at most
// 48, as 80% of the files of a crawl hold) is compiled into its patterns
// alone, which a check tries best first, at most a search of the path
// each. Wildcard rules that could beat the best plain
// match are tried best first, a search of the path per piece between stars,
// until those searches have scanned 64 KiB of path; the rest are matched
// through an index of the path shared by all of them, at a few look-ups per
// piece. There is no backtracking, and a check of any file at the default
// body cap (500 KiB) against a path of 8 KiB stays under a millisecond.
//
// Non-goals: fetching or parsing robots.txt (packages fetch and parser), and
// interpreting crawl-delay or other non-rule records beyond reporting them.
package matcher

import (
	"time"
	"unsafe"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// Matcher answers whether paths are allowed for one crawler. It is
// immutable and safe for concurrent use.
type Matcher struct {
	// The arena of the patterns of the rules of the selected groups and
	// of their user-agent lines (see compile.go).
	text string
	// The patterns, compiled small, best first (see small.go); nil when
	// they are in the trie.
	small []smallRule
	// The patterns, compiled into a trie; a match reports the rule's id
	// (see compile.go). Nil for a small set.
	trie *patternSet
	// The user-agent lines of the selected groups, encoded in the text:
	// none when no group applies, as each group has one at least.
	agents agentList
	more   *matcherMore // what few files have; nil for the others
}

// trieMatcher is a Matcher and its trie, allocated together.
type trieMatcher struct {
	m    Matcher
	trie patternSet
}

// matcherMore is what a Matcher holds that most files do not need.
type matcherMore struct {
	crawlDelay   time.Duration   // the largest that applies to the crawler
	delays       []time.Duration // the Crawl-delays of the agents, by index; nil when none has one
	lines        []int32         // the rules' lines by id, when the ids are not the lines; nil when they are
	usage        *usageRules     // the Content-Usage rules of the selected groups; nil for none
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
	// RuleMatched; the zero Rule otherwise. Its Pattern may be a substring
	// of the path asked about, which it spells.
	Rule parser.Rule
}

// Allowed reports whether the crawler may fetch path, a URL path with an
// optional "?query" as sent on the wire ("/a/b?c=d"). A full URL
// ("https://example.com/a/b?c=d") counts as its path and query, as
// robots.AllowedBy reads one. A fragment is ignored; an empty path is "/".
// Raw non-ASCII octets and percent-escapes are normalized as patterns are,
// so "/ツ" and "/%E3%83%84" are the same path.
func (m *Matcher) Allowed(path string) bool {
	h, _ := m.decide(path)
	return h.kind == noHit || h.allow
}

// Match is Allowed, explained: it also returns the rule that decided.
func (m *Matcher) Match(path string) Result {
	h, why := m.decide(path)
	if h.kind == noHit {
		return Result{Allowed: true, Reason: why}
	}
	allow := h.allow
	return Result{Allowed: allow, Reason: RuleMatched,
		Rule: parser.Rule{Allow: allow, Pattern: m.written(h, path), Line: m.line(h)}}
}

// written returns the pattern of the rule of h, the match of path, as
// written.
func (m *Matcher) written(h hit, path string) string {
	if h.kind == smallHit {
		r := &m.small[h.at]
		canon := r.canon(m.text)
		if r.wn > 0 {
			end := int(r.off) + len(canon)
			return m.text[end : end+int(r.wn)]
		}
		return canon
	}
	at, isNoted := m.trie.ruleAt(h)
	if !isNoted {
		// A plain pattern is canonical and matched the path from its
		// start: it is the path's first octets, in canonical form, those
		// of path itself when it is canonical. Of one that is not, only
		// the pattern is copied.
		path = pathOf(path)
		if urlpath.IsCanonicalPath(path) {
			return path[:h.depth]
		}
		var buf [512]byte
		return string(urlpath.AppendPath(buf[:0], path)[:h.depth])
	}
	return writtenAt(m.text, at)
}

// line returns the line of the rule of h.
func (m *Matcher) line(h hit) int {
	if h.kind == smallHit {
		return int(m.small[h.at].line)
	}
	id := m.trie.idOf(h)
	if m.more != nil && m.more.lines != nil {
		return int(m.more.lines[id])
	}
	return int(id)
}

// decide returns the match that decides path, or none and the reason no
// rule does.
func (m *Matcher) decide(path string) (hit, Reason) {
	path = pathOf(path)
	if !urlpath.IsCanonicalPath(path) {
		// Canonicalize into a buffer on the stack: the string made from it
		// does not outlive this call.
		var buf [512]byte
		b := urlpath.AppendPath(buf[:0], path)
		path = unsafe.String(unsafe.SliceData(b), len(b))
	}
	if path == "/robots.txt" {
		return hit{}, RobotsTxt
	}
	if m.agents.n == 0 {
		return hit{}, NoGroup
	}
	var h hit
	if m.trie != nil {
		h = m.trie.best(path) // written out: the hot path takes no extra call
	} else {
		h = m.smallBest(path)
	}
	if h.kind != noHit {
		return h, RuleMatched
	}
	return hit{}, NoRuleMatched
}

// smallBest is best for a small set.
func (m *Matcher) smallBest(path string) hit {
	i, _ := smallBest(m.small, m.text, path)
	if i < 0 {
		return hit{}
	}
	return hit{kind: smallHit, allow: m.small[i].allow(), at: int32(i)}
}

// bestSteps is best, and the steps of work it took (see
// patternSet.bestSteps).
func (m *Matcher) bestSteps(path string) (hit, int) {
	if m.trie != nil {
		return m.trie.bestSteps(path)
	}
	i, steps := smallBest(m.small, m.text, path)
	if i < 0 {
		return hit{}, steps
	}
	return hit{kind: smallHit, allow: m.small[i].allow(), at: int32(i)}, steps
}

// pathOf returns the path and query of s, a path as sent on the wire
// ("/a?b", "//a" too) or a full URL ("https://example.com/a?b"), read as
// robots.AllowedBy reads a URL: a path is what starts with '/'.
func pathOf(s string) string {
	if len(s) > 0 && s[0] == '/' {
		return s
	}
	return urlpath.FromURL(s)
}

// MatchOnce answers one question about r without compiling it: the result
// is Compile(r, agents...).Match(path), at a cost linear in the number of the
// crawler's rules and without building the trie. For more than a few
// questions about one file, Compile once and ask the Matcher.
func MatchOnce(r *parser.Robots, path string, agents ...string) Result {
	agents = names(agents)
	path = urlpath.Path(pathOf(path))
	if path == "/robots.txt" {
		return Result{Allowed: true, Reason: RobotsTxt}
	}
	var groups []*parser.Group
	if r != nil {
		groups, _ = selectGroups(r, agents, nil, nil)
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
// crawler, in file order, each with the Crawl-delay bound to it, as the
// parser reads it; none when no group applies.
func (m *Matcher) Agents() []parser.Agent {
	if m.agents.n == 0 {
		return nil
	}
	agents := make([]parser.Agent, m.agents.n)
	at := m.agents.at
	for i := range agents {
		var a agentLine
		a, at = agentAt(m.text, at)
		agents[i] = parser.Agent{Value: a.value.in(m.text), Line: int(a.line)}
		if m.more != nil && m.more.delays != nil {
			agents[i].CrawlDelay = m.more.delays[i]
		}
	}
	return agents
}

// Size returns the number of bytes m holds in memory: the Matcher and every
// array it owns, measured from their capacities. A cache that holds many
// Matchers bounds its memory with it.
func (m *Matcher) Size() int64 {
	n := int64(unsafe.Sizeof(*m)) + int64(len(m.text)) + smallSize(m.small)
	if m.trie != nil {
		n += int64(unsafe.Sizeof(*m.trie)) + m.trie.size() - int64(len(m.trie.text)) // the text is m's
	}
	if mm := m.more; mm != nil {
		n += int64(unsafe.Sizeof(*mm))
		n += int64(cap(mm.delays)) * int64(unsafe.Sizeof(time.Duration(0)))
		n += int64(cap(mm.lines)) * 4
		n += int64(len(mm.signalRecord.Value))
		n += mm.usage.size()
	}
	return n
}

// CrawlDelay returns the largest crawl-delay among the groups that apply to
// the crawler; zero when none has one. Crawl-delay is not part of RFC 9309.
func (m *Matcher) CrawlDelay() time.Duration {
	if m.more == nil {
		return 0
	}
	return m.more.crawlDelay
}
