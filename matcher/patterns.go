package matcher

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"
)

// patternSet is a compiled set of robots.txt path patterns (RFC 9309 §2.2.2:
// '*' matches any run of octets, a final '$' anchors at the end), each with a
// rank and an id. For a path it finds the matching pattern of highest rank,
// the lowest id among equal ranks: the longest match of Allow and Disallow
// rules, and of any other rule kind matched the same way.
//
// It is built once from a list of entries (newPatternSet) and is immutable
// and safe for concurrent use. A check costs time linear in the length of
// the path for patterns without a wildcard, whatever their number (a radix
// trie over their literal heads). Wildcard patterns that could beat the best
// plain match are searched after the walk (see wildSet).
//
// A cache holds thousands of sets, so a set is compact: a node of the trie
// takes 8 bytes with its edge's first octet, its tail's length and its
// plain pattern's id (8¼ in a large trie), and nothing else is kept per
// pattern. A node's tail is a span of the text; a plain pattern is the
// string of its node, which a match of a path is the first octets of. What few nodes hold beside a plain pattern (an exact
// pattern, a plain one whose string is not the node's, wildcard patterns)
// is kept aside.
type patternSet struct {
	text string // the arena every span refers to (see compile.go)
	// The trie over the patterns' literal heads, in breadth-first order:
	// nodes[0] is the root, and a sentinel after the last node closes its
	// children. What node i holds is counted from blocks[i/blockNodes];
	// a small trie has no blocks (see direct).
	nodes  []node
	blocks []nodeBlock
	// The first octet of each node's edge, then wordPad octets of
	// padding, so that the edges of a node's children can be read a word
	// at a time; then each node's meta octet (see metaOf).
	octets []uint8
	// ids[i] is the id of the plain pattern of node i, when the node has
	// one (metaPlain); as pairs of 16 bits (low first) when an id needs
	// more than 16 (wideIDs).
	ids   []uint16
	notes []note   // the notes of the nodes that have any, by node and kind
	wild  *wildSet // the wildcard patterns; nil when there are none
}

// node is one node of the radix trie over the literal heads of the
// patterns: the path from the root to a node spells the head of every
// pattern stored in it. It is four bytes. In a large trie what it holds
// is counted from what its block holds (nodeBlock), which the nodes of a
// block, adjacent in breadth-first order, are close to; a small trie's
// hold it as it is (see direct).
type node struct {
	// The edge into node i spells one octet, octets[i], then the tail
	// text[off : off+tailOf(i)], off counted from its block's. A large
	// trie's tails are in the text in node order, so that those of the
	// nodes of a block before the last span 31*maxTail octets at most.
	off uint16
	// The children of node i are the nodes from child>>nodeFlags up to
	// the next node's, counted from its block's: breadth first, the
	// children of one node follow those of the node before it, so that
	// those of the nodes of a block before the last are 31*256 at most.
	// The low bits are flags: withExact, withWild, withNote.
	child uint16
}

// nodeBlock is what the nodes of a block of blockNodes, adjacent in
// breadth-first order, are counted from: the first one's tail and
// children. A node of a large trie takes 4¼ bytes.
type nodeBlock struct{ off, child uint32 }

// blockNodes is the nodes of a block.
const blockNodes = 32

// flagsOf returns the flags of node n.
func (s *patternSet) flagsOf(n int32) uint16 { return s.nodes[n].child & (1<<nodeFlags - 1) }

const (
	withExact = 1 << iota // the node has an exact pattern, noted
	withWild              // the node is in wildAt
	withNote              // the node's plain pattern is noted: its string is not the node's
	nodeFlags = iota

	// A node's meta octet: the length of its tail, and its plain
	// pattern's.
	tailMask  = 1<<6 - 1
	metaPlain = 1 << 6 // the node has the best plain pattern of its string and those above it
	metaAllow = 1 << 7 // that pattern is an Allow

	// maxTail is the longest tail a node holds; a longer common prefix
	// is split over a chain of nodes, so that an edge spans at most
	// maxEdge octets.
	maxTail = tailMask
	maxEdge = 1 + maxTail
	// wordPad is the padding after the edges.
	wordPad = 7
	// maxNodes is the number of nodes a child index can name: a Robots
	// holding that many rules (over 200 million) is tens of GiB, and a
	// fetched file (at most 32 MiB) holds 10 million at most.
	maxNodes = 1<<(32-nodeFlags) - 1
)

// wideIDs reports whether s keeps its ids in 32 bits.
func (s *patternSet) wideIDs() bool { return len(s.ids) > (len(s.octets)-wordPad)/2 }

// id returns the id of the plain pattern of node n.
func (s *patternSet) id(n int32) int32 {
	if s.wideIDs() {
		return int32(uint32(s.ids[2*n]) | uint32(s.ids[2*n+1])<<16)
	}
	return int32(s.ids[n])
}

// metaOf returns the meta octets, by node.
func (s *patternSet) metaOf() []uint8 { return s.octets[uint(len(s.octets)+wordPad)/2:] }

// note is what a node holds beside a plain pattern that is its string:
// its exact pattern, or its plain pattern when that is not its string
// ("/a*" is at the node of "/a"). Kind is noteKind of the two.
type note struct {
	key  uint32 // node<<1 | 1 for an exact pattern
	id   int32
	rank rank32
	at   uint32 // where the rule starts in the text, as entry.at
}

const exactNote = 1

