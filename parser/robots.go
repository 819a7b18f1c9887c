// Package parser turns the bytes of a robots.txt file into a Robots value:
// its groups (user-agent lines and the rules that follow them, with line
// numbers), sitemaps, crawl-delays, AIPREF Content-Usage records, every other
// record, and a warning for every line accepted only leniently or not at all.
//
// Parsing follows RFC 9309 §2.2 and, where the RFC is silent or permissive,
// Google's open-source parser: lines end at LF, CR or CRLF; a UTF-8 byte order
// mark (or a leading part of one) at the start is skipped; keys are matched
// case-insensitively and by prefix, with Google's accepted misspellings; a
// missing colon is accepted when the line holds exactly two tokens; a NUL byte
// ends its line; a line longer than 16,663 bytes is cut there and still used;
// blank lines and non-group records never end a group.
//
// Parse never fails and reads every byte it is given, in time linear in its
// length. Its memory is linear too, and small: the Robots it returns keeps
// the values of the records that matter and at most 6 times the body's
// length in all (a file of nothing but the smallest groups), and Parse
// allocates little more than that: nothing for blank lines, comments and
// lines it cannot use. So that junk costs nothing, it keeps the first
// MaxWarnings warnings and the first MaxOther uninterpreted records and
// counts the rest. Non-goals: fetching (the 500 KiB cap belongs to the fetcher),
// deciding whether a URL is allowed (package matcher does that), and
// interpreting records other than those listed above.
package parser

import (
	"strconv"
	"strings"
	"time"
)

// Robots is a parsed robots.txt file.
type Robots struct {
	// Groups are the groups of the file in order. A group is a run of
	// user-agent lines and the rules that follow them (RFC 9309 §2.1).
	Groups []Group

	// ContentSignals are the Content-Signal records of the groups
	// (Cloudflare's "search=yes, ai-train=no"; not AIPREF), in file order.
	// They are rare, so they are kept here rather than in every Group. They
	// do not end a run of user-agent lines; one before any group is in
	// Other.
	ContentSignals []ContentSignal

	// Sitemaps are the values of the Sitemap records, in file order, each
	// listed once. Sitemap records may appear anywhere in the file.
	Sitemaps []string

	// Other holds the records that the parser recognizes as "key: value" but
	// does not interpret or cannot place: Host, Clean-param, Noindex, unknown
	// keys, and Crawl-delay or Content-Usage records outside any group or
	// with an invalid value. They never end a group (RFC 9309 §2.2.4). Only
	// the first MaxOther are kept.
	Other []Record

	// OmittedOther is the number of records past the first MaxOther, left
	// out of Other.
	OmittedOther int

	// Warnings describe the lines accepted only leniently or not at all, in
	// line order. Only the first MaxWarnings are kept.
	Warnings []Warning

	// OmittedWarnings is the number of warnings past the first MaxWarnings,
	// left out of Warnings.
	OmittedWarnings int

	// Lines is the number of lines in the file. A final line ending starts a
	// last, empty line, as in Google's reference parser.
	Lines int
}

// Group is one group of a robots.txt file: the user-agent lines that start
// it and the records that follow until the next user-agent line after a rule.
type Group struct {
	// Agents are the group's user-agent lines, at least one.
	Agents []Agent

	// Rules are the group's allow and disallow rules in file order.
	Rules []Rule

	// ContentUsage holds the group's AIPREF Content-Usage rules in file
	// order (draft-ietf-aipref-attach-05 §3). Like Allow and Disallow they
	// are group rules: a user-agent line after one starts a new group.
	ContentUsage []ContentUsage
}

// Agent is the value of one user-agent line.
type Agent struct {
	// Value is the line's value as written, without comment and surrounding
	// white space.
	Value string
	// Line is the 1-based line number of the user-agent line.
	Line int
	// CrawlDelay is the Crawl-delay that applies to the crawler the line
	// names, zero when none does. A Crawl-delay record binds to the
	// user-agent lines directly above it: those named since the previous
	// Crawl-delay record of the group, or, once the group has rules, every
	// one of its lines that has none yet; the first that binds to a line
	// holds. So "User-agent: a / Crawl-delay: 1 / User-agent: b /
	// Crawl-delay: 2 / Disallow: /x" gives a 1 s and b 2 s, and both the
	// rule. Crawl-delay is not part of RFC 9309; the crawlers that honour
	// it, and the parsers whose tests cover it, read it so.
	CrawlDelay time.Duration
}

