package matcher

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// wildSet holds the wildcard patterns of a pattern set, those with a '*'
// that is not trailing, and what searching them takes: most files have
// none, and their sets keep none of it. The patterns of a node of the
// trie are searched best rank first: directly, a scan of the path per
// piece, until that has scanned a budget of octets (direct), then through
// an index of the path shared by all of them, a look-up per piece (see
// pathindex.go).
type wildSet struct {
	text   string     // the set's text
	wildAt []wildAt   // the nodes that hold wildcard patterns, in node order
	wild   []wildRule // wildcard patterns, grouped by node, best first
	// at[i] is where the rule of wild[i] starts in the text, as
	// entry.at: a match reports it. Nil for a set whose ids index a
	// list that knows its rules (Content-Usage).
	at []uint32

	// The pieces between the stars of the wildcard patterns: wild[i]
	// holds the pieces piecesOf(i), from its own to the next one's, each
	// the node of its literal in litNodes, a radix trie over the
	// distinct literals in breadth-first order. The path index finds
	// where each literal occurs from the occurrences of the strings above
	// it, so that literals sharing a prefix share the work.
	pieces   []uint32
	litNodes []litNode
	edge0    []uint8 // the first octet of each literal node's edge
	fan      fanout  // where the children of the nodes that branch are

	// direct is how many octets of path the direct search may scan in one
	// check: directBudget, or 0 to send every wildcard pattern through the
	// path index (tests).
	direct int
}

// wildAt is a node's wildcard patterns, wild[lo:hi], best rank first, and
// the length of their head, the node's string.
type wildAt struct {
	node, lo, hi int32
	head         uint32
}

// wildRule is a pattern with a '*' that is not trailing: head * piece1 * …
// * pieceN, optionally anchored at the end. Its head, the string of the
// trie node that holds it, is matched by the trie and kept by the node
// (wildAt). A file holds one for every 17 octets of it ("disallow:/*1a2b*a"),
// so it is kept to 16 bytes: its pieces end where those of the next one
// begin, and what it needs of a path is summed up in four features.
type wildRule struct {
	rank uint64 // full(pattern rank, id)
	// Its first piece in wildSet.pieces, and anchoredBit when the last
	// one must end the path. While the set is built, the index of its
	// entry instead.
	pieces uint32
	needs  features // what a path it matches holds
}

const anchoredBit = 1 << 31

// id is the id of the pattern, kept in the low bits of its rank.
func (w *wildRule) id() int32 { return int32(^uint32(w.rank)) }

// anchored reports whether the last piece must end the path.
func (w *wildRule) anchored() bool { return w.pieces&anchoredBit != 0 }

// piecesOf returns the pieces of wild[i], as nodes of the trie of the
// literals.
func (s *wildSet) piecesOf(i int32) []uint32 {
	lo, hi := s.pieceRange(i)
	return s.pieces[lo:hi]
}

// pieceRange returns where the pieces of wild[i] are: pieces[lo:hi], up to
// those of the next one.
func (s *wildSet) pieceRange(i int32) (lo, hi int) {
	hi = len(s.pieces)
	if int(i)+1 < len(s.wild) {
		hi = int(s.wild[i+1].pieces &^ anchoredBit)
	}
	return int(s.wild[i].pieces &^ anchoredBit), hi
}

// litNode is a node of the radix trie over the distinct literals, in
// breadth-first order: the children of a node follow those of the node
// before it. Its string is text[off : off+depth], a literal or a prefix
// that literals share; the edge from its parent is the part beyond the
// parent's depth. A file can hold one for every four octets of it
// ("*abc*abd…"), so it is 12 bytes: it keeps its parent, which checks
// climb to, but not its children, which a check looks for only below a
// node that branches (fanout).
type litNode struct {
	parent int32
	off    uint32
	depth  uint32
}

// parentOf returns the parent of literal node w, not the root.
func (s *wildSet) parentOf(w int32) int32 { return s.litNodes[w].parent }

// fanout says which literal nodes have more than one child, and where
// their children are: a bit per node, and two indexes per node that
// branches, a few of them in most tries.
type fanout struct {
	branching []uint64 // bit u%64 of word u/64 is set when node u branches
	before    []uint32 // the nodes that branch before each word
	children  []uint32 // for the k-th node that branches, its children litNodes[children[2k]:children[2k+1]]
}