// findNote returns the index in notes of the note of node n of kind k,
// which is there.
func (s *patternSet) findNote(n int32, k uint32) int {
	key := uint32(n)<<1 | k
	lo, hi := 0, len(s.notes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.notes[m].key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// hit is the best match of a check: none, the plain pattern of node at
// (whose string is depth octets), the exact pattern of notes[at], or the
// wildcard pattern wild.wild[at].
type hit struct {
	kind  uint8
	allow bool // the pattern is an Allow's
	at    int32
	depth int32
}

// Kinds of hit.
const (
	noHit = iota
	plainHit
	exactHit
	wildHit
	smallHit // the pattern small[at] of a Matcher's small set
)

// idOf returns the id of the pattern of h, which is not noHit.
func (s *patternSet) idOf(h hit) int32 {
	switch h.kind {
	case plainHit:
		return s.id(h.at)
	case exactHit:
		return s.notes[h.at].id
	default:
		return s.wild.wild[h.at].id()
	}
}

// ruleAt returns where the rule of h, which is not noHit, starts in the
// text (as entry.at), and false when it is a plain pattern that is its
// node's string: the first h.depth octets of the path it matched.
func (s *patternSet) ruleAt(h hit) (at uint32, noted bool) {
	switch h.kind {
	case plainHit:
		if s.flagsOf(h.at)&withNote != 0 {
			return s.notes[s.findNote(h.at, 0)].at, true
		}
		return 0, false
	case exactHit:
		return s.notes[h.at].at, true
	default:
		return s.wild.at[h.at], true
	}
}

// plainRank returns the full rank of the plain pattern of node n, whose
// string is depth octets: its octets, including trailing stars, and its
// kind; ties go to the lower id.
func (s *patternSet) plainRank(n int32, depth int) uint64 {
	if s.flagsOf(n)&withNote != 0 {
		nt := &s.notes[s.findNote(n, 0)]
		return full(nt.rank, nt.id)
	}
	return full(rankOf(depth, s.metaOf()[n]&metaAllow != 0), s.id(n))
}

// entry is a compiled pattern placed in the text, as newPatternSet takes
// it: its literal is text[base : base+litLen()], with a '*' at head unless
// head is its length; a match reports id. A file holds as many as rules,
// and the set is built from them in a few passes: what the literal says of
// the pattern (its kind, its pieces) is read from it again when needed.
type entry struct {
	base, head uint32
	// The literal's length, the flags entryAllow, entryDollar,
	// entryAnchored, and its kind. A literal is a pattern of a Robots:
	// one of 128 MiB is not held.
	n  uint32
	id int32
	// Where the pattern's rule starts in the text, for a match to report
	// it (see compile.go), with rewrittenBit; 0 for a set whose ids
	// index a list that knows its rules.
	at uint32
}

const (
	entryAllow    = 1 << 31
	entryDollar   = 1 << 30 // the pattern ends with '$': it counts in the rank, and anchors
	entryAnchored = 1 << 29 // a wildcard pattern whose last piece ends the path
	entryKind     = 3 << 27 // its kind
	entryFlags    = entryAllow | entryDollar | entryAnchored | entryKind
)

// newEntry places a pattern of literal lit, whose first '*' is at head
// (len(lit) when it holds none), at base in the text, followed by '$' when
// dollar, for id; its rule starts at at. It returns the entry and the
// pieces of the pattern when it is a wildcard one (countPieces).
func newEntry(base uint32, lit string, head int, dollar bool, id int32, allow bool, at uint32) (entry, int) {
	e := entry{base: base, head: uint32(head), n: uint32(len(lit)), id: id, at: at}
	if allow {
		e.n |= entryAllow
	}
	if dollar {
		e.n |= entryDollar
	}
	// The kind, as newPattern finds it.
	if head == len(lit) {
		if dollar {
			e.n |= uint32(exact) << 27
		}
		return e, 0
	}
	// The pieces: runs of octets after a '*'. None makes a prefix:
	// trailing stars absorb the rest of the path.
	pieces := 0
	for i := head + 1; i < len(lit); i++ {
		if lit[i] != '*' && lit[i-1] == '*' {
			pieces++
		}
	}
	if pieces > 0 {
		e.n |= uint32(wild) << 27
		if dollar && lit[len(lit)-1] != '*' {
			e.n |= entryAnchored
		}
	}
	return e, pieces
}

// plainEntry is newEntry for a plain pattern of n octets, which holds no
// '*' and no '$', at base, whose rule is its pattern (see compile.go).
func plainEntry(base uint32, n int, id int32, allow bool) entry {
	e := entry{base: base, head: uint32(n), n: uint32(n), id: id, at: base}
	if allow {
		e.n |= entryAllow
	}
	return e
}

func (e *entry) litLen() uint32 { return e.n &^ entryFlags }
func (e *entry) allow() bool    { return e.n&entryAllow != 0 }

// rank is the pattern's rank: the octets of its literal and its '$'.
func (e *entry) rank() rank32 {
	return rankOf(int(e.litLen())+int(e.n&entryDollar>>30), e.allow())
}

// lit returns the entry's literal.
func (e *entry) lit(text string) string { return text[e.base : e.base+e.litLen()] }

// kind returns the kind of the pattern, and whether a wildcard pattern is
// anchored.
func (e *entry) kind() (k kind, anchored bool) {
	return kind(e.n & entryKind >> 27), e.n&entryAnchored != 0
}

// noted reports whether a plain pattern of e needs a note: its string is
// longer than its head (trailing stars), or it is reported as written
// otherwise (rewrittenBit).
func (e *entry) noted() bool { return e.head != e.litLen() || e.at&rewrittenBit != 0 }

// setText is the text a set is built from (t.b), and what the set keeps
// of it: its first keep octets, as they are, then the tails of the trie's
// edges in node order (of a small trie, those that are not in the first
// keep octets). What follows keep is plain patterns that the trie spells. When scratch, b is the scratch's, and what is kept is copied out.
type setText struct {
	b       []byte
	keep    int
	scratch bool
}

// newPatternSet compiles the entries, whose spans refer to t's text, of
// npieces pieces in all (countPieces). It sorts entries. With reports,
// the set keeps where the rules of its wildcard patterns start
// (entry.at), and with dropEqual, of equal wildcard patterns only the
// best: the others are never reported. Every array the set keeps is
// allocated at its final size; what it throws away is taken from sc when
// not nil.
func newPatternSet(entries []entry, npieces int, t setText, reports, dropEqual bool, sc *scratch) patternSet {
	if sc == nil {
		sc = new(scratch)
	}
	text := unsafe.String(unsafe.SliceData(t.b), len(t.b))
	s := patternSet{text: text}
	head := func(e *entry) string { return text[e.base : e.base+e.head] }
	// The sort's records are the scratch of the build after it.
	sc.above = sortEntries(entries, text, sc.above)
	nwild, copies := 0, 0
	maxID := int32(0)
	// The nodes at most: the root, and for each head its node and a
	// branch above it (a branch has two children at least), and the
	// splits of their edges, which lie on the head's path from the root.
	bound := 1
	for i := range entries {
		e := &entries[i]
		maxID = max(maxID, e.id)
		if k, _ := e.kind(); k == wild {
			nwild++
			copies += e.copySize(text)
		}
		bound += 2 + int(e.head)/maxEdge
	}
	wide := maxID > 1<<16-1
	// A set of a few hundred entries is built in the scratch, sized for
	// the most nodes it can have, and copied out at its size: no pass
	// counts them. A larger one counts them first, and is built in place,
	// so that what it throws away stays small beside what it keeps.
	inScratch := bound <= scratchNodes
	var n, wildNodes, labelSize int
	var nodes []node
	var blocks []nodeBlock
	var edges, meta []uint8
	var ids []uint16
	if inScratch {
		n = bound
		nodes = resize(sc.nodes, n+1)[:1]
		if !direct(t, n) {
			blocks = resize(sc.blocks, blocksOf(n+1))
		}
		edges, meta = resize(sc.edges, n), resize(sc.meta, n)
		ids = resize(sc.ids, n)
		if wide {
			ids = resize(sc.ids, 2*n)
		}
		clear(ids) // a node with no plain pattern keeps id 0
		s.notes = sc.notes[:0]
		wildNodes = nwild
	} else {
		// Count the nodes, and what they hold beside a plain pattern that
		// is their string: entries of one head are adjacent.
		nc := nodeCounter{split: true}
		notes := 0
		l := 0 // the octets the head of entries[lo] has in common with the head before
		for lo := 0; lo < len(entries); {
			h := head(&entries[lo])
			nc.next(h, l)
			hi := lo
			exacts, wilds := false, false
			var plain *entry
			for {
				e := &entries[hi]
				switch k, _ := e.kind(); k {
				case wild:
					wilds = true
				case exact:
					exacts = true
				default:
					if plain == nil || full(e.rank(), e.id) > full(plain.rank(), plain.id) {
						plain = e
					}
				}
				if hi++; hi == len(entries) {
					break
				}
				// The next head is h, or follows it: one comparison
				// tells which, and what they have in common.
				next := head(&entries[hi])
				if l = commonPrefix(h, next); l < len(h) || len(next) > len(h) {
					break
				}
			}
			if exacts {
				notes++
			}
			if wilds {
				wildNodes++
			}
			if plain != nil && plain.noted() {
				notes++ // at most: the pattern may be beaten above
			}
			lo = hi
		}
		n = min(nc.total(), maxNodes)
		labelSize = nc.tails
		nodes = make([]node, 1, n+1) // and the sentinel
		if !direct(t, n) {
			blocks = make([]nodeBlock, blocksOf(n+1))
		}
		s.octets = make([]uint8, 2*n+wordPad)
		edges, meta = s.octets[:n], s.octets[n+wordPad:]
		if wide {
			ids = make([]uint16, 2*n)
		} else {
			ids = make([]uint16, n)
		}
		s.ids = ids
		s.notes = make([]note, 0, notes)
	}
	setID := func(q, id int32) {
		if wide {
			ids[2*q], ids[2*q+1] = uint16(id), uint16(uint32(id)>>16)
		} else {
			ids[q] = uint16(id)
		}
	}
	var pt pieceText
	// Where the pieces of each entry are, for a set built in the scratch
	// whose pieces are few too (a single rule can hold thousands).
	var slots []uint64
	piecesInScratch := inScratch && npieces <= maxScratchPieces
	if nwild > 0 && piecesInScratch {
		slots = resizeScratch(sc.slots, len(entries))
		sc.slots = slots
	}
	if nwild > 0 {
		s.wild = &wildSet{text: text, direct: directBudget, wild: make([]wildRule, 0, nwild)}
		if inScratch {
			s.wild.wildAt = resize(sc.wildAt, wildNodes)[:0]
		} else {
			s.wild.wildAt = make([]wildAt, 0, wildNodes)
		}
		// Until the trie of the literals is built, a piece is where it
		// starts in the text or, past its end, in copies (see
		// pieceText).
		if piecesInScratch {
			s.wild.pieces = resize(sc.positions, npieces)[:0] // laid out anew (see buildLiterals)
		} else {
			s.wild.pieces = make([]uint32, 0, npieces)
		}
		pt = pieceText{text: text, copies: make([]byte, 0, copies)}
	}
	// Scratch for the build, by node: the depth of its string, and, until
	// it is filled in, the end of the sorted entries that start with its
	// string (the high half) and, after 1, the index of the best plain
	// pattern of it or above it (the low half); in the memory of the
	// sort's records when they fit there. Where the entries start is in
	// the node itself until then (pending): the trie needs no queue
	// beside it.
	sc.above = resizeScratch(sc.above, n)
	above := sc.above
	var depths []uint32
	if rest := sc.above[n:cap(sc.above)]; 2*len(rest) >= n {
		depths = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(rest))), n)
	} else {
		sc.depths = resizeScratch(sc.depths, n)
		depths = sc.depths
	}
	const bestMask = 1<<32 - 1
	bestAbove := func(q int) uint64 {
		if b := above[q] & bestMask; b != 0 {
			e := &entries[b-1]
			return full(e.rank(), e.id)
		}
		return 0
	}
	// The labels of the edges, in node order, as the set keeps them after
	// the text's first t.keep octets: where they are kept when a large set
	// knows their size and the text is not kept in place (inPlace), else
	// gathered apart (a small trie's are fewer than its tails: those kept
	// already are not laid out again).
	var kept, labels []byte
	staged := false
	gathered := inScratch || blocks == nil // their size is known once built
	switch {
	case gathered:
		labels = sc.labels[:0]
	case t.inPlace(labelSize):
		staged, labels = true, make([]byte, 0, labelSize)
	default:
		kept = make([]byte, t.keep+labelSize)
		copy(kept, t.b[:t.keep])
		labels = kept[t.keep:t.keep]
	}
	depths[0], above[0] = 0, uint64(len(entries))<<32
	meta[0] = 0
	// Breadth first, so that the children of a node are appended together,
	// and filled in in order: a node's tail is laid out after those of the
	// nodes before it, and its block starts with the first of them.
	nodes[0] = pending(0)
	for q := 0; q < len(nodes); q++ {
		lo, hi, depth := nodes[q].start(), uint32(above[q]>>32), depths[q]
		tail := uint32(meta[q] & tailMask)
		off := uint32(t.keep + len(labels))
		if tail > 0 {
			from := entries[lo].base + depth - tail
			if blocks == nil && int(from) < t.keep {
				off = from // kept already: a small trie's nodes point anywhere in its text
			} else {
				labels = append(labels, text[from:from+tail]...)
			}
		}
		var plain *entry
		var ex *entry
		pi := uint32(0)
		wildLo := 0
		if s.wild != nil {
			wildLo = len(s.wild.wild)
		}
		for ; lo < hi && entries[lo].head == depth; lo++ {
			e := &entries[lo]
			switch k, anchored := e.kind(); k {
			case prefix:
				if plain == nil || full(e.rank(), e.id) > full(plain.rank(), plain.id) {
					plain, pi = e, lo
				}
			case exact:
				if ex == nil || full(e.rank(), e.id) > full(ex.rank(), ex.id) {
					ex = e
				}
			case wild:
				s.wild.wild = append(s.wild.wild, s.wild.wildRule(&pt, e, int(lo), e.lit(text), anchored, slots))
			}
		}
		flags := uint32(0)
		if plain != nil {
			if full(plain.rank(), plain.id) > bestAbove(q) {
				// The best of its string and those above it: a walk
				// that reaches the node reports it unless a longer
				// string's is better.
				above[q] = above[q]&^bestMask | uint64(pi+1)
				meta[q] |= metaPlain
				if plain.allow() {
					meta[q] |= metaAllow
				}
				setID(int32(q), plain.id)
				if plain.noted() {
					s.notes = append(s.notes, note{key: uint32(q) << 1, id: plain.id, rank: plain.rank(), at: plain.at})
					flags |= withNote
				}
			}
		}
		if ex != nil {
			s.notes = append(s.notes, note{key: uint32(q)<<1 | exactNote, id: ex.id, rank: ex.rank(), at: ex.at})
			flags |= withExact
		}
		if s.wild != nil && len(s.wild.wild) > wildLo {
			s.wild.sortNode(entries, wildLo, dropEqual)
			s.wild.wildAt = append(s.wild.wildAt, wildAt{int32(q), int32(wildLo), int32(len(s.wild.wild)), depth})
			flags |= withWild
		}
		first := uint32(len(nodes))
		for i := lo; i < hi; {
			a := head(&entries[i])
			b := a[depth]
			k := i + 1
			for k < hi && text[entries[k].base+depth] == b {
				k++
			}
			// The entries are sorted, so the common prefix of the first
			// and the last of a run is common to all of it (of one
			// entry, all of its head).
			rest := a[depth+1:]
			if len(rest) > maxTail {
				rest = rest[:maxTail]
			}
			tail := uint32(len(rest))
			if k > i+1 {
				tail = uint32(commonPrefix(rest, head(&entries[k-1])[depth+1:]))
			}
			c := len(nodes)
			if c == n {
				// Past maxNodes: the rest of the trie is not built (no
				// Robots that fits in memory comes near).
				break
			}
			nodes = append(nodes, pending(i))
			edges[c] = b
			meta[c] = uint8(tail)
			depths[c], above[c] = depth+1+tail, uint64(k)<<32|above[q]&bestMask
			i = k
		}
		nodes[q] = fill(blocks, q, off, first, flags)
	}
	end := len(nodes)
	nodes = append(nodes, fill(blocks, end, uint32(t.keep+len(labels)), uint32(end), 0)) // the sentinel
	if inScratch {
		// Copied out at their size; the scratch keeps no text.
		sc.nodes, sc.edges, sc.meta, sc.ids = nodes, edges, meta, ids
		s.nodes = cloneExact(nodes)
		if blocks != nil {
			sc.blocks, s.blocks = blocks, cloneExact(blocks[:blocksOf(len(nodes))])
		}
		n = len(nodes) - 1
		s.octets = make([]uint8, 2*n+wordPad)
		copy(s.octets, edges[:n])
		copy(s.octets[n+wordPad:], meta[:n])
		if wide {
			s.ids = cloneExact(ids[:2*n])
		} else {
			s.ids = cloneExact(ids[:n])
		}
		sc.notes = s.notes
		s.notes = cloneExact(s.notes)
		if s.wild != nil {
			sc.wildAt = s.wild.wildAt
			s.wild.wildAt = cloneExact(s.wild.wildAt)
		}
	} else {
		s.nodes, s.blocks = nodes, blocks
		if len(s.notes) < cap(s.notes) {
			s.notes = cloneExact(s.notes) // plain patterns beaten above: no slack
		}
	}
	if s.wild != nil {
		ws := s.wild
		if len(ws.wild) < cap(ws.wild) {
			ws.wild = cloneExact(ws.wild) // equal patterns were dropped: no slack
		}
		if reports {
			ws.at = make([]uint32, len(ws.wild))
		}
		if slots != nil {
			sc.positions = ws.pieces
		}
		ws.buildLiterals(&pt, entries, slots, sc)
	}
	if gathered {
		sc.labels = labels
		if staged = t.inPlace(len(labels)); !staged {
			kept = make([]byte, t.keep+len(labels))
			copy(kept, t.b[:t.keep])
			copy(kept[t.keep:], labels)
		}
	}
	if staged {
		kept = append(t.b[:t.keep], labels...) // in t.b's room
	}
	s.text = unsafe.String(unsafe.SliceData(kept), len(kept)) // never written again
	if s.wild != nil {
		s.wild.text = s.text
	}
	return s
}

