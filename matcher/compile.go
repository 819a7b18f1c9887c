package matcher

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
)

// node is one node of the radix trie over the literal heads of the rules:
// the path from the root to a node spells the head of every rule stored in
// it. Children of a node are contiguous in Matcher.nodes.
type node struct {
	// The edge into this node spells one octet, held in the parent's
	// edges, then tail.
	tail  string
	edges string // the first octet of each child's edge, in child order
	child int32  // index of the first child
	index int32  // for a node of many children, its child index in Matcher.index; -1 otherwise

	// The best plain-prefix rule and the best exact ("$"-anchored,
	// star-free) rule whose pattern is this node's path; rank 0 when none.
	prefixRank, exactRank uint64
	prefixRule, exactRule int32

	// wild[wildLo:wildHi] are the wildcard rules whose literal head is this
	// node's path, best rank first.
	wildLo, wildHi int32
}

// wildRule is a rule with a '*' that is not trailing: head * seg1 * … *
// segN, optionally anchored at the end. Its head is matched by the trie.
type wildRule struct {
	rank     uint64
	rule     int32
	anchored bool     // the last segment must end the path
	head     int      // length of the literal head
	minLen   int      // the shortest path that can match
	segs     []string // the non-empty literal segments after the head
	needs    octets   // what any path it matches must hold
}

// match reports whether the rule matches path, whose first w.head octets are
// known to equal the head. Each segment is found at its leftmost occurrence
// after the previous one: for a pattern whose only operator is '*', the
// greedy choice matches whenever any choice does, so one left-to-right pass
// decides, with no backtracking.
func (w *wildRule) match(path string) bool {
	if len(path) < w.minLen {
		return false
	}
	pos, end, segs := w.head, len(path), w.segs
	if w.anchored {
		last := segs[len(segs)-1]
		if path[len(path)-len(last):] != last {
			return false
		}
		end -= len(last)
		segs = segs[:len(segs)-1]
	}
	for _, s := range segs {
		i := strings.Index(path[pos:end], s)
		if i < 0 {
			return false
		}
		pos += i + len(s)
	}
	return true
}

// rank orders matches: more octets first (RFC 9309 §2.2.2), then allow over
// disallow, then the earlier line, so that the verdict never depends on the
// order of the rules and the reported rule is the first of equals.
func rank(octets int, allow bool, line int) uint64 {
	r := uint64(octets) << 33
	if allow {
		r |= 1 << 32
	}
	return r | uint64(math.MaxUint32-uint32(min(max(line, 0), math.MaxUint32)))
}

