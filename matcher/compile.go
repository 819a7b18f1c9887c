package matcher

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
)

// A compiled Matcher owns one string, its text, and everything else refers
// to it by span: the canonical patterns that the trie does not spell (whose
// heads and pieces are substrings of them), the patterns as written when
// they differ, the user-agent lines, encoded after the patterns
// (agentList), and the labels of the trie's edges, in node order. It keeps
// nothing of the parsed file, so the body it came from can be collected,
// and it stays compact: a cache holds thousands of them. Compiling counts
// before it allocates, so that what it throws away is small beside what it
// keeps. A file of a few rules is compiled small (see small.go), with a
// layout of its own; the rest of this comment is about the trie.
//
// A rule is identified by its line, which grows with its index in the
// selected groups in any parsed file, and so orders equal matches as file
// order does; a Robots built by hand whose lines do not grow gets the
// indexes instead, and a list of the lines. A plain rule whose pattern is
// canonical and holds no '*' and no '$' is not kept in the text: it is the
// string of its node of the trie, and a match reports it from the path it
// matched, whose first octets it is. The text is built with the plain
// patterns after the others, and the Matcher keeps the others and the
// labels of the edges (see newPatternSet): the patterns of a large file
// share prefixes, so their labels are half their octets. Any other rule is
// noted: at the offset its set keeps (entry.at), its canonical pattern follows its
// length as a uvarint; the pattern as written is the same, or, when it
// differs (rewrittenBit), follows in the same way after a '*'. A '*' also
// follows a canonical pattern that holds one (see pieceText).

// span is a substring of a text: text[off : off+n].
type span struct{ off, n uint32 }

func (s span) in(text string) string { return text[s.off : s.off+s.n] }

// rewrittenBit marks the offset of a noted rule whose pattern as written
// differs from its canonical one. A text is at most 2 GiB: it holds the
// patterns of a Robots, whose rules take more memory than their text.
const rewrittenBit = 1 << 31

// maxLine is the largest line number a compiled rule keeps; a larger one,
// which no parsed file holds (MaxBytes is 32 MiB), is reported as maxLine.
const maxLine = 1<<30 - 1

// lineOf returns line, clamped to what a compiled rule keeps.
func lineOf(line int) int32 { return int32(min(max(line, 0), maxLine)) }

// writtenAt returns the pattern as written of the noted rule at at.
func writtenAt(text string, at uint32) string {
	n, start := lengthAt(text, at&^rewrittenBit)
	if at&rewrittenBit != 0 {
		n, start = lengthAt(text, start+n+1) // after the '*'
	}
	return text[start : start+n]
}

// appendLength appends the length of a string that follows it in the
// text, and lengthAt reads it back: the length at text[at], and where the
// string starts.
func appendLength(text []byte, n int) []byte { return binary.AppendUvarint(text, uint64(n)) }

func lengthAt(text string, at uint32) (n, start uint32) {
	for shift := 0; ; shift += 7 {
		b := text[at]
		at++
		n |= uint32(b&0x7f) << shift
		if b < 0x80 {
			return n, at
		}
	}
}

// lengthSize is the octets appendLength takes for n.
func lengthSize(n int) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
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
// ordered by rule id, which is file order, so the verdict never depends
// on the order of the rules and the first of equal rules is reported.
func full(r rank32, idx int32) uint64 {
	return uint64(r)<<32 | uint64(^uint32(idx))
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
	return compile(r, smallRules, agents...)
}

// compile is Compile, with sets of at most smallMax rules compiled small
// (see small.go).
func compile(r *parser.Robots, smallMax int, agents ...string) *Matcher {
	sc := newScratch()
	defer sc.release()
	return compileIn(sc, r, smallMax, agents...)
}