// inPlace reports whether a set keeps t's text where it is, with labels
// of n octets in place of its plain patterns: not when it is the
// scratch's, has no room for them, or would keep much slack. The labels
// are then gathered apart while the set is built, since they are read
// from the octets they replace.
func (t *setText) inPlace(n int) bool {
	return !t.scratch && t.keep+n <= cap(t.b) && cap(t.b)-(t.keep+n) <= (t.keep+n)/16
}

// pending returns a node not filled in yet, whose sorted entries start at
// lo.
func pending(lo uint32) node { return node{off: uint16(lo), child: uint16(lo >> 16)} }

// start returns where the sorted entries of a pending node start.
func (nd node) start() uint32 { return uint32(nd.off) | uint32(nd.child)<<16 }

// fill returns node q, whose tail starts at off in the text and whose
// children at first, with flags; the first node of a block sets what the
// block's nodes are counted from. A small trie has no blocks: its nodes
// hold their tails and children as they are (see direct).
func fill(blocks []nodeBlock, q int, off, first, flags uint32) node {
	if blocks == nil {
		return node{off: uint16(off), child: uint16(first<<nodeFlags | flags)}
	}
	b := &blocks[q/blockNodes]
	if q%blockNodes == 0 {
		b.off, b.child = off, first
	}
	// In range: the tails of the 31 nodes before it in its block are
	// 31*maxTail octets at most, and their children 31*256.
	return node{off: uint16(off - b.off), child: uint16((first-b.child)<<nodeFlags | flags)}
}

