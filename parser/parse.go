package parser

import (
	"bytes"
	"cmp"
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
// allocates nothing for blank lines, comments and lines it cannot use, and a
// bounded amount for the warnings and uninterpreted records it keeps.
func Parse(body []byte) *Robots {
	count := builder{counting: true}
	count.run(body)
	b := newBuilder(&count.n)
	b.r.Lines = b.run(body)
	return b.finish()
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

// line is one line of a robots.txt file, split into key and value. Its
// slices point into the body: whatever is kept is copied.
type line struct {
	num          int
	text         []byte // the line as used: cut at MaxLineLength and at NUL
	key          key
	rawKey       []byte // the key as written
	value        []byte
	typo         bool // key accepted as a misspelling or extension
	missingColon bool
	tooLong      bool
	nul          bool
	comment      bool // the line holds a comment
	empty        bool // nothing but white space (and possibly a comment)
	unparsable   bool // not empty, but no key and value could be found
}

// scanner splits a robots.txt body into lines at LF, CR and CRLF, skipping a
// leading (possibly partial) UTF-8 byte order mark.
type scanner struct {
	s          []byte
	pos        int // start of the next line; len(s)+1 when done
	num        int // number of the last line returned
	lf, cr     int // next LF and CR at or after pos, len(s) when none
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
	return scanner{s: s, pos: n, lf: -1, cr: -1, partialBOM: n > 0 && n < len(bom)}
}

// next returns the next line and reports whether there was one. A body has
// one line more than it has line endings, so a final line ending is followed
// by an empty last line.
func (sc *scanner) next() (line, bool) {
	s := sc.s
	if sc.pos > len(s) {
		return line{}, false
	}
	// The positions of the next LF and CR are remembered across lines, so a
	// body with only one kind of line ending is still scanned once.
	if sc.lf < sc.pos {
		sc.lf = indexFrom(s, sc.pos, '\n')
	}
	if sc.cr < sc.pos {
		sc.cr = indexFrom(s, sc.pos, '\r')
	}
	end := min(sc.lf, sc.cr)
	text := s[sc.pos:end]
	switch {
	case end == len(s):
		sc.pos = end + 1
	case s[end] == '\r' && end+1 < len(s) && s[end+1] == '\n':
		sc.pos = end + 2
	default:
		sc.pos = end + 1
	}
	sc.num++
	return split(sc.num, text), true
}

func indexFrom(s []byte, from int, c byte) int {
	if i := bytes.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}

// split parses one line as Google's reference parser does: the line is cut
// at MaxLineLength and at a NUL byte, the comment is removed, and the rest is
// split at the first colon into key and value, both trimmed. Without a colon,
// a line of exactly two white-space separated tokens is accepted.
//
// The line is returned by value: it lives on the caller's stack, and filling
// it needs no write barrier, which costs more than splitting while the
// garbage collector runs.
func split(num int, text []byte) (l line) {
	l.num = num
	if len(text) > MaxLineLength {
		text, l.tooLong = text[:MaxLineLength], true
	}
	if i := bytes.IndexByte(text, 0); i >= 0 {
		text, l.nul = text[:i], true
	}
	l.text = text
	if i := bytes.IndexByte(text, '#'); i >= 0 {
		text, l.comment = text[:i], true
	}
	text = trim(text)
	if len(text) == 0 {
		l.empty = true
		return l
	}
	sep := bytes.IndexByte(text, ':')
	var k, v []byte
	if sep >= 0 {
		k, v = trim(text[:sep]), trim(text[sep+1:])
	} else {
		ws := indexSpace(text)
		if ws < 0 {
			l.unparsable = true
			return l
		}
		k, v = text[:ws], trim(text[ws:])
		if indexSpace(v) >= 0 {
			l.unparsable = true // more than two tokens
			return l
		}
		l.missingColon = true
	}
	if len(k) == 0 {
		l.unparsable = true
		return l
	}
	l.rawKey, l.value = k, v
	l.key, l.typo = classify(k)
	return l
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

func trim(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
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

func anyPrefixFold(s []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if hasPrefixFold(s, p) {
			return true
		}
	}
	return false
}

// unusedKeys are non-standard keys that real files use and that the parser
// keeps in Robots.Other without a warning.
var unusedKeys = [][]byte{
	[]byte("host"), []byte("clean-param"), []byte("noindex"), []byte("noarchive"), []byte("nofollow"),
	[]byte("request-rate"), []byte("visit-time"), []byte("revisit-after"), []byte("domain"),
}

var (
	crawlDelayKey    = []byte("crawl-delay")
	contentUsageKey  = []byte("content-usage")
	contentSignalKey = []byte("content-signal")
)

// classify says which key k stands for. As in Google's parser, the four
// standard keys are matched by case-insensitive prefix ("Disallowed" is a
// disallow) and with Google's accepted misspellings; typo reports that the key
// is not exactly the standard one.
func classify(k []byte) (key, bool) {
	switch {
	case hasPrefixFold(k, "user-agent"):
		return keyUserAgent, len(k) != len("user-agent")
	case anyPrefixFold(k, "useragent", "user agent"):
		return keyUserAgent, true
	case hasPrefixFold(k, "allow"):
		return keyAllow, len(k) != len("allow")
	case hasPrefixFold(k, "disallow"):
		return keyDisallow, len(k) != len("disallow")
	case anyPrefixFold(k, "dissallow", "dissalow", "disalow", "diasllow", "disallaw"):
		return keyDisallow, true
	case hasPrefixFold(k, "sitemap"):
		return keySitemap, len(k) != len("sitemap")
	case hasPrefixFold(k, "site-map"):
		return keySitemap, true
	case bytes.EqualFold(k, crawlDelayKey):
		return keyCrawlDelay, false
	case bytes.EqualFold(k, contentUsageKey):
		return keyContentUsage, false
	case bytes.EqualFold(k, contentSignalKey):
		return keyContentSignal, false
	}
	for _, u := range unusedKeys {
		if bytes.EqualFold(k, u) {
			return keyUnused, false
		}
	}
	return keyUnknown, false
}

var canonicalKeys = [...]string{
	keyUserAgent: "user-agent",
	keyAllow:     "allow",
	keyDisallow:  "disallow",
	keySitemap:   "sitemap",
}

// builder assembles a Robots from lines, in two passes over them. Counting,
// it only counts what it would store; storing, it fills slices allocated at
// the counted sizes, and a string that holds every value kept.
//
// The agents, rules and Content-Usage records of a group are contiguous in
// file order (a group ends where the next begins), so all of them live in
// three shared slices and each group gets its part when it ends: no
// allocation per group.
type builder struct {
	r        *Robots // nil when counting
	counting bool
	n        tally // what has been stored, or counted, so far

	inRules   bool  // a rule has been seen since the last user-agent line
	start     tally // where the current group's agents, rules and usages start
	delayFrom int   // the first user-agent line no Crawl-delay binds yet (an index of agents)

	agents []Agent
	rules  []Rule
	usages []ContentUsage
	text   strings.Builder // the values kept, back to back
}

// tally counts what a file holds.
type tally struct {
	groups, agents, rules, usages, signals, other, sitemaps int
	bytes                                                   int // of the values kept
}

// newBuilder returns a builder that stores what n counted.
func newBuilder(n *tally) *builder {
	b := &builder{r: &Robots{}}
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
	return b
}

// run adds every line of body and returns the number of lines.
func (b *builder) run(body []byte) int {
	sc := newScanner(body)
	if sc.partialBOM {
		b.warn(1, InvalidUTF8, "an incomplete UTF-8 byte order mark at the start was skipped")
	}
	for {
		l, ok := sc.next()
		if !ok {
			break
		}
		b.add(&l)
	}
	return sc.num
}

// str returns v as a string that the Robots keeps, or counts its bytes.
func (b *builder) str(v []byte) string {
	if b.counting {
		b.n.bytes += len(v)
		return ""
	}
	if len(v) == 0 {
		return ""
	}
	// The text was grown to hold every value, so it never moves: the
	// strings returned stay valid, and share its one allocation.
	n := b.text.Len()
	b.text.Write(v)
	return b.text.String()[n:]
}

// finish ends the last group and returns the Robots.
func (b *builder) finish() *Robots {
	b.endGroup()
	b.r.Sitemaps = dedupe(b.r.Sitemaps)
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

func (b *builder) add(l *line) {
	b.lineWarnings(l)
	switch l.key {
	case keyNone:
		if l.unparsable {
			b.warn(l.num, Unparsable, "not a \"key: value\" record; ignored")
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
		v := b.str(l.value)
		b.n.agents++
		if !b.counting {
			b.agents = append(b.agents, Agent{Value: v, Line: l.num})
		}
		if len(l.value) == 0 {
			b.warn(l.num, InvalidValue, "empty user-agent; it names no crawler")
		}
	case keyAllow, keyDisallow:
		if b.n.groups == 0 {
			b.warn(l.num, OutsideGroup, "rule before any user-agent line; ignored")
			return
		}
		v := b.str(l.value)
		b.n.rules++
		if !b.counting {
			b.rules = append(b.rules, Rule{Allow: l.key == keyAllow, Pattern: v, Line: l.num})
		}
		b.inRules = true
	case keySitemap:
		b.sitemap(l)
	case keyCrawlDelay:
		b.crawlDelay(l)
	case keyContentUsage:
		b.contentUsage(l)
	case keyContentSignal:
		b.contentSignal(l)
	case keyUnused:
		b.other(l)
	case keyUnknown:
		b.other(l)
		if b.keepWarning() {
			b.warn1(l.num, UnknownKey, unknownKeyMessage(l.rawKey))
		}
	}
}

// warn1 adds a warning that keepWarning allowed.
func (b *builder) warn1(num int, kind WarningKind, msg string) {
	b.r.Warnings = append(b.r.Warnings, Warning{Line: num, Kind: kind, Message: msg})
}

// lineWarnings reports what is wrong with the line itself, whatever its key.
func (b *builder) lineWarnings(l *line) {
	if b.counting {
		return
	}
	if l.tooLong {
		b.warn(l.num, LineTooLong, lineTooLong)
	}
	if l.nul {
		b.warn(l.num, NULByte, "NUL byte; the rest of the line was ignored")
	}
	if !isASCII(l.text) {
		if !utf8.Valid(l.text) {
			b.warn(l.num, InvalidUTF8, "not valid UTF-8")
		}
		if bytes.Contains(l.text, bomRune) {
			b.warn(l.num, BOMNotAtStart, "byte order mark (U+FEFF) after the start of the file")
		}
	}
	if l.missingColon && l.key != keyUnknown {
		// An unknown key without a colon ("<br />") is reported as unknown.
		b.warn(l.num, MissingColon, "no colon between key and value; accepted")
	}
	if l.typo && b.keepWarning() {
		b.warn1(l.num, Misspelling, quote(l.rawKey)+" accepted as "+canonicalKeys[l.key])
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

// isASCII reports whether s holds only ASCII octets, eight at a time: most
// lines do, and then they are valid UTF-8 without a byte order mark.
func isASCII(s []byte) bool {
	const high = 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if w&high != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func unknownKeyMessage(k []byte) string {
	msg := "unknown key " + quote(k) + "; kept, not interpreted"
	if bytes.HasPrefix(k, []byte("\u00EF\u00BB\u00BF")) {
		msg += " (it starts with a byte order mark encoded twice)"
	}
	return msg
}

// other keeps the line in Robots.Other, up to MaxOther records.
func (b *builder) other(l *line) {
	if b.n.other >= MaxOther {
		if !b.counting {
			b.r.OmittedOther++
		}
		return
	}
	b.n.other++
	k, v := b.str(l.rawKey), b.str(l.value)
	if !b.counting {
		b.r.Other = append(b.r.Other, Record{Key: k, Value: v, Line: l.num})
	}
}

// sitemap keeps the line's value; duplicates are removed at the end.
func (b *builder) sitemap(l *line) {
	if len(l.value) == 0 {
		b.warn(l.num, InvalidValue, "empty sitemap; ignored")
		return
	}
	v := b.str(l.value)
	b.n.sitemaps++
	if !b.counting {
		b.r.Sitemaps = append(b.r.Sitemaps, v)
	}
}

// dedupe removes from s, in place, every string equal to an earlier one.
// The strings must not be empty.
func dedupe(s []string) []string {
	if len(s) <= 16 {
		out := s[:0]
		for _, v := range s {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	// Sort the indices by value, then by position: of each run of equal
	// values, all but the first are duplicates, emptied here and dropped
	// below. An index costs less than a set's entry.
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		if c := strings.Compare(s[i], s[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	prev := s[idx[0]]
	for _, i := range idx[1:] {
		if s[i] == prev {
			s[i] = ""
		} else {
			prev = s[i]
		}
	}
	out := slices.DeleteFunc(s, func(v string) bool { return v == "" })
	if cap(out) > len(out)+len(out)/4+16 {
		// Do not keep the room taken by duplicates.
		out = slices.Clone(out)
	}
	return out
}

func (b *builder) crawlDelay(l *line) {
	d, ok := parseSeconds(l.value)
	switch {
	case !ok:
		if b.keepWarning() {
			b.warn1(l.num, InvalidValue, "crawl-delay "+quote(l.value)+" is not a number of seconds; kept, not interpreted")
		}
		b.other(l)
	case b.n.groups == 0:
		b.warn(l.num, OutsideGroup, "crawl-delay before any user-agent line; kept, not interpreted")
		b.other(l)
	case b.delayFrom == b.n.agents:
		b.warn(l.num, InvalidValue, "second crawl-delay for the same user-agent lines; the first applies")
		b.other(l)
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
func (b *builder) contentUsage(l *line) {
	if b.n.groups == 0 {
		b.warn(l.num, OutsideGroup, "content-usage before any user-agent line; ignored")
		b.other(l)
		return
	}
	b.inRules = true
	v := b.str(l.value)
	b.n.usages++
	if b.counting {
		return
	}
	cu := splitContentUsage(v)
	cu.Line = l.num
	switch {
	case v == "":
		b.warn(l.num, InvalidValue, "empty content-usage; every usage preference it states is unknown")
	case v[0] == '*':
		b.warn(l.num, InvalidValue, "content-usage path must start with \"/\", not \"*\"; the whole value was read as preferences")
	}
	// Problems are built only for a value that is not well formed, the one
	// kind that gets a warning, and only while warnings are kept: a valid
	// line costs nothing beyond what the Robots keeps of it, and counts no
	// omitted warning past MaxWarnings.
	if v != "" && !usage.WellFormed(cu.Preferences) && b.keepWarning() {
		for _, p := range usage.Validate(cu.Preferences) {
			if p.Kind == usage.Syntax || p.Kind == usage.Empty {
				b.warn1(l.num, InvalidValue, "content-usage preferences do not parse ("+p.Message+"); every usage preference of the rule is unknown")
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
func (b *builder) contentSignal(l *line) {
	if b.n.groups == 0 {
		b.warn(l.num, OutsideGroup, "content-signal before any user-agent line; kept, not interpreted")
		b.other(l)
		return
	}
	v := b.str(l.value)
	b.n.signals++
	if b.counting {
		return
	}
	// Past MaxWarnings, only a value with a problem counts an omitted
	// warning: a valid line has none. Only the first problem is built: a
	// line of many bad members costs one message, not one per member.
	if _, problems := usage.ParseSignalN(v, 1); len(problems) > 0 && b.keepWarning() {
		b.warn1(l.num, InvalidValue, "content-signal: "+problems[0].Message)
	}
	b.r.ContentSignals = append(b.r.ContentSignals, ContentSignal{Group: b.n.groups - 1, Value: v, Line: l.num})
}
