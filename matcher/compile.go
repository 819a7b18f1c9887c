package matcher

import (
	"cmp"
	"slices"
	"strings"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
)

// A compiled Matcher owns one string, its text, and everything else refers
// to it by span: the canonical patterns (whose heads, segments and trie
// labels are substrings of them), the patterns as written when they differ,
// and the trie's edge octets. It keeps nothing of the parsed file, so the
// body it came from can be collected, and it stays compact: a cache holds
// thousands of them.

// span is a substring of a text: text[off : off+n].
type span struct{ off, n uint32 }

func (s span) in(text string) string { return text[s.off : s.off+s.n] }

// node is one node of the radix trie over the literal heads of the rules:
// the path from the root to a node spells the head of every rule stored in
// it. Children of a node are contiguous in Matcher.nodes.
type node struct {
	// The edge into this node spells one octet, held in the parent's
	// edges, then tail.
	tail   span
	edges  uint32 // offset in the text of the first octet of each child's edge
	child  int32  // index of the first child
	index  int32  // for a node of many children, its child index in Matcher.index; -1 otherwise
	nedges uint8  // number of children

	// The best plain-prefix rule and the best exact ("$"-anchored,
	// star-free) rule whose pattern is this node's path, -1 when none, and
	// the ranks of their patterns.
	prefixRule, exactRule int32
	prefixRank, exactRank rank32

	// wild[wildLo:wildHi] are the wildcard rules whose literal head is this
	// node's path, best rank first.
	wildLo, wildHi int32
}

// rule is a rule of the crawler's groups, for reporting.
type rule struct {
	written span  // the pattern as written
	line    int32 // its line
	allow   bool
}

// rank32 orders the matches of one pattern against another: more octets in
// the canonical pattern first (RFC 9309 §2.2.2), then allow over disallow.
type rank32 uint32

func rankOf(octets int, allow bool) rank32 {
	r := rank32(min(octets, 1<<30)) << 1
	if allow {
		r |= 1
	}
	return r
}

// full is the rank of a match of rule idx with pattern rank r: equals are
// ordered by rule index, which is file order, so the verdict never depends
// on the order of the rules and the first of equal rules is reported.
func full(r rank32, idx int32) uint64 {
	return uint64(r)<<32 | uint64(^uint32(idx))
}

// wildRule is a rule with a '*' that is not trailing: head * seg1 * … *
// segN, optionally anchored at the end. Its head is matched by the trie.
type wildRule struct {
	rank     uint64
	needs    octets // what any path it matches must hold
	segs     span   // its segments: Matcher.segs[segs.off : segs.off+segs.n]
	rule     int32
	head     uint32 // length of the literal head
	minLen   uint32 // the shortest path that can match
	anchored bool   // the last segment must end the path
}

// matchSegments reports whether path holds the segments of text, in order,
// from pos on (and, anchored, the last one at its very end). Each segment is
// taken at its leftmost occurrence after the previous one: for a pattern
// whose only operator is '*', the greedy choice matches whenever any choice
// does, so one left-to-right pass decides, with no backtracking.
func matchSegments(path string, pos int, anchored bool, text string, segs []span) bool {
	end := len(path)
	if anchored {
		last := segs[len(segs)-1].in(text)
		if len(path)-len(last) < pos || path[len(path)-len(last):] != last {
			return false
		}
		end -= len(last)
		segs = segs[:len(segs)-1]
	}
	for _, sp := range segs {
		s := sp.in(text)
		i := strings.Index(path[pos:end], s)
		if i < 0 {
			return false
		}
		pos += i + len(s)
	}
	return true
}