// direct reports whether a trie of n nodes built from t is small enough
// for its nodes to hold their tails and children as they are, in 16 bits,
// with no blocks: its text is under 64 KiB (the labels it lays out are
// tails of plain patterns, which it drops), and its nodes, the sentinel
// included, are fewer than the child field counts. A check of such a trie
// reads no block, and its nodes point at the tails of noted patterns
// where the text keeps them.
func direct(t setText, n int) bool {
	return len(t.b) < 1<<16 && n+1 < directNodes
}

// directNodes is the most nodes, the sentinel included, of a trie without
// blocks: what the child field counts, or 0 in tests that give every trie
// blocks.
var directNodes = 1 << (16 - nodeFlags)

// blocksOf returns the blocks that n nodes take.
func blocksOf(n int) int { return (n + blockNodes - 1) / blockNodes }

// cloneExact returns a copy of b whose capacity is its length (not rounded
// up to a size class, as slices.Clone's may be: a set counts capacities).
func cloneExact[T any](b []T) []T {
	c := make([]T, len(b))
	copy(c, b)
	return c
}

// sortNode orders the wildcard patterns of one node, wild[lo:], best rank
// first, and with dropEqual keeps only the first of equal ones that this
// order puts side by side: the others are never reported. (Equal ones
// that it parts, with one of the same rank between, are kept: a little
// memory, never a verdict.)
func (s *wildSet) sortNode(entries []entry, lo int, dropEqual bool) {
	run := s.wild[lo:]
	if len(run) <= 12 {
		// As slices.SortFunc sorts so few (by insertion), without its
		// calls: most nodes hold one or two.
		for i := 1; i < len(run); i++ {
			for j := i; j > 0 && run[j].rank > run[j-1].rank; j-- {
				run[j], run[j-1] = run[j-1], run[j]
			}
		}
	} else {
		slices.SortFunc(run, func(a, b wildRule) int { return cmp.Compare(b.rank, a.rank) })
	}
	if !dropEqual {
		return
	}
	kept := 1
	for _, w := range run[1:] {
		if !s.samePattern(entries, &run[kept-1], &w) {
			run[kept] = w
			kept++
		}
	}
	s.wild = s.wild[:lo+kept]
}