// IsGlobal reports whether the line names every crawler: its value is "*"
// alone or followed by white space, as Google reads it ("* # all" is global,
// "*bot" is not).
func (a Agent) IsGlobal() bool {
	v := a.Value
	return len(v) > 0 && v[0] == '*' && (len(v) == 1 || v[1] == ' ' || v[1] == '\t')
}

// Names reports whether the line names the crawler called name, a valid
// name (see IsValidName). A name that is a product token (letters, '_' and
// '-') is compared, ignoring case, with the line's product token (Token), as
// RFC 9309 §2.2.1 and Google read the line, so that "FooBot/2.1" names
// FooBot and "AB42bot" names AB. A name with other characters, such as
// MJ12bot, 360Spider or Mail.RU_Bot, is compared with the line's value up
// to its first white space or '/', never with a part of it, so that MJ12bot
// obeys "User-agent: MJ12bot" and AB42bot never obeys "User-agent: AB". A
// global line ("*") names no crawler: see IsGlobal.
func (a Agent) Names(name string) bool {
	if a.IsGlobal() {
		return false
	}
	if IsValidToken(name) {
		return strings.EqualFold(a.Token(), name)
	}
	v := a.Value
	if i := strings.IndexAny(v, " \t/"); i >= 0 {
		v = v[:i]
	}
	return strings.EqualFold(v, name)
}

// Token returns the product token the line names: its value up to the first
// character outside [A-Za-z_-] (RFC 9309 §2.2.1), so "FooBot/2.1" names
// "FooBot". It is empty for a global line and for a value that does not start
// with a token character.
func (a Agent) Token() string {
	v := a.Value
	for i := 0; i < len(v); i++ {
		if !IsTokenChar(v[i]) {
			return v[:i]
		}
	}
	return v
}

// IsTokenChar reports whether c may appear in a product token: a letter,
// '_' or '-' (RFC 9309 §2.2.1).
func IsTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_'
}

// IsValidToken reports whether s is a valid product token: non-empty and made
// only of letters, '_' and '-' (RFC 9309 §2.2.1).
func IsValidToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTokenChar(s[i]) {
			return false
		}
	}
	return true
}

// IsNameChar reports whether c may appear in a crawler's name: a
// character of an HTTP token (RFC 9110 §5.6.2), a letter, a digit or one of
// !#$%&'*+-.^_`|~.
func IsNameChar(c byte) bool {
	return c < 0x80 && nameChars[c]
}

var nameChars = func() (t [128]bool) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = true
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range []byte("!#$%&'*+-.^_`|~") {
		t[c] = true
	}
	return t
}()

// IsValidName reports whether s can name a crawler: an HTTP token (RFC 9110
// §5.6.2), as a User-Agent's product name is: letters and digits and
// !#$%&'*+-.^_`|~, so MJ12bot, 360Spider and Mail.RU_Bot are names, "Foo
// Bar" and "" are not. Every product token (IsValidToken) is a name.
func IsValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsNameChar(s[i]) {
			return false
		}
	}
	return true
}

// NameOf returns the crawler name a User-Agent value starts with, its
// leading product up to '/' ("MJ12bot" of "MJ12bot/v1.4.8 (+http://mj12bot.com/)"),
// and "" when it starts with no name character.
func NameOf(userAgent string) string {
	for i := 0; i < len(userAgent); i++ {
		if !IsNameChar(userAgent[i]) {
			return userAgent[:i]
		}
	}
	return userAgent
}

// Rule is one allow or disallow line of a group.
type Rule struct {
	// Allow is true for an Allow rule, false for a Disallow rule.
	Allow bool
	// Pattern is the rule's value as written, without comment and
	// surrounding white space. It may be empty ("Disallow:"), which matches
	// nothing.
	Pattern string
	// Line is the 1-based line number of the rule.
	Line int
}

// String returns the rule as a robots.txt line, such as
// "Content-Usage: /a train-ai=n"; "(no rule)" for the zero ContentUsage, as
// for the zero Rule.
func (c ContentUsage) String() string {
	switch {
	case c == (ContentUsage{}):
		return "(no rule)"
	case c.Path == "":
		return "Content-Usage: " + c.Preferences
	case c.Preferences == "":
		return "Content-Usage: " + c.Path
	}
	return "Content-Usage: " + c.Path + " " + c.Preferences
}