// newFanout returns the fanout of n nodes whose children are
// litNodes[first[q]:first[q+1]].
func newFanout(first []int32, n int) fanout {
	words := (n + 63) / 64
	f := fanout{branching: make([]uint64, words), before: make([]uint32, words)}
	k := 0
	for q := range n {
		if first[q+1]-first[q] > 1 {
			f.branching[q/64] |= 1 << (q % 64)
			k++
		}
	}
	f.children = make([]uint32, 0, 2*k)
	k = 0
	for w := range f.branching {
		f.before[w] = uint32(k)
		for b := f.branching[w]; b != 0; b &= b - 1 {
			q := w*64 + bits.TrailingZeros64(b)
			f.children = append(f.children, uint32(first[q]), uint32(first[q+1]))
			k++
		}
	}
	return f
}

// branches reports whether literal node u has more than one child.
func (f *fanout) branches(u int32) bool { return f.branching[u/64]&(1<<(u%64)) != 0 }

// childrenOf returns the children of literal node u, which branches:
// litNodes[lo:hi].
func (f *fanout) childrenOf(u int32) (lo, hi int32) {
	w := u / 64
	k := f.before[w] + uint32(bits.OnesCount64(f.branching[w]&(1<<(u%64)-1)))
	return int32(f.children[2*k]), int32(f.children[2*k+1])
}

// degree returns the number of children of literal node u, which
// branches.
func (f *fanout) degree(u int32) int32 {
	lo, hi := f.childrenOf(u)
	return hi - lo
}

func (f *fanout) size() int64 {
	return int64(cap(f.branching))*8 + int64(cap(f.before))*4 + int64(cap(f.children))*4
}

// lit returns the string of literal node v.
func (s *wildSet) lit(v uint32) string {
	nd := &s.litNodes[v]
	return s.text[nd.off : nd.off+nd.depth]
}

// samePattern reports whether a and b, wildcard patterns of one node made
// from entries, are the same pattern with the same rank.
func (s *wildSet) samePattern(entries []entry, a, b *wildRule) bool {
	if a.rank>>32 != b.rank>>32 || a.anchored() != b.anchored() {
		return false
	}
	ea, eb := &entries[a.pieces&^anchoredBit], &entries[b.pieces&^anchoredBit]
	// Their heads are the node's string; the pieces follow.
	la, lb := ea.lit(s.text), eb.lit(s.text)
	for i, j := int(ea.head), int(eb.head); ; {
		var pa, pb string
		pa, i = nextPiece(la, i)
		pb, j = nextPiece(lb, j)
		if pa != pb {
			return false
		}
		if pa == "" {
			return true
		}
		i, j = i+len(pa), j+len(pb)
	}
}

// wildRule returns the wildcard rule of entry entries[i], e, of literal
// lit, and appends its pieces, the runs between its stars, to s.pieces,
// each as where it starts in pt.
func (s *wildSet) wildRule(pt *pieceText, e *entry, i int, lit string, anchored bool, slots []uint64) wildRule {
	w := wildRule{rank: full(e.rank(), e.id), pieces: uint32(i)}
	first := len(s.pieces)
	var f featurePicker
	copied := e.copySize(s.text) > 0
	forPieces(lit, int(e.head), func(at int, piece string) {
		start := e.base + uint32(at)
		if copied && at+len(piece) == len(lit) {
			start = pt.copy(piece)
		}
		s.pieces = append(s.pieces, start)
		f.add(piece)
	})
	w.needs = f.pick()
	if slots != nil {
		slots[i] = uint64(first)<<32 | uint64(len(s.pieces)-first)
	}
	if anchored {
		w.pieces |= anchoredBit
	}
	return w
}

// forPieces calls fn with each piece of a wildcard pattern of literal lit
// whose head is lit[:head], in order, and where it starts in lit.
func forPieces(lit string, head int, fn func(at int, piece string)) {
	for piece, at := nextPiece(lit, head); piece != ""; piece, at = nextPiece(lit, at+len(piece)) {
		fn(at, piece)
	}
}