// sortEntries sorts entries by their heads in text. It sorts a record per
// entry (sortRec), which holds four octets of its head at a time, so that
// the passes over them read neither the entries nor the text: by their
// first four octets, then each run of records equal in them by the next
// four, and so on; it moves the entries once, at the end. A run is sorted
// an octet at a time (LSD radix: a few passes over it), or, when short, by
// comparisons. Its cost is at most a few reads of each octet of the heads,
// whatever their order. recs is scratch, which it returns.
func sortEntries(entries []entry, text string, recs []sortRec) []sortRec {
	if len(entries) < 2 {
		return recs
	}
	sorted := true
	for i := 1; i < len(entries) && sorted; i++ {
		a, b := &entries[i-1], &entries[i]
		sorted = text[a.base:a.base+a.head] <= text[b.base:b.base+b.head]
	}
	if sorted {
		return recs // as many wildcard patterns are: their heads are "/"
	}
	if len(entries) > maxRecs {
		// More than a record's index can name: a Robots of hundreds of
		// GiB. Sorted all the same, by comparisons of the heads.
		slices.SortStableFunc(entries, func(a, b entry) int {
			return cmp.Compare(text[a.base:a.base+a.head], text[b.base:b.base+b.head])
		})
		return recs
	}
	recs = resizeScratch(recs, 2*len(entries))
	buf := recs[len(entries):]
	recs = recs[:len(entries)]
	for i := range entries {
		recs[i] = sortRec(keyAt(text, &entries[i], 0))<<32 | sortRec(i)
	}
	sortRecs(recs, buf, entries, text, 0)
	// Move each entry to its place, following the cycles of the
	// permutation; a record whose entry is in place says so.
	for j := range recs {
		if uint32(recs[j]) == uint32(j) {
			continue
		}
		v, k := entries[j], uint32(j)
		for {
			from := uint32(recs[k])
			recs[k] = sortRec(k)
			if from == uint32(j) {
				entries[k] = v
				break
			}
			entries[k] = entries[from]
			k = from
		}
	}
	return recs[:cap(recs)]
}

