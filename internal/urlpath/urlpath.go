// Package urlpath puts URL paths and robots.txt rule patterns into one
// canonical form, so that matching can compare them octet by octet.
//
// The canonical form follows RFC 9309 §2.2.2 (Figure 4) and RFC 3986 §6.2.2:
//
//   - an octet that may not appear raw in a URI (non-ASCII, controls, space,
//     and " < > \ ^ ` { | }) is percent-encoded;
//   - a percent-escape is written with upper-case hex digits;
//   - an escape of an unreserved character (A-Z a-z 0-9 - . _ ~) is decoded;
//   - a '%' that does not start a valid escape is encoded as %25.
//
// Escapes of reserved characters stay escaped: %2F and / differ, as RFC 3986
// says they do. In a URL path a literal '*' or '$' becomes %2A or %24, so that
// a rule written with %2A matches it (RFC 9309 §2.2.3, Figure 6); in a pattern
// '*' stays the wildcard and a final '$' the end anchor.
//
// Non-goals: resolving dot segments, case-folding, or decoding reserved
// characters; none of these is sanctioned by RFC 9309.
package urlpath

import "strings"

// class of an octet in the canonical form.
const (
	keep    = iota // legal raw in a URI: unreserved or reserved
	encode         // must be percent-encoded
	percent        // '%': starts an escape
	star           // '*': wildcard in patterns, %2A in paths
	dollar         // '$': anchor at the end of patterns, %24 elsewhere
	hash           // '#': starts a fragment in a URL; kept in patterns
)

var classes = func() (t [256]uint8) {
	for i := range t {
		t[i] = encode
	}
	const legal = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~" + // unreserved
		":/?[]@" + "!&'()+,;=" // reserved, less '#', '*', '$'
	for i := 0; i < len(legal); i++ {
		t[legal[i]] = keep
	}
	t['%'] = percent
	t['*'] = star
	t['$'] = dollar
	t['#'] = hash
	return t
}()

// unreserved reports whether c is an RFC 3986 unreserved character.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// Unhex returns the value of the hexadecimal digit c, either case.
func Unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// UpperHex are the hexadecimal digits of a canonical escape (RFC 3986
// §2.1: upper case).
const UpperHex = "0123456789ABCDEF"

func appendEscape(dst []byte, c byte) []byte {
	return append(dst, '%', UpperHex[c>>4], UpperHex[c&15])
}

// escapeAt reports what the octets at s[i:] (s[i] == '%') stand for: the
// decoded octet and whether they form a valid escape at all.
func escapeAt(s string, i int) (byte, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	hi, ok1 := Unhex(s[i+1])
	lo, ok2 := Unhex(s[i+2])
	return hi<<4 | lo, ok1 && ok2
}

// appendCanonical appends the canonical form of one octet or escape of s
// starting at i and returns the index of the next unconsumed octet. Callers
// handle '*', '$' and '#' themselves before delegating here.
func appendCanonical(dst []byte, s string, i int) ([]byte, int) {
	c := s[i]
	switch classes[c] {
	case keep:
		return append(dst, c), i + 1
	case percent:
		b, ok := escapeAt(s, i)
		switch {
		case !ok:
			return append(dst, "%25"...), i + 1
		case unreserved(b):
			return append(dst, b), i + 3
		default:
			return appendEscape(dst, b), i + 3
		}
	default:
		return appendEscape(dst, c), i + 1
	}
}

// AppendPattern appends the canonical form of a robots.txt rule value p to
// dst. In the result a raw '*' is always the wildcard and a raw '$' appears
// only as the last octet, where it is the end anchor; every other '$' of p is
// compared literally and therefore written %24.
func AppendPattern(dst []byte, p string) []byte {
	for i := 0; i < len(p); {
		switch p[i] {
		case '*':
			dst = append(dst, '*')
			i++
		case '$':
			if i == len(p)-1 {
				dst = append(dst, '$')
			} else {
				dst = append(dst, "%24"...)
			}
			i++
		case '#':
			dst = append(dst, '#')
			i++
		default:
			dst, i = appendCanonical(dst, p, i)
		}
	}
	return dst
}