// nextPiece returns the first piece of the literal lit of a wildcard
// pattern that starts after pos, the star that ends its head or a piece,
// and where it starts: a run of octets between stars; "" when none does.
func nextPiece(lit string, pos int) (piece string, at int) {
	for at = pos + 1; at < len(lit); at++ {
		i := strings.IndexByte(lit[at:], '*')
		switch {
		case i < 0:
			return lit[at:], at
		case i > 0:
			return lit[at : at+i], at
		}
	}
	return "", len(lit)
}

// Naming a piece by where it starts, with no length, keeps what compiling
// throws away small beside a file of short pieces ("*a*b*c…", two octets a
// piece): a piece ends at the first '*' or '$' from its start. It holds
// neither, a literal '*' or '$' being written "%2A" or "%24" in a
// canonical pattern, whose only '$' ends it; and the text follows a
// pattern that holds a '*' with another. The pattern of Google's
// index.html rule ends inside a piece of its rule's: its last piece is
// copied, with a '*' after it, into scratch space (pieceText.copies) while
// the set is built.

// pieceText is the text of the pieces while the set is built: the set's
// text, then copies at len(text) on.
type pieceText struct {
	text   string
	copies []byte
}

// from returns the text from position p on.
func (t *pieceText) from(p uint32) string {
	if int(p) < len(t.text) {
		return t.text[p:]
	}
	c := t.copies[int(p)-len(t.text):]
	return unsafe.String(unsafe.SliceData(c), len(c))
}

// copy copies piece, and returns its position.
func (t *pieceText) copy(piece string) uint32 {
	p := uint32(len(t.text) + len(t.copies))
	t.copies = append(append(t.copies, piece...), '*')
	return p
}

// copySize is the octets that the last piece of e's pattern, a wildcard
// pattern of the text, takes in pieceText.copies: none when the text ends
// it.
func (e *entry) copySize(text string) int {
	if pieceEnds(text[e.base+e.litLen()]) {
		return 0
	}
	lit := e.lit(text)
	return len(lit) - strings.LastIndexByte(lit, '*')
}

// pieceEnds reports whether c, an octet of the text, ends the piece that
// holds the octets before it.
func pieceEnds(c byte) bool { return c == '*' || c == '$' }

// pieceOf returns the piece at the start of s.
func pieceOf(s string) string {
	return strings.TrimSuffix(s[:strings.IndexByte(s, '*')], "$")
}

// comparePieces compares the pieces at the starts of a and b as strings
// are compared, at a cost of their common prefix.
func comparePieces(a, b string) int {
	for i := 0; ; i++ {
		ca, cb := a[i], b[i]
		switch ea, eb := pieceEnds(ca), pieceEnds(cb); {
		case ea || eb:
			if ea && eb {
				return 0
			}
			if ea {
				return -1
			}
			return 1
		case ca != cb:
			return cmp.Compare(ca, cb)
		}
	}
}

