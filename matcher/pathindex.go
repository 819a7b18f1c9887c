package matcher

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
	"unsafe"
)

// The path index answers, for one canonical path and the literal pieces of a
// pattern set, "where does this literal next occur from here?" in constant
// time, so that a wildcard pattern costs a few look-ups per piece instead of
// a scan of the path per piece. It is built lazily, piece by piece, in
// scratch memory reused across checks.
//
// The occurrences of a literal are the set of positions of the path where it
// ends, held as a bitmap when the set is large and as a sorted list when it
// is small. The set of a literal is derived from the set of its parent in the
// radix trie of literals: the parent's occurrences shifted by one octet and
// masked by the positions of the edge's first octet (a word at a time), then
// kept only where the rest of the edge follows. Literals that share a
// prefix share its set; siblings are split from their parent's set in one
// pass when that is cheaper than one pass each.
//
// Cost, for a path of n octets (w = n/64 words) and the pieces of the
// patterns tried:
//
//   - building: O(n) for the octets' bitmaps, done once per check;
//   - a set: O(w) from a bitmap parent, O(k) from a list of k positions, plus
//     the rest of the edge checked at each position kept: O(1) by hashing
//     for a long edge, or a comparison of at most 32 octets;
//   - a look-up: O(1) in a bitmap (a word, then a table of the next
//     non-empty word), O(log k) in a list of k ≤ max(8, w/4) positions.
//
// So a check costs O(n) plus O(1) per piece of each pattern tried plus the
// sets made. Each set is made once per check, and only for a literal of a
// pattern tried. A set costs O(w) or the size of its parent's set; sets at
// one depth of the trie are disjoint (positions where different strings of
// that length end), so a depth costs at most O(n) in all, and at most O(w)
// per literal whose set is made. For a path of 8 KiB (w = 128) and a file of
// 500 KiB, the literals made cost at most min(n, w·k_d) summed over the
// depths d of the trie, where the k_d literals branching at depth d take at
// least d octets of the file each: about n·√(F/(2w)) word operations ≈ 10^6
// at worst, the rest O(F) look-ups, well under a millisecond.

// directBudget is how many octets of path the direct search of the wildcard
// patterns may scan in one check before the rest of them go through the
// path index: a few searches of a long path, a thousand of a short one.
const directBudget = 64 << 10

// occSet is the set of the positions where a literal ends.
type occSet struct {
	off    int32 // first word (a bitmap) or position (a list) in the index's arenas
	nz     int32 // a bitmap's table of next positions in nz, once made for look-ups; -1 before
	count  int32 // number of positions
	bitmap bool
	// exact is false when the set was checked by hashes: it may then hold
	// a position where the literal does not end, which a look-up rules out.
	exact bool
}

// pathIndex is the path index of one check; it is not safe for concurrent
// use.
type pathIndex struct {
	set  *patternSet
	path string // a copy of the path, in buf: the index outlives no check
	buf  []byte
	n    int
	nw   int    // words of a bitmap of the path's positions
	gen  uint32 // this check's generation in stamp
	max  int32  // the largest list; a larger set is a bitmap
	// upgrade is the number of look-ups through a bitmap after which it
	// gets a next-position table.
	upgrade int32

	// words holds the bitmaps: first the positions of each octet, row c
	// at [c*nw : c*nw+nw] (valid only if c is in seen), then the sets.
	words []uint64
	seen  [2]uint64
	count [128]int32

	sets []occSet
	// For each bitmap set, the least position of the set at or after
	// the start of each word, n when none: a look-up reads a word of the
	// bitmap and an entry of the table, and picks one without a branch.
	nz   []int32
	ends []int32 // the positions of list sets

	// memo[v] is the set of litNodes[v], valid when stamp[v] == gen, or
	// that of its edge's first octet only when stamp[v] == gen|partial;
	// -1 for an empty set.
	stamp []uint32
	memo  []int32

	hashed bool
	prefix []uint64 // prefix hashes of the path, once hashed

	// refs[p] says how to look literal p up, valid when its gen is
	// this check's: resolved from its set on first use.
	refs []litRef
	// tables holds next-position tables of literals looked up often:
	// table[x] is the least position of the set at or after x, or
	// noNext. A look-up is then one read.
	tables []uint16

	chain []int32 // scratch for get
	tmp   []int32 // scratch for building sets
}

