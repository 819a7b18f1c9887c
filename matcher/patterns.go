package matcher

import (
	"cmp"
	"encoding/binary"
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
	text string // the arena every span refers to (see compile.go)
	// The trie over the patterns' literal heads, in breadth-first order;
	// nodes[0] is the root, and a sentinel after the last node closes its
	// children.
	nodes []node
	// The first octet of each node's edge, then wordPad octets of
	// padding, so that the edges of a node's children can be read a word
	// at a time.
	edges  []uint8
	exacts []exactAt  // the nodes that hold an exact pattern, in node order
	wildAt []wildAt   // the nodes that hold wildcard patterns, in node order
	wild   []wildRule // wildcard patterns, grouped by node, best first
	// rank returns the rank of plain-prefix pattern id, whose pattern
	// is in text: a node keeps only the id, and the list the ids index
	// (the Matcher's rules) knows it.
	rank func(text string, id int32) rank32

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
// pattern stored in it. A file holds about as many nodes as rules: a node
// is 16 bytes, and what few nodes hold beside a plain pattern is kept
// aside (exacts, wildAt).
type node struct {
	// The edge into this node spells one octet, edges[i] for node i, then
	// the tail text[off : off+n&tailMask]. The high bits of n say whether
	// the node is in exacts and in wildAt.
	off, n uint32
	// The children of node i are nodes[nodes[i].child : nodes[i+1].child]:
	// breadth first, the children of one node follow those of the node
	// before it.
	child int32
	// The best plain-prefix pattern whose literal is this node's path or
	// a prefix of it; -1 when none. A walk down the trie needs only the
	// last node it reaches.
	prefix int32
}

const (
	withExact = 1 << 31 // the node is in exacts
	withWild  = 1 << 30 // the node is in wildAt
	tailMask  = withWild - 1
	// maxTail is the longest tail a node holds; a longer common prefix
	// is split over a chain of nodes (only a pattern of over a GiB,
	// which no parsed file holds, has one).
	maxTail = tailMask
	// wordPad is the padding after the edges.
	wordPad = 7
)

func (nd *node) tail(text string) string { return text[nd.off : nd.off+nd.n&tailMask] }

// exactAt is the best exact ("$"-anchored, star-free) pattern of a node.
type exactAt struct {
	node, id int32
	rank     rank32
}

// wildAt is a node's wildcard patterns, wild[lo:hi], best rank first.
type wildAt struct{ node, lo, hi int32 }

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
// it: its literal is text[base : base+n], with a '*' at head unless head is
// n; a match reports id. A file holds as many as rules: it is kept small
// (16 bytes), and what the literal says of the pattern (its kind, its
// pieces) is read from it again when the trie is built.
type entry struct {
	base, head, n uint32
	// id<<2 | dollar<<1 | allow. An id is a rule's index: a Robots of
	// 1<<30 rules would hold 32 GiB of them, and no parsed file (of at
	// most 32 MiB) comes near.
	bits uint32
}

const (
	entryAllow  = 1
	entryDollar = 2 // the pattern ends with '$': it counts in the rank, and anchors
)

// newEntry places p, whose canon starts at base in the text, for id.
func newEntry(p *pattern, base uint32, id int32, allow bool) entry {
	e := entry{base: base, head: uint32(p.head), n: uint32(p.lit), bits: uint32(id) << 2}
	if allow {
		e.bits |= entryAllow
	}
	if p.dollar {
		e.bits |= entryDollar
	}
	return e
}

func (e *entry) id() int32 { return int32(e.bits >> 2) }

// rank is the pattern's rank: the octets of its literal and its '$'.
func (e *entry) rank() rank32 {
	return rankOf(int(e.n)+int(e.bits&entryDollar>>1), e.bits&entryAllow != 0)
}

// lit returns the entry's literal.
func (e *entry) lit(text string) string { return text[e.base : e.base+e.n] }

// kind returns the kind of the pattern of literal lit, as newPattern
// finds it, and whether a wildcard pattern is anchored.
func (e *entry) kind(lit string) (k kind, anchored bool) {
	dollar := e.bits&entryDollar != 0
	switch {
	case int(e.head) == len(lit) && dollar:
		return exact, false
	case int(e.head) == len(lit) || strings.Trim(lit[e.head:], "*") == "":
		return prefix, false // trailing stars absorb the rest of the path
	}
	return wild, dollar && !strings.HasSuffix(lit, "*")
}

// job is a node of a radix trie to fill in: the sorted strings [lo, hi) of
// the build all start with its string, of length depth.
type job struct{ lo, hi, depth uint32 }

// newPatternSet compiles the entries, whose spans refer to text, of at
// most nsegs pieces in all; the set keeps the text. It sorts entries.
// rank(id) is the rank of the plain-prefix entry of id. With dropEqual, of
// equal wildcard patterns only the best is kept: the others are never
// reported. Every array the set keeps is allocated at its final size.
func newPatternSet(entries []entry, nsegs int, text string, dropEqual bool, rank func(string, int32) rank32) patternSet {
	s := patternSet{text: text, direct: directBudget, rank: rank}
	head := func(e *entry) string { return text[e.base : e.base+e.head] }
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(head(&a), head(&b)) })
	nodes := radixNodes(len(entries), func(i int) string { return head(&entries[i]) })
	// Count what the nodes hold beside a plain pattern: entries of one
	// head are adjacent.
	nwild, wildNodes, exactNodes := 0, 0, 0
	lastWild, lastExact := -1, -1
	for i := range entries {
		switch k, _ := entries[i].kind(entries[i].lit(text)); k {
		case wild:
			nwild++
			if lastWild < 0 || head(&entries[lastWild]) != head(&entries[i]) {
				wildNodes++
			}
			lastWild = i
		case exact:
			if lastExact < 0 || head(&entries[lastExact]) != head(&entries[i]) {
				exactNodes++
			}
			lastExact = i
		}
	}
	s.wild = make([]wildRule, 0, nwild)
	segs := make([]span, 0, nsegs) // the pieces of the wildcard patterns, as they are placed
	s.wildAt = make([]wildAt, 0, wildNodes)
	s.exacts = make([]exactAt, 0, exactNodes)
	s.nodes = make([]node, 1, nodes+1) // and the sentinel
	s.edges = make([]uint8, 1, nodes+wordPad)
	// Breadth first, so that the children of a node are appended together.
	// Until it is filled in, a node holds its job (see setJob): the trie
	// needs no queue beside it.
	s.nodes[0].setJob(job{0, uint32(len(entries)), 0}, 0)
	for q := 0; q < len(s.nodes); q++ {
		j, tailLen := s.nodes[q].takeJob()
		off := uint32(0)
		if q > 0 {
			off = entries[j.lo].base + j.depth - tailLen
		}
		lo := j.lo
		pfx, pfxRank := int32(-1), uint64(0)
		ex := exactAt{node: int32(q), id: -1}
		wildLo := len(s.wild)
		for ; lo < j.hi && entries[lo].head == j.depth; lo++ {
			e := &entries[lo]
			lit := e.lit(text)
			k, anchored := e.kind(lit)
			switch rk, id := e.rank(), e.id(); k {
			case prefix:
				if r := full(rk, id); r > pfxRank {
					pfx, pfxRank = id, r
				}
			case exact:
				if ex.id < 0 || full(rk, id) > full(ex.rank, ex.id) {
					ex.id, ex.rank = id, rk
				}
			case wild:
				var w wildRule
				w, segs = s.wildRule(segs, e, lit, anchored)
				s.wild = append(s.wild, w)
			}
		}
		flags := uint32(0)
		if ex.id >= 0 {
			s.exacts = append(s.exacts, ex)
			flags |= withExact
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
			s.wildAt = append(s.wildAt, wildAt{int32(q), int32(wildLo), int32(len(s.wild))})
			flags |= withWild
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
			n := min(uint32(commonPrefix(a[j.depth+1:], head(&entries[k-1])[j.depth+1:])), maxTail)
			var child node
			child.setJob(job{i, k, j.depth + 1 + n}, n)
			s.nodes = append(s.nodes, child)
			s.edges = append(s.edges, b)
			i = k
		}
		s.nodes[q] = node{off: off, n: tailLen | flags, child: int32(first), prefix: pfx}
	}
	s.nodes = append(s.nodes, node{child: int32(len(s.nodes)), prefix: -1})
	s.edges = append(s.edges, make([]uint8, wordPad)...)
	// A node's prefix pattern is the best of its own and its parent's:
	// parents come first.
	for q := range s.nodes[:len(s.nodes)-1] {
		p := s.nodes[q].prefix
		if p < 0 {
			continue
		}
		pr := full(s.rank(text, p), p)
		for c := s.nodes[q].child; c < s.nodes[q+1].child; c++ {
			if own := s.nodes[c].prefix; own < 0 || pr > full(s.rank(text, own), own) {
				s.nodes[c].prefix = p
			}
		}
	}
	if len(s.wild) < cap(s.wild) {
		s.wild = slices.Clone(s.wild) // equal patterns were dropped: no slack
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
		mark(s.nodes[i].prefix)
	}
	for i := range s.exacts {
		mark(s.exacts[i].id)
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
		s.nodes[i].prefix = renumber(s.nodes[i].prefix)
	}
	for i := range s.exacts {
		s.exacts[i].id = renumber(s.exacts[i].id)
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

// wildRule returns the wildcard rule of entry e of literal lit, and
// appends its pieces, the runs between its stars, to segs.
func (s *patternSet) wildRule(segs []span, e *entry, lit string, anchored bool) (wildRule, []span) {
	w := wildRule{rank: full(e.rank(), e.id()), head: e.head, pieces: uint32(len(segs))}
	minLen := uint64(e.head)
	for pos := int(e.head) + 1; pos < len(lit); {
		piece, _, _ := strings.Cut(lit[pos:], "*")
		if piece != "" {
			segs = append(segs, span{e.base + uint32(pos), uint32(len(piece))})
			minLen += uint64(len(piece))
			w.needs.add(piece)
		}
		pos += len(piece) + 1
	}
	w.npiece = uint32(len(segs)) - w.pieces
	if anchored {
		w.npiece |= anchoredBit
	}
	w.minLen = uint32(min(minLen, 1<<32-1))
	return w, segs
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
	n += int64(cap(s.exacts)) * int64(unsafe.Sizeof(exactAt{}))
	n += int64(cap(s.wildAt)) * int64(unsafe.Sizeof(wildAt{}))
	n += int64(cap(s.wild)) * int64(unsafe.Sizeof(wildRule{}))
	n += int64(cap(s.pieces)) * int64(unsafe.Sizeof(uint32(0)))
	n += int64(cap(s.litNodes)) * int64(unsafe.Sizeof(litNode{}))
	n += int64(cap(s.edge0))
	return n
}

// best returns the id of the best pattern matching the canonical path, or
// -1 when none matches.
func (s *patternSet) best(path string) int32 {
	// Nodes that carry wildcard patterns are visited after the walk, when
	// the best plain match is known and prunes most of them.
	var pending [16]int32 // in wildAt
	np, from := 0, 0
	var wtop uint64 // the best match of the wildcard patterns searched during the walk
	wwin := int32(-1)
	n, pos := int32(0), 0
	for {
		nd := &s.nodes[n]
		if nd.n&withWild != 0 {
			k := s.findWild(n, from)
			from = k + 1
			if np == len(pending) {
				// A path this deep in wildcard patterns: search the
				// oldest now.
				top, win := s.top(nd.prefix, wtop, wwin)
				wtop, wwin = s.wildcards(pending[:1], path, top, win)
				copy(pending[:], pending[1:])
				np--
			}
			pending[np] = int32(k)
			np++
		}
		if pos == len(path) {
			break
		}
		// The child whose edge starts with the next octet: a few edges
		// are compared one by one (written out here, on the walk's
		// path), more a word at a time.
		b, c := path[pos], int32(-1)
		lo, hi := nd.child, s.nodes[n+1].child
		if hi-lo > 8 {
			c = s.edgeWide(lo, hi, b)
		} else {
			for i, e := range s.edges[lo:hi] {
				if e == b {
					c = lo + int32(i)
					break
				}
			}
		}
		if c < 0 {
			break
		}
		tail := s.nodes[c].tail(s.text)
		if len(path)-pos-1 < len(tail) || path[pos+1:pos+1+len(tail)] != tail {
			break
		}
		n, pos = c, pos+1+len(tail)
	}
	nd := &s.nodes[n]
	end := pos == len(path) && nd.n&withExact != 0
	if np == 0 && wwin < 0 && !end {
		return nd.prefix // the common case: no rank to compare
	}
	top, win := s.top(nd.prefix, wtop, wwin)
	if end {
		e := &s.exacts[s.findExact(n)]
		if r := full(e.rank, e.id); r > top {
			top, win = r, e.id
		}
	}
	if np > 0 {
		_, win = s.wildcards(pending[:np], path, top, win)
	}
	return win
}

// top returns the better of plain-prefix pattern id (none when negative)
// and the match win of rank wtop, with its rank.
func (s *patternSet) top(id int32, wtop uint64, wwin int32) (uint64, int32) {
	if id >= 0 {
		if r := full(s.rank(s.text, id), id); r > wtop {
			return r, id
		}
	}
	return wtop, wwin
}

// findWild returns the index in wildAt of node n, which is in it at from or
// after.
func (s *patternSet) findWild(n int32, from int) int {
	lo, hi := from, len(s.wildAt)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.wildAt[m].node < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// findExact returns the index in exacts of node n, which is in it.
func (s *patternSet) findExact(n int32) int {
	lo, hi := 0, len(s.exacts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.exacts[m].node < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// wildcards searches the wildcard patterns of the nodes ats (indexes in
// wildAt) that could beat the match of rank top, and returns the new best.
// Patterns are tried best rank first. The first are searched directly, a
// scan of the path per piece; once that has scanned s.direct octets, the
// rest go through a path index, which answers where a piece next occurs in
// constant time (see pathindex.go).
func (s *patternSet) wildcards(ats []int32, path string, top uint64, win int32) (uint64, int32) {
	// Summarize the path only when enough patterns wait to pay for it:
	// summing costs about as much as one search of the path. A pattern
	// that needs an octet, or a pair of adjacent octets, that the path
	// lacks is skipped unsearched.
	candidates := int32(0)
	for _, a := range ats {
		candidates += s.wildAt[a].hi - s.wildAt[a].lo
	}
	var has *octets
	var sum octets
	if candidates > 3 {
		sum = summarize(path)
		has = &sum
	}
	budget := s.direct // octets of path the direct search may still scan
	for k, a := range ats {
		at := s.wildAt[a]
		wild := s.wild[at.lo:at.hi]
		for j := range wild {
			w := &wild[j]
			if w.rank <= top {
				break
			}
			if len(path) < int(w.minLen) || has != nil && !has.covers(&w.needs) {
				continue
			}
			if budget <= 0 {
				return s.indexed(ats[k:], at.lo+int32(j), path, has, top, win)
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
// from wild[from] in the first of ats. The patterns go in batches, searched
// side by side so that their look-ups overlap; the first of a batch to
// match is the best of its node.
func (s *patternSet) indexed(ats []int32, from int32, path string, has *octets, top uint64, win int32) (uint64, int32) {
	ix := newPathIndex(s, path)
	for k, a := range ats {
		i, hi := s.wildAt[a].lo, s.wildAt[a].hi
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

// edgeWide returns the node among nodes[lo:hi], the children of a node,
// whose edge starts with c, or -1, comparing a word of eight edges at a
// time.
func (s *patternSet) edgeWide(lo, hi int32, c byte) int32 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	pat := uint64(c) * ones
	for i := lo; i < hi; i += 8 {
		// The edges are padded: the word is there even at the end.
		x := binary.LittleEndian.Uint64(s.edges[i:]) ^ pat
		// The lowest high bit of z marks the first octet equal to c
		// (a borrow only reaches octets above an equal one).
		if z := (x - ones) &^ x & highs; z != 0 {
			if e := i + int32(bits.TrailingZeros64(z)>>3); e < hi {
				return e
			}
			return -1
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

// setJob keeps j, and the length of the tail of the node's edge, in the
// fields of a node that is not filled in yet: the trie's build holds its
// queue in the trie.
func (nd *node) setJob(j job, tail uint32) {
	nd.off, nd.n, nd.child, nd.prefix = j.lo, j.hi, int32(j.depth), int32(tail)
}

// takeJob returns what setJob kept.
func (nd *node) takeJob() (job, uint32) {
	return job{nd.off, nd.n, uint32(nd.child)}, uint32(nd.prefix)
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
