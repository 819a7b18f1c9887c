package usage

import (
	"strings"
	"unicode/utf8"
)

// This file parses RFC 9651 Dictionaries (Structured Field Values, §3.2 and
// §4.2.2) without allocating: members are handed to a visitor as spans of the
// input, and nothing is decoded that the vocabulary does not need. Every
// syntax rule of §4.2 is checked, because one bad octet anywhere makes the
// whole Dictionary fail and every label unknown (vocab-07 §6.5.1).

// sfKind is the type of a Bare Item, or sfInnerList.
type sfKind uint8

const (
	sfInteger sfKind = iota + 1
	sfDecimal
	sfString
	sfToken
	sfBytes
	sfBoolean
	sfDate
	sfDisplayString
	sfInnerList
)

var sfKindNames = [...]string{
	sfInteger:       "an Integer",
	sfDecimal:       "a Decimal",
	sfString:        "a String",
	sfToken:         "a Token",
	sfBytes:         "a Byte Sequence",
	sfBoolean:       "a Boolean",
	sfDate:          "a Date",
	sfDisplayString: "a Display String",
	sfInnerList:     "an Inner List",
}

func (k sfKind) String() string {
	if int(k) < len(sfKindNames) && sfKindNames[k] != "" {
		return sfKindNames[k]
	}
	return "nothing"
}

// sfItem is an Item or an Inner List as written.
type sfItem struct {
	kind sfKind
	// raw is the Bare Item, or the whole Inner List "(…)", as written; empty
	// for the implied true of a bare key.
	raw string
	// params are the Parameters as written, from the first ';'.
	params string
	// off is the byte offset of raw in the field value.
	off int
}

// sfMember is one member of a Dictionary.
type sfMember struct {
	key string
	off int // byte offset of key
	// bare is true when the member has no "=value": its value is the
	// Boolean true, with parameters (RFC 9651 §4.2.2).
	bare  bool
	value sfItem
}

// sfError says where and why parsing failed.
type sfError struct {
	off int
	msg string
}

// parseDictionary parses s as the value of a Dictionary field (RFC 9651
// §4.2 with field_type "dictionary") and hands each member to visit in
// order, duplicates included. visit sees members before the whole value is
// known to parse: when ok is false, the caller must discard what it saw.
func parseDictionary(s string, visit func(sfMember)) (err sfError, ok bool) {
	p := sfParser{s: s}
	p.skipSP() // §4.2 step 2: leading SP only, not HTAB
	for p.i < len(p.s) {
		m := sfMember{off: p.i}
		if m.key, ok = p.key(); !ok {
			return p.err, false
		}
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				ok = p.innerList(&m.value, nil)
			} else {
				ok = p.item(&m.value)
			}
		} else {
			m.bare = true
			m.value = sfItem{kind: sfBoolean, off: p.i}
			ok = p.params(&m.value, nil)
		}
		if !ok {
			return p.err, false
		}
		if visit != nil {
			visit(m)
		}
		p.skipOWS()
		if p.i == len(p.s) {
			break
		}
		switch p.s[p.i] {
		case ',':
		case '=':
			return p.fail("white space before '='"), false
		default:
			return p.fail("expected ',' between members"), false
		}
		p.i++
		p.skipOWS()
		if p.i == len(p.s) {
			return p.fail("trailing comma"), false
		}
	}
	// §4.2 steps 7–8: trailing SP was taken by skipOWS; nothing is left.
	return sfError{}, true
}

type sfParser struct {
	s   string
	i   int
	err sfError
}

func (p *sfParser) fail(msg string) sfError {
	p.err = sfError{off: p.i, msg: msg}
	return p.err
}

func (p *sfParser) failed(msg string) bool {
	p.fail(msg)
	return false
}

func (p *sfParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sfParser) skipSP() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// key parses a Key (§4.2.3.3).
func (p *sfParser) key() (string, bool) {
	start := p.i
	switch c := p.peek(); {
	case isLCAlpha(c) || c == '*':
	case 'A' <= c && c <= 'Z':
		return "", p.failed("uppercase letter in a key")
	case p.i == len(p.s):
		return "", p.failed("missing key")
	default:
		return "", p.failed("a key starts with a lowercase letter or '*'")
	}
	p.i++
	for p.i < len(p.s) && isKeyChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i], true
}