// litRef is how to look a literal up in this check.
type litRef struct {
	gen  uint32
	kind uint8
	last int32 // the literal's length less one: where it ends, from where it starts
	off  int32 // its table in tables, bitmap in words, or list in ends
	aux  int32 // a bitmap's next-position table in nz; a list's length; an inexact set
	hits int32 // look-ups through its bitmap, to decide on a table
}

// Kinds of litRef.
const (
	refNone  = iota // the literal does not occur in the path
	refTable        // an exact set with a next-position table
	refBits         // an exact bitmap
	refList         // an exact list
	refSlow         // an inexact set: look up, then compare
)

// noNext is the entry of a table past the last position of its set. Tables
// exist only for paths shorter than noNext, so it is past the end of any.
const noNext = 1<<16 - 1

// tableAfter is the least number of look-ups through a bitmap after which a
// literal gets a table; a variable so that tests can make tables early.
var tableAfter = int32(32)

// maxTables bounds the octets of next-position tables per check (4 MiB):
// 256 tables for a path of 8 KiB.
const maxTables = 2 << 20

const partial = 1 << 31

var indexPool = sync.Pool{New: func() any { return new(pathIndex) }}

// newPathIndex returns an index of the canonical path for the literals of s,
// from the pool; release returns it.
func newPathIndex(s *patternSet, path string) *pathIndex {
	ix := indexPool.Get().(*pathIndex)
	ix.buf = append(ix.buf[:0], path...)
	ix.set, ix.path, ix.n = s, unsafe.String(unsafe.SliceData(ix.buf), len(ix.buf)), len(path)
	ix.nw = (len(path) + 63) >> 6
	ix.max = int32(max(8, ix.nw))
	ix.upgrade = max(tableAfter, int32(len(path)/64))
	ix.gen = (ix.gen + 1) &^ partial
	if ix.gen == 0 || len(ix.stamp) < len(s.litNodes) {
		if len(ix.stamp) < len(s.litNodes) {
			ix.stamp = make([]uint32, len(s.litNodes))
			ix.memo = make([]int32, len(s.litNodes))
		} else {
			clear(ix.stamp)
		}
		ix.gen = 1
	}
	ix.words = grow(ix.words[:0], 128*ix.nw)
	ix.seen = [2]uint64{}
	ix.count = [128]int32{}
	for i := 0; i < len(path); i++ {
		c := path[i] & 0x7f
		if ix.seen[c>>6]&(1<<(c&63)) == 0 {
			ix.seen[c>>6] |= 1 << (c & 63)
			clear(ix.words[int(c)*ix.nw : int(c+1)*ix.nw])
		}
		ix.words[int(c)*ix.nw+i>>6] |= 1 << (i & 63)
		ix.count[c]++
	}
	ix.sets, ix.nz, ix.ends = ix.sets[:0], ix.nz[:0], ix.ends[:0]
	ix.tables = ix.tables[:0]
	if len(ix.refs) < len(s.litNodes) || ix.gen == 1 {
		ix.refs = make([]litRef, max(len(s.litNodes), len(ix.refs)))
	}
	ix.hashed = false
	// The root's set is every position before the path: its children's
	// sets are the octets' rows.
	ix.stamp[0], ix.memo[0] = ix.gen, -1
	return ix
}

func (ix *pathIndex) release() {
	ix.set, ix.path = nil, ""
	indexPool.Put(ix)
}

// grow returns b extended to length n, its elements kept.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return append(b[:cap(b)], make([]T, n-cap(b))...)[:n]
	}
	return b[:n]
}

// lanes is the number of patterns searched side by side.
const lanes = 8