// compileIn is compile in the scratch sc.
func compileIn(sc *scratch, r *parser.Robots, smallMax int, agents ...string) *Matcher {
	agents = names(agents)
	var groups []*parser.Group
	var valid []string
	if r != nil {
		// On the stack for a few agents and groups: the Matcher keeps
		// neither.
		var vbuf [4]string
		var gbuf [8]*parser.Group
		groups, valid = selectGroups(r, agents, gbuf[:0], vbuf[:0])
	}
	// Every array is sized before it is filled, so that each is allocated
	// once, at its final size: a file of rules costs what the matcher keeps
	// and little more (by design: parsing and compiling allocate at most
	// 8 times the input).
	nagents, agentText := 0, 0
	var delay time.Duration // the largest Crawl-delay that applies
	k := 0
	for _, g := range groups {
		nagents += len(g.Agents)
		for _, a := range g.Agents {
			agentText += agentSize(a)
		}
		delay = max(delay, crawlDelay(g, valid))
		k += len(g.Rules)
	}
	sc.rules = k
	var text []byte
	var lines []int32 // by id, when the ids are not the lines
	var small []smallRule
	var npieces int
	isSmall := false
	if k <= smallMax && maxLineOf(groups) <= maxSmallLine {
		sz := textSize{scratch: sc.canon[:0]}
		rewritten := resizeScratch(sc.bits, (k+63)/64) // a bit per rule whose pattern is not canonical
		clear(rewritten)
		i := 0
		for _, g := range groups {
			for _, rl := range g.Rules {
				if sz.add(rl.Pattern, rl.Allow) {
					rewritten[i/64] |= 1 << (i % 64)
				}
				i++
			}
		}
		sc.bits, sc.canon = rewritten, sz.scratch
		if isSmall = sz.plain <= maxSmallText; isSmall {
			text = make([]byte, 0, sz.plain+agentText)
			small, text, sc.canon = compileSmall(groups, sz.patterns, rewritten, text, sc.canon)
		}
	}
	var m *Matcher
	var list agentList
	var delays []time.Duration
	if isSmall {
		list, delays, text = compileAgents(groups, nagents, text)
		m = &Matcher{text: finish(text), small: small}
	} else {
		var plainAt int
		var inScratch bool
		text, plainAt, inScratch, lines, npieces = compileTrie(groups, k, agentText, sc)
		var agents []byte
		list, delays, agents = compileAgents(groups, nagents, text[:plainAt-agentText:plainAt]) // in their room
		if len(agents) != plainAt {                                                             // more would have moved them out of text: its capacity ends at plainAt
			panic("matcher: the agents of a trie were not sized as they were written")
		}
		tm := &trieMatcher{}
		tm.trie = newPatternSet(sc.entries, npieces, setText{b: text, keep: plainAt, scratch: inScratch}, true, true, sc)
		m = &tm.m
		m.text, m.trie = tm.trie.text, &tm.trie
	}
	m.agents = list
	use := compileUsage(groups)
	signal, record := compileSignal(r, groups)
	if delay != 0 || delays != nil || lines != nil || use != nil || record.Line != 0 {
		m.more = &matcherMore{crawlDelay: delay, delays: delays, lines: lines, usage: use, signal: signal, signalRecord: record}
	}
	return m
}

// Facts of a rule's pattern that compileTrie finds when it sizes the text
// and uses again when it fills it in, four bits a rule.
const (
	factRewritten = 1 << iota // not canonical
	factEmpty                 // its canonical pattern is empty: it matches nothing
	factNoted                 // noted (see above)
	factIndex                 // an Allow under Google's index.html rule
)

// maxLineOf returns the largest line of the rules of groups, as a
// compiled rule keeps it.
func maxLineOf(groups []*parser.Group) int32 {
	top := int32(0)
	for _, g := range groups {
		for _, rl := range g.Rules {
			top = max(top, lineOf(rl.Line))
		}
	}
	return top
}

