package matcher

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
	"unsafe"
)

// The path index answers, for one canonical path and the literal pieces of a
// pattern set, "where does this literal next occur from here?", so that a
// wildcard pattern costs a few look-ups per piece instead of a scan of the
// path per piece. It is built lazily, as pieces are looked up, in scratch
// memory reused across checks.
//
// The occurrences of a string are the set of positions of the path where it
// ends: a bitmap when there are more than n/64 of them (n octets of path), a
// sorted list otherwise. The pieces are the nodes of a radix trie of
// literals (wildSet.litNodes). Sets are made where the trie branches:
// the children of a node get the sets of the node's string followed by the
// first octet of their edges, all at once in a pass over the node's
// positions (split), or one by one in a pass over its bitmap if that costs
// less (shift). Below a node that does not branch, a literal is looked up
// from the nearest set above it: take its next position, compare the octets
// between, try the next position if they differ. A literal gets a set of its
// own once its look-ups and failed comparisons reach an eighth of the
// positions of the set it is looked up from (at least 8): made from the top
// of the run of nodes above it, each from its parent's, while that costs no
// more than twice making it straight from the top. Extending a set by the
// octets of an edge is a shift per octet over a bitmap, or a look at each
// position, comparing up to 32 octets or, beyond, polynomial hashes of the
// path; whichever costs less. A literal looked up often gets a table of the
// distance to its next position from each position, an octet each, which
// makes a look-up one read.
//
// A pattern is tried only if its last piece occurs late enough to end it,
// and the other pieces are searched only up to the last place the last one
// starts (for an anchored pattern, up to where it must start).
//
// Cost of a check, for a path of n octets (w = n/64 words) and a file of F
// octets:
//
//   - O(n) to start: a bitmap of each octet's positions;
//   - per piece of a pattern tried, one look-up: O(1) with a table or a
//     bitmap (a word, and the next position after each word), O(log w) in a
//     list, or, from a set above, O(1) per position tried and a comparison
//     of the octets between, the tries bounded as above; a piece is an
//     octet of the file, and '*' another, so there are at most F/2;
//   - per set made, at most the positions of the set it is made from, or w
//     per octet of edge over a bitmap, plus O(1) per child split from it.
//     A set is made once per check, for a node on the way to a piece tried.
//     Sets of nodes whose strings have the same length are disjoint, so the
//     sets made by splits at one depth of the trie cost at most n in all.
//
// The hostile shapes in hostile_test.go, each built to make one of these
// terms large at a 500 KiB file and an 8 KiB path, cost 0.004 to 0.8 ms
// of CPU on a 2-core VM. The largest is 200,000 look-ups of single-octet pieces
// that all succeed until the path runs out; a 500 KiB file holds at most
// 256,000 pieces.
//
// The index counts its work in steps (pathIndex.steps): the look-ups, the
// positions and words of the sets it reads and writes, the octets it
// compares. Tests bound the count, linear in the file and the path, where a
// timer would depend on the machine; the benchmarks time it.

// directBudget is how many octets of path the direct search of the wildcard
// patterns may scan in one check before the rest of them go through the
// path index: a few searches of a long path, a thousand of a short one.
const directBudget = 64 << 10

// occSet is the set of the positions where a string ends.
type occSet struct {
	off    int32 // first word (a bitmap) or position (a list) in the index's arenas
	nz     int32 // a bitmap's table of next positions in nz, once made for look-ups; -1 before
	count  int32 // number of positions
	bitmap bool
	// exact is false when the set was checked by hashes: it may then hold
	// a position where the string does not end, which a look-up rules out.
	exact bool
}