// matchBatch returns the index in ws of the first pattern that the path
// matches beyond its head, or -1. Each piece is taken at its leftmost
// occurrence after the previous one, as in matchDirect, and the last one
// at the end of the path if the pattern is anchored. The patterns advance
// a piece each in turn: each look-up depends on the one before it in its
// pattern, not on those of the others, so the processor overlaps them.
func (ix *pathIndex) matchBatch(ws []*wildRule) int {
	s := ix.set
	var (
		at, lim [lanes]int // the pieces left to find: s.pieces[at:lim]
		pos     [lanes]int // where the next piece may start
		end     [lanes]int // where the last piece must end, exclusive
		ok      [lanes]bool
	)
	live := 0
	for j, w := range ws {
		first, last := int(w.pieces), int(w.pieces+w.npieces())
		pos[j], end[j] = int(w.head), ix.n
		if w.anchored() {
			lit := s.lit(s.pieces[last-1])
			if ix.n-len(lit) < pos[j] || ix.path[ix.n-len(lit):] != lit {
				continue
			}
			last--
			end[j] -= len(lit)
		}
		if first == last {
			ok[j] = true
			continue
		}
		at[j], lim[j] = first, last
		live++
	}
	// Locals, so that the loop does not reload the index's fields after
	// each store.
	pieces, refs, tables, words, nz, gen := s.pieces, ix.refs, ix.tables, ix.words, ix.nz, ix.gen
	for live > 0 {
		for j := range lanes {
			if at[j] == lim[j] {
				continue
			}
			p := pieces[at[j]]
			r := &refs[p]
			if r.gen != gen {
				ix.resolve(p)
				words, nz = ix.words, ix.nz // making sets may grow them
			}
			x := pos[j] + int(r.last)
			e := math.MaxInt // where the piece ends; past end[j] when nowhere
			if x < end[j] {
				switch r.kind {
				case refTable:
					e = int(tables[int(r.off)+x])
				case refBits:
					// Read without a branch on the bitmap's
					// contents, which depend on the path.
					w := x >> 6
					b := words[int(r.off)+w] >> (x & 63)
					e = pick(b, uint64(x+bits.TrailingZeros64(b)), uint64(nz[int(r.aux)+w+1]))
					if r.hits++; r.hits == ix.upgrade {
						ix.tabulate(r)
						tables = ix.tables
					}
				case refList:
					e = ix.inList(r, x)
					if r.hits++; r.hits == ix.upgrade {
						ix.tabulate(r)
						tables = ix.tables
					}
				case refSlow:
					if e = ix.find(r.aux, p, x); e < 0 {
						e = math.MaxInt
					}
				}
			}
			at[j]++
			switch {
			case e >= end[j]:
				at[j], lim[j] = 0, 0
				live--
			case at[j] == lim[j]:
				ok[j] = true
				live--
			default:
				pos[j] = e + 1
			}
		}
	}
	for j := range ws {
		if ok[j] {
			return j
		}
	}
	return -1
}

// resolve makes the set of literal node p, if not made, and how to look it
// up.
func (ix *pathIndex) resolve(p uint32) {
	r := &ix.refs[p]
	*r = litRef{gen: ix.gen, last: int32(ix.set.litNodes[p].depth) - 1}
	si := ix.memo[p]
	if ix.stamp[p] != ix.gen {
		si = ix.get(int32(p))
	}
	switch {
	case si < 0:
		r.kind = refNone
	case !ix.sets[si].exact:
		r.kind, r.aux = refSlow, si
	case ix.sets[si].bitmap:
		r.kind, r.off, r.aux = refBits, ix.sets[si].off, ix.nextTable(si)
	default:
		r.kind, r.off, r.aux = refList, ix.sets[si].off, ix.sets[si].count
	}
}