// compileTrie returns the text of the k rules of groups as the trie is
// built from them (see above): the noted rules first, then room for
// agentText octets, then the plain rules, from plainAt on. It leaves their
// entries in sc.entries; it returns whether the text is the scratch's,
// the lines of the rules by id when they do not grow (they are the ids
// when they do), and the pieces of their wildcard patterns.
func compileTrie(groups []*parser.Group, k int, agentText int, sc *scratch) (text []byte, plainAt int, inScratch bool, lines []int32, npieces int) {
	// Size the text and the entries, and keep what that finds of each
	// rule for filling them in; see whether the lines grow, in the same
	// pass over the rules.
	facts := resizeScratch(sc.bits, (k+15)/16) // four bits a rule
	clear(facts)
	scratch := sc.canon[:0] // the canonical form of a pattern that is not canonical
	size, patterns, plainSize := 0, 0, 0
	byLine, last := true, int32(-1)
	idx := 0
	for _, g := range groups {
		for _, rl := range g.Rules {
			line := lineOf(rl.Line)
			byLine, last = byLine && line > last, line
			f := ruleFacts(rl.Pattern, rl.Allow, &scratch, &size, &patterns)
			if f&(factNoted|factEmpty) == 0 {
				plainSize += len(rl.Pattern) // canonical as it is
			}
			facts[idx/16] |= uint64(f) << (4 * (idx % 16))
			idx++
		}
	}
	notedSize := size - plainSize
	plainAt = notedSize + agentText
	// Built where it is kept when its plain patterns are so few that
	// its set may keep it in place (they are at most a sixteenth of what
	// it keeps); else in the scratch, and its set copies out what is
	// kept. A set keeps it in place when the labels of its edges fit
	// where its plain patterns were (see setText.inPlace): not when the
	// noted patterns' heads are long and distinct, whose labels the set
	// lays out again, and copies the text out (3 files of the corpus).
	if inScratch = size+agentText <= maxScratchText || 16*plainSize > plainAt; inScratch {
		text = resizeScratch(sc.text, size+agentText)
		sc.text = text
	} else {
		text = make([]byte, size+agentText)
	}
	noted, plain := text[:0:notedSize], plainAt
	entries := resizeScratch(sc.entries, patterns)[:0]
	if !byLine {
		lines = make([]int32, 0, k)
	}
	idx = 0
	for _, g := range groups {
		for _, rl := range g.Rules {
			id := lineOf(rl.Line)
			if !byLine {
				lines = append(lines, id)
				id = int32(idx)
			}
			f := facts[idx/16] >> (4 * (idx % 16))
			idx++
			if rl.Pattern == "" || f&factEmpty != 0 {
				continue // it matches nothing (RFC 9309 §2.2.2)
			}
			canon := rl.Pattern
			if f&factNoted == 0 {
				// A plain rule: its canonical pattern is its pattern, and
				// the trie spells it.
				base := uint32(plain)
				plain += copy(text[plain:], canon)
				entries = append(entries, plainEntry(base, len(canon), id, rl.Allow))
				continue
			}
			rewritten := f&factRewritten != 0
			if rewritten {
				scratch = urlpath.AppendPattern(scratch[:0], rl.Pattern)
				canon = unsafe.String(unsafe.SliceData(scratch), len(scratch))
			}
			at := uint32(len(noted))
			star := strings.IndexByte(canon, '*')
			noted = appendLength(noted, len(canon))
			base := uint32(len(noted))
			noted = append(noted, canon...)
			if rewritten || star >= 0 {
				noted = append(noted, '*') // see pieceText
			}
			if rewritten {
				noted = appendLength(noted, len(rl.Pattern))
				noted = append(noted, rl.Pattern...)
				at |= rewrittenBit
			}
			// Filling the text in later does not change these octets.
			canon = unsafe.String(&text[base], len(canon))
			lit, dollar := strings.CutSuffix(canon, "$")
			head := len(lit)
			if star >= 0 && star < head {
				head = star
			}
			e, n := newEntry(base, lit, head, dollar, id, rl.Allow, at)
			entries = append(entries, e)
			npieces += n
			if f&factIndex != 0 {
				// As though "$" followed canon[:i+1] (see appendPatterns).
				i := indexRule(canon)
				e, n = newEntry(base, canon[:i+1], min(head, i+1), true, id, true, at)
				entries = append(entries, e)
				npieces += n
			}
		}
	}
	if len(noted) != notedSize || plain != len(text) {
		// The sizes counted are what was written, or the entries refer
		// to octets that are not there.
		panic("matcher: the text of a trie was not sized as it was written")
	}
	sc.entries, sc.canon, sc.bits = entries, scratch, facts
	return text, plainAt, inScratch, lines, npieces
}