// Pattern returns the canonical form of the rule value p; see AppendPattern.
func Pattern(p string) string {
	if IsCanonicalPattern(p) {
		return p
	}
	return string(AppendPattern(make([]byte, 0, len(p)+8), p))
}

// IsCanonicalPattern reports whether AppendPattern would return p unchanged.
func IsCanonicalPattern(p string) bool {
	for i := 0; i < len(p); i++ {
		switch classes[p[i]] {
		case keep, star, hash:
		case dollar:
			if i != len(p)-1 {
				return false
			}
		case percent:
			if !canonicalEscape(p, i) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// canonicalEscape reports whether the escape at s[i:] is already canonical:
// valid, upper-case, and not of an unreserved character.
func canonicalEscape(s string, i int) bool {
	b, ok := escapeAt(s, i)
	return ok && !unreserved(b) && isUpperHex(s[i+1]) && isUpperHex(s[i+2])
}

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

// AppendPath appends the canonical form of a URL path with optional query,
// as sent on the wire, to dst. A fragment ('#' and what follows) is dropped,
// a literal '*' or '$' is written %2A or %24, and the result always starts
// with '/': an empty path becomes "/", and a path such as "?q" becomes "/?q".
func AppendPath(dst []byte, p string) []byte {
	if p == "" || p[0] != '/' {
		dst = append(dst, '/')
	}
	for i := 0; i < len(p); {
		switch p[i] {
		case '#':
			return dst
		case '*', '$':
			dst = appendEscape(dst, p[i])
			i++
		default:
			dst, i = appendCanonical(dst, p, i)
		}
	}
	return dst
}

// Path returns the canonical form of the URL path p; see AppendPath.
func Path(p string) string {
	if IsCanonicalPath(p) {
		return p
	}
	return string(AppendPath(make([]byte, 0, len(p)+8), p))
}

// IsCanonicalPath reports whether AppendPath would return p unchanged. It is
// the fast path of matching: most URLs are already canonical.
func IsCanonicalPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	// Most paths hold only octets kept as they are (class 0): skip them
	// eight at a time, one branch per block.
	i := 1
	for ; i+8 <= len(p); i += 8 {
		b := p[i : i+8]
		if classes[b[0]]|classes[b[1]]|classes[b[2]]|classes[b[3]]|
			classes[b[4]]|classes[b[5]]|classes[b[6]]|classes[b[7]] != keep {
			break
		}
	}
	for ; i < len(p); i++ {
		switch classes[p[i]] {
		case keep:
		case percent:
			if !canonicalEscape(p, i) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// robotsTxt is the path of the robots.txt file (RFC 9309 §2.3).
const robotsTxt = "/robots.txt"

// IsRobotsTxt reports whether the canonical form of the URL path p (see
// AppendPath) is "/robots.txt": whether p asks for the robots.txt file
// itself, which RFC 9309 §2.2.2 always allows. A query makes it another URL.
// It does not allocate.
func IsRobotsTxt(p string) bool {
	if h := strings.IndexByte(p, '#'); h >= 0 {
		p = p[:h]
	}
	// Each octet of "/robots.txt" comes from one octet of p, or three (an
	// escape), but the '/' that AppendPath may add: a p of another length
	// cannot be it. Most paths are ruled out by their last octet, which must
	// be 't' or end the escape %74.
	if len(p) < len(robotsTxt)-1 || len(p) > 3*len(robotsTxt) {
		return false
	}
	if c := p[len(p)-1]; c != 't' && c != '4' {
		return false
	}
	if p == robotsTxt {
		return true
	}
	var buf [3*len(robotsTxt) + 1]byte
	return string(AppendPath(buf[:0], p)) == robotsTxt
}