// Compile selects the groups of r that apply to a crawler known by the
// given product tokens (RFC 9309 §2.2.1) and compiles their rules. A token is
// compared with each user-agent line's token ignoring case; a string that is
// not a valid product token (letters, '_' and '-' only) matches no line. With
// no matching group the "*" groups apply. A nil r allows everything.
func Compile(r *parser.Robots, agents ...string) *Matcher {
	m := &Matcher{}
	var groups []*parser.Group
	if r != nil {
		groups = selectGroups(r, agents)
	}
	m.groups = len(groups)
	n, na := 0, 0
	for _, g := range groups {
		n += len(g.Rules)
		na += len(g.Agents)
	}
	m.rules = make([]parser.Rule, 0, n)
	m.agents = make([]parser.Agent, 0, na)
	entries := make([]entry, 0, n+n/8)
	for _, g := range groups {
		m.agents = append(m.agents, g.Agents...)
		m.crawlDelay = max(m.crawlDelay, g.CrawlDelay)
		for _, rule := range g.Rules {
			idx := int32(len(m.rules))
			m.rules = append(m.rules, rule)
			entries = appendEntries(entries, urlpath.Pattern(rule.Pattern), rule, idx)
		}
	}
	build(m, entries)
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

// entry is one compiled pattern: its kind, its literal head, and for the
// wildcard kind the rest; w.rank and w.rule serve every kind.
type entry struct {
	kind kind
	head string
	w    wildRule
}

// matches reports whether the entry matches the canonical path, without
// the trie: MatchOnce asks this of every rule.
func (e *entry) matches(path string) bool {
	switch e.kind {
	case prefix:
		return strings.HasPrefix(path, e.head)
	case exact:
		return path == e.head
	default:
		return strings.HasPrefix(path, e.head) && e.w.match(path)
	}
}

// appendEntries appends to dst the entries of rule (index idx in
// Matcher.rules), whose canonical pattern is p.
func appendEntries(dst []entry, p string, rule parser.Rule, idx int32) []entry {
	if p == "" {
		return dst // an empty pattern matches nothing (RFC 9309 §2.2.2)
	}
	dst = append(dst, newEntry(p, rank(len(p), rule.Allow, rule.Line), idx))
	if rule.Allow {
		// Google: "Allow: /a/index.html" also allows "/a/" (and nothing
		// under it), as though "Allow: /a/$" had been written on its line.
		if i := strings.LastIndexByte(p, '/'); i >= 0 && strings.HasPrefix(p[i:], "/index.htm") {
			dir := p[:i+1] + "$"
			dst = append(dst, newEntry(dir, rank(len(dir), true, rule.Line), idx))
		}
	}
	return dst
}

// newEntry splits p into its literal head and '*'-separated segments, with
// trailing stars dropped: "/a*" matches what "/a" matches, and "/a*$" too,
// though each keeps the rank of its octets as written.
func newEntry(p string, rank uint64, idx int32) entry {
	lit, anchored := strings.CutSuffix(p, "$")
	e := entry{head: lit, w: wildRule{rank: rank, rule: idx, anchored: anchored}}
	star := strings.IndexByte(lit, '*')
	if star >= 0 {
		e.head, lit = lit[:star], lit[star+1:]
		if strings.HasSuffix(lit, "*") || lit == "" {
			e.w.anchored = false // a trailing '*' absorbs the rest of the path
		}
		if n := strings.Count(lit, "*") + 1 - strings.Count(lit, "**"); n > 0 {
			e.w.segs = make([]string, 0, n)
		}
		for lit != "" {
			var seg string
			seg, lit, _ = strings.Cut(lit, "*")
			if seg != "" {
				e.w.segs = append(e.w.segs, seg)
			}
		}
	}
	e.w.head, e.w.minLen = len(e.head), len(e.head)
	for _, s := range e.w.segs {
		e.w.minLen += len(s)
	}
	switch {
	case len(e.w.segs) > 0:
		e.kind = wild
	case e.w.anchored:
		e.kind = exact
	default:
		e.kind = prefix
	}
	return e
}

// build lays the entries out as a radix trie in m.nodes, children of a node
// contiguous, and the wildcard rules in m.wild, grouped by node.
func build(m *Matcher, entries []entry) {
	heads := make([]string, len(entries))
	for i, e := range entries {
		heads[i] = e.head
	}
	slices.Sort(heads)
	heads = slices.Compact(heads)
	nodeOf := make([]int32, len(heads)) // heads[i] is spelled by nodes[nodeOf[i]]

	// A radix trie over n keys has fewer than 2n nodes.
	m.nodes = make([]node, 1, 2*len(heads)+1)
	m.nodes[0] = newNode("")
	type job struct {
		node   int32
		lo, hi int // heads[lo:hi] share the node's path, of length depth
		depth  int
	}
	type span struct{ off, n int32 }
	var arena []byte // every node's edges, one after another
	edgeSpans := make([]span, 0, cap(m.nodes))
	// Breadth first, so that the children of a node are appended together.
	queue := make([]job, 1, cap(m.nodes))
	queue[0] = job{0, 0, len(heads), 0}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		lo := j.lo
		if lo < j.hi && len(heads[lo]) == j.depth {
			nodeOf[lo] = j.node
			lo++
		}
		first, off := int32(len(m.nodes)), int32(len(arena))
		for i := lo; i < j.hi; {
			b := heads[i][j.depth]
			k := i + 1
			for k < j.hi && heads[k][j.depth] == b {
				k++
			}
			// The keys are sorted, so the common prefix of the first and
			// the last of a run is common to all of it.
			l := j.depth + commonPrefix(heads[i][j.depth:], heads[k-1][j.depth:])
			m.nodes = append(m.nodes, newNode(heads[i][j.depth+1:l]))
			queue = append(queue, job{int32(len(m.nodes) - 1), i, k, l})
			arena = append(arena, b)
			i = k
		}
		m.nodes[j.node].child = first
		edgeSpans = append(edgeSpans, span{off, int32(len(arena)) - off})
	}
	if cap(m.nodes) > len(m.nodes)+len(m.nodes)/4 {
		m.nodes = slices.Clone(m.nodes) // the Matcher keeps them: no slack
	}
	// The queue visited the nodes in order, so edgeSpans[i] is node i's.
	edges := string(arena)
	for i, sp := range edgeSpans {
		nd := &m.nodes[i]
		nd.edges = edges[sp.off : sp.off+sp.n]
		if len(nd.edges) > fanout {
			var ix [256]uint8
			for k := 0; k < len(nd.edges); k++ {
				ix[nd.edges[k]] = uint8(k + 1)
			}
			nd.index = int32(len(m.index))
			m.index = append(m.index, ix)
		}
	}

	type placed struct {
		node int32
		w    wildRule
	}
	var wilds []placed
	for _, e := range entries {
		h, _ := slices.BinarySearch(heads, e.head)
		n := nodeOf[h]
		nd := &m.nodes[n]
		switch e.kind {
		case prefix:
			if e.w.rank > nd.prefixRank {
				nd.prefixRank, nd.prefixRule = e.w.rank, e.w.rule
			}
		case exact:
			if e.w.rank > nd.exactRank {
				nd.exactRank, nd.exactRule = e.w.rank, e.w.rule
			}
		case wild:
			w := e.w
			for _, s := range w.segs {
				w.needs.add(s)
			}
			wilds = append(wilds, placed{n, w})
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
	for i, p := range wilds {
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

func newNode(tail string) node {
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
