package parser

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/crawlkit/robots/usage"
)

// MaxLineLength is the number of bytes of a line that are used; the rest of
// a longer line is ignored and the line flagged. It is Google's limit: 2083 × 8
// bytes including the C string terminator.
const MaxLineLength = 2083*8 - 1

// MaxWarnings is the number of warnings a Robots keeps: the first ones, in
// line order. The rest are counted in Robots.OmittedWarnings. A file of junk
// would otherwise cost a warning for every two bytes, many times its size;
// the most a file of the real corpus has is 1,311, in an HTML page.
const MaxWarnings = 1000

// MaxOther is the number of uninterpreted records a Robots keeps in Other:
// the first ones, in line order. The rest are counted in Robots.OmittedOther.
// Real files hold a few hundred at most; "x: y" lines would otherwise cost
// eight times their size.
const MaxOther = 1000

// maxQuoted is the most bytes of a key or value quoted in a warning's
// message; a longer one is cut and "…" appended.
const maxQuoted = 64

// Parse parses a robots.txt body. It never fails: lines that do not parse
// are skipped and reported in Robots.Warnings. Every byte of body is read;
// bounding the size is the caller's job (RFC 9309 §2.5 asks for at least
// 500 KiB). The returned Robots shares no memory with body.
//
// Parse reads the lines twice: once to count what the file holds, then to
// store it, so that every slice of the Robots and the one string that holds
// all the values it keeps are allocated once, at their final size. It
// scans the body once: the counting pass records the lines that the storing
// pass needs (see record.go). It allocates nothing for blank lines,
// comments and lines it cannot use, and a bounded amount for the warnings
// and uninterpreted records it keeps.
func Parse(body []byte) *Robots {
	rec := newRecording()
	r := parse(body, rec, nil)
	rec.free()
	return r
}

// parse is Parse with rec to record lines in, storing the Robots in st
// when it is not nil.
func parse(body []byte, rec *recording, st *store) *Robots {
	sc := newScanner(body)
	count := builder{counting: true, body: body, rec: rec}
	count.scan(&sc)
	b := builder{st: st}
	b.init(body, &count.n)
	b.r.Lines = sc.num
	if sc.partialBOM {
		b.warn(1, InvalidUTF8, "an incomplete UTF-8 byte order mark at the start was skipped")
	}
	b.replay(rec)
	return b.finish(&rec.set)
}

// key identifies what a line's key stands for.
type key uint8

const (
	keyNone key = iota // blank, comment-only or unparsable line
	keyUserAgent
	keyAllow
	keyDisallow
	keySitemap
	keyCrawlDelay
	keyContentUsage
	keyContentSignal
	keyUnused  // a known non-standard key that is kept uninterpreted
	keyUnknown // any other key
)

// line is one line of a robots.txt file, split into key and value, as
// offsets into the body: whatever is kept is copied. It holds no pointer, so
// the scanner fills it without write barriers wherever it lives.
type line struct {
	num        int
	start, end int // the line as used: cut at MaxLineLength and at NUL
	keyStart   int // the key as written
	keyEnd     int
	valueStart int
	valueEnd   int
	key        key
	flags      lineFlags
	comment    bool // the line holds a comment
	empty      bool // nothing but white space (and possibly a comment)
}

// lineFlags say what a line is, beside its key, as far as the builder
// needs to know.
type lineFlags uint8

const (
	flagTypo         lineFlags = 1 << iota // key accepted as a misspelling or extension
	flagMissingColon                       // key and value split at white space
	flagTooLong                            // cut at MaxLineLength
	flagNUL                                // cut at a NUL byte
	flagUnparsable                         // not empty, but no key and value could be found
	flagInvalidUTF8                        // set by scanner.checkUTF8, as the next
	flagInnerBOM                           // holds a byte order mark
)

func (l *line) has(f lineFlags) bool { return l.flags&f != 0 }

// matters reports whether the builder needs l: whether it builds something
// or warns.
func (l *line) matters() bool { return l.key != keyNone || l.flags != 0 }