// sortRec is an entry as sortEntries sorts it: four octets of its head
// from a depth on, the first one the highest, each as its bucket (0 past
// the end of the head, 1 + its value else: canonical heads are ASCII), in
// the high half; the entry's index in the unsorted list in the low half.
// Records equal in their octets keep the order of their entries. It is an
// uint64, so that the records are the build's scratch after the sort
// (newPatternSet's above).
type sortRec = uint64

// maxRecs is the most entries sortEntries sorts by records: as many as
// their index names, or fewer in tests.
var maxRecs = 1<<32 - 1

// keyAt returns the four octets of e's head from depth d on, as a
// sortRec holds them.
func keyAt(text string, e *entry, d uint32) uint32 {
	if d >= e.head {
		return 0
	}
	const lows, ones = 0x7f7f7f7f, 0x01010101
	at, n := e.base+d, e.head-d
	if int(at)+4 <= len(text) {
		x := bits.ReverseBytes32(binary.LittleEndian.Uint32([]byte(text[at:at+4])))&lows + ones
		if n < 4 {
			x &^= 1<<(32-8*n) - 1
		}
		return x
	}
	x := uint32(0)
	for i := range uint32(4) {
		x <<= 8
		if i < n {
			x |= 1 + uint32(text[at+i]&0x7f)
		}
	}
	return x
}

// sortRecs sorts recs, whose entries' heads share their first kd octets
// and whose records hold the four after, by their heads; buf is scratch as
// long as recs. It goes on with the largest run of records equal in their
// octets, and recurses into the others: the recursion is at most
// log2(len(recs)) deep.
func sortRecs(recs, buf []sortRec, entries []entry, text string, kd uint32) {
	for len(recs) > 1 {
		if len(recs) >= lsdMin {
			sortLSD(recs, buf)
		} else {
			slices.Sort(recs)
		}
		var rest, restBuf []sortRec // the largest run, sorted last
		for i := 0; i < len(recs); {
			key := recs[i] >> 32
			j := i + 1
			for j < len(recs) && recs[j]>>32 == key {
				j++
			}
			if j-i > 1 && key&0xff != 0 {
				// Equal heads so far, and they go on.
				run, runBuf := recs[i:j], buf[i:j]
				if len(run) <= smallRun {
					sortByHeads(run, entries, text, kd+4)
					i = j
					continue
				}
				for k, r := range run {
					run[k] = sortRec(keyAt(text, &entries[uint32(r)], kd+4))<<32 | r&(1<<32-1)
				}
				if len(run) > len(rest) {
					run, rest = rest, run
					runBuf, restBuf = restBuf, runBuf
				}
				if len(run) > 1 {
					sortRecs(run, runBuf, entries, text, kd+4)
				}
			}
			i = j
		}
		recs, buf, kd = rest, restBuf, kd+4
	}
}

// smallRun is the most records of a run equal in their octets that
// sortRecs sorts by comparisons of the rest of their heads: for so few,
// that costs less than making their records again and sorting those.
const smallRun = 16

