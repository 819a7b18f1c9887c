package matcher

import (
	"cmp"
	"math/bits"
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
	edges []uint8      // the first octet of each node's edge
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
	// The edge into this node spells one octet, edges[i] for node i, then
	// tail.
	tail   span
	child  int32 // index of the first child
	index  int32 // for a node of many children, its child index in index; -1 otherwise
	nedges uint8 // number of children

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

// entry is a compiled pattern placed in the text, as newPatternSet takes
// it: its literal head is text[base : base+head]; the segments after it,
// for the wild kind, are segs[segs : segs+nsegs()]; a match reports id.
// A file holds as many as rules: it is kept small.
type entry struct {
	base, head uint32
	id         int32
	rank       rank32
	segs       uint32
	bits       uint32 // nsegs<<3 | anchored<<2 | kind
}

func (e *entry) nsegs() uint32  { return e.bits >> 3 }
func (e *entry) anchored() bool { return e.bits&4 != 0 }
func (e *entry) patKind() kind  { return kind(e.bits & 3) }

// newEntry places p, whose canon starts at base in the text and whose
// segments start at segs in the set's list of them. A pattern has fewer
// than 1<<29 segments: the text, of uint32 offsets, is shorter than 4 GiB.
func newEntry(p *pattern, base uint32, id int32, segs uint32) entry {
	e := entry{base: base, head: uint32(p.head), id: id, rank: p.rank, segs: segs,
		bits: uint32(len(p.segs))<<3 | uint32(p.kind)}
	if p.anchored {
		e.bits |= 4
	}
	return e
}

// job is a node of a radix trie to fill in: the sorted strings [lo, hi) of
// the build all start with its string, of length depth.
type job struct{ lo, hi, depth uint32 }

// newPatternSet compiles the entries, whose spans, and segs, refer to
// text; the set keeps the text, and segs as its pieces. It sorts entries.
// With dropEqual, of equal wildcard patterns only the best is kept: the
// others are never reported.
// Every array the set keeps is allocated at its final size.
func newPatternSet(entries []entry, segs []span, text string, dropEqual bool) patternSet {
	s := patternSet{text: text, direct: directBudget}
	head := func(e *entry) string { return text[e.base : e.base+e.head] }
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(head(&a), head(&b)) })
	nodes := radixNodes(len(entries), func(i int) string { return head(&entries[i]) })
	nwild := 0
	for i := range entries {
		if entries[i].patKind() == wild {
			nwild++
		}
	}
	s.wild = make([]wildRule, 0, nwild)
	s.nodes = make([]node, 1, nodes)
	s.edges = make([]uint8, 1, nodes)
	// Breadth first, so that the children of a node are appended together.
	// Until it is filled in, a node holds its job (see setJob): the trie
	// needs no queue beside it.
	s.nodes[0] = newNode(span{})
	s.nodes[0].setJob(job{0, uint32(len(entries)), 0})
	many := 0 // nodes of more than fanout children
	for q := 0; q < len(s.nodes); q++ {
		j := s.nodes[q].takeJob()
		lo := j.lo
		wildLo := len(s.wild)
		for ; lo < j.hi && entries[lo].head == j.depth; lo++ {
			s.place(int32(q), &entries[lo], segs)
		}
		if len(s.wild) > wildLo {
			// Best rank first.
			slices.SortFunc(s.wild[wildLo:], func(a, b wildRule) int { return cmp.Compare(b.rank, a.rank) })
			if dropEqual {
				// Of equal patterns, adjacent in this order, the
				// first is the best.
				run, kept := s.wild[wildLo:], 1
				for _, w := range run[1:] {
					if !s.samePattern(segs, &run[kept-1], &w) {
						run[kept] = w
						kept++
					}
				}
				s.wild = s.wild[:wildLo+kept]
			}
			s.nodes[q].wildLo, s.nodes[q].wildHi = int32(wildLo), int32(len(s.wild))
		}
		first := len(s.nodes)
		for i := lo; i < j.hi; {
			a := head(&entries[i])
			b := a[j.depth]
			k := i + 1
			for k < j.hi && text[entries[k].base+j.depth] == b {
				k++
			}
			// The entries are sorted, so the common prefix of the first
			// and the last of a run is common to all of it.
			l := j.depth + 1 + uint32(commonPrefix(a[j.depth+1:], head(&entries[k-1])[j.depth+1:]))
			child := newNode(span{entries[i].base + j.depth + 1, l - j.depth - 1})
			child.setJob(job{i, k, l})
			s.nodes = append(s.nodes, child)
			s.edges = append(s.edges, b)
			i = k
		}
		nd := &s.nodes[q]
		nd.child, nd.nedges = int32(first), uint8(len(s.nodes)-first)
		if nd.nedges > fanout {
			many++
		}
	}
	if len(s.wild) < cap(s.wild) {
		s.wild = slices.Clone(s.wild) // equal patterns were dropped: no slack
	}
	s.index = make([][128]uint8, 0, many)
	for q := range s.nodes {
		if nd := &s.nodes[q]; nd.nedges > fanout {
			var ix [128]uint8
			for c, b := range s.edges[nd.child : nd.child+int32(nd.nedges)] {
				ix[b&0x7f] = uint8(c + 1)
			}
			nd.index = int32(len(s.index))
			s.index = append(s.index, ix)
		}
	}
	// The trie of the literals needs a queue: its nodes have no room.
	order, lits := s.sortLiterals(segs)
	jobs := make([]job, 0, lits)
	s.pieces = s.buildLiterals(segs, order, lits, jobs)
	return s
}