// item parses an Item: a Bare Item and its Parameters (§4.2.3).
func (p *sfParser) item(it *sfItem) bool {
	return p.bareItem(it) && p.params(it, nil)
}

// params parses Parameters (§4.2.3.2), calling visit for each when it is
// not nil.
func (p *sfParser) params(it *sfItem, visit func(key string, v sfItem)) bool {
	start := p.i
	for p.peek() == ';' {
		p.i++
		p.skipSP()
		k, ok := p.key()
		if !ok {
			return false
		}
		v := sfItem{kind: sfBoolean, off: p.i}
		if p.peek() == '=' {
			p.i++
			if !p.bareItem(&v) {
				return false
			}
		}
		if visit != nil {
			visit(k, v)
		}
	}
	it.params = p.s[start:p.i]
	return true
}

// innerList parses an Inner List (§4.2.1.2), calling visit for each item
// when it is not nil.
func (p *sfParser) innerList(it *sfItem, visit func(sfItem)) bool {
	start := p.i
	p.i++ // '('
	for p.i < len(p.s) {
		p.skipSP()
		if p.peek() == ')' {
			p.i++
			*it = sfItem{kind: sfInnerList, raw: p.s[start:p.i], off: start}
			return p.params(it, nil)
		}
		var x sfItem
		if !p.item(&x) {
			return false
		}
		if visit != nil {
			visit(x)
		}
		if c := p.peek(); p.i < len(p.s) && c != ' ' && c != ')' {
			return p.failed("items of an inner list are separated by spaces")
		}
	}
	return p.failed("inner list not closed with ')'")
}

// bareItem parses a Bare Item (§4.2.3.1).
func (p *sfParser) bareItem(it *sfItem) bool {
	start := p.i
	var ok bool
	switch c := p.peek(); {
	case p.i == len(p.s):
		return p.failed("missing value")
	case c == '-' || isDigit(c):
		it.kind, ok = p.number()
	case c == '"':
		it.kind, ok = sfString, p.str()
	case isAlpha(c) || c == '*':
		it.kind, ok = sfToken, p.token()
	case c == ':':
		it.kind, ok = sfBytes, p.bytes()
	case c == '?':
		it.kind, ok = sfBoolean, p.boolean()
	case c == '@':
		it.kind, ok = sfDate, p.date()
	case c == '%':
		it.kind, ok = sfDisplayString, p.displayString()
	default:
		return p.failed("not the start of a value")
	}
	it.raw, it.off = p.s[start:p.i], start
	return ok
}

// number parses an Integer or a Decimal (§4.2.4).
func (p *sfParser) number() (sfKind, bool) {
	kind := sfInteger
	if p.s[p.i] == '-' {
		p.i++
	}
	if !isDigit(p.peek()) {
		return kind, p.failed("a number needs a digit")
	}
	n, intDigits := 0, 0 // characters of input_number, digits before '.'
digits:
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case isDigit(c):
		case kind == sfInteger && c == '.':
			if n > 12 {
				return kind, p.failed("a decimal has at most 12 integer digits")
			}
			kind, intDigits = sfDecimal, n
		default:
			break digits
		}
		n++
		if kind == sfInteger && n > 15 {
			return kind, p.failed("an integer has at most 15 digits")
		}
		if kind == sfDecimal && n > 16 {
			return kind, p.failed("a decimal has at most 16 characters")
		}
		p.i++
	}
	if kind == sfDecimal {
		switch frac := n - intDigits - 1; {
		case frac == 0:
			return kind, p.failed("a decimal needs a digit after '.'")
		case frac > 3:
			p.i -= frac - 3 // at the first digit too many
			return kind, p.failed("a decimal has at most 3 fractional digits")
		}
	}
	return kind, true
}

// str parses a String (§4.2.5).
func (p *sfParser) str() bool {
	p.i++ // DQUOTE
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '\\':
			p.i++
			if p.i == len(p.s) {
				return p.failed("string not closed")
			}
			if c := p.s[p.i]; c != '"' && c != '\\' {
				return p.failed(`only \" and \\ are escapes in a string`)
			}
		case c == '"':
			p.i++
			return true
		case c < 0x20 || c >= 0x7f:
			return p.failed("a string holds printable ASCII only")
		}
		p.i++
	}
	return p.failed("string not closed")
}