// scanner splits a robots.txt body into lines at LF, CR and CRLF, skipping a
// leading (possibly partial) UTF-8 byte order mark, and each line into key
// and value.
//
// It remembers where the next LF, CR, NUL, '#', ':' and non-ASCII octet
// are, and looks for one again only once the line start has passed it, so
// each kind is searched for once over the whole body, however its
// occurrences fall: the work is linear, and a line costs little more than
// its key and the white space around it.
type scanner struct {
	s          []byte
	pos        int // start of the next line; len(s)+1 when done
	num        int // number of the last line returned
	lf, cr     int // next LF and CR at or after pos, len(s) when none
	nul, hash  int // next NUL and '#', as lf
	colon      int // next ':', as lf
	high       int // next octet >= 0x80, as lf
	partialBOM bool
}

func newScanner(s []byte) scanner {
	const bom = "\xEF\xBB\xBF"
	n := 0
	for n < len(bom) && n < len(s) && s[n] == bom[n] {
		n++
	}
	// Only a complete BOM, or a leading part of one followed by something
	// else, is skipped: Google skips the longest common prefix.
	return scanner{
		s: s, pos: n, lf: -1, cr: -1, nul: -1, hash: -1, colon: -1, high: -1,
		partialBOM: n > 0 && n < len(bom),
	}
}

// next reads the next line into l and reports whether there was one. A body
// has one line more than it has line endings, so a final line ending is
// followed by an empty last line.
//
// The line is parsed as Google's reference parser does: it is cut at
// MaxLineLength and at a NUL byte, the comment is removed, and the rest is
// split at the first colon into key and value, both trimmed. Without a
// colon, a line of exactly two white-space separated tokens is accepted.
func (sc *scanner) next(l *line) bool {
	s, pos := sc.s, sc.pos
	if pos > len(s) {
		return false
	}
	if sc.lf < pos {
		sc.lf = indexFrom(s, pos, '\n')
	}
	if sc.cr < pos {
		sc.cr = indexFrom(s, pos, '\r')
	}
	end := min(sc.lf, sc.cr)
	switch {
	case end == len(s):
		sc.pos = end + 1
	case s[end] == '\r' && end+1 < len(s) && s[end+1] == '\n':
		sc.pos = end + 2
	default:
		sc.pos = end + 1
	}
	sc.num++
	*l = line{num: sc.num, start: pos}
	if end-pos > MaxLineLength {
		end, l.flags = pos+MaxLineLength, flagTooLong
	}
	if sc.nul < pos {
		sc.nul = indexFrom(s, pos, 0)
	}
	if sc.nul < end {
		end = sc.nul
		l.flags |= flagNUL
	}
	l.end = end
	if sc.hash < pos {
		sc.hash = indexFrom(s, pos, '#')
	}
	if sc.hash < end {
		end, l.comment = sc.hash, true
	}
	for pos < end && isSpace(s[pos]) {
		pos++
	}
	for end > pos && isSpace(s[end-1]) {
		end--
	}
	if pos == end {
		l.empty = true
		return true
	}
	// Most lines start with one of the common keys, as written, and a
	// colon: they need no search for the colon and no classify.
	k := -1 // end of the key
	if pos+16 <= len(s) {
		w := binary.LittleEndian.Uint64(s[pos:])
		switch {
		case disallowKey.match(w) && s[pos+8] == ':':
			l.key, k = keyDisallow, pos+8
		case allowKey.match(w):
			l.key, k = keyAllow, pos+5
		case userAgeKey.match(w) && ntKey.match(binary.LittleEndian.Uint64(s[pos+8:])):
			l.key, k = keyUserAgent, pos+10
		case sitemapKey.match(w):
			l.key, k = keySitemap, pos+7
		}
		if k >= end { // the colon is not in the line's content
			l.key, k = keyNone, -1
		}
	}
	if k < 0 {
		return sc.split(l, pos, end)
	}
	v := k + 1
	for v < end && isSpace(s[v]) {
		v++
	}
	l.keyStart, l.keyEnd, l.valueStart, l.valueEnd = pos, k, v, end
	return true
}