// inList returns the least position of r's list at or after x, or
// math.MaxInt.
func (ix *pathIndex) inList(r *litRef, x int) int {
	ends := ix.ends[r.off : r.off+r.aux]
	lo, hi := 0, len(ends)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if int(ends[h]) < x {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo == len(ends) {
		return math.MaxInt
	}
	return int(ends[lo])
}

// tabulate gives r a next-position table, when the path is short enough
// for one and the check's tables have room: a literal looked up this often
// repays the O(n) it costs.
func (ix *pathIndex) tabulate(r *litRef) {
	if ix.n >= noNext || len(ix.tables)+ix.n > maxTables {
		return
	}
	off := len(ix.tables)
	ix.tables = grow(ix.tables, off+ix.n)
	t := ix.tables[off : off+ix.n]
	i := 0 // t[:i] is filled
	if r.kind == refList {
		for _, e := range ix.ends[r.off : r.off+r.aux] {
			fill(t[i:e+1], uint16(e))
			i = int(e) + 1
		}
	} else {
		for w := 0; w < ix.nw; w++ {
			for b := ix.words[int(r.off)+w]; b != 0; b &= b - 1 {
				e := w<<6 + bits.TrailingZeros64(b)
				fill(t[i:e+1], uint16(e))
				i = e + 1
			}
		}
	}
	fill(t[i:], noNext)
	r.kind, r.off = refTable, int32(off)
}

// fill sets every element of t to v, four at a time where it can.
func fill(t []uint16, v uint16) {
	if len(t) < 16 {
		for i := range t {
			t[i] = v
		}
		return
	}
	i := 0
	for ; uintptr(unsafe.Pointer(&t[i]))&7 != 0; i++ {
		t[i] = v
	}
	if n := (len(t) - i) >> 2; n > 0 {
		q := unsafe.Slice((*uint64)(unsafe.Pointer(&t[i])), n)
		v4 := uint64(v) * 0x0001_0001_0001_0001
		for k := range q {
			q[k] = v4
		}
		i += n << 2
	}
	for ; i < len(t); i++ {
		t[i] = v
	}
}

// pick returns found when b is not zero and alt when it is, without a
// branch: which it is depends on the path, and a mispredicted branch costs
// more than the look-up.
func pick(b, found, alt uint64) int {
	zero := (b|-b)>>63 ^ 1
	return int(found + (alt-found)&-zero)
}

// find returns the least position of set si, the set of literal node p, at
// or after x where p's literal ends, or -1.
func (ix *pathIndex) find(si int32, p uint32, x int) int {
	if ix.sets[si].bitmap {
		ix.nextTable(si)
	}
	set := &ix.sets[si]
	lit := ix.set.lit(p)
	for {
		e := ix.after(set, x)
		if e < 0 || set.exact || ix.path[e+1-len(lit):e+1] == lit {
			return e
		}
		x = e + 1 // a hash collision: look further
	}
}

// after returns the least position of set at or after x, or -1.
func (ix *pathIndex) after(set *occSet, x int) int {
	if x >= ix.n {
		return -1
	}
	if !set.bitmap {
		ends := ix.ends[set.off : set.off+set.count]
		lo, hi := 0, len(ends)
		for lo < hi {
			h := int(uint(lo+hi) >> 1)
			if int(ends[h]) < x {
				lo = h + 1
			} else {
				hi = h
			}
		}
		if lo == len(ends) {
			return -1
		}
		return int(ends[lo])
	}
	w := x >> 6
	b := ix.words[int(set.off)+w] >> (x & 63)
	r := pick(b, uint64(x+bits.TrailingZeros64(b)), uint64(ix.nz[int(set.nz)+w+1]))
	if r >= ix.n {
		return -1
	}
	return r
}

// get returns the set of litNodes[v], making it and those of its ancestors
// as needed; -1 for an empty set.
func (ix *pathIndex) get(v int32) int32 {
	chain := ix.chain[:0]
	for u := v; ix.stamp[u] != ix.gen; u = ix.set.litNodes[u].parent {
		chain = append(chain, u)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		ix.make(chain[i])
	}
	ix.chain = chain
	return ix.memo[v]
}

// make makes the set of litNodes[v], whose parent's set is made.
func (ix *pathIndex) make(v int32) {
	s := ix.set
	nd := &s.litNodes[v]
	u := nd.parent
	up := &s.litNodes[u]
	edge := s.text[nd.off+up.depth : nd.off+nd.depth]
	var first int32
	switch {
	case ix.stamp[v] == ix.gen|partial:
		first = ix.memo[v]
	case u == 0:
		first = ix.octet(edge[0])
	case ix.memo[u] < 0:
		first = -1
	default:
		pu := ix.memo[u]
		children := s.litNodes[u+1].child - up.child
		set := &ix.sets[pu]
		// Split all the children's sets in a pass over the parent's
		// positions when that costs less than a pass over its bitmap
		// for each child.
		if children > 1 && (!set.bitmap || int64(set.count) < int64(children)*int64(ix.nw)) {
			ix.split(u)
			first = ix.memo[v]
		} else {
			first = ix.shift(pu, edge[0])
		}
	}
	if first >= 0 && len(edge) > 1 {
		first = ix.extend(first, edge[1:])
	}
	ix.stamp[v], ix.memo[v] = ix.gen, first
}

// octet returns a set of the positions of octet c.
func (ix *pathIndex) octet(c byte) int32 {
	c &= 0x7f
	if ix.seen[c>>6]&(1<<(c&63)) == 0 {
		return -1
	}
	row := int32(c) * int32(ix.nw)
	if ix.count[c] > ix.max {
		return ix.addBitmap(row, ix.count[c], true)
	}
	off := len(ix.ends)
	for w := 0; w < ix.nw; w++ {
		for b := ix.words[int(row)+w]; b != 0; b &= b - 1 {
			ix.ends = append(ix.ends, int32(w<<6+bits.TrailingZeros64(b)))
		}
	}
	return ix.addList(off, true)
}

// shift returns the set of the positions i+1 where i is in set pu and
// octet c is at i+1.
func (ix *pathIndex) shift(pu int32, c byte) int32 {
	c &= 0x7f
	if ix.seen[c>>6]&(1<<(c&63)) == 0 {
		return -1
	}
	set := ix.sets[pu]
	if !set.bitmap {
		off := len(ix.ends)
		for i := set.off; i < set.off+set.count; i++ {
			if e := int(ix.ends[i]) + 1; e < ix.n && ix.path[e] == c {
				ix.ends = append(ix.ends, int32(e))
			}
		}
		return ix.addList(off, set.exact)
	}
	off := len(ix.words)
	ix.words = grow(ix.words, off+ix.nw)
	src := ix.words[set.off : int(set.off)+ix.nw]
	row := ix.words[int(c)*ix.nw : int(c)*ix.nw+ix.nw]
	dst := ix.words[off : off+ix.nw]
	carry, count := uint64(0), 0
	for w := range dst {
		x := (src[w]<<1 | carry) & row[w]
		carry = src[w] >> 63
		dst[w] = x
		count += bits.OnesCount64(x)
	}
	return ix.fromBitmap(off, count, set.exact)
}

// split makes the first-octet sets of the children of litNodes[u] not made
// yet, in two passes over the positions of u's set: one to count each
// child's positions, one to lay them out, and marks them partial.
func (ix *pathIndex) split(u int32) {
	s := ix.set
	up := &s.litNodes[u]
	lo, hi := up.child, s.litNodes[u+1].child
	// Children start with distinct ASCII octets: at most 128 of them.
	var slot [128]uint8 // child-lo+1 by first octet, for children to make
	for c := lo; c < hi; c++ {
		if ix.stamp[c]&^partial != ix.gen {
			slot[s.text[s.litNodes[c].off+up.depth]&0x7f] = uint8(c - lo + 1)
		}
	}
	set := ix.sets[ix.memo[u]]
	var count [129]int32 // by child+1; count[0] counts the rest
	path := ix.path
	if set.bitmap {
		for w := 0; w < ix.nw; w++ {
			for b := ix.words[int(set.off)+w]; b != 0; b &= b - 1 {
				if e := w<<6 + bits.TrailingZeros64(b) + 1; e < len(path) {
					count[slot[path[e]&0x7f]]++
				}
			}
		}
	} else {
		for _, e := range ix.ends[set.off : set.off+set.count] {
			if e := int(e) + 1; e < len(path) {
				count[slot[path[e]&0x7f]]++
			}
		}
	}
	// Where each child's positions go: a list in ends, or a bitmap.
	var at [129]int32
	for k := 1; k <= int(hi-lo); k++ {
		n := count[k]
		switch {
		case n == 0:
		case n > ix.max:
			at[k] = int32(len(ix.words))
			ix.words = grow(ix.words, len(ix.words)+ix.nw)
			clear(ix.words[at[k]:])
		default:
			at[k] = int32(len(ix.ends))
			ix.ends = grow(ix.ends, len(ix.ends)+int(n))
		}
	}
	first := at
	if set.bitmap {
		for w := 0; w < ix.nw; w++ {
			for b := ix.words[int(set.off)+w]; b != 0; b &= b - 1 {
				e := w<<6 + bits.TrailingZeros64(b) + 1
				if e >= len(path) {
					continue
				}
				if k := slot[path[e]&0x7f]; k > 0 {
					if count[k] > ix.max {
						ix.words[int(at[k])+e>>6] |= 1 << (e & 63)
					} else {
						ix.ends[at[k]] = int32(e)
						at[k]++
					}
				}
			}
		}
	} else {
		for _, e := range ix.ends[set.off : set.off+set.count] {
			e := int(e) + 1
			if e >= len(path) {
				continue
			}
			if k := slot[path[e]&0x7f]; k > 0 {
				if count[k] > ix.max {
					ix.words[int(at[k])+e>>6] |= 1 << (e & 63)
				} else {
					ix.ends[at[k]] = int32(e)
					at[k]++
				}
			}
		}
	}
	for c := lo; c < hi; c++ {
		k := slot[s.text[s.litNodes[c].off+up.depth]&0x7f]
		if k == 0 {
			continue // made before
		}
		si := int32(-1)
		switch n := count[k]; {
		case n > ix.max:
			si = ix.addBitmap(first[k], n, set.exact)
		case n > 0:
			si = int32(len(ix.sets))
			ix.sets = append(ix.sets, occSet{off: first[k], nz: -1, count: n, exact: set.exact})
		}
		ix.stamp[c], ix.memo[c] = ix.gen|partial, si
	}
}

// extend returns the set of the positions i+len(rest) where i is in set
// first and rest follows i.
func (ix *pathIndex) extend(first int32, rest string) int32 {
	set := ix.sets[first]
	if set.bitmap && len(rest) <= 3 {
		// Short: a shift per octet over the bitmap.
		for i := 0; i < len(rest) && first >= 0; i++ {
			first = ix.shift(first, rest[i])
		}
		return first
	}
	exact := set.exact
	var h, pow uint64
	hashing := len(rest) > 32
	if hashing {
		// Long: compare hashes, then the literal where a look-up lands.
		ix.hash()
		h, pow = hashOf(rest), power(len(rest))
		exact = false
	}
	// The positions kept, in order, in tmp.
	tmp := ix.tmp[:0]
	path, n := ix.path, len(rest)
	if set.bitmap {
		for w := 0; w < ix.nw; w++ {
			for b := ix.words[int(set.off)+w]; b != 0; b &= b - 1 {
				i := w<<6 + bits.TrailingZeros64(b) + 1
				if i+n <= len(path) && (hashing && ix.rangeHash(i, i+n, pow) == h || !hashing && path[i:i+n] == rest) {
					tmp = append(tmp, int32(i+n-1))
				}
			}
		}
	} else {
		for _, e := range ix.ends[set.off : set.off+set.count] {
			i := int(e) + 1
			if i+n <= len(path) && (hashing && ix.rangeHash(i, i+n, pow) == h || !hashing && path[i:i+n] == rest) {
				tmp = append(tmp, int32(i+n-1))
			}
		}
	}
	ix.tmp = tmp
	if len(tmp) == 0 {
		return -1
	}
	if int32(len(tmp)) <= ix.max {
		off := len(ix.ends)
		ix.ends = append(ix.ends, tmp...)
		return ix.addList(off, exact)
	}
	off := len(ix.words)
	ix.words = grow(ix.words, off+ix.nw)
	dst := ix.words[off : off+ix.nw]
	clear(dst)
	for _, e := range tmp {
		dst[e>>6] |= 1 << (e & 63)
	}
	return ix.addBitmap(int32(off), int32(len(tmp)), exact)
}

// fromBitmap adds the set of the bitmap at words[off:], keeping it or, when
// small, turning it into a list.
func (ix *pathIndex) fromBitmap(off, count int, exact bool) int32 {
	if count == 0 {
		ix.words = ix.words[:off]
		return -1
	}
	if int32(count) > ix.max {
		return ix.addBitmap(int32(off), int32(count), exact)
	}
	first := len(ix.ends)
	for w := 0; w < ix.nw; w++ {
		for b := ix.words[off+w]; b != 0; b &= b - 1 {
			ix.ends = append(ix.ends, int32(w<<6+bits.TrailingZeros64(b)))
		}
	}
	ix.words = ix.words[:off]
	return ix.addList(first, exact)
}

// addList adds the set of the positions ends[off:], none if there are
// none.
func (ix *pathIndex) addList(off int, exact bool) int32 {
	if off == len(ix.ends) {
		return -1
	}
	ix.sets = append(ix.sets, occSet{off: int32(off), nz: -1, count: int32(len(ix.ends) - off), exact: exact})
	return int32(len(ix.sets) - 1)
}

// addBitmap adds the set of the bitmap at words[off:].
func (ix *pathIndex) addBitmap(off, count int32, exact bool) int32 {
	ix.sets = append(ix.sets, occSet{off: off, nz: -1, count: count, bitmap: true, exact: exact})
	return int32(len(ix.sets) - 1)
}

// nextTable returns the table of next positions of bitmap set si, making
// it on first use: the least position of the set at or after the start of
// each word, n when none.
func (ix *pathIndex) nextTable(si int32) int32 {
	if t := ix.sets[si].nz; t >= 0 {
		return t
	}
	off := ix.sets[si].off
	nz := len(ix.nz)
	ix.nz = grow(ix.nz, nz+ix.nw+1)
	t := ix.nz[nz : nz+ix.nw+1]
	next := int32(ix.n)
	t[ix.nw] = next
	for w := ix.nw - 1; w >= 0; w-- {
		if b := ix.words[int(off)+w]; b != 0 {
			next = int32(w<<6 + bits.TrailingZeros64(b))
		}
		t[w] = next
	}
	ix.sets[si].nz = int32(nz)
	return int32(nz)
}

// Hashing, for long edges: polynomial hashes modulo the Mersenne prime
// 2^61-1 with a base drawn at random when the process starts, so that no
// file can be written to collide. A collision only costs a comparison: a
// set checked by hashes is inexact, and a look-up compares the literal
// where it lands.

const mod61 = 1<<61 - 1

// hashBase is a variable so that tests can make collisions.
var hashBase = 256 + rand.Uint64N(mod61-512)

func mulmod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	r := (hi<<3 | lo>>61) + lo&mod61
	if r >= mod61 {
		r -= mod61
	}
	return r
}