// keepReported returns the items of a list that a search can report, the
// pattern ids of s being indexes in it, and renumbers the ids to be
// indexes in what it returns: the rules a match can report are often far
// fewer than the rules of the file (an empty pattern matches nothing, and
// of equal patterns only the first is ever the best). The order of ids, and
// so every verdict, is unchanged.
func keepReported[T any](s *patternSet, list []T) []T {
	reported := make([]uint64, (len(list)+63)/64)
	mark := func(id int32) {
		if id >= 0 {
			reported[id/64] |= 1 << (id % 64)
		}
	}
	for i := range s.nodes {
		mark(s.nodes[i].prefixID)
		mark(s.nodes[i].exactID)
	}
	for i := range s.wild {
		mark(s.wild[i].id())
	}
	before := make([]int32, len(reported)) // ids reported before each word
	n := int32(0)
	for i, w := range reported {
		before[i] = n
		n += int32(bits.OnesCount64(w))
	}
	if int(n) == len(list) {
		return list
	}
	renumber := func(id int32) int32 {
		if id < 0 {
			return id
		}
		return before[id/64] + int32(bits.OnesCount64(reported[id/64]&(1<<(id%64)-1)))
	}
	kept := make([]T, n)
	for i := range list {
		if reported[i/64]&(1<<(i%64)) != 0 {
			kept[renumber(int32(i))] = list[i]
		}
	}
	for i := range s.nodes {
		nd := &s.nodes[i]
		nd.prefixID, nd.exactID = renumber(nd.prefixID), renumber(nd.exactID)
	}
	for i := range s.wild {
		w := &s.wild[i]
		w.rank = full(rank32(w.rank>>32), renumber(w.id()))
	}
	return kept
}

// samePattern reports whether a and b, wildcard patterns of one node whose
// pieces are spans segs, are the same pattern with the same rank.
func (s *patternSet) samePattern(segs []span, a, b *wildRule) bool {
	if a.rank>>32 != b.rank>>32 || a.npiece != b.npiece {
		return false
	}
	pa, pb := segs[a.pieces:a.pieces+a.npieces()], segs[b.pieces:b.pieces+b.npieces()]
	for i := range pa {
		if pa[i].in(s.text) != pb[i].in(s.text) {
			return false
		}
	}
	return true
}

// place stores entry e in node n.
func (s *patternSet) place(n int32, e *entry, segs []span) {
	nd := &s.nodes[n]
	switch e.patKind() {
	case prefix:
		if nd.prefixID < 0 || full(e.rank, e.id) > full(nd.prefixRank, nd.prefixID) {
			nd.prefixID, nd.prefixRank = e.id, e.rank
		}
	case exact:
		if nd.exactID < 0 || full(e.rank, e.id) > full(nd.exactRank, nd.exactID) {
			nd.exactID, nd.exactRank = e.id, e.rank
		}
	case wild:
		w := wildRule{rank: full(e.rank, e.id), head: e.head, pieces: e.segs, npiece: e.nsegs()}
		if e.anchored() {
			w.npiece |= anchoredBit
		}
		minLen := uint64(e.head)
		for _, sp := range segs[e.segs : e.segs+e.nsegs()] {
			minLen += uint64(sp.n)
			w.needs.add(sp.in(s.text))
		}
		w.minLen = uint32(min(minLen, 1<<32-1))
		s.wild = append(s.wild, w)
	}
}