// pathIndex is the path index of one check; it is not safe for concurrent
// use.
type pathIndex struct {
	set  *wildSet
	path string // a copy of the path, in buf: the index outlives no check
	buf  []byte
	n    int
	nw   int    // words of a bitmap of the path's positions
	gen  uint32 // this check's generation in stamp and refs
	max  int32  // the largest list; a larger set is a bitmap
	// upgrade is the number of look-ups of a literal after which it gets
	// a set of its own, or its set a table.
	upgrade int32

	// words holds the bitmaps: first the positions of each octet, row c
	// at [c*nw : c*nw+nw] (valid only if c is in seen), then the sets.
	words []uint64
	seen  [2]uint64
	count [128]int32

	sets []occSet
	// For each bitmap set looked up, the least position of the set at or
	// after the start of each word, n when none: a look-up reads a word
	// of the bitmap and an entry of the table, and picks one without a
	// branch.
	nz   []int32
	ends []int32 // the positions of list sets

	// stamp[v] is gen and a state when this check knows about
	// litNodes[v]; memo[v] then says what (see the states).
	stamp []uint32
	memo  []int32

	// refs[p] says how to look literal node p up, valid when its gen is
	// this check's.
	refs []litRef
	// tables holds next-position tables of literals looked up often:
	// table[x] is how far the least position of the set at or after x
	// is from x, for x up to the set's last position. A look-up is then
	// one read, of an octet, so that the tables of many literals fit in
	// a cache.
	tables []uint8

	hashed bool
	prefix []uint64 // prefix hashes of the path, once hashed

	// steps counts the work of this check: octets and positions of the
	// path read or written, and look-ups (see patternSet.bestSteps).
	steps int

	chain []int32 // scratch for base
	tmp   []int32 // scratch for building sets
	// Scratch for split.
	slot            [128]uint8
	splitN, splitAt []int32
}

// States of a node, in the high bits of stamp.
const (
	// final: memo is the node's set, -1 for none.
	final = 0
	// partial: memo is the set of the node's parent's string followed by
	// the first octet of the node's edge, -1 for none.
	partial = 1 << 31
	// lazy: the node's parent does not branch; memo is its nearest
	// ancestor that is final or partial.
	lazy   = 1 << 30
	states = partial | lazy
)

// litRef is how to look a literal up in this check: 32 octets, the fields
// of a table look-up first.
type litRef struct {
	// tag is the check's generation and the kind of look-up:
	// gen<<3|kind; a tag of another generation is stale.
	tag  uint32
	last int32 // the literal's length less one: where it ends, from where it starts
	// For refTable, refBits, refList: the table in tables, the bitmap in
	// words or the list in ends; for refSlow and refVerify, a set.
	off int32
	// final is no less than the last position where the literal ends,
	// -1 when it does not occur.
	final int32
	// For refBits, its table in nz; for refList, its length; for
	// refVerify, the offset in the text of the octets to compare.
	aux  int32
	span int32 // for refVerify, how many octets to compare
	hits int32 // look-ups, and failed comparisons of refVerify
	_    int32
}

func (r *litRef) kind() uint8 { return uint8(r.tag & 7) }

// Kinds of litRef.
const (
	refNone   = iota + 1 // the literal does not occur in the path
	refTable             // an exact set with a next-position table
	refBits              // an exact bitmap
	refList              // an exact list
	refSlow              // an inexact set: look up, then compare
	refVerify            // an ancestor's set: look up, then compare the octets after
)

// countdown[k] = 254-k: a table's entries up to a position of its set,
// copied whole; tables are made only for sets whose positions are fewer
// than 255 octets apart (see sparse).
var countdown = func() (d [255]uint8) {
	for k := range d {
		d[k] = uint8(254 - k)
	}
	return d
}()

// tableAfter, when positive, is the number of look-ups of a literal after
// which it gets a table or a set, instead of max(32, n/64) for a path of n
// octets; a variable so that tests can make them early.
var tableAfter = int32(0)

// maxTables bounds the octets of next-position tables per check (4 MiB):
// 512 tables for a path of 8 KiB.
const maxTables = 4 << 20

var indexPool = sync.Pool{New: func() any { return new(pathIndex) }}

