// Package authority turns a caller's URL into what the robots.txt machinery
// keys on: the authority (lowercase scheme, canonical host, non-default port),
// the URL of that authority's robots.txt file, and the path and query the URL
// asks for.
//
// The key follows RFC 9309 §2.3 and Google's scope rules: a robots.txt file
// applies to one scheme, host and port. So the scheme is lowercased and must be
// http or https; an ASCII host is lowercased as is (no IDNA processing, because
// IDNA's lookup profile rejects '_', which real hostnames contain); a host with
// non-ASCII characters goes through IDNA (UTS #46, non-transitional) and
// becomes its punycode form, as Google treats both forms alike; one trailing
// dot is dropped; the port is kept only when it is not the scheme's default;
// an IPv6 literal is written in its RFC 5952 form, bracketed; userinfo is
// dropped. "https://Example.COM:443/x" and "https://example.com/y" share the
// key "https://example.com".
//
// Parse reads the URL once and, for the common case of a URL already in
// canonical form, returns substrings of it without allocating.
//
// Non-goals: resolving host names, validating DNS label lengths, normalizing
// the path beyond escaping octets that may not appear raw in a URI (package
// urlpath owns the canonical form used for matching), and accepting every URL
// a browser would (see Parse for what is rejected).
package authority

import (
	"strings"

	"github.com/crawlkit/robots/internal/urlpath"
)

// MaxURLLength is the longest URL, in bytes, that Parse accepts. 8 KiB is
// four times the 2,083-byte limit that Google's robots.txt parser assumes for
// URLs, and the request-line limit of common servers.
const MaxURLLength = 8 << 10

// Authority is a parsed caller URL reduced to what robots.txt decisions need.
type Authority struct {
	// Key identifies the authority: "scheme://host" or "scheme://host:port",
	// canonical as described in the package documentation, for example
	// "https://example.com:8080", "http://[::1]:8080" or
	// "https://xn--exmple-cua.com".
	Key string

	// PathQuery is the path and query the URL asks for, as sent on the wire:
	// the escaped path, then '?' and the query when the URL has one, never
	// the fragment; "/" when the path is empty. Octets that may not appear
	// raw in a URI (controls excepted, which Parse rejects) are
	// percent-encoded; everything else, including existing escapes, is kept
	// as given.
	PathQuery string
}

// RobotsURL returns the URL of the robots.txt file of a's authority.
func (a Authority) RobotsURL() string { return a.Key + "/robots.txt" }

// Scheme returns the authority's scheme, "http" or "https".
func (a Authority) Scheme() string {
	if i := strings.Index(a.Key, "://"); i >= 0 {
		return a.Key[:i]
	}
	return ""
}

// Hostname returns the authority's host without port; an IPv6 literal is
// returned without its brackets, as net/url's Hostname does.
func (a Authority) Hostname() string {
	h, _ := a.hostPort()
	if len(h) > 1 && h[0] == '[' {
		return h[1 : len(h)-1]
	}
	return h
}

// Port returns the authority's explicit port, "" when it is the scheme's
// default.
func (a Authority) Port() string {
	_, p := a.hostPort()
	return p
}

func (a Authority) hostPort() (host, port string) {
	i := strings.Index(a.Key, "://")
	if i < 0 {
		return "", ""
	}
	hp := a.Key[i+3:]
	j := strings.LastIndexByte(hp, ':')
	if j < 0 || strings.IndexByte(hp[j:], ']') >= 0 {
		return hp, ""
	}
	return hp[:j], hp[j+1:]
}