// split splits the content s[pos:end] of l, neither empty nor starting or
// ending with white space, into key and value.
func (sc *scanner) split(l *line, pos, end int) bool {
	s := sc.s
	if sc.colon < pos {
		sc.colon = indexFrom(s, pos, ':')
	}
	sep := sc.colon
	var k, v int // end of the key, start of the value
	if sep < end {
		k, v = sep, sep+1
		for k > pos && isSpace(s[k-1]) {
			k--
		}
	} else {
		k = pos
		for k < end && !isSpace(s[k]) {
			k++
		}
		if k == end {
			l.flags |= flagUnparsable
			return true
		}
		v = k
		for v < end && isSpace(s[v]) {
			v++
		}
		if indexSpace(s[v:end]) >= 0 {
			l.flags |= flagUnparsable // more than two tokens
			return true
		}
		l.flags |= flagMissingColon
	}
	for v < end && isSpace(s[v]) {
		v++
	}
	if k == pos {
		l.flags |= flagUnparsable
		return true
	}
	l.keyStart, l.keyEnd, l.valueStart, l.valueEnd = pos, k, v, end
	var typo bool
	if l.key, typo = classify(s[pos:k]); typo {
		l.flags |= flagTypo
	}
	return true
}

// ascii reports whether the line l, read by sc, holds only ASCII octets:
// most lines do, and then they are valid UTF-8 without a byte order mark.
func (sc *scanner) ascii(l *line) bool {
	if sc.high < l.start {
		sc.high = indexHigh(sc.s, l.start)
	}
	return sc.high >= l.end
}

// checkUTF8 flags l, a line read by sc, if it is not valid UTF-8 or holds
// a byte order mark; only a line with a non-ASCII octet can.
func (sc *scanner) checkUTF8(l *line) {
	if sc.high < l.start {
		sc.high = indexHigh(sc.s, l.start)
	}
	if sc.high < l.end {
		sc.flagUTF8(l)
	}
}

// flagUTF8 is checkUTF8 on a line with a non-ASCII octet.
func (sc *scanner) flagUTF8(l *line) {
	text := sc.s[l.start:l.end]
	if !utf8.Valid(text) {
		l.flags |= flagInvalidUTF8
	}
	if bytes.Contains(text, bomRune) {
		l.flags |= flagInnerBOM
	}
}

// from returns a scanner that reads the body of sc again from the line l
// on, as sc read it.
func (sc *scanner) from(l *line) scanner {
	return scanner{s: sc.s, pos: l.start, num: l.num - 1, lf: -1, cr: -1, nul: -1, hash: -1, colon: -1, high: -1}
}

func indexFrom(s []byte, from int, c byte) int {
	if i := bytes.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}