// plainOctet says of each octet whether a canonical pattern holds it as
// it is anywhere: as urlpath finds it, less '$' (only last) and '%' (an
// escape, which must be canonical too).
var plainOctet = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c != '$' && c != '%' && urlpath.IsCanonicalPattern(string([]byte{'/', byte(c)}))
	}
	return t
}()

// upperHex is the value of each upper-case hexadecimal digit, and 0xff for
// any other octet; canonicalEscape says, of the escapes of two such
// digits, by value, whether urlpath keeps it as it is.
var upperHex, canonicalEscape = func() (h [256]uint8, esc [256]bool) {
	const digits = "0123456789ABCDEF"
	for c := range h {
		h[c] = 0xff
	}
	for i := range len(digits) {
		h[digits[i]] = uint8(i)
	}
	for v := range esc {
		esc[v] = urlpath.IsCanonicalPattern("/%" + string([]byte{digits[v>>4], digits[v&15]}))
	}
	return h, esc
}()

// octetClass says of each octet whether it is a plainOctet, and whether
// it is '*'.
var octetClass = func() (t [256]uint8) {
	for c := range t {
		if plainOctet[c] {
			t[c] |= classPlain
		}
	}
	t['*'] |= classStar
	return t
}()

const (
	classPlain = 1 << iota
	classStar
)

// canonicalStar returns urlpath.IsCanonicalPattern(p) and, when p is
// canonical, whether it holds a '*'. It reads eight octets at a time for
// the runs of plain octets that most patterns are, and checks escapes and
// a final '$' by tables derived from urlpath; on any other octet it asks
// urlpath.
func canonicalStar(p string) (canonical, star bool) {
	seen := uint8(0) // the classes of the octets read
	for i := 0; i < len(p); {
		if len(p) >= 8 {
			// The eight octets from i, or the last eight: those before i
			// were read already.
			at := min(i, len(p)-8)
			w := p[at : at+8]
			a, b, c, d := octetClass[w[0]], octetClass[w[1]], octetClass[w[2]], octetClass[w[3]]
			e, f, g, h := octetClass[w[4]], octetClass[w[5]], octetClass[w[6]], octetClass[w[7]]
			if a&b&c&d&e&f&g&h&classPlain != 0 {
				seen |= a | b | c | d | e | f | g | h
				i = at + 8
				continue
			}
		}
		switch c := p[i]; {
		case plainOctet[c]:
			seen |= octetClass[c]
			i++
		case c == '%' && i+2 < len(p) && upperHex[p[i+1]]|upperHex[p[i+2]] != 0xff &&
			canonicalEscape[upperHex[p[i+1]]<<4|upperHex[p[i+2]]]:
			i += 3
		case c == '$' && i == len(p)-1:
			i++
		default:
			if urlpath.IsCanonicalPattern(p) {
				return true, strings.IndexByte(p, '*') >= 0
			}
			return false, false
		}
	}
	return true, seen&classStar != 0
}

// ruleFacts returns the facts of a rule of pattern p, and adds to size
// the octets the trie's text keeps of it and to patterns its entries;
// scratch is the canonical form of p when p is not canonical.
func ruleFacts(p string, allow bool, scratch *[]byte, size, patterns *int) uint8 {
	if p == "" {
		return factEmpty
	}
	canon, f := p, uint8(0)
	canonical, star := canonicalStar(p)
	if !canonical {
		f = factRewritten
		*scratch = urlpath.AppendPattern((*scratch)[:0], p)
		canon = unsafe.String(unsafe.SliceData(*scratch), len(*scratch))
		if canon == "" {
			return f | factEmpty
		}
		star = strings.IndexByte(canon, '*') >= 0
	}
	index := allow && indexRule(canon) >= 0
	n := len(canon)
	if f&factRewritten != 0 || star || canon[len(canon)-1] == '$' || index {
		f |= factNoted
		n += lengthSize(len(canon))
		if star || f&factRewritten != 0 {
			n++
		}
		if f&factRewritten != 0 {
			n += lengthSize(len(p)) + len(p)
		}
	}
	*size += n
	*patterns++
	if index {
		f |= factIndex
		*patterns++
	}
	return f
}