// sortByHeads sorts the records of run, whose entries' heads share their
// first d octets and are longer, by the rest of their heads, keeping the
// order of equal ones (an insertion sort).
func sortByHeads(run []sortRec, entries []entry, text string, d uint32) {
	rest := func(r sortRec) string {
		e := &entries[uint32(r)]
		return text[e.base+d : e.base+e.head]
	}
	for i := 1; i < len(run); i++ {
		r := run[i]
		h := rest(r)
		j := i
		for ; j > 0 && h < rest(run[j-1]); j-- {
			run[j] = run[j-1]
		}
		run[j] = r
	}
}

// lsdMin is the fewest records sortRecs sorts by LSD radix.
const lsdMin = 64

// sortLSD sorts recs by their octets, keeping the order of equal ones: an
// octet at a time from the last, through buf, as long as recs.
func sortLSD(recs, buf []sortRec) {
	var counts [4][256]int32
	for _, r := range recs {
		counts[0][uint8(r>>32)]++
		counts[1][uint8(r>>40)]++
		counts[2][uint8(r>>48)]++
		counts[3][uint8(r>>56)]++
	}
	n := int32(len(recs))
	src, dst := recs, buf
	for b := range 4 {
		c, shift := &counts[b], 32+8*b
		if c[uint8(src[0]>>shift)] == n {
			continue // one octet for all
		}
		sum := int32(0)
		for v := range c {
			c[v], sum = sum, sum+c[v]
		}
		for _, r := range src {
			v := uint8(r >> shift)
			dst[c[v]] = r
			c[v]++
		}
		src, dst = dst, src
	}
	if &src[0] != &recs[0] {
		copy(recs, src)
	}
}

// radixNodes returns the number of nodes, the root included, of the radix
// trie over the sorted strings key(0), …, key(n-1), with an edge of more
// than maxEdge octets split over a chain of nodes when split.
func radixNodes(n int, split bool, key func(int) string) int {
	c := nodeCounter{split: split}
	prev := ""
	for i := range n {
		k := key(i)
		if i > 0 && k == prev {
			continue
		}
		c.next(k, commonPrefix(prev, k))
		prev = k
	}
	return c.total()
}

// nodeCounter counts the nodes of a radix trie over sorted strings given
// one by one. Its nodes spell the root, the distinct strings, and the
// longest common prefixes of adjacent ones. A stack holds the depths of the
// nodes open on the way from the root to the last string: a node is counted
// when it is closed, and its parent is then the node below it on the
// stack, or a branch at the common prefix of the last string and the next,
// which is opened there if it is not open yet.
type nodeCounter struct {
	nodes int
	tails int  // the octets of the nodes' tails
	split bool // an edge of more than maxEdge octets is a chain of nodes
	stack []int
}

// next adds k, which follows and differs from the string before it, with
// which it has its first l octets in common (0 for the first).
func (c *nodeCounter) next(k string, l int) {
	if c.stack == nil {
		c.stack = append(make([]int, 0, 16), 0)
	}
	for len(c.stack) > 1 && c.stack[len(c.stack)-1] > l {
		d := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		if below := c.stack[len(c.stack)-1]; below < l {
			c.count(d, l)
			c.stack = append(c.stack, l) // a branch that is not a string of the list
		} else {
			c.count(d, below)
		}
	}
	if len(k) > c.stack[len(c.stack)-1] {
		c.stack = append(c.stack, len(k))
	}
}

// count counts a node of depth d under a parent of depth p.
func (c *nodeCounter) count(d, p int) {
	k := 1 // an octet of the edge is the node's, the rest its tail
	if c.split {
		k += (d - p - 1) / maxEdge
	}
	c.nodes += k
	c.tails += d - p - k
}

// total closes the nodes still open and returns the count.
func (c *nodeCounter) total() int {
	for len(c.stack) > 1 {
		d := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		c.count(d, c.stack[len(c.stack)-1])
	}
	return c.nodes + 1 // and the root
}

// size is the number of bytes s holds, measured from the capacities of its
// arrays.
func (s *patternSet) size() int64 {
	n := int64(len(s.text))
	if s.nodes == nil {
		return n // a small set's text
	}
	n += int64(cap(s.nodes))*int64(unsafe.Sizeof(node{})) + int64(cap(s.blocks))*int64(unsafe.Sizeof(nodeBlock{}))
	n += int64(cap(s.octets))
	n += int64(cap(s.ids)) * 2
	n += int64(cap(s.notes)) * int64(unsafe.Sizeof(note{}))
	return n + s.wild.size()
}

func (s *wildSet) size() int64 {
	if s == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*s))
	n += int64(cap(s.wildAt)) * int64(unsafe.Sizeof(wildAt{}))
	n += int64(cap(s.wild)) * int64(unsafe.Sizeof(wildRule{}))
	n += int64(cap(s.at)) * 4
	n += int64(cap(s.pieces)) * 4
	n += int64(cap(s.litNodes)) * int64(unsafe.Sizeof(litNode{}))
	return n + int64(cap(s.edge0)) + s.fan.size()
}

// best returns the best pattern matching the canonical path.
func (s *patternSet) best(path string) hit {
	win, _ := s.bestSteps(path)
	return win
}