// radixNodes returns the number of nodes, the root included, of the radix
// trie over the sorted strings key(0), …, key(n-1). Its nodes spell the
// root, the distinct strings, and the longest common prefixes of adjacent
// ones; a stack of the prefixes open so far tells a new one from one seen
// before (they are nested: a prefix seen before and shorter than the
// current one is still on the stack).
func radixNodes(n int, key func(int) string) int {
	type open struct {
		depth int // the length of a common prefix
		// The length of the first string that has it as a prefix, since
		// the last one that has a shorter common prefix with its next:
		// the prefix is a string of the list when they are equal.
		first int
	}
	nodes := 1
	var stack []open
	for i := 0; i < n; i++ {
		k := key(i)
		if i == 0 {
			stack = append(stack, open{0, len(k)})
		} else {
			prev := key(i - 1)
			if k == prev {
				continue
			}
			l := commonPrefix(prev, k)
			for stack[len(stack)-1].depth > l {
				stack = stack[:len(stack)-1]
			}
			top := &stack[len(stack)-1]
			if top.depth == l {
				top.first = len(k) // the run of this prefix goes on
			} else {
				if top.first != l {
					nodes++ // a branch that is not a string of the list
				}
				stack = append(stack, open{l, len(k)})
			}
		}
		if k != "" {
			nodes++
		}
	}
	return nodes
}

// sortLiterals returns the indexes of the pieces, spans of the text,
// ordered by their strings, and the number of nodes of the radix trie of
// them, the sentinel included.
func (s *patternSet) sortLiterals(pieces []span) (order []int32, nodes int) {
	if len(pieces) == 0 {
		return nil, 0
	}
	order = make([]int32, len(pieces))
	for i := range order {
		order[i] = int32(i)
	}
	str := func(i int32) string { return pieces[i].in(s.text) }
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(str(a), str(b)) })
	return order, radixNodes(len(order), func(i int) string { return str(order[i]) }) + 1
}

// buildLiterals builds the radix trie of the distinct strings of the
// pieces, spans of the text, ordered by sortLiterals into order, of nodes
// nodes, and returns the pieces as nodes of it. jobs is space for its
// build.
func (s *patternSet) buildLiterals(pieces []span, order []int32, nodes int, jobs []job) []uint32 {
	if len(pieces) == 0 {
		return nil
	}
	str := func(i int32) string { return pieces[i].in(s.text) }
	ids := make([]uint32, len(pieces))
	s.litNodes = make([]litNode, 1, nodes)
	s.edge0 = make([]uint8, 1, nodes-1)
	// Breadth first; the job of node q is jobs[q].
	jobs = append(jobs, job{0, uint32(len(order)), 0})
	for q := 0; q < len(jobs); q++ {
		j := jobs[q]
		lo := j.lo
		for lo < j.hi && uint32(len(str(order[lo]))) == j.depth {
			ids[order[lo]] = uint32(q) // the node's string is this piece
			lo++
		}
		s.litNodes[q].child = int32(len(s.litNodes))
		for i := lo; i < j.hi; {
			a := str(order[i])
			k := i + 1
			for k < j.hi && str(order[k])[j.depth] == a[j.depth] {
				k++
			}
			// Sorted: the common prefix of the first and the last of a
			// run is common to all of it.
			l := j.depth + 1 + uint32(commonPrefix(a[j.depth+1:], str(order[k-1])[j.depth+1:]))
			s.litNodes = append(s.litNodes, litNode{parent: int32(q), off: pieces[order[i]].off, depth: l})
			s.edge0 = append(s.edge0, a[j.depth])
			jobs = append(jobs, job{i, k, l})
			i = k
		}
	}
	// A sentinel closes the children of the last node.
	s.litNodes = append(s.litNodes, litNode{child: int32(len(s.litNodes))})
	return ids
}

// size is the number of bytes s holds, measured from the capacities of its
// arrays.
func (s *patternSet) size() int64 {
	n := int64(len(s.text))
	n += int64(cap(s.nodes)) * int64(unsafe.Sizeof(node{}))
	n += int64(cap(s.edges))
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
	edges := s.edges[nd.child : nd.child+int32(nd.nedges)]
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

// setJob keeps j in the fields of a node that is not filled in yet: the
// trie's build holds its queue in the trie.
func (nd *node) setJob(j job) {
	nd.wildLo, nd.wildHi, nd.prefixRank = int32(j.lo), int32(j.hi), rank32(j.depth)
}

// takeJob returns the job kept by setJob, and clears the fields it used.
func (nd *node) takeJob() job {
	j := job{uint32(nd.wildLo), uint32(nd.wildHi), uint32(nd.prefixRank)}
	nd.wildLo, nd.wildHi, nd.prefixRank = 0, 0, 0
	return j
}

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