// scratch is the memory compiling a file uses and throws away. It is kept
// for the next compile (see maxScratch), so that compiling the files of a
// crawl allocates little beside what the Matchers keep.
type scratch struct {
	// The rules of the file compiled last, and of the largest since the
	// scratch grew past keptScratch; the compiles in a row since then
	// that needed less than a quarter of that (see release).
	rules, peak, idle int

	entries []entry
	depths  []uint32
	above   []uint64
	bits    []uint64
	canon   []byte
	text    []byte // the text of a trie as it is built, unless built where it is kept (see compileTrie)
	// A trie built in the scratch (see newPatternSet).
	nodes  []node
	blocks []nodeBlock
	labels []byte
	edges  []uint8
	meta   []uint8
	ids    []uint16
	notes  []note
	wildAt []wildAt
	// The pieces of wildcard patterns built in the scratch (see
	// buildLiterals).
	slots     []uint64
	pieceKeys []uint64
	positions []uint32
}

// maxScratch is the most bytes of scratch kept between compiles: more
// than the scratch of the corpus's largest file (21,000 rules; 0.75 MB at
// the default cap of a fetch, 0.93 MB grown with headroom), so that a
// crawler meeting large files one after another makes less garbage of
// their compiles.
//
// A scratch larger than keptScratch is let go after maxIdle compiles in a
// row of files of less than a quarter of the rules it grew for, so that a
// goroutine that met one large file does not hold its memory for the rest
// of a crawl; and a pool lets any scratch go after two collections without
// a compile. A process holds at most one scratch per compile running at
// once (about one per CPU).
const (
	maxScratch  = 2 << 20
	keptScratch = 24 << 10
	maxIdle     = 256
)

// maxScratchText is the most octets of text of a trie (see compileTrie)
// built in the scratch whatever its patterns: that of a file of a few
// hundred rules. A larger one is built there too unless it is kept in
// place.
const maxScratchText = 16 << 10

// maxScratchNodes is the most nodes a trie built in the scratch may need
// (see newPatternSet): a file of about 300 rules.
const maxScratchNodes = 640

// maxScratchPieces is the most pieces of wildcard patterns a trie built in
// the scratch sorts there (see buildLiterals).
const maxScratchPieces = 1 << 9

// scratchNodes is maxScratchNodes, or 0 in tests that build every trie in
// place.
var scratchNodes = maxScratchNodes

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// poolScratch is false in tests that measure the heap a Matcher keeps: a
// scratch kept between compiles is not the Matcher's.
var poolScratch = true

func newScratch() *scratch {
	if !poolScratch {
		return new(scratch)
	}
	return scratchPool.Get().(*scratch)
}

// release returns sc to the pool, less its largest arrays while it holds
// more than maxScratch bytes: a large file's arrays are not kept, and the
// next file reuses the rest. A scratch grown past keptScratch for a large
// file is let go whole after maxIdle small ones.
func (sc *scratch) release() {
	if !poolScratch {
		return
	}
	if !sc.keeps() {
		return // the pool makes another when it has none
	}
	sizes, n := sc.sizes(), sc.size()
	for n > maxScratch {
		i := 0
		for j, k := range sizes {
			if k > sizes[i] {
				i = j
			}
		}
		n -= sizes[i]
		sizes[i] = 0
		switch i {
		case 0:
			sc.entries = nil
		case 1:
			sc.depths = nil
		case 2:
			sc.above = nil
		case 3:
			sc.bits = nil
		case 4:
			sc.canon = nil
		case 5:
			sc.nodes = nil
		case 6:
			sc.edges = nil
		case 7:
			sc.meta = nil
		case 8:
			sc.ids = nil
		case 9:
			sc.notes = nil
		case 10:
			sc.wildAt = nil
		case 11:
			sc.slots = nil
		case 12:
			sc.pieceKeys = nil
		case 13:
			sc.positions = nil
		case 14:
			sc.text = nil
		case 15:
			sc.blocks = nil
		default:
			sc.labels = nil
		}
	}
	scratchPool.Put(sc)
}

