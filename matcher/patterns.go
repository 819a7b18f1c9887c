package matcher

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"
)

// patternSet is a compiled set of robots.txt path patterns (RFC 9309 §2.2.2:
// '*' matches any run of octets, a final '$' anchors at the end), each with a
// rank and an id. For a path it finds the matching pattern of highest rank,
// the lowest id among equal ranks, and reports its id: the longest match of
// Allow and Disallow rules, and of any other rule kind matched the same way.
//
// It is built once from a list of entries (newPatternSet) and is immutable
// and safe for concurrent use. A check costs time linear in the length of
// the path for patterns without a wildcard, whatever their number (a radix
// trie over their literal heads). Wildcard patterns that could beat the best
// plain match are tried best rank first: searched directly, a scan of the
// path per piece, until that has scanned a budget of octets (direct),
// then through an index of the path shared by all of them, a look-up per
// piece (see pathindex.go).
type patternSet struct {
	text  string       // the arena every span refers to (see compile.go)
	nodes []node       // the trie over the patterns' literal heads; nodes[0] is the root
	index [][128]uint8 // child indexes of nodes of many children: octet -> child+1
	wild  []wildRule   // wildcard patterns, grouped by node, best first

	// The pieces between the stars of the wildcard patterns: wild[i]
	// holds the pieces pieces[wild[i].pieces:][:wild[i].npieces()], each
	// the node of its literal in litNodes, a radix trie over the
	// distinct literals in breadth-first order. The path index finds
	// where each literal occurs from the occurrences of the strings above
	// it, so that literals sharing a prefix share the work.
	pieces   []uint32
	litNodes []litNode
	edge0    []uint8 // the first octet of each literal node's edge

	// direct is how many octets of path the direct search may scan in one
	// check: directBudget, or 0 to send every wildcard pattern through the
	// path index (tests).
	direct int
}

// node is one node of the radix trie over the literal heads of the
// patterns: the path from the root to a node spells the head of every
// pattern stored in it. Children of a node are contiguous in nodes.
type node struct {
	// The edge into this node spells one octet, held in the parent's
	// edges, then tail.
	tail   span
	edges  uint32 // offset in the text of the first octet of each child's edge
	child  int32  // index of the first child
	index  int32  // for a node of many children, its child index in index; -1 otherwise
	nedges uint8  // number of children

	// The best plain-prefix pattern and the best exact ("$"-anchored,
	// star-free) pattern whose literal is this node's path, -1 when none,
	// and their ranks.
	prefixID, exactID     int32
	prefixRank, exactRank rank32

	// wild[wildLo:wildHi] are the wildcard patterns whose literal head is
	// this node's path, best rank first.
	wildLo, wildHi int32
}

// wildRule is a pattern with a '*' that is not trailing: head * piece1 * …
// * pieceN, optionally anchored at the end. Its head is matched by the trie.
type wildRule struct {
	rank   uint64 // full(pattern rank, id)
	needs  octets // what any path it matches must hold
	pieces uint32 // its pieces: patternSet.pieces[pieces : pieces+npieces()]
	npiece uint32 // the number of pieces, and anchoredBit when the last one must end the path
	head   uint32 // length of the literal head
	minLen uint32 // the shortest path that can match
}

const anchoredBit = 1 << 31

// id is the id of the pattern, kept in the low bits of its rank.
func (w *wildRule) id() int32 { return int32(^uint32(w.rank)) }

func (w *wildRule) npieces() uint32 { return w.npiece &^ anchoredBit }

// anchored reports whether the last piece must end the path.
func (w *wildRule) anchored() bool { return w.npiece&anchoredBit != 0 }

// litNode is a node of the radix trie over the distinct literals. Its
// string is text[off : off+depth], a literal or a prefix that literals
// share; the edge from its parent is the part beyond the parent's depth.
// Its children are litNodes[child:next], where next is the child of the
// node after it.
type litNode struct {
	parent int32
	child  int32
	off    uint32
	depth  uint32
}

// lit returns the string of literal node v.
func (s *patternSet) lit(v uint32) string {
	nd := &s.litNodes[v]
	return s.text[nd.off : nd.off+nd.depth]
}

// entry is a compiled pattern placed in the text: its canon starts at base;
// a match reports id.
type entry struct {
	pattern
	base uint32
	id   int32
}