// Compile selects the groups of r that apply to a crawler known by the
// given product tokens (RFC 9309 §2.2.1) and compiles their rules. A token is
// compared with each user-agent line's token ignoring case. A full User-Agent
// product given instead ("NewcomerBot/1.0 (+https://…)") counts as its token
// ("NewcomerBot"), as robots.Options.UserAgent does; any other string that
// is not a valid product token (letters, '_' and '-' only), such as "Foo Bar"
// or "Mozilla/5.0 (…)", matches no line, as in Google's reference matcher.
// With no matching group the "*" groups apply. A nil r allows everything.
// The Matcher keeps no reference to r.
func Compile(r *parser.Robots, agents ...string) *Matcher {
	agents = productTokens(agents)
	m := &Matcher{}
	var groups []*parser.Group
	if r != nil {
		groups = selectGroups(r, agents)
	}
	m.groups = len(groups)
	n, size := 0, 0
	for _, g := range groups {
		n += len(g.Rules)
		for _, a := range g.Agents {
			m.agents = append(m.agents, parser.Agent{Value: strings.Clone(a.Value), Line: a.Line})
		}
		m.crawlDelay = max(m.crawlDelay, g.CrawlDelay)
		for _, rl := range g.Rules {
			size += len(rl.Pattern)
		}
	}
	m.rules = make([]rule, 0, n)
	text := make([]byte, 0, size+size/8+64)
	entries := make([]entry, 0, n+n/8)
	var ps []pattern
	var segs []span // backing store of every pattern's segments
	for _, g := range groups {
		for _, rl := range g.Rules {
			idx := int32(len(m.rules))
			canon := urlpath.Pattern(rl.Pattern)
			base := uint32(len(text))
			text = append(text, canon...)
			written := span{base, uint32(len(canon))}
			if canon != rl.Pattern {
				written = span{uint32(len(text)), uint32(len(rl.Pattern))}
				text = append(text, rl.Pattern...)
			}
			m.rules = append(m.rules, rule{written: written, line: int32(min(rl.Line, 1<<31-1)), allow: rl.Allow})
			ps, segs = appendPatterns(ps[:0], segs, canon, rl.Allow)
			for _, p := range ps {
				entries = append(entries, entry{pattern: p, base: base, rule: idx})
			}
		}
	}
	build(m, entries, text)
	m.usage = compileUsage(groups)
	m.signal, m.signalRecord = compileSignal(r, groups)
	return m
}

// selectGroups returns the groups that name one of the agents, or, when none
// does, the global ("*") groups.
func selectGroups(r *parser.Robots, agents []string) []*parser.Group {
	valid := make([]string, 0, len(agents))
	for _, a := range agents {
		if parser.IsValidToken(a) {
			valid = append(valid, a)
		}
	}
	var specific, global []*parser.Group
	for i := range r.Groups {
		g := &r.Groups[i]
		named, all := false, false
		for _, a := range g.Agents {
			if a.IsGlobal() {
				all = true
				continue
			}
			tok := a.Token()
			for _, v := range valid {
				if strings.EqualFold(tok, v) {
					named = true
				}
			}
		}
		if named {
			specific = append(specific, g)
		} else if all {
			global = append(global, g)
		}
	}
	if len(specific) > 0 {
		return specific
	}
	return global
}

// kind of a compiled pattern.
type kind uint8

const (
	prefix kind = iota // a literal prefix of the path
	exact              // the whole path
	wild               // a head, then segments separated by '*'
)

// pattern is one compiled pattern: its literal head canon[:head], and for
// the wildcard kind the segments after it, as spans of canon. Derived
// patterns (Google's index.html rule) are shorter than canon and live in it
// too.
type pattern struct {
	kind     kind
	canon    string
	head     int
	segs     []span
	anchored bool
	minLen   int
	rank     rank32
}

// matches reports whether the pattern matches the canonical path, without a
// trie: MatchOnce asks this of every rule.
func (p *pattern) matches(path string) bool {
	head := p.canon[:p.head]
	switch p.kind {
	case prefix:
		return strings.HasPrefix(path, head)
	case exact:
		return path == head
	default:
		return len(path) >= p.minLen && strings.HasPrefix(path, head) &&
			matchSegments(path, p.head, p.anchored, p.canon, p.segs)
	}
}