// indexHigh returns the index of the first octet >= 0x80 at or after from,
// len(s) if none, reading 32 octets at a time.
func indexHigh(s []byte, from int) int {
	const high = 0x8080808080808080
	i := from
	for ; i+32 <= len(s); i += 32 {
		w := s[i : i+32 : i+32]
		if (binary.LittleEndian.Uint64(w)|binary.LittleEndian.Uint64(w[8:])|
			binary.LittleEndian.Uint64(w[16:])|binary.LittleEndian.Uint64(w[24:]))&high != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return len(s)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// indexSpace returns the index of the first space or tab in s, -1 if none.
func indexSpace(s []byte) int {
	for i, c := range s {
		if isSpace(c) {
			return i
		}
	}
	return -1
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case.
// prefix must be lower case.
func hasPrefixFold(s []byte, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// equalFold reports whether s is k, ignoring ASCII case. k must be lower
// case.
func equalFold(s []byte, k string) bool {
	return len(s) == len(k) && hasPrefixFold(s, k)
}

// The common keys with their colon, as the fast path of scanner.next reads
// them at the start of a line: the first word of a line, and for two of them
// the next octet or word.
var (
	disallowKey = newFold("disallow") // and then a colon
	allowKey    = newFold("allow:")
	userAgeKey  = newFold("user-age")
	ntKey       = newFold("nt:")
	sitemapKey  = newFold("sitemap:")
)

// fold matches the start of a little-endian word of 8 octets with a
// lower-case text, ignoring the case of its letters: setting the bit 0x20 of
// an octet folds a letter to lower case, and folds nothing else to a letter,
// so it is set only where the text has a letter.
type fold struct{ word, mask, keep uint64 }

// newFold returns the fold of p, at most 8 octets.
func newFold(p string) fold {
	var f fold
	for i := len(p) - 1; i >= 0; i-- {
		f.word, f.mask, f.keep = f.word<<8|uint64(p[i]), f.mask<<8, f.keep<<8|0xff
		if 'a' <= p[i] && p[i] <= 'z' {
			f.mask |= 0x20
		}
	}
	return f
}

func (f fold) match(w uint64) bool { return (w|f.mask)&f.keep == f.word }

// classify says which key k stands for. As in Google's parser, the four
// standard keys are matched by case-insensitive prefix ("Disallowed" is a
// disallow) and with Google's accepted misspellings; typo reports that the key
// is not exactly the standard one. It chooses by the key's first letter.
func classify(k []byte) (key, bool) {
	if len(k) < 4 { // the shortest key known, "host"
		return keyUnknown, false
	}
	switch k[0] | 0x20 { // the letter in lower case, or not a letter
	case 'd':
		if hasPrefixFold(k, "disallow") {
			return keyDisallow, len(k) != len("disallow")
		}
		if anyPrefixFold(k, "dissallow", "dissalow", "disalow", "diasllow", "disallaw") {
			return keyDisallow, true
		}
		if equalFold(k, "domain") {
			return keyUnused, false
		}
	case 'a':
		if hasPrefixFold(k, "allow") {
			return keyAllow, len(k) != len("allow")
		}
	case 'u':
		if hasPrefixFold(k, "user-agent") {
			return keyUserAgent, len(k) != len("user-agent")
		}
		if anyPrefixFold(k, "useragent", "user agent") {
			return keyUserAgent, true
		}
	case 's':
		if hasPrefixFold(k, "sitemap") {
			return keySitemap, len(k) != len("sitemap")
		}
		if hasPrefixFold(k, "site-map") {
			return keySitemap, true
		}
	case 'c':
		switch {
		case equalFold(k, "crawl-delay"):
			return keyCrawlDelay, false
		case equalFold(k, "content-usage"):
			return keyContentUsage, false
		case equalFold(k, "content-signal"):
			return keyContentSignal, false
		case equalFold(k, "clean-param"):
			return keyUnused, false
		}
	case 'h':
		if equalFold(k, "host") {
			return keyUnused, false
		}
	case 'n':
		if equalFold(k, "noindex") || equalFold(k, "noarchive") || equalFold(k, "nofollow") {
			return keyUnused, false
		}
	case 'r':
		if equalFold(k, "request-rate") || equalFold(k, "revisit-after") {
			return keyUnused, false
		}
	case 'v':
		if equalFold(k, "visit-time") {
			return keyUnused, false
		}
	}
	return keyUnknown, false
}

func anyPrefixFold(s []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if hasPrefixFold(s, p) {
			return true
		}
	}
	return false
}

var canonicalKeys = [...]string{
	keyUserAgent: "user-agent",
	keyAllow:     "allow",
	keyDisallow:  "disallow",
	keySitemap:   "sitemap",
}

// builder assembles a Robots from lines, in two passes over them. Counting,
// it scans the body, only counts what it would store, and records the lines
// that matter; storing, it reads the records, and fills slices allocated at
// the counted sizes, and a string that holds every value kept.
//
// The agents, rules and Content-Usage records of a group are contiguous in
// file order (a group ends where the next begins), so all of them live in
// three shared slices and each group gets its part when it ends: no
// allocation per group.
type builder struct {
	r        *Robots // nil when counting
	counting bool
	body     []byte
	rec      *recording // where the counting pass records the lines that matter
	n        tally      // what has been stored, or counted, so far

	inRules   bool  // a rule has been seen since the last user-agent line
	start     tally // where the current group's agents, rules and usages start
	delayFrom int   // the first user-agent line no Crawl-delay binds yet (an index of agents)

	agents []Agent
	rules  []Rule
	usages []ContentUsage
	text   strings.Builder // the values kept, back to back
	st     *store          // where the Robots is stored, reused, for ParseFunc; nil for Parse
}

// tally counts what a file holds.
type tally struct {
	groups, agents, rules, usages, signals, other, sitemaps int
	bytes                                                   int // of the values kept
}

// init readies a zero builder to store what n counted of body.
func (b *builder) init(body []byte, n *tally) {
	if b.st != nil {
		b.st.init(b, body, n)
		return
	}
	b.r, b.body = &Robots{}, body
	if n.groups > 0 {
		b.r.Groups = make([]Group, 0, n.groups)
		b.agents = make([]Agent, 0, n.agents)
	}
	if n.rules > 0 {
		b.rules = make([]Rule, 0, n.rules)
	}
	if n.usages > 0 {
		b.usages = make([]ContentUsage, 0, n.usages)
	}
	if n.signals > 0 {
		b.r.ContentSignals = make([]ContentSignal, 0, n.signals)
	}
	if n.other > 0 {
		b.r.Other = make([]Record, 0, n.other)
	}
	if n.sitemaps > 0 {
		b.r.Sitemaps = make([]string, 0, n.sitemaps)
	}
	b.text.Grow(n.bytes)
}

// scan adds every line that sc reads and that matters. Counting, it
// records them.
func (b *builder) scan(sc *scanner) {
	var l line
	var own record // of a line, when not recording
	for sc.next(&l) {
		sc.checkUTF8(&l)
		if !l.matters() {
			continue
		}
		r := &own
		if b.rec != nil {
			r = b.rec.next(&l, sc)
		}
		r.set(&l)
		b.add(r)
	}
}

// replay adds the lines that the counting pass recorded in rec, then scans
// those it could not record.
func (b *builder) replay(rec *recording) {
	for i := range rec.records {
		b.add(&rec.records[i])
	}
	if rec.full {
		sc := rec.rest
		b.scan(&sc)
	}
}

// value returns the value of r, a line of the body.
func (b *builder) value(r *record) []byte {
	return b.body[r.valueStart : r.valueStart+int(r.valueLen)]
}

// rawKey returns the key of r as written.
func (b *builder) rawKey(r *record) []byte {
	k := r.valueStart - int(r.keyBack)
	return b.body[k : k+int(r.keyLen)]
}

// str returns v as a string that the Robots keeps, or counts its bytes.
func (b *builder) str(v []byte) string {
	if b.counting {
		b.n.bytes += len(v)
		return ""
	}
	return b.keep(v)
}

// keep returns v as a string that the Robots keeps.
func (b *builder) keep(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	if b.st != nil {
		return b.st.keep(v)
	}
	// The text was grown to hold every value, so it never moves: the
	// strings returned stay valid, and share its one allocation.
	n := b.text.Len()
	b.text.Write(v)
	return b.text.String()[n:]
}

// finish ends the last group and returns the Robots; dedupe may take its
// table from spare.
func (b *builder) finish(spare *[]int32) *Robots {
	b.endGroup()
	n := len(b.r.Sitemaps)
	b.r.Sitemaps = dedupe(b.r.Sitemaps, spare)
	if b.st == nil && n > len(b.r.Sitemaps)+len(b.r.Sitemaps)/4+16 {
		// Do not keep the room taken by duplicates (ParseFunc's store
		// is reused, and keeps it for the next file).
		b.r.Sitemaps = slices.Clone(b.r.Sitemaps)
	}
	return b.r
}

// endGroup hands the current group its agents, rules and usages.
func (b *builder) endGroup() {
	if b.counting || b.n.groups == 0 {
		return
	}
	g := &b.r.Groups[b.n.groups-1]
	// Full slice expressions: appending to one group's slice must not
	// overwrite the next group's.
	g.Agents = b.agents[b.start.agents:len(b.agents):len(b.agents)]
	if b.start.rules < len(b.rules) {
		g.Rules = b.rules[b.start.rules:len(b.rules):len(b.rules)]
	}
	if b.start.usages < len(b.usages) {
		g.ContentUsage = b.usages[b.start.usages:len(b.usages):len(b.usages)]
	}

}

// keepWarning reports whether a warning is kept: one is, up to MaxWarnings;
// the rest are counted.
func (b *builder) keepWarning() bool {
	switch {
	case b.counting:
		return false
	case len(b.r.Warnings) < MaxWarnings:
		return true
	}
	b.r.OmittedWarnings++
	return false
}

func (b *builder) warn(num int, kind WarningKind, msg string) {
	if b.keepWarning() {
		b.r.Warnings = append(b.r.Warnings, Warning{Line: num, Kind: kind, Message: msg})
	}
}

func (b *builder) add(r *record) {
	if !b.counting && r.flags != 0 {
		b.lineWarnings(r)
	}
	switch r.key {
	case keyNone:
		if r.has(flagUnparsable) {
			b.warn(r.num, Unparsable, "not a \"key: value\" record; ignored")
		}
	case keyUserAgent:
		if b.n.groups == 0 || b.inRules {
			b.endGroup()
			b.n.groups++
			if !b.counting {
				b.r.Groups = append(b.r.Groups, Group{})
			}
			b.start = b.n
			b.inRules, b.delayFrom = false, b.n.agents
		}
		v := b.str(b.value(r))
		b.n.agents++
		if !b.counting {
			b.agents = append(b.agents, Agent{Value: v, Line: r.num})
		}
		if len(b.value(r)) == 0 {
			b.warn(r.num, InvalidValue, "empty user-agent; it names no crawler")
		}
	case keyAllow, keyDisallow:
		if b.n.groups == 0 {
			b.warn(r.num, OutsideGroup, "rule before any user-agent line; ignored")
			return
		}
		v := b.str(b.value(r))
		b.n.rules++
		if !b.counting {
			b.rules = append(b.rules, Rule{Allow: r.key == keyAllow, Pattern: v, Line: r.num})
		}
		b.inRules = true
	case keySitemap:
		b.sitemap(r)
	case keyCrawlDelay:
		b.crawlDelay(r)
	case keyContentUsage:
		b.contentUsage(r)
	case keyContentSignal:
		b.contentSignal(r)
	case keyUnused:
		b.other(r)
	case keyUnknown:
		b.other(r)
		if b.keepWarning() {
			b.warn1(r.num, UnknownKey, unknownKeyMessage(b.rawKey(r)))
		}
	}
}

// warn1 adds a warning that keepWarning allowed.
func (b *builder) warn1(num int, kind WarningKind, msg string) {
	b.r.Warnings = append(b.r.Warnings, Warning{Line: num, Kind: kind, Message: msg})
}

// lineWarnings reports what is wrong with the line itself, whatever its key:
// what its flags say.
func (b *builder) lineWarnings(r *record) {
	if r.has(flagTooLong) {
		b.warn(r.num, LineTooLong, lineTooLong)
	}
	if r.has(flagNUL) {
		b.warn(r.num, NULByte, "NUL byte; the rest of the line was ignored")
	}
	if r.has(flagInvalidUTF8) {
		b.warn(r.num, InvalidUTF8, "not valid UTF-8")
	}
	if r.has(flagInnerBOM) {
		b.warn(r.num, BOMNotAtStart, "byte order mark (U+FEFF) after the start of the file")
	}
	if r.has(flagMissingColon) && r.key != keyUnknown {
		// An unknown key without a colon ("<br />") is reported as unknown.
		b.warn(r.num, MissingColon, "no colon between key and value; accepted")
	}
	if r.has(flagTypo) && b.keepWarning() {
		b.warn1(r.num, Misspelling, quote(b.rawKey(r))+" accepted as "+canonicalKeys[r.key])
	}
}

var lineTooLong = "line longer than " + strconv.Itoa(MaxLineLength) + " bytes; the rest was ignored"

var bomRune = []byte("\uFEFF")

// quote returns s quoted as a Go string literal, cut after maxQuoted bytes.
func quote(s []byte) string {
	if len(s) > maxQuoted {
		return strconv.Quote(string(s[:maxQuoted]) + "…")
	}
	return strconv.Quote(string(s))
}

func unknownKeyMessage(k []byte) string {
	msg := "unknown key " + quote(k) + "; kept, not interpreted"
	if bytes.HasPrefix(k, []byte("\u00EF\u00BB\u00BF")) {
		msg += " (it starts with a byte order mark encoded twice)"
	}
	return msg
}

// other keeps the line in Robots.Other, up to MaxOther records.
func (b *builder) other(r *record) {
	if b.n.other >= MaxOther {
		if !b.counting {
			b.r.OmittedOther++
		}
		return
	}
	b.n.other++
	k, v := b.str(b.rawKey(r)), b.str(b.value(r))
	if !b.counting {
		b.r.Other = append(b.r.Other, Record{Key: k, Value: v, Line: r.num})
	}
}

// sitemap keeps the line's value; duplicates are removed at the end.
func (b *builder) sitemap(r *record) {
	if len(b.value(r)) == 0 {
		b.warn(r.num, InvalidValue, "empty sitemap; ignored")
		return
	}
	v := b.str(b.value(r))
	b.n.sitemaps++
	if !b.counting {
		b.r.Sitemaps = append(b.r.Sitemaps, v)
	}
}

// dedupe removes from s, in place, every string equal to an earlier one.
// It takes its table from spare when spare is large enough, and leaves
// there one it allocates of at most maxSpareSet slots.
func dedupe(s []string, spare *[]int32) []string {
	if len(s) <= 16 {
		out := s[:0]
		for _, v := range s {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	// A set of the values kept, by open addressing, at most three quarters
	// full: it costs less than a map.
	size := 1 << bits.Len(uint(len(s)+len(s)/3))
	var out []string
	if len(s) < math.MaxInt32 {
		out = dedupeSet(s, spareSet(spare, size))
	} else {
		out = dedupeSet(s, make([]int, size))
	}
	return out
}

// maxSpareSet bounds the table of dedupe that a Parse leaves for the next:
// 16,384 slots, 64 KiB, enough for 12,288 sitemaps.
const maxSpareSet = 1 << 14

// spareSet returns a free table of size slots, spare's if it is large
// enough.
func spareSet(spare *[]int32, size int) []int32 {
	if size <= cap(*spare) {
		set := (*spare)[:size]
		clear(set)
		return set
	}
	set := make([]int32, size)
	if size <= maxSpareSet {
		*spare = set
	}
	return set
}

// dedupeSet is dedupe with set, a free table of a power of two slots, more
// than len(s). A slot holds an index of the result plus one, 0 when free.
func dedupeSet[I int32 | int](s []string, set []I) []string {
	mask := uint64(len(set) - 1)
	out := s[:0]
	for _, v := range s {
		for i := maphash.String(dedupeSeed, v) & mask; ; i = (i + 1) & mask {
			j := set[i]
			if j == 0 {
				out = append(out, v) // over an element already read
				set[i] = I(len(out))
				break
			}
			if out[j-1] == v {
				break
			}
		}
	}
	return out
}

// dedupeSeed seeds the hash of dedupe at random, so that no file can choose
// values that collide.
var dedupeSeed = maphash.MakeSeed()

func (b *builder) crawlDelay(r *record) {
	d, ok := parseSeconds(b.value(r))
	switch {
	case !ok:
		if b.keepWarning() {
			b.warn1(r.num, InvalidValue, "crawl-delay "+quote(b.value(r))+" is not a number of seconds; kept, not interpreted")
		}
		b.other(r)
	case b.n.groups == 0:
		b.warn(r.num, OutsideGroup, "crawl-delay before any user-agent line; kept, not interpreted")
		b.other(r)
	case b.delayFrom == b.n.agents:
		b.warn(r.num, InvalidValue, "second crawl-delay for the same user-agent lines; the first applies")
		b.other(r)
	default:
		// It binds to the user-agent lines directly above it: those named
		// since the previous Crawl-delay of the group. Lines after a rule
		// start a new group, so once the group has rules these are every
		// line of it that has no delay yet.
		if !b.counting {
			for i := b.delayFrom; i < b.n.agents; i++ {
				b.agents[i].CrawlDelay = d
			}
		}
		b.delayFrom = b.n.agents
	}
}

// maxSeconds bounds a crawl-delay so that it fits in a time.Duration.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

// parseSeconds parses a non-negative decimal number of seconds, such as "10"
// or "0.5", into a Duration, saturating at the largest Duration. It accepts
// nothing else: no sign, exponent, hex, Inf or NaN.
func parseSeconds(s []byte) (time.Duration, bool) {
	intPart, frac, _ := bytes.Cut(s, []byte{'.'})
	if len(intPart) == 0 && len(frac) == 0 || !allDigits(intPart) || !allDigits(frac) {
		return 0, false
	}
	var secs int64
	for i := 0; i < len(intPart); i++ {
		secs = secs*10 + int64(intPart[i]-'0')
		if secs > maxSeconds {
			return 1<<63 - 1, true
		}
	}
	d := time.Duration(secs) * time.Second
	scale := time.Second / 10
	for i := 0; i < len(frac) && scale > 0; i++ {
		d += time.Duration(frac[i]-'0') * scale
		scale /= 10
	}
	if d < 0 { // the fraction pushed it over the top
		return 1<<63 - 1, true
	}
	return d, true
}

func allDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// contentUsage adds a Content-Usage rule to the group. It is a group rule
// like Allow and Disallow, so a user-agent line after it starts a new group
// (draft-ietf-aipref-attach-05 §3: "rule =/ content-usage").
func (b *builder) contentUsage(r *record) {
	if b.n.groups == 0 {
		b.warn(r.num, OutsideGroup, "content-usage before any user-agent line; ignored")
		b.other(r)
		return
	}
	b.inRules = true
	v := b.str(b.value(r))
	b.n.usages++
	if b.counting {
		return
	}
	cu := splitContentUsage(v)
	cu.Line = r.num
	switch {
	case v == "":
		b.warn(r.num, InvalidValue, "empty content-usage; every usage preference it states is unknown")
	case v[0] == '*':
		b.warn(r.num, InvalidValue, "content-usage path must start with \"/\", not \"*\"; the whole value was read as preferences")
	}
	// Problems are built only for a value that is not well formed, the one
	// kind that gets a warning, and only while warnings are kept: a valid
	// line costs nothing beyond what the Robots keeps of it, and counts no
	// omitted warning past MaxWarnings.
	if v != "" && !usage.WellFormed(cu.Preferences) && b.keepWarning() {
		for _, p := range usage.Validate(cu.Preferences) {
			if p.Kind == usage.Syntax || p.Kind == usage.Empty {
				b.warn1(r.num, InvalidValue, "content-usage preferences do not parse ("+p.Message+"); every usage preference of the rule is unknown")
				break
			}
		}
	}
	b.usages = append(b.usages, cu)
}

// splitContentUsage splits a Content-Usage value into its optional path and
// its preferences. A path is there only when the value starts with "/"; it
// ends at the first space or tab, and the whole run of them after it
// separates it from the preferences (draft-ietf-aipref-attach-05 §3.2).
func splitContentUsage(v string) ContentUsage {
	if v == "" || v[0] != '/' {
		return ContentUsage{Preferences: v}
	}
	i := strings.IndexAny(v, " \t")
	if i < 0 {
		return ContentUsage{Path: v}
	}
	return ContentUsage{Path: v[:i], Preferences: strings.TrimLeft(v[i:], " \t")}
}

// contentSignal adds a Content-Signal record (Cloudflare's, not AIPREF) to
// the group. It is not a rule: like Crawl-delay it does not end a run of
// user-agent lines, so grouping stays as Google reads it.
func (b *builder) contentSignal(r *record) {
	if b.n.groups == 0 {
		b.warn(r.num, OutsideGroup, "content-signal before any user-agent line; kept, not interpreted")
		b.other(r)
		return
	}
	v := b.str(b.value(r))
	b.n.signals++
	if b.counting {
		return
	}
	// Past MaxWarnings, only a value with a problem counts an omitted
	// warning: a valid line has none. Only the first problem is built: a
	// line of many bad members costs one message, not one per member.
	if _, problems := usage.ParseSignalN(v, 1); len(problems) > 0 && b.keepWarning() {
		b.warn1(r.num, InvalidValue, "content-signal: "+problems[0].Message)
	}
	b.r.ContentSignals = append(b.r.ContentSignals, ContentSignal{Group: b.n.groups - 1, Value: v, Line: r.num})
}