// newPatternSet compiles the entries. text is the arena the entries' spans
// refer to; the set appends what it needs (the trie's edge octets) and keeps
// it.
func newPatternSet(entries []entry, text []byte) patternSet {
	var s patternSet
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
	s.nodes = make([]node, 1, 2*len(keys)+1)
	s.nodes[0] = newNode(span{})
	type job struct {
		node   int32
		lo, hi int // keys[lo:hi] share the node's path, of length depth
		depth  int
	}
	// Breadth first, so that the children of a node are appended together.
	queue := make([]job, 1, cap(s.nodes))
	queue[0] = job{0, 0, len(keys), 0}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		lo := j.lo
		if lo < j.hi && len(keys[lo].head) == j.depth {
			nodeOf[lo] = j.node
			lo++
		}
		first, edges := int32(len(s.nodes)), uint32(len(text))
		for i := lo; i < j.hi; {
			b := keys[i].head[j.depth]
			k := i + 1
			for k < j.hi && keys[k].head[j.depth] == b {
				k++
			}
			// The keys are sorted, so the common prefix of the first and
			// the last of a run is common to all of it.
			l := j.depth + commonPrefix(keys[i].head[j.depth:], keys[k-1].head[j.depth:])
			s.nodes = append(s.nodes, newNode(span{keys[i].off + uint32(j.depth+1), uint32(l - j.depth - 1)}))
			queue = append(queue, job{int32(len(s.nodes) - 1), i, k, l})
			text = append(text, b)
			i = k
		}
		nd := &s.nodes[j.node]
		nd.child, nd.edges, nd.nedges = first, edges, uint8(uint32(len(text))-edges)
		if nd.nedges > fanout {
			var ix [128]uint8
			for c := 0; c < int(nd.nedges); c++ {
				ix[text[edges+uint32(c)]&0x7f] = uint8(c + 1)
			}
			nd.index = int32(len(s.index))
			s.index = append(s.index, ix)
		}
	}
	if cap(s.nodes) > len(s.nodes)+len(s.nodes)/4 {
		s.nodes = slices.Clone(s.nodes) // the set keeps them: no slack
	}
	s.text = string(text)

	type placed struct {
		node   int32
		w      wildRule
		pieces []span // in the text
	}
	var wilds []placed
	npieces := 0
	for _, e := range entries {
		h, _ := slices.BinarySearchFunc(keys, e.canon[:e.head], func(k key, head string) int { return strings.Compare(k.head, head) })
		n := nodeOf[h]
		nd := &s.nodes[n]
		switch e.kind {
		case prefix:
			if nd.prefixID < 0 || full(e.rank, e.id) > full(nd.prefixRank, nd.prefixID) {
				nd.prefixID, nd.prefixRank = e.id, e.rank
			}
		case exact:
			if nd.exactID < 0 || full(e.rank, e.id) > full(nd.exactRank, nd.exactID) {
				nd.exactID, nd.exactRank = e.id, e.rank
			}
		case wild:
			w := wildRule{rank: full(e.rank, e.id), head: uint32(e.head), minLen: uint32(min(e.minLen, 1<<32-1))}
			if e.anchored {
				w.npiece = anchoredBit
			}
			pieces := make([]span, len(e.segs))
			for i, sp := range e.segs {
				pieces[i] = span{e.base + sp.off, sp.n}
				w.needs.add(sp.in(e.canon))
			}
			npieces += len(pieces)
			wilds = append(wilds, placed{n, w, pieces})
		}
	}
	// Group the wildcard patterns by node, best rank first within a node.
	slices.SortFunc(wilds, func(a, b placed) int {
		if a.node != b.node {
			return cmp.Compare(a.node, b.node)
		}
		return cmp.Compare(b.w.rank, a.w.rank)
	})
	s.wild = make([]wildRule, len(wilds))
	all := make([]span, 0, npieces)
	for i, p := range wilds {
		p.w.pieces = uint32(len(all))
		p.w.npiece |= uint32(len(p.pieces))
		all = append(all, p.pieces...)
		s.wild[i] = p.w
		nd := &s.nodes[p.node]
		if nd.wildHi == 0 {
			nd.wildLo = int32(i)
		}
		nd.wildHi = int32(i + 1)
	}
	s.pieces = s.buildLiterals(all)
	s.direct = directBudget
	return s
}