func hashOf(s string) uint64 {
	h := uint64(0)
	for i := 0; i < len(s); i++ {
		h = mulmod(h, hashBase) + uint64(s[i]) + 1
		if h >= mod61 {
			h -= mod61
		}
	}
	return h
}

// power returns hashBase^n.
func power(n int) uint64 {
	r, b := uint64(1), hashBase
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			r = mulmod(r, b)
		}
		b = mulmod(b, b)
	}
	return r
}

// hash computes the prefix hashes of the path, once per check.
func (ix *pathIndex) hash() {
	if ix.hashed {
		return
	}
	ix.prefix = grow(ix.prefix, ix.n+1)
	h := uint64(0)
	ix.prefix[0] = 0
	for i := 0; i < ix.n; i++ {
		h = mulmod(h, hashBase) + uint64(ix.path[i]) + 1
		if h >= mod61 {
			h -= mod61
		}
		ix.prefix[i+1] = h
	}
	ix.hashed = true
}

// rangeHash is hashOf(path[i:j]), given pow = hashBase^(j-i).
func (ix *pathIndex) rangeHash(i, j int, pow uint64) uint64 {
	h := ix.prefix[j] + mod61 - mulmod(ix.prefix[i], pow)
	if h >= mod61 {
		h -= mod61
	}
	return h
}