// newPathIndex returns an index of the canonical path for the literals of s,
// from the pool; release returns it.
func newPathIndex(s *wildSet, path string) *pathIndex {
	ix := indexPool.Get().(*pathIndex)
	ix.buf = append(ix.buf[:0], path...)
	ix.set, ix.path, ix.n = s, unsafe.String(unsafe.SliceData(ix.buf), len(ix.buf)), len(path)
	ix.nw = (len(path) + 63) >> 6
	ix.max = int32(max(8, ix.nw))
	ix.upgrade = max(8, int32(len(path)/1024))
	if tableAfter > 0 {
		ix.upgrade = tableAfter
	}
	ix.gen = (ix.gen + 1) & (1<<29 - 1) // room for the states, and in tags for a kind
	if ix.gen == 0 || len(ix.stamp) < len(s.litNodes) {
		if len(ix.stamp) < len(s.litNodes) {
			ix.stamp = make([]uint32, len(s.litNodes))
			ix.memo = make([]int32, len(s.litNodes))
			ix.refs = make([]litRef, len(s.litNodes))
		} else {
			clear(ix.stamp)
			clear(ix.refs)
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
	ix.hashed = false
	ix.steps = len(path) + (bits.OnesCount64(ix.seen[0])+bits.OnesCount64(ix.seen[1]))*ix.nw
	// The root has no set: its children's first octets are the rows.
	ix.stamp[0], ix.memo[0] = ix.gen|final, -1
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

// lane is a wildcard pattern to search, wild[wild] of the set, and the
// length of its head, the octets of the path the trie has matched. (A lane
// that carried its pieces' range as well made checks 20 to 50% slower.)
type lane struct {
	wild int32
	head uint32
}

// matchBatch returns the index in ws of the first pattern that the path
// matches beyond its head, or -1.
func (ix *pathIndex) matchBatch(ws []lane) int {
	if m := ix.matchLanes(ws); m != 0 {
		return bits.TrailingZeros8(m)
	}
	return -1
}

// matchLanes returns the set of the patterns of ws (at most lanes) that the
// path matches beyond its head, bit j for ws[j]. Each piece is taken at its
// leftmost occurrence after the previous one, as in matchDirect, and the
// last one at the end of the path if the pattern is anchored. The patterns advance
// a piece each in turn: each look-up depends on the one before it in its
// pattern, not on those of the others, so the processor overlaps them.
func (ix *pathIndex) matchLanes(ws []lane) uint8 {
	s := ix.set
	var (
		at, lim [lanes]int // the pieces left to find: s.pieces[at:lim]
		pos     [lanes]int // where the next piece may start
		end     [lanes]int // where the last piece must end, exclusive
		ok      [lanes]bool
	)
	// The last piece bounds where the others may end: before the end of
	// the path for an anchored pattern, else before the last position
	// where the last piece starts. A pattern whose last piece occurs too
	// early fails at once; the others, until the last piece, are searched
	// only up to it; then the last piece in the whole path (lim becomes
	// full).
	var full [lanes]int
	live := 0
	for j, l := range ws {
		first, last := s.pieceRange(l.wild)
		pos[j], end[j], full[j] = int(l.head), ix.n, last
		p := s.pieces[last-1]
		n := int(s.litNodes[p].depth)
		if s.wild[l.wild].anchored() {
			lit := s.lit(p)
			if ix.n-n < pos[j] || ix.path[ix.n-n:] != lit {
				continue
			}
			last--
			end[j] -= n
			full[j] = last
		} else if last-first > 1 {
			if ix.refs[p].tag>>3 != ix.gen {
				ix.resolve(p)
			}
			// The others end before the last place it starts, and
			// must fit there, an octet each at least.
			e := int(ix.refs[p].final) - n + 1
			if e < pos[j]+last-first-1 {
				continue
			}
			last--
			end[j] = e
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
	pieces, refs, table, list := s.pieces, ix.refs, ix.gen<<3|refTable, ix.gen<<3|refList
	tables := ix.tables
	looks := len(ws)
	for live > 0 {
		for j := range lanes {
			if at[j] == lim[j] {
				continue
			}
			p := pieces[at[j]]
			r := &refs[p]
			x := pos[j] + int(r.last)
			e := math.MaxInt // where the piece ends; past end[j] when nowhere
			switch {
			case r.tag == table && x < end[j] && x <= int(r.final):
				e = x + int(tables[int(r.off)+x])
			case r.tag == list && x < end[j]:
				e = ix.inList(r, x)
				if r.hits++; r.hits == ix.upgrade {
					ix.tabulate(r)
					tables = ix.tables
				}
			default:
				e = ix.step(p, pos[j], end[j])
				tables = ix.tables
			}
			at[j]++
			looks++
			switch {
			case e >= end[j]:
				at[j], lim[j] = 0, 0
				live--
			case at[j] < lim[j]:
				pos[j] = e + 1
			case lim[j] < full[j]:
				// Now the last piece, anywhere in the path.
				pos[j], lim[j], end[j] = e+1, full[j], ix.n
			default:
				ok[j] = true
				live--
			}
		}
	}
	ix.steps += looks
	var m uint8
	for j := range ws {
		if ok[j] {
			m |= 1 << j
		}
	}
	return m
}

// step returns where the first occurrence of literal node p that starts
// at or after pos ends, if it ends before end, and math.MaxInt otherwise:
// a look-up of any kind but a table's, which matchBatch does itself.
func (ix *pathIndex) step(p uint32, pos, end int) int {
	r := &ix.refs[p]
	if r.tag>>3 != ix.gen {
		ix.resolve(p)
	}
	x := pos + int(r.last)
	if x >= end {
		return math.MaxInt
	}
	e := math.MaxInt
	switch r.kind() {
	case refTable:
		if x <= int(r.final) {
			e = x + int(ix.tables[int(r.off)+x])
		}
	case refBits:
		// Read without a branch on the bitmap's contents, which depend
		// on the path.
		w := x >> 6
		b := ix.words[int(r.off)+w] >> (x & 63)
		e = pick(b, uint64(x+bits.TrailingZeros64(b)), uint64(ix.nz[int(r.aux)+w+1]))
		if r.hits++; r.hits == ix.upgrade {
			ix.tabulate(r)
		}
	case refList:
		e = ix.inList(r, x)
		if r.hits++; r.hits == ix.upgrade {
			ix.tabulate(r)
		}
	case refSlow, refVerify:
		e = ix.lookUp(r, p, x)
	}
	if e >= end {
		return math.MaxInt
	}
	return e
}

// resolve says how to look literal node p up in this check.
func (ix *pathIndex) resolve(p uint32) {
	s := ix.set
	r := &ix.refs[p]
	*r = litRef{tag: ix.gen<<3 | refNone, last: int32(ix.set.litNodes[p].depth) - 1}
	v := int32(p)
	if ix.stamp[v] == ix.gen|final {
		ix.refer(r, ix.memo[v])
		return
	}
	q := ix.base(v)
	if ix.stamp[q] == ix.gen|partial && s.litNodes[q].depth-s.litNodes[s.parentOf(q)].depth > 1 &&
		ix.memo[q] >= 0 && ix.sets[ix.memo[q]].count > 16 {
		// Look v up from its base's own positions, not its edge's
		// first octet's: fewer, and the comparisons shorter. Partial
		// sets of siblings are disjoint: completing them all costs
		// no more than their parent's positions.
		q = ix.complete(q)
	}
	si, off, n := ix.from(v, q)
	switch {
	case si < 0:
		r.tag, r.final = ix.gen<<3|refNone, -1
	case n == 0:
		if ix.stamp[v]&states == partial {
			ix.stamp[v] = ix.gen | final // its edge is one octet: the set is its own
		}
		ix.refer(r, si)
	default:
		r.tag, r.off, r.aux, r.span = ix.gen<<3|refVerify, si, off, n
		r.final = int32(ix.lastOf(si)) + n
	}
}

// refer makes r a look-up in set si, its literal's own.
func (ix *pathIndex) refer(r *litRef, si int32) {
	r.hits, r.final = 0, -1
	if si >= 0 {
		r.final = int32(ix.lastOf(si))
	}
	switch {
	case si < 0:
		r.tag = ix.gen<<3 | refNone
	case !ix.sets[si].exact:
		r.tag, r.off = ix.gen<<3|refSlow, si
	case ix.sets[si].bitmap:
		r.tag, r.off, r.aux = ix.gen<<3|refBits, ix.sets[si].off, ix.nextTable(si)
	default:
		r.tag, r.off, r.aux = ix.gen<<3|refList, ix.sets[si].off, ix.sets[si].count
	}
}

// lookUp returns the least position at or after x where literal node p
// ends, for the kinds of r that compare octets, or math.MaxInt.
func (ix *pathIndex) lookUp(r *litRef, p uint32, x int) int {
	lit := ix.set.lit(p)
	if r.kind() == refSlow {
		return ix.find(r.off, lit, x)
	}
	// refVerify: positions of the ancestor's set, then the octets after.
	set := r.off
	rest := ix.set.text[r.aux : r.aux+r.span]
	inexact := !ix.sets[set].exact
	ix.nextTableOf(set)
	for y := x - len(rest); ; {
		ix.steps += 1 + len(rest)
		c := ix.after(&ix.sets[set], y)
		if c < 0 {
			return math.MaxInt
		}
		i := c + 1
		if i+len(rest) <= ix.n && ix.path[i:i+len(rest)] == rest &&
			(!inexact || ix.path[i+len(rest)-len(lit):i+len(rest)] == lit) {
			if r.hits++; r.hits >= ix.owning(set) {
				ix.own(r, p)
			}
			return c + len(rest)
		}
		// A failed comparison: once look-ups and failures cost about as
		// much as making the literal's own set, make it.
		if r.hits++; r.hits >= ix.owning(set) {
			ix.own(r, p)
			return ix.lookUpOwn(r, p, x)
		}
		y = c + 1
	}
}

// owning is the number of look-ups and failed comparisons of a literal
// looked up from set si after which it gets a set of its own, which costs
// about the positions of si.
func (ix *pathIndex) owning(si int32) int32 {
	return max(ix.upgrade, ix.sets[si].count/8)
}

// own makes the set of literal node p and refers r to it.
func (ix *pathIndex) own(r *litRef, p uint32) {
	ix.refer(r, ix.get(int32(p)))
}

// lookUpOwn looks r up after own.
func (ix *pathIndex) lookUpOwn(r *litRef, p uint32, x int) int {
	switch r.kind() {
	case refNone:
		return math.MaxInt
	case refSlow:
		return ix.find(r.off, ix.set.lit(p), x)
	case refBits:
		w := x >> 6
		b := ix.words[int(r.off)+w] >> (x & 63)
		e := pick(b, uint64(x+bits.TrailingZeros64(b)), uint64(ix.nz[int(r.aux)+w+1]))
		if e >= ix.n {
			return math.MaxInt
		}
		return e
	default:
		return ix.inList(r, x)
	}
}

// inList returns the least position of r's list at or after x, or
// math.MaxInt.
func (ix *pathIndex) inList(r *litRef, x int) int {
	if e := atOrAfter(ix.ends[r.off:r.off+r.aux], x); e >= 0 {
		return e
	}
	return math.MaxInt
}

// atOrAfter returns the least position of the sorted list ends at or after
// x, or -1.
func atOrAfter(ends []int32, x int) int {
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

// tabulate gives r a next-position table, when the check's tables have
// room: a literal looked up this often repays the O(n) it costs.
func (ix *pathIndex) tabulate(r *litRef) {
	size := int(r.final) + 1 // past it, look-ups find nothing
	if len(ix.tables)+size > maxTables || ix.sparse(r) {
		return
	}
	off := len(ix.tables)
	ix.tables = grow(ix.tables, off+size)
	ix.steps += size
	t := ix.tables[off : off+size]
	i := 0 // t[:i] is filled
	run := func(e int) {
		copy(t[i:e+1], countdown[254-(e-i):])
		i = e + 1
	}
	if r.kind() == refList {
		for _, e := range ix.ends[r.off : r.off+r.aux] {
			run(int(e))
		}
	} else {
		for w := 0; w < ix.nw; w++ {
			for b := ix.words[int(r.off)+w]; b != 0; b &= b - 1 {
				run(w<<6 + bits.TrailingZeros64(b))
			}
		}
	}
	r.tag, r.off = ix.gen<<3|refTable, int32(off)
}

// sparse reports whether r's set has positions 255 or more octets apart,
// or a first one 255 or more octets into the path: an octet of a table
// cannot hold the distance, and for such a set a table saves little.
func (ix *pathIndex) sparse(r *litRef) bool {
	prev := 0
	if r.kind() == refList {
		for i, e := range ix.ends[r.off : r.off+r.aux] {
			if int(e)-prev >= 255 {
				ix.steps += i + 1
				return true
			}
			prev = int(e)
		}
		ix.steps += int(r.aux)
		return false
	}
	seen, found := 0, false
words:
	for w := 0; w < ix.nw; w++ {
		for b := ix.words[int(r.off)+w]; b != 0; b &= b - 1 {
			seen++
			e := w<<6 + bits.TrailingZeros64(b)
			if e-prev >= 255 {
				found = true
				break words
			}
			prev = e
		}
	}
	ix.steps += ix.nw + seen
	return found
}

// pick returns found when b is not zero and alt when it is, without a
// branch: which it is depends on the path, and a mispredicted branch costs
// more than the look-up.
func pick(b, found, alt uint64) int {
	zero := (b|-b)>>63 ^ 1
	return int(found + (alt-found)&-zero)
}

// find returns the least position of inexact set si at or after x where lit
// ends, or math.MaxInt.
func (ix *pathIndex) find(si int32, lit string, x int) int {
	ix.nextTableOf(si)
	for {
		ix.steps += 1 + len(lit)
		e := ix.after(&ix.sets[si], x)
		if e < 0 {
			return math.MaxInt
		}
		if ix.path[e+1-len(lit):e+1] == lit {
			return e
		}
		x = e + 1 // a hash collision: look further
	}
}

// after returns the least position of set at or after x, or -1; a bitmap
// set must have its table of next positions.
func (ix *pathIndex) after(set *occSet, x int) int {
	if x < 0 {
		x = 0
	}
	if x >= ix.n {
		return -1
	}
	if !set.bitmap {
		return atOrAfter(ix.ends[set.off:set.off+set.count], x)
	}
	w := x >> 6
	b := ix.words[int(set.off)+w] >> (x & 63)
	r := pick(b, uint64(x+bits.TrailingZeros64(b)), uint64(ix.nz[int(set.nz)+w+1]))
	if r >= ix.n {
		return -1
	}
	return r
}

// base returns the nearest node at or above v, v's base, that is final or
// partial: going up from v through nodes whose parents do not branch, making
// the first octets of the children of a parent that does, and marking the
// nodes passed lazy, with that base.
func (ix *pathIndex) base(v int32) int32 {
	s := ix.set
	start := len(ix.chain)
	w, q := v, int32(-1)
	for q < 0 {
		switch st := ix.stamp[w]; {
		case st == ix.gen|lazy:
			q = ix.memo[w]
			continue
		case st&^states == ix.gen:
			q = w
			continue
		}
		u := s.parentOf(w)
		switch {
		case u == 0:
			ix.stamp[w], ix.memo[w] = ix.gen|partial, ix.octet(s.edge0[w])
			q = w
		case s.fan.branches(u):
			ix.branch(u, w)
			q = w
		default:
			ix.chain = append(ix.chain, w)
			w = u
		}
	}
	ix.steps += 1 + len(ix.chain) - start
	for _, c := range ix.chain[start:] {
		ix.stamp[c], ix.memo[c] = ix.gen|lazy, q
	}
	ix.chain = ix.chain[:start]
	return q
}

// from returns the set of v's base q, and the octets of v's string that
// follow its positions: text[off : off+n].
func (ix *pathIndex) from(v, q int32) (si, off, n int32) {
	s := ix.set
	nd := &s.litNodes[v]
	d := s.litNodes[q].depth // the base's positions end its string
	if ix.stamp[q] == ix.gen|partial {
		d = s.litNodes[s.parentOf(q)].depth + 1 // or its edge's first octet
	}
	return ix.memo[q], int32(nd.off + d), int32(nd.depth - d)
}

// get returns the set of litNodes[v], making it if needed; -1 for none.
// The nodes between v and the nearest one above it with a set are made
// too, from the top, while that costs no more than making v's set straight
// from that one twice over: literals nested in one another, whose sets
// shrink as they get longer, then share the work, and a long run of nodes
// with large sets costs no more than one.
func (ix *pathIndex) get(v int32) int32 {
	if ix.stamp[v] == ix.gen|final {
		return ix.memo[v]
	}
	s := ix.set
	ix.base(v)
	// The nodes from v up to the nearest that is final or partial.
	start := len(ix.chain)
	q := v
	for ix.stamp[q] == ix.gen|lazy {
		ix.chain = append(ix.chain, q)
		q = s.parentOf(q)
	}
	if ix.stamp[q] != ix.gen|final {
		q = ix.complete(q) // partial: the rest of its edge first
	}
	chain := ix.chain[start:]
	ix.steps += 1 + len(chain)
	if len(chain) > 0 {
		top := s.litNodes[q].depth
		budget := 2*ix.cost(ix.memo[q], int(s.litNodes[v].depth-top)) + int64(ix.nw)
		for i := len(chain) - 1; i > 0; i-- {
			c, si := chain[i], ix.memo[q]
			n := int(s.litNodes[c].depth - s.litNodes[q].depth)
			if si >= 0 {
				if budget -= ix.cost(si, n); budget < 0 {
					break
				}
				off := s.litNodes[c].off + s.litNodes[q].depth
				si = ix.extend(si, s.text[off:int(off)+n])
			}
			ix.stamp[c], ix.memo[c] = ix.gen|final, si
			q = c
		}
		si := ix.memo[q]
		if si >= 0 {
			off := s.litNodes[v].off + s.litNodes[q].depth
			si = ix.extend(si, s.text[off:s.litNodes[v].off+s.litNodes[v].depth])
		}
		ix.stamp[v], ix.memo[v] = ix.gen|final, si
	}
	ix.chain = ix.chain[:start]
	return ix.memo[v]
}

// complete makes partial node q final, and returns it.
func (ix *pathIndex) complete(q int32) int32 {
	si, off, n := ix.from(q, q)
	if si >= 0 && n > 0 {
		si = ix.extend(si, ix.set.text[off:off+n])
	}
	ix.stamp[q], ix.memo[q] = ix.gen|final, si
	return q
}

// cost estimates the work of extend(si, rest) for a rest of n octets.
func (ix *pathIndex) cost(si int32, n int) int64 {
	if si < 0 {
		return 0
	}
	set := &ix.sets[si]
	if set.bitmap {
		return min(int64(n)*int64(ix.nw), int64(set.count))
	}
	return int64(set.count)
}

// branch makes the first-octet set of w, a child of u, which branches: of
// all u's children not made yet in two passes over u's positions, or of w
// alone in a pass over u's bitmap if that costs less.
func (ix *pathIndex) branch(u, w int32) {
	s := ix.set
	pu := ix.get(u)
	switch {
	case pu < 0:
		ix.stamp[w], ix.memo[w] = ix.gen|partial, -1
	case !ix.sets[pu].bitmap || int64(ix.sets[pu].count) < int64(s.fan.degree(u))*int64(ix.nw):
		ix.split(u)
	default:
		c := s.edge0[w]
		ix.stamp[w], ix.memo[w] = ix.gen|partial, ix.shift(pu, c)
	}
}

// octet returns a set of the positions of octet c.
func (ix *pathIndex) octet(c byte) int32 {
	c &= 0x7f
	if ix.seen[c>>6]&(1<<(c&63)) == 0 {
		return -1
	}
	row := int32(c) * int32(ix.nw)
	ix.steps += ix.nw + int(ix.count[c])
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
		ix.steps += int(set.count)
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
	ix.steps += ix.nw
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
	lo, hi := s.fan.childrenOf(u)
	deg := int(hi - lo)
	// Children start with distinct ASCII octets: at most 128 of them.
	// slot is child-lo+1 by first octet for the children to make, zero
	// elsewhere, and cleared after; count is each one's positions, by
	// slot (count[0] counts the rest); at is where they go: a list in
	// ends, or a bitmap in words.
	slot := &ix.slot
	count := grow(ix.splitN[:0], deg+1)
	at := grow(ix.splitAt[:0], 2*(deg+1))
	first, at := at[:deg+1], at[deg+1:]
	clear(count)
	for c := lo; c < hi; c++ {
		if ix.stamp[c]&^states != ix.gen {
			slot[s.edge0[c]&0x7f] = uint8(c - lo + 1)
		}
	}
	set := ix.sets[ix.memo[u]]
	path := ix.path
	ix.steps += 2*int(set.count) + 2*deg
	if set.bitmap {
		ix.steps += 2 * ix.nw
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
	for k := 1; k <= deg; k++ {
		switch n := count[k]; {
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
	copy(first, at[:deg+1])
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
		k := &slot[s.edge0[c]&0x7f]
		if *k == 0 {
			continue // made before
		}
		si := int32(-1)
		switch n := count[*k]; {
		case n > ix.max:
			si = ix.addBitmap(first[*k], n, set.exact)
		case n > 0:
			si = int32(len(ix.sets))
			ix.sets = append(ix.sets, occSet{off: first[*k], nz: -1, count: n, exact: set.exact})
		}
		ix.stamp[c], ix.memo[c] = ix.gen|partial, si
		*k = 0
	}
	ix.splitN, ix.splitAt = count, first[:cap(first)]
}

// extend returns the set of the positions i+len(rest) where i is in set si
// and rest follows i.
func (ix *pathIndex) extend(si int32, rest string) int32 {
	set := ix.sets[si]
	if set.bitmap && int64(len(rest))*int64(ix.nw) <= 2*int64(set.count) {
		// A shift per octet over the bitmap costs less than a look at
		// each position; a set may turn into a list on the way.
		for i := 0; i < len(rest) && si >= 0; i++ {
			si = ix.shift(si, rest[i])
		}
		return si
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
	ix.steps += int(set.count)
	if !hashing {
		ix.steps += int(set.count) * n // the octets compared, at most
	}
	if set.bitmap {
		ix.steps += ix.nw
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
	ix.steps += len(tmp)
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
	ix.steps += ix.nw + count
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

// lastOf returns the last position of set si.
func (ix *pathIndex) lastOf(si int32) int {
	set := &ix.sets[si]
	if !set.bitmap {
		return int(ix.ends[set.off+set.count-1])
	}
	for w := ix.nw - 1; ; w-- {
		if b := ix.words[int(set.off)+w]; b != 0 {
			ix.steps += ix.nw - w
			return w<<6 + 63 - bits.LeadingZeros64(b)
		}
	}
}

// nextTableOf makes the table of next positions of set si if it is a bitmap.
func (ix *pathIndex) nextTableOf(si int32) {
	if ix.sets[si].bitmap {
		ix.nextTable(si)
	}
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
	ix.steps += ix.nw + 1
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
	ix.steps += ix.n
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