// bestSteps is best, and the steps of work it took: nodes of the trie
// visited and octets of the path they matched, nodes of wildcard patterns
// searched, octets of the path summarized or searched directly, and the
// work of the path index (see pathIndex.steps). Tests bound them: a count
// of the work, unlike a timer, does not depend on the machine, and grows
// with the path and the rules as the search does.
func (s *patternSet) bestSteps(path string) (hit, int) {
	// Nodes that carry wildcard patterns are visited after the walk, when
	// the best plain match is known and prunes most of them. The steps of
	// those searched during the walk are kept beside them, in memory, so
	// that the walk's loop carries no register for them.
	var wild struct {
		pending [16]int32 // in wildAt
		steps   int
	}
	np, from := 0, 0
	var wtop uint64 // the best match of the wildcard patterns searched during the walk
	var wwin hit
	nodes, blocks, text := s.nodes, s.blocks, s.text
	meta := s.octets[len(nodes)-1+wordPad:]
	// The best plain pattern so far: its node, and its meta octet.
	pn, pm, pd := int32(-1), uint8(0), 0
	if meta[0]&metaPlain != 0 {
		pn, pm = 0, meta[0]
	}
	n, pos := int32(0), 0
	for {
		nd := nodes[n]
		if nd.child&withWild != 0 {
			k := s.wild.findWild(n, from)
			from = k + 1
			if np == len(wild.pending) {
				// A path this deep in wildcard patterns: search the
				// oldest now.
				top, win := s.top(pn, pm, pd, wtop, wwin)
				var steps int
				wtop, wwin, steps = s.wild.wildcards(wild.pending[:1], path, top, win)
				wild.steps += steps
				copy(wild.pending[:], wild.pending[1:])
				np--
			}
			wild.pending[np] = int32(k)
			np++
		}
		if pos == len(path) {
			break
		}
		// The child whose edge starts with the next octet: a few edges
		// are compared one by one (written out here, on the walk's
		// path), more a word at a time.
		b, c := path[pos], int32(-1)
		lo, hi := int32(nd.child>>nodeFlags), int32(nodes[n+1].child>>nodeFlags)
		if blocks != nil {
			// Counted from their blocks: node n+1's is most often n's.
			bk := blocks[uint32(n)/blockNodes].child
			next := bk
			if uint32(n+1)%blockNodes == 0 {
				next = blocks[uint32(n+1)/blockNodes].child
			}
			lo, hi = lo+int32(bk), hi+int32(next)
		}
		if hi-lo > 8 {
			c = s.edgeWide(lo, hi, b)
		} else {
			for i, e := range s.octets[lo:hi] {
				if e == b {
					c = lo + int32(i)
					break
				}
			}
		}
		if c < 0 {
			break
		}
		m := meta[c]
		if tail := int(m & tailMask); tail > 0 {
			rest := len(path) - pos - 1
			if rest < tail {
				break
			}
			off := int(nodes[c].off)
			if blocks != nil {
				off += int(blocks[uint32(c)/blockNodes].off)
			}
			if tail <= 8 && rest >= 8 && off+8 <= len(text) {
				// A word of each, the octets past the tail shifted out.
				x := binary.LittleEndian.Uint64([]byte(path[pos+1:pos+9])) ^ binary.LittleEndian.Uint64([]byte(text[off:off+8]))
				if x<<(64-8*tail) != 0 {
					break
				}
			} else if path[pos+1:pos+1+tail] != text[off:off+tail] {
				break
			}
		}
		n, pos = c, pos+1+int(m&tailMask)
		if m&metaPlain != 0 {
			pn, pm, pd = c, m, pos
		}
	}
	// Each node after the root takes an octet of the path at least: the
	// walk visited pos+1 nodes at most, which matched pos octets.
	steps := wild.steps + 2*pos + 1
	end := pos == len(path) && nodes[n].child&withExact != 0
	if np == 0 && wwin.kind == noHit && !end {
		// The common case: no rank to compare.
		if pn < 0 {
			return hit{}, steps
		}
		return hit{kind: plainHit, allow: pm&metaAllow != 0, at: pn, depth: int32(pd)}, steps
	}
	top, win := s.top(pn, pm, pd, wtop, wwin)
	if end {
		k := s.findNote(n, exactNote)
		if nt := &s.notes[k]; full(nt.rank, nt.id) > top {
			top, win = full(nt.rank, nt.id), hit{kind: exactHit, allow: nt.rank&1 != 0, at: int32(k)}
		}
	}
	if np > 0 {
		var k int
		_, win, k = s.wild.wildcards(wild.pending[:np], path, top, win)
		steps += k
	}
	return win, steps
}

// top returns the better of the plain pattern of node pn (none when
// negative), of meta octet pm, whose string is pd octets, and the match
// win of rank wtop, with its rank.
func (s *patternSet) top(pn int32, pm uint8, pd int, wtop uint64, win hit) (uint64, hit) {
	if pn >= 0 {
		if r := s.plainRank(pn, pd); r > wtop {
			return r, hit{kind: plainHit, allow: pm&metaAllow != 0, at: pn, depth: int32(pd)}
		}
	}
	return wtop, win
}

// edgeWide returns the node among nodes[lo:hi], the children of a node,
// whose edge starts with c, or -1, comparing a word of eight edges at a
// time.
func (s *patternSet) edgeWide(lo, hi int32, c byte) int32 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	pat := uint64(c) * ones
	for i := lo; i < hi; i += 8 {
		// The edges are padded: the word is there even at the end.
		x := binary.LittleEndian.Uint64(s.octets[i:]) ^ pat
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

// commonPrefix returns the length of the longest common prefix of a and
// b, comparing eight octets at a time.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64([]byte(a[i:i+8])) ^ binary.LittleEndian.Uint64([]byte(b[i:i+8])); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
