package parser

import (
	"bytes"
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

// Parse parses a robots.txt body. It never fails: lines that do not parse
// are skipped and reported in Robots.Warnings. Every byte of body is read;
// bounding the size is the caller's job (RFC 9309 §2.5 asks for at least
// 500 KiB). The returned Robots shares no memory with body.
func Parse(body []byte) *Robots {
	r := &Robots{}
	b := builder{r: r, group: -1}
	// Most lines of most files are rules: reserve room for one per line
	// (counted at memory speed) rather than regrow the slice many times.
	n := bytes.Count(body, []byte{'\n'})
	if n == 0 {
		n = bytes.Count(body, []byte{'\r'}) // an old Mac file, or one line
	}
	if n > 8 {
		b.rules = make([]Rule, 0, n+1)
	}
	sc := newScanner(string(body))
	var l line
	for sc.next(&l) {
		b.add(&l)
	}
	b.finish()
	r.Lines = sc.num
	if sc.partialBOM {
		// Put the warning first: it is about line 1.
		r.Warnings = append([]Warning{{Line: 1, Kind: InvalidUTF8,
			Message: "an incomplete UTF-8 byte order mark at the start was skipped"}}, r.Warnings...)
	}
	return r
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

// line is one line of a robots.txt file, split into key and value.
type line struct {
	num          int
	text         string // the line as used: cut at MaxLineLength and at NUL
	key          key
	rawKey       string // the key as written
	value        string
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
	s          string
	pos        int // start of the next line; len(s)+1 when done
	num        int // number of the last line returned
	lf, cr     int // next LF and CR at or after pos, len(s) when none
	partialBOM bool
}

func newScanner(s string) *scanner {
	const bom = "\xEF\xBB\xBF"
	n := 0
	for n < len(bom) && n < len(s) && s[n] == bom[n] {
		n++
	}
	// Only a complete BOM, or a leading part of one followed by something
	// else, is skipped: Google skips the longest common prefix.
	return &scanner{s: s, pos: n, lf: -1, cr: -1, partialBOM: n > 0 && n < len(bom)}
}

// next sets l to the next line and reports whether there was one. A body
// has one line more than it has line endings, so a final line ending is
// followed by an empty last line.
func (sc *scanner) next(l *line) bool {
	s := sc.s
	if sc.pos > len(s) {
		return false
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
	split(l, sc.num, text)
	return true
}

func indexFrom(s string, from int, c byte) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}

// split parses one line into l as Google's reference parser does: the line
// is cut at MaxLineLength and at a NUL byte, the comment is removed, and the
// rest is split at the first colon into key and value, both trimmed. Without
// a colon, a line of exactly two white-space separated tokens is accepted.
func split(l *line, num int, text string) {
	*l = line{num: num}
	if len(text) > MaxLineLength {
		text, l.tooLong = text[:MaxLineLength], true
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		text, l.nul = text[:i], true
	}
	l.text = text
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text, l.comment = text[:i], true
	}
	text = trim(text)
	if text == "" {
		l.empty = true
		return
	}
	sep := strings.IndexByte(text, ':')
	var k, v string
	if sep >= 0 {
		k, v = trim(text[:sep]), trim(text[sep+1:])
	} else {
		ws := strings.IndexAny(text, " \t")
		if ws < 0 {
			l.unparsable = true
			return
		}
		k, v = text[:ws], trim(text[ws:])
		if strings.ContainsAny(v, " \t") {
			l.unparsable = true // more than two tokens
			return
		}
		l.missingColon = true
	}
	if k == "" {
		l.unparsable = true
		return
	}
	l.rawKey, l.value = k, v
	l.key, l.typo = classify(k)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func trim(s string) string {
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
func hasPrefixFold(s, prefix string) bool {
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

func anyPrefixFold(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if hasPrefixFold(s, p) {
			return true
		}
	}
	return false
}

// unusedKeys are non-standard keys that real files use and that the parser
// keeps in Robots.Other without a warning.
var unusedKeys = []string{
	"host", "clean-param", "noindex", "noarchive", "nofollow", "request-rate",
	"visit-time", "revisit-after", "domain",
}

// classify says which key k stands for. As in Google's parser, the four
// standard keys are matched by case-insensitive prefix ("Disallowed" is a
// disallow) and with Google's accepted misspellings; typo reports that the key
// is not exactly the standard one.
func classify(k string) (key, bool) {
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
	case strings.EqualFold(k, "crawl-delay"):
		return keyCrawlDelay, false
	case strings.EqualFold(k, "content-usage"):
		return keyContentUsage, false
	case strings.EqualFold(k, "content-signal"):
		return keyContentSignal, false
	}
	for _, u := range unusedKeys {
		if strings.EqualFold(k, u) {
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

// builder assembles a Robots from lines.
//
// The agents and rules of a group are contiguous in file order (a group ends
// where the next begins), so all of them live in two shared slices and each
// group gets its part at the end: no allocation per group.
type builder struct {
	r        *Robots
	group    int  // index of the current group, -1 before the first
	inRules  bool // a rule has been seen since the last user-agent line
	hasDelay bool // the current group has a crawl-delay
	sitemaps map[string]struct{}

	agents []Agent
	rules  []Rule
	starts []span // where each group's agents and rules start
}

type span struct{ agent, rule int }

// finish hands every group its agents and rules.
func (b *builder) finish() {
	if cap(b.rules) > 2*len(b.rules)+16 {
		// Do not keep the room reserved for lines that were not rules.
		b.rules = slices.Clone(b.rules)
	}
	b.starts = append(b.starts, span{len(b.agents), len(b.rules)})
	for i := range b.r.Groups {
		s, e := b.starts[i], b.starts[i+1]
		g := &b.r.Groups[i]
		// Full slice expressions: appending to one group's slice must not
		// overwrite the next group's.
		g.Agents = b.agents[s.agent:e.agent:e.agent]
		if s.rule < e.rule {
			g.Rules = b.rules[s.rule:e.rule:e.rule]
		}
	}
}

func (b *builder) warn(num int, kind WarningKind, msg string) {
	b.r.Warnings = append(b.r.Warnings, Warning{Line: num, Kind: kind, Message: msg})
}

func (b *builder) add(l *line) {
	b.lineWarnings(l)
	switch l.key {
	case keyNone:
		if l.unparsable {
			b.warn(l.num, Unparsable, "not a \"key: value\" record; ignored")
		}
	case keyUserAgent:
		if b.group < 0 || b.inRules {
			b.r.Groups = append(b.r.Groups, Group{})
			b.starts = append(b.starts, span{len(b.agents), len(b.rules)})
			b.group, b.inRules, b.hasDelay = len(b.r.Groups)-1, false, false
		}
		b.agents = append(b.agents, Agent{Value: l.value, Line: l.num})
		if l.value == "" {
			b.warn(l.num, InvalidValue, "empty user-agent; it names no crawler")
		}
	case keyAllow, keyDisallow:
		if b.group < 0 {
			b.warn(l.num, OutsideGroup, "rule before any user-agent line; ignored")
			return
		}
		b.rules = append(b.rules, Rule{Allow: l.key == keyAllow, Pattern: l.value, Line: l.num})
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
		b.warn(l.num, UnknownKey, unknownKeyMessage(l.rawKey))
	}
}

// lineWarnings reports what is wrong with the line itself, whatever its key.
func (b *builder) lineWarnings(l *line) {
	if l.tooLong {
		b.warn(l.num, LineTooLong, "line longer than "+strconv.Itoa(MaxLineLength)+" bytes; the rest was ignored")
	}
	if l.nul {
		b.warn(l.num, NULByte, "NUL byte; the rest of the line was ignored")
	}
	if !isASCII(l.text) {
		if !utf8.ValidString(l.text) {
			b.warn(l.num, InvalidUTF8, "not valid UTF-8")
		}
		if strings.Contains(l.text, "\uFEFF") {
			b.warn(l.num, BOMNotAtStart, "byte order mark (U+FEFF) after the start of the file")
		}
	}
	if l.missingColon && l.key != keyUnknown {
		// An unknown key without a colon ("<br />") is reported as unknown.
		b.warn(l.num, MissingColon, "no colon between key and value; accepted")
	}
	if l.typo {
		b.warn(l.num, Misspelling, strconv.Quote(l.rawKey)+" accepted as "+canonicalKeys[l.key])
	}
}

// isASCII reports whether s holds only ASCII octets, eight at a time: most
// lines do, and then they are valid UTF-8 without a byte order mark.
func isASCII(s string) bool {
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

func unknownKeyMessage(k string) string {
	msg := "unknown key " + strconv.Quote(k) + "; kept, not interpreted"
	if strings.HasPrefix(k, "\u00EF\u00BB\u00BF") {
		msg += " (it starts with a byte order mark encoded twice)"
	}
	return msg
}

func (b *builder) other(l *line) {
	b.r.Other = append(b.r.Other, Record{Key: l.rawKey, Value: l.value, Line: l.num})
}

func (b *builder) sitemap(l *line) {
	if l.value == "" {
		b.warn(l.num, InvalidValue, "empty sitemap; ignored")
		return
	}
	r := b.r
	// Small files: a linear scan; larger ones switch to a set.
	const linear = 16
	if len(r.Sitemaps) < linear {
		for _, s := range r.Sitemaps {
			if s == l.value {
				return
			}
		}
	} else {
		if b.sitemaps == nil {
			b.sitemaps = make(map[string]struct{}, 2*linear)
			for _, s := range r.Sitemaps {
				b.sitemaps[s] = struct{}{}
			}
		}
		if _, dup := b.sitemaps[l.value]; dup {
			return
		}
		b.sitemaps[l.value] = struct{}{}
	}
	r.Sitemaps = append(r.Sitemaps, l.value)
}

func (b *builder) crawlDelay(l *line) {
	d, ok := parseSeconds(l.value)
	switch {
	case !ok:
		b.warn(l.num, InvalidValue, "crawl-delay "+strconv.Quote(l.value)+" is not a number of seconds; kept, not interpreted")
		b.other(l)
	case b.group < 0:
		b.warn(l.num, OutsideGroup, "crawl-delay before any user-agent line; kept, not interpreted")
		b.other(l)
	case b.hasDelay:
		b.warn(l.num, InvalidValue, "second crawl-delay in one group; the first applies")
		b.other(l)
	default:
		b.r.Groups[b.group].CrawlDelay, b.hasDelay = d, true
	}
}

// maxSeconds bounds a crawl-delay so that it fits in a time.Duration.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

// parseSeconds parses a non-negative decimal number of seconds, such as "10"
// or "0.5", into a Duration, saturating at the largest Duration. It accepts
// nothing else: no sign, exponent, hex, Inf or NaN.
func parseSeconds(s string) (time.Duration, bool) {
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
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

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// contentUsage adds a Content-Usage rule to the group. It is a group rule
// like Allow and Disallow, so a user-agent line after it starts a new group
// (draft-ietf-aipref-attach-05 §3: "rule =/ content-usage").
func (b *builder) contentUsage(l *line) {
	if b.group < 0 {
		b.warn(l.num, OutsideGroup, "content-usage before any user-agent line; ignored")
		b.other(l)
		return
	}
	cu := splitContentUsage(l.value)
	cu.Line = l.num
	switch {
	case l.value == "":
		b.warn(l.num, InvalidValue, "empty content-usage; every usage preference it states is unknown")
	case l.value[0] == '*':
		b.warn(l.num, InvalidValue, "content-usage path must start with \"/\", not \"*\"; the whole value was read as preferences")
	}
	if l.value != "" {
		for _, p := range usage.Validate(cu.Preferences) {
			if p.Kind == usage.Syntax || p.Kind == usage.Empty {
				b.warn(l.num, InvalidValue, "content-usage preferences do not parse ("+p.Message+"); every usage preference of the rule is unknown")
				break
			}
		}
	}
	g := &b.r.Groups[b.group]
	g.ContentUsage = append(g.ContentUsage, cu)
	b.inRules = true
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
	if b.group < 0 {
		b.warn(l.num, OutsideGroup, "content-signal before any user-agent line; kept, not interpreted")
		b.other(l)
		return
	}
	if _, problems := usage.ParseSignal(l.value); len(problems) > 0 {
		b.warn(l.num, InvalidValue, "content-signal: "+problems[0].Message)
	}
	g := &b.r.Groups[b.group]
	g.ContentSignal = append(g.ContentSignal, Record{Key: l.rawKey, Value: l.value, Line: l.num})
}