// String returns the rule as a robots.txt line, such as "Disallow: /a". The
// zero Rule, which stands for no rule where a result has none to give (a
// Decision or matcher.Result that no rule decided), is "(no rule)": a rule
// of a file has a line number.
func (r Rule) String() string {
	if r == (Rule{}) {
		return "(no rule)"
	}
	if r.Allow {
		return "Allow: " + r.Pattern
	}
	return "Disallow: " + r.Pattern
}

// ContentUsage is one AIPREF Content-Usage rule: usage preferences for the
// content under an optional path ("Content-Usage: /public/ train-ai=y").
type ContentUsage struct {
	// Path is the path pattern the preferences apply to, matched like an
	// Allow or Disallow pattern; empty when the rule has none and applies to
	// every path the group lets a crawler fetch. A path is there only when
	// the value starts with "/" (draft-ietf-aipref-attach-05 §3.2).
	Path string
	// Preferences is the usage preference Dictionary as written, such as
	// "train-ai=n, search=y"; usage.Parse reads it.
	Preferences string
	// Line is the 1-based line number of the record.
	Line int
}

// ContentSignal is one Content-Signal record of a group.
type ContentSignal struct {
	// Group is the index in Robots.Groups of the group it belongs to.
	Group int
	// Value is the value as written, such as "search=yes, ai-train=no";
	// usage.ParseSignal reads it.
	Value string
	// Line is the 1-based line number of the record.
	Line int
}

// Record is a "key: value" line that the parser keeps without interpreting.
type Record struct {
	// Key is the key as written, without surrounding white space.
	Key string
	// Value is the value as written, without comment and surrounding white
	// space.
	Value string
	// Line is the 1-based line number of the record.
	Line int
}

// Warning describes a line that was accepted only leniently, or not at all.
type Warning struct {
	// Line is the 1-based line number the warning is about.
	Line int
	// Kind says what is wrong with the line.
	Kind WarningKind
	// Message explains the warning in one lower-case phrase. A key or
	// value it quotes is cut after 64 bytes, and "…" appended.
	Message string
}

// String returns the warning as "line N: message".
func (w Warning) String() string {
	return "line " + strconv.Itoa(w.Line) + ": " + w.Message
}

// WarningKind classifies warnings.
type WarningKind uint8

// The kinds of warnings.
const (
	// MissingColon: "disallow /x" was accepted as "disallow: /x" (Google).
	MissingColon WarningKind = iota + 1
	// Misspelling: the key was accepted as a misspelling or extension of a
	// known key ("useragent", "dissallow", "site-map", "Disallowed").
	Misspelling
	// UnknownKey: the key is not one the parser knows; the record is kept in
	// Robots.Other.
	UnknownKey
	// OutsideGroup: a group member (allow, disallow, crawl-delay,
	// content-usage) appears before any user-agent line; rules there are
	// ignored (RFC 9309 §2.2.2).
	OutsideGroup
	// LineTooLong: the line is longer than MaxLineLength bytes; the rest
	// was ignored.
	LineTooLong
	// InvalidUTF8: the line is not valid UTF-8 (RFC 9309 §2.3 requires it).
	InvalidUTF8
	// NULByte: the line holds a NUL byte; it and the rest of the line were
	// ignored.
	NULByte
	// BOMNotAtStart: a UTF-8 byte order mark appears after the start of the
	// file.
	BOMNotAtStart
	// Unparsable: the line is neither empty, a comment, nor a "key: value"
	// record, and was ignored.
	Unparsable
	// InvalidValue: the value does not fit its key (an empty user-agent, a
	// crawl-delay that is not a number of seconds).
	InvalidValue
)

var kindNames = [...]string{
	MissingColon:  "missing-colon",
	Misspelling:   "misspelling",
	UnknownKey:    "unknown-key",
	OutsideGroup:  "outside-group",
	LineTooLong:   "line-too-long",
	InvalidUTF8:   "invalid-utf8",
	NULByte:       "nul-byte",
	BOMNotAtStart: "bom-not-at-start",
	Unparsable:    "unparsable",
	InvalidValue:  "invalid-value",
}

// String returns a short hyphenated name of the kind, such as "missing-colon".
func (k WarningKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "warning-" + strconv.Itoa(int(k))
}