// buildLiterals builds the radix trie of the distinct strings of the
// pieces, spans of the text, and returns the pieces as nodes of it.
func (s *patternSet) buildLiterals(pieces []span) []uint32 {
	if len(pieces) == 0 {
		return nil
	}
	// Sort the pieces by their strings: each node's pieces are a run.
	order := make([]int32, len(pieces))
	for i := range order {
		order[i] = int32(i)
	}
	str := func(i int32) string { return pieces[i].in(s.text) }
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(str(a), str(b)) })
	ids := make([]uint32, len(pieces))

	s.litNodes = make([]litNode, 1, 2*len(pieces)+1)
	s.edge0 = make([]uint8, 1, cap(s.litNodes))
	type job struct {
		node   int32
		lo, hi int // order[lo:hi] share the node's string, of length depth
		depth  int
	}
	queue := make([]job, 1, cap(s.litNodes))
	queue[0] = job{0, 0, len(order), 0}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		lo := j.lo
		for lo < j.hi && len(str(order[lo])) == j.depth {
			ids[order[lo]] = uint32(j.node) // the node's string is this piece
			lo++
		}
		s.litNodes[j.node].child = int32(len(s.litNodes))
		for i := lo; i < j.hi; {
			a := str(order[i])
			k := i + 1
			for k < j.hi && str(order[k])[j.depth] == a[j.depth] {
				k++
			}
			// Sorted: the common prefix of the first and the last of a
			// run is common to all of it.
			l := j.depth + 1 + commonPrefix(a[j.depth+1:], str(order[k-1])[j.depth+1:])
			s.litNodes = append(s.litNodes, litNode{parent: j.node, off: pieces[order[i]].off, depth: uint32(l)})
			s.edge0 = append(s.edge0, a[j.depth])
			queue = append(queue, job{int32(len(s.litNodes) - 1), i, k, l})
			i = k
		}
	}
	// A sentinel closes the children of the last node.
	s.litNodes = append(s.litNodes, litNode{child: int32(len(s.litNodes))})
	if cap(s.litNodes) > len(s.litNodes)+len(s.litNodes)/4 {
		s.litNodes = slices.Clone(s.litNodes)
	}
	s.edge0 = slices.Clone(s.edge0) // made with the nodes' capacity: the set keeps no slack
	return ids
}

// size is the number of bytes s holds, measured from the capacities of its
// arrays.
func (s *patternSet) size() int64 {
	n := int64(len(s.text))
	n += int64(cap(s.nodes)) * int64(unsafe.Sizeof(node{}))
	n += int64(cap(s.index)) * int64(unsafe.Sizeof([128]uint8{}))
	n += int64(cap(s.wild)) * int64(unsafe.Sizeof(wildRule{}))
	n += int64(cap(s.pieces)) * int64(unsafe.Sizeof(uint32(0)))
	n += int64(cap(s.litNodes)) * int64(unsafe.Sizeof(litNode{}))
	n += int64(cap(s.edge0))
	return n
}

// best returns the id of the best pattern matching the canonical path, or
// -1 when none matches.
func (s *patternSet) best(path string) int32 {
	var top uint64 // rank of the best match so far; 0 is below every pattern
	win := int32(-1)
	// Nodes that carry wildcard patterns are visited after the walk, when
	// the best plain match is known and prunes most of them.
	var pending [16]int32
	np := 0
	n, pos := int32(0), 0
	for {
		nd := &s.nodes[n]
		if nd.prefixID >= 0 {
			if r := full(nd.prefixRank, nd.prefixID); r > top {
				top, win = r, nd.prefixID
			}
		}
		if nd.wildLo < nd.wildHi {
			if np == len(pending) {
				// A path this deep in wildcard patterns: search the
				// oldest now.
				top, win = s.wildcards(pending[:1], path, top, win)
				copy(pending[:], pending[1:])
				np--
			}
			pending[np] = n
			np++
		}
		if pos == len(path) {
			if nd.exactID >= 0 {
				if r := full(nd.exactRank, nd.exactID); r > top {
					top, win = r, nd.exactID
				}
			}
			break
		}
		i := s.edge(nd, path[pos])
		if i < 0 {
			break
		}
		n = nd.child + i
		pos++
		tail := s.nodes[n].tail.in(s.text)
		if len(path)-pos < len(tail) || path[pos:pos+len(tail)] != tail {
			break
		}
		pos += len(tail)
	}
	if np > 0 {
		_, win = s.wildcards(pending[:np], path, top, win)
	}
	return win
}