// Parse reads rawURL once and returns its authority key and path. It fails
// with an *Error when rawURL, or its canonical form Key+PathQuery, is longer
// than MaxURLLength, has no scheme or
// another scheme than http or https (in any case), has no "//" authority or
// an empty host, has a port that is not a decimal number in 1–65535, or has
// a host that is not a valid name or IP literal. Beyond net/url, it rejects:
// IPv6 zones (meaningless to a remote server), ASCII hosts with characters
// outside RFC 3986's reg-name set (such as ':' or '<'), non-ASCII hosts that
// are not valid UTF-8 or that IDNA rejects, hosts that end in two dots,
// control characters before the fragment, and port 0 or above 65535. It accepts and keeps as given malformed percent
// escapes in the path, which net/url rejects; matching encodes them as %25.
func Parse(rawURL string) (Authority, error) {
	if len(rawURL) > MaxURLLength {
		return Authority{}, newError(TooLong, rawURL, nil)
	}
	schemeEnd := scanScheme(rawURL)
	if schemeEnd <= 0 {
		return Authority{}, newError(NoScheme, rawURL, nil)
	}
	scheme, defaultPort := knownScheme(rawURL[:schemeEnd])
	if scheme == "" {
		return Authority{}, newError(UnsupportedScheme, rawURL, nil)
	}
	rest := rawURL[schemeEnd+1:]
	if !strings.HasPrefix(rest, "//") {
		return Authority{}, newError(NoHost, rawURL, nil)
	}
	authStart := schemeEnd + 3
	authEnd := authStart
	for authEnd < len(rawURL) && rawURL[authEnd] != '/' && rawURL[authEnd] != '?' && rawURL[authEnd] != '#' {
		authEnd++
	}
	hostPort := rawURL[authStart:authEnd]
	if at := strings.LastIndexByte(hostPort, '@'); at >= 0 {
		if hasControl(hostPort[:at]) {
			return Authority{}, newError(Unparsable, rawURL, errControl)
		}
		hostPort = hostPort[at+1:] // userinfo: credentials are never used
	}
	host, port, kind, err := splitHostPort(hostPort)
	if kind != 0 {
		return Authority{}, newError(kind, rawURL, err)
	}
	if port == defaultPort {
		port = ""
	}
	host, lower, kind, err := canonicalHost(host)
	if kind != 0 {
		return Authority{}, newError(kind, rawURL, err)
	}
	pq, err := pathQuery(rawURL[authEnd:])
	if err != nil {
		return Authority{}, newError(Unparsable, rawURL, err)
	}
	a := Authority{Key: key(rawURL, scheme, host, lower, port), PathQuery: pq}
	if len(a.Key)+len(a.PathQuery) > MaxURLLength {
		// Escaping grew the URL past the bound; refusing it keeps every
		// accepted URL's canonical form acceptable too.
		return Authority{}, newError(TooLong, rawURL, nil)
	}
	return a, nil
}

// scanScheme returns the index of the colon that ends rawURL's scheme
// (RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )), or -1 when
// rawURL does not start with a scheme.
func scanScheme(rawURL string) int {
	for i := 0; i < len(rawURL); i++ {
		c := rawURL[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return -1
			}
		case c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// knownScheme returns the lowercase form of s and its default port when s is
// http or https in any case, and "" otherwise.
func knownScheme(s string) (scheme, defaultPort string) {
	switch {
	case strings.EqualFold(s, "https"):
		return "https", "443"
	case strings.EqualFold(s, "http"):
		return "http", "80"
	}
	return "", ""
}

// key returns scheme "://" host [":" port], lowercasing host when lower is
// set. When rawURL already starts with exactly that text, the key is a
// substring of rawURL and costs nothing.
func key(rawURL, scheme, host string, lower bool, port string) string {
	n := len(scheme) + 3 + len(host)
	if port != "" {
		n += 1 + len(port)
	}
	if !lower && len(rawURL) >= n &&
		strings.HasPrefix(rawURL, scheme) &&
		rawURL[len(scheme):len(scheme)+3] == "://" &&
		rawURL[len(scheme)+3:len(scheme)+3+len(host)] == host &&
		(port == "" || rawURL[n-len(port)-1] == ':' && rawURL[n-len(port):n] == port) {
		return rawURL[:n]
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(scheme)
	b.WriteString("://")
	if lower {
		for i := 0; i < len(host); i++ {
			c := host[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
	} else {
		b.WriteString(host)
	}
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	return b.String()
}

// pathQuery returns the path and query of s, the part of a URL after its
// authority, as described at Authority.PathQuery.
func pathQuery(s string) (string, error) {
	if h := strings.IndexByte(s, '#'); h >= 0 {
		s = s[:h]
	}
	slash := s == "" || s[0] != '/'
	escapes := 0
	for i := 0; i < len(s); i++ {
		switch octets[s[i]] {
		case control:
			return "", errControl
		case escape:
			escapes++
		}
	}
	switch {
	case s == "":
		return "/", nil
	case !slash && escapes == 0:
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s) + 1 + 2*escapes)
	if slash {
		b.WriteByte('/')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if octets[c] == escape {
			b.WriteByte('%')
			b.WriteByte(urlpath.UpperHex[c>>4])
			b.WriteByte(urlpath.UpperHex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// What an octet of a URL's path or query needs.
const (
	keep    = iota
	escape  // may not appear raw in a URI (RFC 3986 §2): percent-encode it
	control // a control character, which net/url rejects too
)

var octets = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0x20 || c == 0x7f:
			t[c] = control
		case c >= 0x80 || strings.IndexByte(" \"<>\\^`{|}", byte(c)) >= 0:
			t[c] = escape
		}
	}
	return t
}()

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if octets[s[i]] == control {
			return true
		}
	}
	return false
}