// keeps reports whether sc keeps its arrays for the next compile, and
// counts the compiles that did not need them.
func (sc *scratch) keeps() bool {
	if sc.size() <= keptScratch {
		sc.peak, sc.idle = 0, 0
		return true
	}
	if 4*sc.rules >= sc.peak {
		sc.peak, sc.idle = max(sc.peak, sc.rules), 0
		return true
	}
	sc.idle++
	return sc.idle <= maxIdle
}

// size returns the bytes of sc's arrays.
func (sc *scratch) size() int {
	n := 0
	for _, k := range sc.sizes() {
		n += k
	}
	return n
}

// sizes returns the bytes of each of sc's arrays, in the order release
// lets them go by.
func (sc *scratch) sizes() [17]int {
	return [...]int{
		cap(sc.entries) * int(unsafe.Sizeof(entry{})), cap(sc.depths) * 4, cap(sc.above) * 8,
		cap(sc.bits) * 8, cap(sc.canon),
		cap(sc.nodes) * int(unsafe.Sizeof(node{})), cap(sc.edges), cap(sc.meta), cap(sc.ids) * 2,
		cap(sc.notes) * int(unsafe.Sizeof(note{})), cap(sc.wildAt) * int(unsafe.Sizeof(wildAt{})),
		cap(sc.slots) * 8, cap(sc.pieceKeys) * 8, cap(sc.positions) * 4, cap(sc.text),
		cap(sc.blocks) * int(unsafe.Sizeof(nodeBlock{})), cap(sc.labels),
	}
}

// resize returns b with length n, in its own array when that is large
// enough; the elements are not cleared.
func resize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// resizeScratch is resize for an array that is only scratch: one it makes
// in place of a smaller one has room for a quarter more, so that files of
// growing size (the versions of one file, say) do not each make it anew,
// unless that is more than half of what a scratch keeps.
func resizeScratch[T any](b []T, n int) []T {
	if cap(b) < n {
		var t T
		if cap(b) == 0 || (n+n/4)*int(unsafe.Sizeof(t)) > maxScratch/2 {
			return make([]T, n) // none before, or too large to keep with room to spare
		}
		return make([]T, n, n+n/4)
	}
	return b[:n]
}

// textSize counts what a small set or a set of Content-Usage rules stores
// for a list of rules, to size its arrays exactly.
type textSize struct {
	rules, patterns int
	// The octets of the canonical patterns, of the patterns as written
	// that differ, and of a '*' after a canonical pattern that holds one
	// (see pieceText).
	text    int
	plain   int    // the octets of the canonical patterns and of those as written that differ
	scratch []byte // the canonical form of the last pattern that is not canonical
}

// add counts a rule with pattern p, and reports whether p is rewritten:
// not canonical.
func (z *textSize) add(p string, allow bool) (rewritten bool) {
	z.rules++
	if p == "" {
		return false
	}
	canonical, star := canonicalStar(p)
	canon, rewritten := p, !canonical
	if rewritten {
		z.scratch = urlpath.AppendPattern(z.scratch[:0], p)
		canon = unsafe.String(unsafe.SliceData(z.scratch), len(z.scratch))
		star = strings.IndexByte(canon, '*') >= 0
	}
	if canon == "" {
		return rewritten
	}
	z.text += len(canon)
	z.plain += len(canon)
	if star {
		z.text++ // see pieceText
	}
	if rewritten {
		z.plain += len(p)
		z.text += len(p)
	}
	z.patterns++
	if allow && indexRule(canon) >= 0 {
		z.patterns++
	}
	return rewritten
}

// countPieces returns the number of pieces of a pattern of literal lit: the
// runs of octets between its stars after the first, none when they are all
// empty (the pattern is then a prefix: trailing stars absorb the rest of a
// path).
func countPieces(lit string) int {
	n := 0
	if head := strings.IndexByte(lit, '*'); head >= 0 {
		forPieces(lit, head, func(int, string) { n++ })
	}
	return n
}