// sortPieces sorts pieces, positions in pt of pieces whose first d octets
// are the same, by the strings of their pieces: an in-place radix sort an
// octet at a time, as sortEntries does, which reads the common prefix of
// pieces that share one once, where a sort by comparisons reads it again
// for every comparison. It keeps no octet per piece beside them (a file
// of short pieces holds one for every two octets of it): an octet moved
// is read again.
func sortPieces[T uint32 | uint64](pieces []T, pt *pieceText, d uint32) {
	// bucket is 0 for a piece that ends at d, 1 + its octet at d else:
	// canonical patterns are ASCII.
	bucket := func(p T) uint8 {
		c := pt.from(piecePos(p))[d]
		if pieceEnds(c) {
			return 0
		}
		return 1 + c&0x7f
	}
	for len(pieces) > 1 {
		if len(pieces) <= 16 {
			for i := 1; i < len(pieces); i++ {
				v := pieces[i]
				j := i
				for ; j > 0 && comparePieces(pt.from(piecePos(v))[d:], pt.from(piecePos(pieces[j-1]))[d:]) < 0; j-- {
					pieces[j] = pieces[j-1]
				}
				pieces[j] = v
			}
			return
		}
		var end [129]int32
		lo, hi := uint8(128), uint8(0) // the buckets used
		for _, p := range pieces {
			b := bucket(p)
			end[b]++
			lo, hi = min(lo, b), max(hi, b)
		}
		if lo == hi {
			if lo == 0 {
				return // equal pieces
			}
			// One octet in common, and maybe more: skip them all.
			first, common := pt.from(piecePos(pieces[0])), uint32(1<<31)
			for _, p := range pieces[1:] {
				common = min(common, commonPieces(first, pt.from(piecePos(p)), d+1))
				if common == d+1 {
					break
				}
			}
			d = common
			continue
		}
		// Bucket b is pieces[start[b]:end[b]]; next[b] is where its next
		// piece goes.
		var start, next [129]int32
		sum, largest := int32(0), lo
		for b := lo; b <= hi; b++ {
			start[b], next[b] = sum, sum
			sum += end[b]
			end[b] = sum
			if end[b]-start[b] > end[largest]-start[largest] {
				largest = b
			}
		}
		// Put each piece in its bucket, following the cycles of the
		// permutation.
		for b := lo; b <= hi; b++ {
			for next[b] < end[b] {
				v := pieces[next[b]]
				for t := bucket(v); t != b; t = bucket(v) {
					k := next[t]
					next[t]++
					pieces[k], v = v, pieces[k]
				}
				pieces[next[b]] = v
				next[b]++
			}
		}
		// Pieces that end at d are equal; the others sort on from d+1.
		for b := max(lo, 1); b <= hi; b++ {
			if b != largest && end[b]-start[b] > 1 {
				sortPieces(pieces[start[b]:end[b]], pt, d+1)
			}
		}
		if largest == 0 {
			return
		}
		pieces, d = pieces[start[largest]:end[largest]], d+1
	}
}

// piecePos returns where a piece starts in a pieceText: p itself, or the
// high half of a word whose low half is the piece's slot.
func piecePos[T uint32 | uint64](p T) uint32 {
	return uint32(uint64(p) >> (8*unsafe.Sizeof(p) - 32))
}

// commonPieces returns the length of the common prefix of the pieces at
// the starts of a and b, which have their first from octets in common.
func commonPieces(a, b string, from uint32) uint32 {
	n := from
	for a[n] == b[n] && !pieceEnds(a[n]) {
		n++
	}
	return n
}

// buildLiterals builds the radix trie of the distinct strings of the
// pieces, which start where s.pieces says in the text, and lays out the
// pieces of each wildcard pattern, made from entries, as nodes of it.
//
// With slots, which say where the pieces of each entry are in s.pieces
// (first<<32 | count, by entry), each piece is sorted with its slot, in
// sc, so that the node found for it is written to its slot as the trie is
// built; the pieces of the patterns are then copied from their slots.
// Without, the pieces are sorted in place, and each pattern's pieces are
// looked up in the trie from its literal: nothing is kept per piece beside
// them.
func (s *wildSet) buildLiterals(pt *pieceText, entries []entry, slots []uint64, sc *scratch) {
	if len(s.pieces) == 0 {
		return
	}
	if slots == nil {
		s.literalsInPlace(pt, entries)
		return
	}
	keyed := resizeScratch(sc.pieceKeys, len(s.pieces))
	for i, p := range s.pieces {
		keyed[i] = uint64(p)<<32 | uint64(i)
	}
	sortPieces(keyed, pt, 0)
	nodeOf := s.pieces // by slot: each position is read into keyed
	first := buildLiteralTrie(s, keyed, pt, func(k uint64, q int32) { nodeOf[uint32(k)] = uint32(q) })
	sc.pieceKeys = keyed
	s.fan = newFanout(first, len(s.litNodes))
	n := 0
	for i := range s.wild {
		n += int(uint32(slots[s.wild[i].pieces&^anchoredBit]))
	}
	pieces := make([]uint32, 0, n)
	for i := range s.wild {
		w := &s.wild[i]
		k := w.pieces &^ anchoredBit
		if s.at != nil {
			s.at[i] = entries[k].at
		}
		at, count := slots[k]>>32, uint32(slots[k])
		w.pieces = uint32(len(pieces)) | w.pieces&anchoredBit
		pieces = append(pieces, nodeOf[at:at+uint64(count)]...)
	}
	s.pieces = pieces
}