// appendPatterns appends to ps the compiled patterns of a rule whose
// canonical pattern is canon: none for an empty one (which matches nothing,
// RFC 9309 §2.2.2), one, or two for an Allow under Google's index.html rule.
// Their segments are appended to segs, which it returns too.
func appendPatterns(ps []pattern, segs []span, canon string, allow bool) ([]pattern, []span) {
	if canon == "" {
		return ps, segs
	}
	var p pattern
	p, segs = newPattern(segs, canon, canon, rankOf(len(canon), allow))
	ps = append(ps, p)
	if allow {
		// Google: "Allow: /a/index.html" also allows "/a/" (and nothing
		// under it), as though "Allow: /a/$" had been written on its line.
		if i := strings.LastIndexByte(canon, '/'); i >= 0 && strings.HasPrefix(canon[i:], "/index.htm") {
			p, segs = newPattern(segs, canon, canon[:i+1], rankOf(i+2, true))
			p.anchored = true
			if len(p.segs) == 0 {
				p.kind = exact
			}
			ps = append(ps, p)
		}
	}
	return ps, segs
}

// newPattern compiles lit, a prefix of canon (with a final '$' kept when it
// is all of canon), into its head and segments, which it appends to segs.
// Trailing stars are dropped: "/a*" matches what "/a" matches, and "/a*$"
// too, though each keeps the rank of its octets as written.
func newPattern(segs []span, canon, lit string, rank rank32) (pattern, []span) {
	lit, anchored := strings.CutSuffix(lit, "$")
	p := pattern{canon: canon, head: len(lit), anchored: anchored, rank: rank}
	if star := strings.IndexByte(lit, '*'); star >= 0 {
		p.head = star
		rest := lit[star+1:]
		if strings.HasSuffix(rest, "*") || rest == "" {
			p.anchored = false // a trailing '*' absorbs the rest of the path
		}
		first := len(segs)
		for pos := star + 1; pos < len(lit); {
			seg, _, _ := strings.Cut(lit[pos:], "*")
			if seg != "" {
				segs = append(segs, span{uint32(pos), uint32(len(seg))})
			}
			pos += len(seg) + 1
		}
		// Appending to segs later never changes these elements, so the
		// slice stays right even when segs moves.
		p.segs = segs[first:len(segs):len(segs)]
	}
	p.minLen = p.head
	for _, s := range p.segs {
		p.minLen += int(s.n)
	}
	switch {
	case len(p.segs) > 0:
		p.kind = wild
	case p.anchored:
		p.kind = exact
	default:
		p.kind = prefix
	}
	return p, segs
}

// entry is a pattern placed in the text: its canon starts at base.
type entry struct {
	pattern
	base uint32
	rule int32
}