// finish returns the text as a string without a copy: it is never written
// again. Its capacity is its length when it was sized exactly; if it was
// not, the slack is not kept.
func finish(text []byte) string {
	if cap(text)-len(text) > len(text)/16 {
		return string(text)
	}
	return unsafe.String(unsafe.SliceData(text), len(text))
}

// appendEntries appends to entries the compiled patterns of a rule whose
// canonical pattern canon starts at base in the text, and the rule at at,
// as appendPatterns compiles them: none for an empty pattern, one, or two
// for an Allow under Google's index.html rule. It returns the pieces of
// their wildcard patterns too.
func appendEntries(entries []entry, canon string, base uint32, id int32, allow bool, at uint32) ([]entry, int) {
	if canon == "" {
		return entries, 0
	}
	lit, dollar := strings.CutSuffix(canon, "$")
	head := strings.IndexByte(lit, '*')
	if head < 0 {
		head = len(lit)
	}
	e, pieces := newEntry(base, lit, head, dollar, id, allow, at)
	entries = append(entries, e)
	if !allow {
		return entries, pieces
	}
	if i := indexRule(canon); i >= 0 {
		// As though "$" followed canon[:i+1] (see appendPatterns).
		e, n := newEntry(base, canon[:i+1], min(head, i+1), true, id, allow, at)
		entries = append(entries, e)
		pieces += n
	}
	return entries, pieces
}

// agentLine is a user-agent line of the selected groups: its value is a
// span of the Matcher's text.
type agentLine struct {
	value span
	line  int32
}

// agentList is the user-agent lines of the selected groups: n lines
// encoded in the Matcher's text from at on, each its line and the length
// of its value as uvarints, then its value.
type agentList struct{ at, n uint32 }

// agentSize is the octets user-agent line a takes in an agentList.
func agentSize(a parser.Agent) int {
	return lengthSize(int(agentLineOf(a))) + lengthSize(len(a.Value)) + len(a.Value)
}

func agentLineOf(a parser.Agent) int32 { return int32(min(max(a.Line, 0), 1<<31-1)) }

// agentAt returns the user-agent line encoded at text[at:], and where the
// next one starts.
func agentAt(text string, at uint32) (agentLine, uint32) {
	line, at := lengthAt(text, at)
	n, at := lengthAt(text, at)
	return agentLine{span{at, n}, int32(line)}, at + n
}

// compileAgents appends to text the user-agent lines of groups, n lines,
// and returns them; their Crawl-delays, nil when none has one (most
// files); and the text.
func compileAgents(groups []*parser.Group, n int, text []byte) (agentList, []time.Duration, []byte) {
	list := agentList{at: uint32(len(text)), n: uint32(n)}
	var delays []time.Duration
	i := 0
	for _, g := range groups {
		for _, a := range g.Agents {
			if a.CrawlDelay != 0 && delays == nil {
				delays = make([]time.Duration, i, n)
			}
			if delays != nil {
				delays = append(delays, a.CrawlDelay)
			}
			text = appendLength(text, int(agentLineOf(a)))
			text = appendLength(text, len(a.Value))
			text = append(text, a.Value...)
			i++
		}
	}
	return list, delays, text
}

// selectGroups appends to groups the groups that name one of the agents,
// or, when none does, the global ("*") groups, and to valid the agents that
// are names (parser.IsValidName), and returns them.
func selectGroups(r *parser.Robots, agents []string, groups []*parser.Group, valid []string) ([]*parser.Group, []string) {
	for _, a := range agents {
		if parser.IsValidName(a) {
			valid = append(valid, a)
		}
	}
	// Count first, and collect into a slice of the right size: a file can
	// hold tens of thousands of groups.
	nspecific, nglobal := 0, 0
	for i := range r.Groups {
		switch groupFor(&r.Groups[i], valid) {
		case named:
			nspecific++
		case global:
			nglobal++
		}
	}
	want, n := named, nspecific
	if nspecific == 0 {
		want, n = global, nglobal
	}
	if n == 0 {
		return nil, valid
	}
	groups = slices.Grow(groups, n)
	for i := range r.Groups {
		g := &r.Groups[i]
		// No group names the crawler when the global ones apply: a
		// global line is enough to tell them.
		if want == global && hasGlobal(g) || want == named && groupFor(g, valid) == named {
			groups = append(groups, g)
		}
	}
	return groups, valid
}