// token parses a Token (§4.2.6); its first character is checked already.
func (p *sfParser) token() bool {
	p.i++
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return true
}

// bytes parses a Byte Sequence (§4.2.7). Missing "=" padding and non-zero
// pad bits are accepted, as the RFC asks of parsers.
func (p *sfParser) bytes() bool {
	p.i++ // ':'
	end := strings.IndexByte(p.s[p.i:], ':')
	if end < 0 {
		return p.failed("byte sequence not closed with ':'")
	}
	b64 := p.s[p.i : p.i+end]
	for j := 0; j < len(b64); j++ {
		if c := b64[j]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			p.i += j
			return p.failed("not a base64 character")
		}
	}
	data := strings.TrimRight(b64, "=")
	pad := len(b64) - len(data)
	if strings.IndexByte(data, '=') >= 0 || pad > 2 || len(data)%4 == 1 || pad > 0 && len(b64)%4 != 0 {
		return p.failed("not base64")
	}
	p.i += end + 1
	return true
}

// boolean parses a Boolean (§4.2.8).
func (p *sfParser) boolean() bool {
	p.i++ // '?'
	if c := p.peek(); c != '0' && c != '1' {
		return p.failed("a boolean is ?0 or ?1")
	}
	p.i++
	return true
}

// date parses a Date (§4.2.9).
func (p *sfParser) date() bool {
	p.i++ // '@'
	if c := p.peek(); c != '-' && !isDigit(c) {
		return p.failed("a date is @ and an integer")
	}
	kind, ok := p.number()
	if ok && kind != sfInteger {
		return p.failed("a date is an integer number of seconds")
	}
	return ok
}

// displayString parses a Display String (§4.2.10): printable ASCII with
// %xx escapes (lowercase hex) that together are valid UTF-8.
func (p *sfParser) displayString() bool {
	p.i++ // '%'
	if p.peek() != '"' {
		return p.failed(`a display string starts with %"`)
	}
	p.i++
	start, escaped := p.i, false
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c < 0x20 || c >= 0x7f:
			return p.failed("a display string holds printable ASCII and %xx escapes only")
		case c == '%':
			if p.i+2 >= len(p.s) || !isLCHex(p.s[p.i+1]) || !isLCHex(p.s[p.i+2]) {
				return p.failed("a %xx escape in a display string has two lowercase hex digits")
			}
			p.i += 3
			escaped = true
			continue
		case c == '"':
			if escaped && !validEscapedUTF8(p.s[start:p.i]) {
				return p.failed("a display string is not UTF-8")
			}
			p.i++
			return true
		}
		p.i++
	}
	return p.failed("display string not closed")
}

// validEscapedUTF8 reports whether s, checked printable ASCII with %xx
// escapes, decodes to valid UTF-8.
func validEscapedUTF8(s string) bool {
	var small [128]byte
	b := small[:0]
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return utf8.Valid(b)
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func isDigit(c byte) bool   { return '0' <= c && c <= '9' }
func isLCAlpha(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool   { return isLCAlpha(c) || 'A' <= c && c <= 'Z' }
func isLCHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' }

// isKeyChar: lcalpha / DIGIT / "_" / "-" / "." / "*" (§3.1.2).
func isKeyChar(c byte) bool { return charClass[c]&classKey != 0 }

// isTokenChar: tchar / ":" / "/" (§3.3.4, RFC 9110 §5.6.2).
func isTokenChar(c byte) bool { return charClass[c]&classToken != 0 }

const (
	classKey = 1 << iota
	classToken
)

var charClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if isLCAlpha(b) || isDigit(b) || strings.IndexByte("_-.*", b) >= 0 {
			t[c] |= classKey
		}
		if isAlpha(b) || isDigit(b) || strings.IndexByte("!#$%&'*+-.^_`|~:/", b) >= 0 {
			t[c] |= classToken
		}
	}
	return t
}()