// build lays the entries out as a radix trie in m.nodes, children of a node
// contiguous, and the wildcard rules in m.wild, grouped by node; text is the
// arena the entries' spans refer to, to which the trie's edges are added.
func build(m *Matcher, entries []entry, text []byte) {
	type key struct {
		head string
		off  uint32 // where an occurrence of head starts in text
	}
	keys := make([]key, len(entries))
	for i, e := range entries {
		keys[i] = key{e.canon[:e.head], e.base}
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.head, b.head) })
	keys = slices.CompactFunc(keys, func(a, b key) bool { return a.head == b.head })
	nodeOf := make([]int32, len(keys)) // keys[i].head is spelled by nodes[nodeOf[i]]

	// A radix trie over n keys has fewer than 2n nodes.
	m.nodes = make([]node, 1, 2*len(keys)+1)
	m.nodes[0] = newNode(span{})
	type job struct {
		node   int32
		lo, hi int // keys[lo:hi] share the node's path, of length depth
		depth  int
	}
	// Breadth first, so that the children of a node are appended together.
	queue := make([]job, 1, cap(m.nodes))
	queue[0] = job{0, 0, len(keys), 0}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		lo := j.lo
		if lo < j.hi && len(keys[lo].head) == j.depth {
			nodeOf[lo] = j.node
			lo++
		}
		first, edges := int32(len(m.nodes)), uint32(len(text))
		for i := lo; i < j.hi; {
			b := keys[i].head[j.depth]
			k := i + 1
			for k < j.hi && keys[k].head[j.depth] == b {
				k++
			}
			// The keys are sorted, so the common prefix of the first and
			// the last of a run is common to all of it.
			l := j.depth + commonPrefix(keys[i].head[j.depth:], keys[k-1].head[j.depth:])
			m.nodes = append(m.nodes, newNode(span{keys[i].off + uint32(j.depth+1), uint32(l - j.depth - 1)}))
			queue = append(queue, job{int32(len(m.nodes) - 1), i, k, l})
			text = append(text, b)
			i = k
		}
		nd := &m.nodes[j.node]
		nd.child, nd.edges, nd.nedges = first, edges, uint8(uint32(len(text))-edges)
		if nd.nedges > fanout {
			var ix [128]uint8
			for c := 0; c < int(nd.nedges); c++ {
				ix[text[edges+uint32(c)]&0x7f] = uint8(c + 1)
			}
			nd.index = int32(len(m.index))
			m.index = append(m.index, ix)
		}
	}
	if cap(m.nodes) > len(m.nodes)+len(m.nodes)/4 {
		m.nodes = slices.Clone(m.nodes) // the Matcher keeps them: no slack
	}
	m.text = string(text)

	type placed struct {
		node int32
		w    wildRule
		segs []span
	}
	var wilds []placed
	nsegs := 0
	for _, e := range entries {
		h, _ := slices.BinarySearchFunc(keys, e.canon[:e.head], func(k key, head string) int { return strings.Compare(k.head, head) })
		n := nodeOf[h]
		nd := &m.nodes[n]
		switch e.kind {
		case prefix:
			if nd.prefixRule < 0 || full(e.rank, e.rule) > full(nd.prefixRank, nd.prefixRule) {
				nd.prefixRule, nd.prefixRank = e.rule, e.rank
			}
		case exact:
			if nd.exactRule < 0 || full(e.rank, e.rule) > full(nd.exactRank, nd.exactRule) {
				nd.exactRule, nd.exactRank = e.rule, e.rank
			}
		case wild:
			w := wildRule{rank: full(e.rank, e.rule), rule: e.rule, anchored: e.anchored,
				head: uint32(e.head), minLen: uint32(e.minLen)}
			segs := make([]span, len(e.segs))
			for i, s := range e.segs {
				segs[i] = span{e.base + s.off, s.n}
				w.needs.add(s.in(e.canon))
			}
			nsegs += len(segs)
			wilds = append(wilds, placed{n, w, segs})
		}
	}
	// Group the wildcard rules by node, best rank first within a node.
	slices.SortFunc(wilds, func(a, b placed) int {
		if a.node != b.node {
			return cmp.Compare(a.node, b.node)
		}
		return cmp.Compare(b.w.rank, a.w.rank)
	})
	m.wild = make([]wildRule, len(wilds))
	m.segs = make([]span, 0, nsegs)
	for i, p := range wilds {
		p.w.segs = span{uint32(len(m.segs)), uint32(len(p.segs))}
		m.segs = append(m.segs, p.segs...)
		m.wild[i] = p.w
		nd := &m.nodes[p.node]
		if nd.wildHi == 0 {
			nd.wildLo = int32(i)
		}
		nd.wildHi = int32(i + 1)
	}
}

// fanout is the number of children above which a node gets an index
// instead of a linear scan of its edges.
const fanout = 6

func newNode(tail span) node {
	return node{tail: tail, index: -1, prefixRule: -1, exactRule: -1}
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