// literalsInPlace is buildLiterals without slots.
func (s *wildSet) literalsInPlace(pt *pieceText, entries []entry) {
	text, pieces := s.text, s.pieces
	sortPieces(pieces, pt, 0)
	first := buildLiteralTrie(s, pieces, pt, nil)
	s.fan = newFanout(first, len(s.litNodes))
	// The pieces, sorted, are spent: each pattern's pieces, read again
	// from its literal, become the nodes of their strings, in the order
	// of the patterns. Those of patterns dropped as equal to another
	// are left out.
	at := uint32(0)
	for i := range s.wild {
		w := &s.wild[i]
		e := &entries[w.pieces&^anchoredBit]
		if s.at != nil {
			s.at[i] = e.at
		}
		w.pieces = at | w.pieces&anchoredBit
		forPieces(e.lit(text), int(e.head), func(_ int, piece string) {
			pieces[at] = s.literal(first, piece)
			at++
		})
	}
	s.pieces = pieces[:at]
	if len(s.pieces) < cap(s.pieces) {
		s.pieces = cloneExact(s.pieces) // equal patterns were dropped: no slack
	}
}

// buildLiteralTrie builds s.litNodes and s.edge0 from the sorted pieces
// (see piecePos), calling found, when not nil, with each piece and the
// node of its string. It returns where the children of each node are:
// litNodes[first[q]:first[q+1]].
func buildLiteralTrie[T uint32 | uint64](s *wildSet, pieces []T, pt *pieceText, found func(p T, q int32)) (first []int32) {
	nodes := radixNodes(len(pieces), false, func(i int) string { return pieceOf(pt.from(piecePos(pieces[i]))) })
	s.litNodes = make([]litNode, 1, nodes)
	s.edge0 = make([]uint8, 1, nodes)
	first = make([]int32, nodes+1)
	// Breadth first. Until it is filled in, a node holds its job, the
	// sorted pieces pieces[off:depth] that start with its string: the
	// trie needs no queue beside it. A piece that starts at p has the
	// octet pt.from(p)[d] at depth d, or ends there.
	s.litNodes[0].depth = uint32(len(pieces))
	for q := range int32(nodes) {
		nd := &s.litNodes[q]
		lo, hi, depth := nd.off, nd.depth, uint32(0)
		nd.off = 0
		if q > 0 {
			// Sorted: the common prefix of the first and the last of
			// the run is common to all of it. The last is in the text:
			// a copy sorts before the piece of the text it is a prefix
			// of.
			depth = commonPieces(pt.from(piecePos(pieces[lo])), pt.from(piecePos(pieces[hi-1])), s.litNodes[s.parentOf(q)].depth+1)
			nd.off = piecePos(pieces[hi-1])
		}
		nd.depth = depth
		first[q] = int32(len(s.litNodes))
		for ; lo < hi && pieceEnds(pt.from(piecePos(pieces[lo]))[depth]); lo++ {
			// The node's string is this piece.
			if found != nil {
				found(pieces[lo], q)
			}
		}
		for i := lo; i < hi; {
			b := pt.from(piecePos(pieces[i]))[depth]
			k := i + 1
			for k < hi && pt.from(piecePos(pieces[k]))[depth] == b {
				k++
			}
			s.litNodes = append(s.litNodes, litNode{parent: q, off: i, depth: k})
			s.edge0 = append(s.edge0, b)
			i = k
		}
	}
	first[nodes] = int32(nodes)
	return first
}

// literal returns the node of the trie of the literals whose string is
// lit, one of the pieces it was built from; the children of node q are
// litNodes[first[q]:first[q+1]].
func (s *wildSet) literal(first []int32, lit string) uint32 {
	v := int32(0)
	for d := 0; d < len(lit); {
		// The children of a node are in the order of the first octets
		// of their edges.
		lo, hi := first[v], first[v+1]
		i, _ := slices.BinarySearch(s.edge0[lo:hi], lit[d])
		v = lo + int32(i)
		d = int(s.litNodes[v].depth)
	}
	return uint32(v)
}