// hasGlobal reports whether a user-agent line of g is "*".
func hasGlobal(g *parser.Group) bool {
	for _, a := range g.Agents {
		if a.IsGlobal() {
			return true
		}
	}
	return false
}

// How a group applies to a crawler.
const (
	other  = iota // it does not
	global        // it is a "*" group
	named         // one of its lines names the crawler
)

// groupFor returns how g applies to a crawler with the valid names.
func groupFor(g *parser.Group, valid []string) int {
	all := false
	for _, a := range g.Agents {
		if a.IsGlobal() {
			all = true
			continue
		}
		for _, v := range valid {
			if lineNames(a, v) {
				return named
			}
		}
	}
	if all {
		return global
	}
	return other
}

// lineNames is a.Names(name), for a valid name (parser.IsValidName),
// answered at once when the first octets differ, as they do for most
// lines: a line names a crawler by its value's start, which ignoring case
// starts as the name does. (An octet of a name is ASCII, and no character
// outside ASCII folds to one of them but the Kelvin sign and the long s:
// a value that does not start with an ASCII octet is left to Names.)
func lineNames(a parser.Agent, name string) bool {
	if v := a.Value; v != "" && name != "" && v[0] < utf8.RuneSelf && lowerASCII(v[0]) != lowerASCII(name[0]) {
		return false
	}
	return a.Names(name)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// crawlDelay returns the largest Crawl-delay of g's user-agent lines that
// apply to a crawler with the valid names: those that name it, or, in a
// global group, the "*" lines (a Crawl-delay binds to the lines directly
// above it: see parser.Agent).
func crawlDelay(g *parser.Group, valid []string) time.Duration {
	var d time.Duration
	kind := other - 1 // not known yet
	for _, a := range g.Agents {
		if a.CrawlDelay <= d {
			continue // it cannot raise d, whether it applies or not
		}
		if kind < other {
			kind = groupFor(g, valid)
		}
		applies := kind == global && a.IsGlobal()
		for _, v := range valid {
			applies = applies || kind == named && lineNames(a, v)
		}
		if applies {
			d = a.CrawlDelay
		}
	}
	return d
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
	lit      int  // the length of its literal, canon[:lit]
	dollar   bool // its literal is followed by '$'
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
		if i := indexRule(canon); i >= 0 {
			p, segs = newPattern(segs, canon, canon[:i+1], rankOf(i+2, true))
			p.anchored, p.dollar = true, true
			if len(p.segs) == 0 {
				p.kind = exact
			}
			ps = append(ps, p)
		}
	}
	return ps, segs
}

// indexRule returns the index of the last '/' of canon when an Allow of
// it also allows its directory under Google's index.html rule, and -1
// otherwise.
func indexRule(canon string) int {
	if i := strings.LastIndexByte(canon, '/'); i >= 0 && strings.HasPrefix(canon[i:], "/index.htm") {
		return i
	}
	return -1
}

// newPattern compiles lit, a prefix of canon (with a final '$' kept when it
// is all of canon), into its head and segments, which it appends to segs.
// Trailing stars are dropped: "/a*" matches what "/a" matches, and "/a*$"
// too, though each keeps the rank of its octets as written.
func newPattern(segs []span, canon, lit string, rank rank32) (pattern, []span) {
	lit, anchored := strings.CutSuffix(lit, "$")
	p := pattern{canon: canon, lit: len(lit), dollar: anchored, head: len(lit), anchored: anchored, rank: rank}
	if star := strings.IndexByte(lit, '*'); star >= 0 {
		p.head = star
		rest := lit[star+1:]
		if strings.HasSuffix(rest, "*") || rest == "" {
			p.anchored = false // a trailing '*' absorbs the rest of the path
		}
		first := len(segs)
		forPieces(lit, star, func(at int, seg string) { segs = append(segs, span{uint32(at), uint32(len(seg))}) })
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