// wildcards searches the wildcard patterns of the nodes that could beat the
// match of rank top, and returns the new best. Patterns are tried best rank
// first. The first are searched directly, a scan of the path per piece;
// once that has scanned s.direct octets, the rest go through a path index,
// which answers where a piece next occurs in constant time (see
// pathindex.go).
func (s *patternSet) wildcards(nodes []int32, path string, top uint64, win int32) (uint64, int32) {
	// Summarize the path only when enough patterns wait to pay for it:
	// summing costs about as much as one search of the path. A pattern
	// that needs an octet, or a pair of adjacent octets, that the path
	// lacks is skipped unsearched.
	candidates := int32(0)
	for _, n := range nodes {
		candidates += s.nodes[n].wildHi - s.nodes[n].wildLo
	}
	var has *octets
	var sum octets
	if candidates > 3 {
		sum = summarize(path)
		has = &sum
	}
	budget := s.direct // octets of path the direct search may still scan
	for k, n := range nodes {
		nd := &s.nodes[n]
		wild := s.wild[nd.wildLo:nd.wildHi]
		for j := range wild {
			w := &wild[j]
			if w.rank <= top {
				break
			}
			if len(path) < int(w.minLen) || has != nil && !has.covers(&w.needs) {
				continue
			}
			if budget <= 0 {
				return s.indexed(nodes[k:], nd.wildLo+int32(j), path, has, top, win)
			}
			budget -= len(path) - int(w.head)
			if s.matchDirect(path, w) {
				top, win = w.rank, w.id()
				break
			}
		}
	}
	return top, win
}

// indexed goes on with the search of wildcards through the path index,
// from wild[from] in the first of nodes. The patterns go in batches,
// searched side by side so that their look-ups overlap; the first of a
// batch to match is the best of its node.
func (s *patternSet) indexed(nodes []int32, from int32, path string, has *octets, top uint64, win int32) (uint64, int32) {
	ix := newPathIndex(s, path)
	for k, n := range nodes {
		i, hi := s.nodes[n].wildLo, s.nodes[n].wildHi
		if k == 0 {
			i = from
		}
		for i < hi {
			var batch [lanes]*wildRule
			nb := 0
			for ; i < hi && nb < lanes; i++ {
				w := &s.wild[i]
				if w.rank <= top {
					hi = i // nothing after it can win either
					break
				}
				if len(path) >= int(w.minLen) && (has == nil || has.covers(&w.needs)) {
					batch[nb] = w
					nb++
				}
			}
			if j := ix.matchBatch(batch[:nb]); j >= 0 {
				top, win = batch[j].rank, batch[j].id()
				break
			}
		}
	}
	ix.release()
	return top, win
}

// edge returns the child of nd whose edge starts with c, as an offset from
// nd.child, or -1.
func (s *patternSet) edge(nd *node, c byte) int32 {
	if nd.index >= 0 {
		if c >= 0x80 {
			return -1 // canonical paths are ASCII; so are edges
		}
		return int32(s.index[nd.index][c]) - 1
	}
	edges := s.text[nd.edges : nd.edges+uint32(nd.nedges)]
	for i := 0; i < len(edges); i++ {
		if edges[i] == c {
			return int32(i)
		}
	}
	return -1
}

// matchDirect reports whether path matches w beyond its head, searching the
// path for each piece in turn. Each piece is taken at its leftmost
// occurrence after the previous one: for a pattern whose only operator is
// '*', the greedy choice matches whenever any choice does, so one
// left-to-right pass decides, with no backtracking.
func (s *patternSet) matchDirect(path string, w *wildRule) bool {
	pieces := s.pieces[w.pieces : w.pieces+w.npieces()]
	pos, end := int(w.head), len(path)
	if w.anchored() {
		last := s.lit(pieces[len(pieces)-1])
		if len(path)-len(last) < pos || path[len(path)-len(last):] != last {
			return false
		}
		end -= len(last)
		pieces = pieces[:len(pieces)-1]
	}
	for _, p := range pieces {
		lit := s.lit(p)
		i := strings.Index(path[pos:end], lit)
		if i < 0 {
			return false
		}
		pos += i + len(lit)
	}
	return true
}

// fanout is the number of children above which a node gets an index
// instead of a linear scan of its edges.
const fanout = 6

func newNode(tail span) node {
	return node{tail: tail, index: -1, prefixID: -1, exactID: -1}
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
