package authority

import (
	"errors"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/crawlkit/robots/internal/urlpath"
)

// profile converts non-ASCII hosts. It is IDNA's lookup profile (UTS #46
// mapping, non-transitional, Bidi rule) with the STD3 ASCII rules and the
// hyphen checks off, so that labels with '_' or "--" in positions 3–4, both
// common in real hostnames, are accepted as browsers accept them.
var profile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

var (
	errControl     = errors.New("control character")
	errEscape      = errors.New("malformed percent-escape")
	errUserinfo    = errors.New("invalid character in userinfo")
	errHostChar    = errors.New("invalid character in host")
	errHostEscape  = errors.New("invalid percent-escape in host")
	errHostUTF8    = errors.New("host is not valid UTF-8")
	errHostDots    = errors.New("host ends with an empty label")
	errBracket     = errors.New("missing ']' in IPv6 literal")
	errNotIPv6     = errors.New("bracketed host is not an IPv6 address")
	errZone        = errors.New("IPv6 zones are not supported")
	errPortDigits  = errors.New("port is not a decimal number")
	errPortRange   = errors.New("port out of range 1-65535")
	errAfterIPv6   = errors.New("unexpected text after IPv6 literal")
	errIDNAOutcome = errors.New("IDNA mapping yields an invalid host")
)

// splitHostPort splits the host[:port] part of an authority. The returned
// port is canonical: decimal, without leading zeros, "" when absent or empty.
func splitHostPort(hp string) (host, port string, kind Kind, err error) {
	var portText string
	if strings.HasPrefix(hp, "[") {
		j := strings.IndexByte(hp, ']')
		if j < 0 {
			return "", "", Unparsable, errBracket
		}
		host, portText = hp[:j+1], hp[j+1:]
		if portText != "" {
			if portText[0] != ':' {
				return "", "", BadPort, errAfterIPv6
			}
			portText = portText[1:]
		}
	} else {
		host = hp
		if j := strings.IndexByte(hp, ':'); j >= 0 {
			host, portText = hp[:j], hp[j+1:]
		}
	}
	if host == "" {
		return "", "", NoHost, nil
	}
	port, err = canonicalPort(portText)
	if err != nil {
		return "", "", BadPort, err
	}
	return host, port, 0, nil
}

// canonicalPort returns the decimal port p without leading zeros. An empty p
// means the scheme's default (RFC 3986 §3.2.3) and yields "".
func canonicalPort(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return "", errPortDigits
		}
	}
	p = strings.TrimLeft(p, "0")
	if p == "" || len(p) > 5 || len(p) == 5 && p > "65535" {
		return "", errPortRange
	}
	return p, nil
}

// canonicalHost returns the canonical form of a host as found in a URL. When
// lower is set, the canonical form is host lowercased, which the caller does
// while copying it into the key.
func canonicalHost(h string) (host string, lower bool, kind Kind, err error) {
	if h[0] == '[' {
		host, err = canonicalIPv6(h)
		if err != nil {
			return "", false, Unparsable, err
		}
		return host, false, 0, nil
	}
	nonASCII := false
	for i := 0; i < len(h); i++ {
		switch hostChars[h[i]] {
		case hostUpper:
			lower = true
		case hostNonASCII:
			nonASCII = true
		case hostInvalid:
			return "", false, Unparsable, errHostChar
		}
	}
	if nonASCII {
		if h, err = idnaHost(h); err != nil {
			return "", false, Unparsable, err
		}
		lower = false
	}
	if h == "" {
		return "", false, NoHost, nil // IDNA maps some characters to nothing (U+00AD)
	}
	// One trailing dot names the same host (the DNS root label); RFC 9309 and
	// Google scope robots.txt by host, so "example.com." is "example.com".
	if strings.HasSuffix(h, ".") {
		h = h[:len(h)-1]
		if h == "" {
			return "", false, NoHost, nil
		}
		if strings.HasSuffix(h, ".") {
			return "", false, Unparsable, errHostDots
		}
	}
	return h, lower, 0, nil
}

// What an octet of a host is.
const (
	hostInvalid  = iota
	hostOK       // allowed in a canonical ASCII host
	hostUpper    // allowed once lowercased
	hostNonASCII // non-ASCII, raw or percent-encoded: the host needs IDNA
)

// hostChars classifies the octets of a host: RFC 3986 §3.2.2 reg-name
// (unreserved and sub-delims) for ASCII hosts.
var hostChars = func() (t [256]uint8) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=", byte(c)) >= 0:
			t[c] = hostOK
		case 'A' <= c && c <= 'Z':
			t[c] = hostUpper
		case c == '%' || c >= 0x80:
			t[c] = hostNonASCII
		}
	}
	return t
}()

// canonicalIPv6 returns the bracketed RFC 5952 form of the bracketed IPv6
// literal h, h itself when it is already in that form.
func canonicalIPv6(h string) (string, error) {
	inner := h[1 : len(h)-1]
	if strings.IndexByte(inner, '%') >= 0 {
		return "", errZone
	}
	addr, err := netip.ParseAddr(inner)
	if err != nil {
		return "", err
	}
	if !addr.Is6() {
		return "", errNotIPv6
	}
	var buf [48]byte
	canon := addr.AppendTo(buf[:0])
	if string(canon) == inner {
		return h, nil
	}
	return "[" + string(canon) + "]", nil
}

// idnaHost returns the ASCII (punycode) form of a host with non-ASCII
// characters, raw or percent-encoded as net/url allows (RFC 3986 §3.2.2).
func idnaHost(h string) (string, error) {
	if strings.IndexByte(h, '%') >= 0 {
		var err error
		if h, err = unescapeHost(h); err != nil {
			return "", err
		}
	}
	if !utf8.ValidString(h) {
		return "", errHostUTF8
	}
	a, err := profile.ToASCII(h)
	if err != nil {
		return "", err
	}
	for i := 0; i < len(a); i++ {
		if hostChars[a[i]] != hostOK {
			return "", errIDNAOutcome
		}
	}
	return a, nil
}

// unescapeHost decodes the percent-escapes of h. As in net/url, only escapes
// of non-ASCII octets are allowed: an ASCII character must be written as is.
func unescapeHost(h string) (string, error) {
	b := make([]byte, 0, len(h))
	for i := 0; i < len(h); i++ {
		if h[i] != '%' {
			b = append(b, h[i])
			continue
		}
		if i+2 >= len(h) {
			return "", errHostEscape
		}
		hi, ok1 := urlpath.Unhex(h[i+1])
		lo, ok2 := urlpath.Unhex(h[i+2])
		if !ok1 || !ok2 || hi < 8 {
			return "", errHostEscape
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), nil
}