// findWild returns the index in wildAt of node n, which is in it at from or
// after.
func (s *wildSet) findWild(n int32, from int) int {
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

// wildcards searches the wildcard patterns of the nodes ats (indexes in
// wildAt) that could beat the match of rank top, and returns the new best.
// Patterns are tried best rank first. The first are searched directly, a
// scan of the path per piece; once that has scanned s.direct octets, the
// rest go through a path index, which answers where a piece next occurs in
// constant time (see pathindex.go).
func (s *wildSet) wildcards(ats []int32, path string, top uint64, win hit) (uint64, hit, int) {
	// Summarize the path only when enough patterns wait to pay for it:
	// summing costs about as much as one search of the path. A pattern
	// one of whose four features (octets or pairs of adjacent octets of
	// its pieces) the path lacks is skipped unsearched.
	candidates := int32(0)
	for _, a := range ats {
		candidates += s.wildAt[a].hi - s.wildAt[a].lo
	}
	var has *summary
	var sum summary
	if candidates > 3 {
		sum.summarize(path)
		has = &sum
	}
	budget := s.direct // octets of path the direct search may still scan
	for k, a := range ats {
		at := s.wildAt[a]
		for i := at.lo; i < at.hi; i++ {
			w := &s.wild[i]
			if w.rank <= top {
				break
			}
			if has != nil && !has.holds(w.needs) {
				continue
			}
			if budget <= 0 {
				itop, iwin, isteps := s.indexed(ats[k:], i, path, has, top, win)
				return itop, iwin, s.wildSteps(ats, path, has, budget) + isteps
			}
			budget -= len(path) - int(at.head)
			if s.matchDirect(path, i, int(at.head)) {
				top, win = w.rank, hit{kind: wildHit, allow: w.rank>>32&1 != 0, at: i}
				break
			}
		}
	}
	return top, win, s.wildSteps(ats, path, has, budget)
}

// wildSteps is the steps of wildcards, from what it leaves: a step for each
// node, the octets of the path it summarized, if it did, and those its
// direct search scanned. (Counted at the end, not as it goes: its loop
// carries nothing for them.)
func (s *wildSet) wildSteps(ats []int32, path string, has *summary, budget int) int {
	n := len(ats) + s.direct - budget
	if has != nil {
		n += len(path)
	}
	return n
}

// indexed goes on with the search of wildcards through the path index,
// from wild[from] in the first of ats. The patterns go in batches, searched
// side by side so that their look-ups overlap; the first of a batch to
// match is the best of its node.
func (s *wildSet) indexed(ats []int32, from int32, path string, has *summary, top uint64, win hit) (uint64, hit, int) {
	ix := newPathIndex(s, path)
	for k, a := range ats {
		at := s.wildAt[a]
		i, hi := at.lo, at.hi
		if k == 0 {
			i = from
		}
		for i < hi {
			var batch [lanes]lane
			nb := 0
			for ; i < hi && nb < lanes; i++ {
				w := &s.wild[i]
				if w.rank <= top {
					hi = i // nothing after it can win either
					break
				}
				ix.steps++
				if has == nil || has.holds(w.needs) {
					batch[nb] = lane{i, at.head}
					nb++
				}
			}
			if j := ix.matchBatch(batch[:nb]); j >= 0 {
				w := &s.wild[batch[j].wild]
				top, win = w.rank, hit{kind: wildHit, allow: w.rank>>32&1 != 0, at: batch[j].wild}
				break
			}
		}
	}
	steps := ix.steps
	ix.release()
	return top, win, steps
}

// matchDirect reports whether path matches wild[i] beyond its head, the
// first head octets of the path, searching the
// path for each piece in turn. Each piece is taken at its leftmost
// occurrence after the previous one: for a pattern whose only operator is
// '*', the greedy choice matches whenever any choice does, so one
// left-to-right pass decides, with no backtracking.
func (s *wildSet) matchDirect(path string, i int32, head int) bool {
	pieces := s.piecesOf(i)
	pos, end := head, len(path)
	if s.wild[i].anchored() {
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

// summary is a summary of a path for ruling out substring matches, 256
// flags: the octets it holds (canonical paths are ASCII, so 128 flags hold
// them exactly), then a hashed set of 128 of its pairs of adjacent octets.
// If a string occurs in the path, every flag of its octets and pairs is
// set. A flag is a byte, so that a look-up is one load.
type summary [256]uint8

// pairBit is the flag of a summary for the pair of octets a, b.
func pairBit(a, b byte) byte { return 128 | (a&0x7f*13^b&0x7f)&0x7f }

// summarize sets the flags of path in o, which is clear.
func (o *summary) summarize(path string) {
	if path == "" {
		return
	}
	prev := path[0] & 0x7f
	o[prev] = 1
	for i := 1; i < len(path); i++ {
		c := path[i] & 0x7f
		o[c] = 1
		o[pairBit(prev, c)] = 1
		prev = c
	}
}

// features are four flags of a summary, an octet each, that every path a
// wildcard pattern matches sets: a few of the octets and pairs of its
// pieces, chosen to rule most paths out.
type features uint32

// holds reports whether the summary has the four flags of f.
func (o *summary) holds(f features) bool {
	return o[byte(f)]&o[byte(f>>8)]&o[byte(f>>16)]&o[byte(f>>24)] != 0
}

// featurePicker chooses the features of a pattern from its pieces: the
// four that a path is least likely to hold, so that a check rules out as
// many paths as four bits can.
type featurePicker struct {
	best [4]byte   // the bits, least likely first
	odds [4]uint16 // and how likely a path holds each
	n    int
}

// add adds the octets and pairs of the next piece of the pattern.
func (p *featurePicker) add(piece string) {
	if piece == "" {
		return
	}
	// Once four are kept, most octets and pairs are likelier than the
	// worst of them: that test, here, spares them the call to offer.
	worst := p.worst()
	a := piece[0] & 0x7f
	if o := commonness[a]; o < worst {
		p.offer(a, o)
		worst = p.worst()
	}
	for i := 1; i < len(piece); i++ {
		c := piece[i] & 0x7f
		if o := commonness[c]; o < worst {
			p.offer(c, o)
			worst = p.worst()
		}
		if o := pairOdds(a, c); o < worst {
			p.offer(pairBit(a, c), o)
			worst = p.worst()
		}
		a = c
	}
}

// worst returns the odds an octet or a pair must be below to be offered:
// those of the worst of the four kept, or, until four are, more than any.
func (p *featurePicker) worst() uint16 {
	if p.n < len(p.best) {
		return 1<<16 - 1
	}
	return p.odds[len(p.odds)-1]
}

// offer keeps bit if it is among the four least likely, odds being how
// likely a path holds it, in thousandths, below worst(): add offers no
// other.
func (p *featurePicker) offer(bit byte, odds uint16) {
	for _, b := range p.best[:p.n] {
		if b == bit {
			return
		}
	}
	i := p.n
	if i == len(p.best) {
		i--
	} else {
		p.n++
	}
	for ; i > 0 && p.odds[i-1] > odds; i-- {
		p.best[i], p.odds[i] = p.best[i-1], p.odds[i-1]
	}
	p.best[i], p.odds[i] = bit, odds
}

// pick returns the features; a pattern of fewer than four repeats one.
func (p *featurePicker) pick() features {
	f := p.best
	for i := p.n; i < len(f); i++ {
		f[i] = f[0]
	}
	return features(f[0]) | features(f[1])<<8 | features(f[2])<<16 | features(f[3])<<24
}

// commonness is how likely a URL path of a few dozen octets holds an
// octet, in thousandths: 1-(1-f)^35 for a letter of frequency f in English,
// rough guesses for the rest. It only orders the features of a pattern (a
// bad guess costs speed, never a verdict).
var commonness = func() (c [128]uint16) {
	for i := range c {
		c[i] = 20 // controls and rare punctuation, escaped anyway
	}
	set := func(octets string, v uint16) {
		for i := 0; i < len(octets); i++ {
			c[octets[i]] = v
		}
	}
	set("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 80)
	set("ABCDEF", 150) // the hex digits of escapes
	set("0123456789", 250)
	set("jxqz", 40)
	set("k", 190)
	set("v", 220)
	set("b", 320)
	set("fgyp", 390)
	set("cumw", 480)
	set("dl", 650)
	set("taoinshr", 820)
	set("e", 960)
	set("_", 150)
	set("%&", 200)
	set("?=", 300)
	set("-.", 400)
	set("/", 1000)
	return c
}()

// pairOdds is how likely a path sets the bit of the pair of octets a, b:
// a few dozen pairs set about a quarter of the 128 bits whatever they are,
// and a pair of common octets is likelier.
func pairOdds(a, b byte) uint16 { return 250 + min(commonness[a], commonness[b])/4 }
