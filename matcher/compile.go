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
	var c compiler
	for _, g := range groups {
		m.agents = append(m.agents, g.Agents...)
		m.crawlDelay = max(m.crawlDelay, g.CrawlDelay)
		for _, rule := range g.Rules {
			idx := int32(len(m.rules))
			m.rules = append(m.rules, rule)
			c.add(urlpath.Pattern(rule.Pattern), rule, idx)
		}
	}
	c.build(m)
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

type entry struct {
	kind     kind
	head     string
	segs     []string
	anchored bool
	rank     uint64
	rule     int32
}

// compiler collects the compiled patterns before the trie is built.
type compiler struct {
	entries []entry
}

// add compiles the canonical pattern p of rule (index idx in Matcher.rules).
func (c *compiler) add(p string, rule parser.Rule, idx int32) {
	if p == "" {
		return // an empty pattern matches nothing (RFC 9309 §2.2.2)
	}
	c.addPattern(p, rank(len(p), rule.Allow, rule.Line), idx)
	if rule.Allow {
		// Google: "Allow: /a/index.html" also allows "/a/" (and nothing
		// under it), as though "Allow: /a/$" had been written on its line.
		if i := strings.LastIndexByte(p, '/'); i >= 0 && strings.HasPrefix(p[i:], "/index.htm") {
			dir := p[:i+1] + "$"
			c.addPattern(dir, rank(len(dir), true, rule.Line), idx)
		}
	}
}

// addPattern splits p into its literal head and '*'-separated segments, with
// trailing stars dropped: "/a*" matches what "/a" matches, and "/a*$" too,
// though each keeps the rank of its octets as written.
func (c *compiler) addPattern(p string, rank uint64, idx int32) {
	lit, anchored := strings.CutSuffix(p, "$")
	parts := strings.Split(lit, "*")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		anchored = false // a trailing '*' absorbs the rest of the path
	}
	e := entry{head: parts[0], anchored: anchored, rank: rank, rule: idx}
	for _, s := range parts[1:] {
		if s != "" {
			e.segs = append(e.segs, s)
		}
	}
	switch {
	case len(e.segs) > 0:
		e.kind = wild
	case anchored:
		e.kind = exact
	default:
		e.kind = prefix
	}
	c.entries = append(c.entries, e)
}

// build lays the entries out as a radix trie in m.nodes, children of a node
// contiguous, and the wildcard rules in m.wild.
func (c *compiler) build(m *Matcher) {
	heads := make([]string, 0, len(c.entries))
	for _, e := range c.entries {
		heads = append(heads, e.head)
	}
	slices.Sort(heads)
	heads = slices.Compact(heads)

	at := make(map[string]int32, len(heads)) // head -> node
	m.nodes = append(m.nodes, newNode(""))
	type job struct {
		node  int32
		keys  []string // sorted; all share the node's path, of length depth
		depth int
	}
	// Breadth first, so that the children of a node are appended together.
	queue := []job{{0, heads, 0}}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		keys := j.keys
		if len(keys) > 0 && len(keys[0]) == j.depth {
			at[keys[0]] = j.node
			keys = keys[1:]
		}
		first := int32(len(m.nodes))
		var edges []byte
		for i := 0; i < len(keys); {
			b := keys[i][j.depth]
			k := i + 1
			for k < len(keys) && keys[k][j.depth] == b {
				k++
			}
			// The keys are sorted, so the common prefix of the first and
			// the last of a run is common to all of it.
			l := j.depth + commonPrefix(keys[i][j.depth:], keys[k-1][j.depth:])
			m.nodes = append(m.nodes, newNode(keys[i][j.depth+1:l]))
			queue = append(queue, job{int32(len(m.nodes) - 1), keys[i:k], l})
			edges = append(edges, b)
			i = k
		}
		nd := &m.nodes[j.node]
		nd.edges, nd.child = string(edges), first
		if len(edges) > fanout {
			var ix [256]uint8
			for i, b := range edges {
				ix[b] = uint8(i + 1)
			}
			nd.index = int32(len(m.index))
			m.index = append(m.index, ix)
		}
	}

	byNode := make(map[int32][]wildRule)
	for _, e := range c.entries {
		n := at[e.head]
		nd := &m.nodes[n]
		switch e.kind {
		case prefix:
			if e.rank > nd.prefixRank {
				nd.prefixRank, nd.prefixRule = e.rank, e.rule
			}
		case exact:
			if e.rank > nd.exactRank {
				nd.exactRank, nd.exactRule = e.rank, e.rule
			}
		case wild:
			w := wildRule{rank: e.rank, rule: e.rule, anchored: e.anchored, head: len(e.head), segs: e.segs}
			w.minLen = w.head
			for _, s := range e.segs {
				w.minLen += len(s)
				w.needs.add(s)
			}
			byNode[n] = append(byNode[n], w)
		}
	}
	for n := range m.nodes {
		ws := byNode[int32(n)]
		if len(ws) == 0 {
			continue
		}
		slices.SortFunc(ws, func(a, b wildRule) int { return cmp.Compare(b.rank, a.rank) })
		m.nodes[n].wildLo = int32(len(m.wild))
		m.wild = append(m.wild, ws...)
		m.nodes[n].wildHi = int32(len(m.wild))
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
