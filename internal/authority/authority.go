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
// A URL is valid when net/url accepts it and it names an authority a
// robots.txt can come from; Parse lists the URLs it refuses.
//
// Parse reads the URL once and, for the common case of a URL already in
// canonical form, returns substrings of it without allocating. Memo.Split is
// Parse for the hot path of a cache lookup: it allocates nothing for any URL
// whose authority it has seen recently.
//
// Non-goals: resolving host names, validating DNS label lengths, normalizing
// the path beyond escaping octets that may not appear raw in a URI (package
// urlpath owns the canonical form used for matching), and accepting URLs a
// browser would repair but net/url refuses.
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

// Parse reads rawURL once and returns its authority key and path.
//
// A URL is valid when net/url's Parse accepts it and it names an authority
// a robots.txt can come from. Precisely, Parse fails with an *Error when
//
//   - net/url rejects rawURL: a control character outside the fragment, a
//     malformed percent-escape in the userinfo, path or fragment, a userinfo
//     character outside RFC 3986's set (such as '\', ' ', '<' or non-ASCII;
//     '@' is allowed, as net/url allows it), a port that is not decimal, a
//     second colon in the host (net/url refuses it since Go 1.26), a bracket
//     that does not open an IP literal, an IP literal that is not IPv6, or a
//     percent-escape of an ASCII octet other than %25 in the host (kinds
//     Unparsable and BadPort);
//   - or net/url accepts it but it names no usable authority: no scheme
//     (NoScheme); a scheme other than http or https, in any case
//     (UnsupportedScheme); no "//" authority, or an empty host (NoHost);
//     port 0 or above 65535 (BadPort); an IPv6 zone, meaningless to a remote
//     server, an ASCII host character outside RFC 3986's reg-name set (such
//     as '<', '"' or an escaped '%', which net/url lets through), a non-ASCII
//     host that is not valid UTF-8 or that IDNA rejects, or a host ending in
//     two dots (Unparsable); or rawURL, or its canonical form Key+PathQuery,
//     longer than MaxURLLength (TooLong).
//
// Every other URL is valid, and its Key is the authority net/url reads in it,
// canonicalized as the package documentation says. The query is not checked
// beyond control characters, as net/url does not check it either.
func Parse(rawURL string) (Authority, error) {
	p, err := scan(rawURL)
	if err != nil {
		return Authority{}, err
	}
	key, err := p.key(rawURL)
	if err != nil {
		return Authority{}, err
	}
	if len(key)+p.wireLen() > MaxURLLength {
		// Escaping grew the URL past the bound; refusing it keeps every
		// accepted URL's canonical form acceptable too.
		return Authority{}, newError(TooLong, rawURL, nil)
	}
	return Authority{Key: key, PathQuery: p.wirePath()}, nil
}

// parts are the pieces of a URL that Parse and Memo.Split work from, all of
// them substrings of the URL but for the scheme.
type parts struct {
	scheme      string // "http" or "https"
	defaultPort string // of scheme
	rawScheme   string // as written
	hostPort    string // the authority less its userinfo: host[:port]
	userinfo    bool   // the authority has a userinfo
	path        string // the path and query as written, without the fragment
	escapes     int    // octets of path that its wire form percent-encodes
}

// scan reads rawURL's parts and checks all of it but the host and port.
func scan(rawURL string) (parts, error) {
	var p parts
	if len(rawURL) > MaxURLLength {
		return p, newError(TooLong, rawURL, nil)
	}
	schemeEnd := scanScheme(rawURL)
	if schemeEnd <= 0 {
		return p, newError(NoScheme, rawURL, nil)
	}
	p.rawScheme = rawURL[:schemeEnd]
	p.scheme, p.defaultPort = knownScheme(p.rawScheme)
	if p.scheme == "" {
		return p, newError(UnsupportedScheme, rawURL, nil)
	}
	rest := rawURL[schemeEnd+1:]
	if !strings.HasPrefix(rest, "//") {
		return p, newError(NoHost, rawURL, nil)
	}
	rest = rest[2:]
	end := 0
	for end < len(rest) && rest[end] != '/' && rest[end] != '?' && rest[end] != '#' {
		end++
	}
	p.hostPort, rest = rest[:end], rest[end:]
	if at := strings.LastIndexByte(p.hostPort, '@'); at >= 0 {
		// The credentials are never used, but a URL net/url refuses is
		// refused here too: read otherwise, "http://a.com\@b.com/" would be
		// keyed as b.com.
		if err := checkUserinfo(p.hostPort[:at]); err != nil {
			return p, newError(Unparsable, rawURL, err)
		}
		p.hostPort, p.userinfo = p.hostPort[at+1:], true
	}
	fragment := ""
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		rest, fragment = rest[:h], rest[h+1:]
	}
	p.path = rest
	var err error
	if p.escapes, err = checkPath(rest); err != nil {
		return p, newError(Unparsable, rawURL, err)
	}
	if !validEscapes(fragment) {
		return p, newError(Unparsable, rawURL, errEscape)
	}
	return p, nil
}

// key returns the authority key of p; rawURL is the URL p comes from.
func (p *parts) key(rawURL string) (string, error) {
	host, port, kind, err := splitHostPort(p.hostPort)
	if kind != 0 {
		return "", newError(kind, rawURL, err)
	}
	if port == p.defaultPort {
		port = ""
	}
	host, lower, kind, err := canonicalHost(host)
	if kind != 0 {
		return "", newError(kind, rawURL, err)
	}
	return key(rawURL, p.scheme, host, lower, port), nil
}

// plain reports whether p's key is a prefix of the URL it comes from, so
// that computing it costs no allocation: the scheme and host are written in
// lowercase ASCII, there is no userinfo and the port has no leading zero.
func (p *parts) plain() bool {
	if p.userinfo || p.rawScheme != p.scheme {
		return false
	}
	hp := p.hostPort
	for i := 0; i < len(hp); i++ {
		switch c := hp[i]; {
		case hostChars[c] == hostOK:
		case c == ':':
			return i+1 == len(hp) || hp[i+1] != '0'
		default:
			return false
		}
	}
	return true
}

// wireLen is the length of wirePath's result, computed without building it.
func (p *parts) wireLen() int {
	n := len(p.path) + 2*p.escapes
	if p.path == "" || p.path[0] != '/' {
		n++
	}
	return n
}

// wirePath returns the path and query as described at Authority.PathQuery.
func (p *parts) wirePath() string {
	s := p.path
	slash := s == "" || s[0] != '/'
	switch {
	case s == "":
		return "/"
	case !slash && p.escapes == 0:
		return s
	}
	var b strings.Builder
	b.Grow(p.wireLen())
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
	return b.String()
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
	switch s { // as written almost always
	case "https":
		return "https", "443"
	case "http":
		return "http", "80"
	}
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

// What an octet of a URL's path or query needs.
const (
	keep     = iota
	escape   // may not appear raw in a URI (RFC 3986 §2): percent-encode it
	control  // a control character, which net/url rejects too
	percent  // '%', which must start an escape in a path
	question // '?', which ends the path and starts the query
)

var octets = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0x20 || c == 0x7f:
			t[c] = control
		case c >= 0x80 || strings.IndexByte(" \"<>\\^`{|}", byte(c)) >= 0:
			t[c] = escape
		case c == '%':
			t[c] = percent
		case c == '?':
			t[c] = question
		}
	}
	return t
}()

// checkPath checks the path and query s of a URL as net/url does: no
// control character, and in the path (not the query) only well-formed
// percent-escapes. It returns the number of octets of s that may not appear
// raw in a URI.
func checkPath(s string) (escapes int, err error) {
	query := false
	for i := 0; i < len(s); i++ {
		// Most octets need nothing (class keep, zero): skip them eight at a
		// time, one branch per block.
		for ; i+8 <= len(s); i += 8 {
			b := s[i : i+8]
			if octets[b[0]]|octets[b[1]]|octets[b[2]]|octets[b[3]]|
				octets[b[4]]|octets[b[5]]|octets[b[6]]|octets[b[7]] != keep {
				break
			}
		}
		if i == len(s) {
			break
		}
		switch octets[s[i]] {
		case control:
			return 0, errControl
		case escape:
			escapes++
		case percent:
			if !query && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
				return 0, errEscape
			}
		case question:
			query = true
		}
	}
	return escapes, nil
}

// validEscapes reports whether every '%' of s starts a percent-escape.
func validEscapes(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0; i = strings.IndexByte(s, '%') {
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
		s = s[i+3:]
	}
	return true
}

// checkUserinfo checks a URL's userinfo as net/url does: RFC 3986's
// userinfo characters (unreserved, sub-delims, ':' and percent-escapes),
// plus '@' as net/url allows it, and well-formed escapes.
func checkUserinfo(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return errEscape
			}
		case c == ':' || c == '@' || hostChars[c] == hostOK || hostChars[c] == hostUpper:
		default:
			return errUserinfo
		}
	}
	return nil
}

func isHex(c byte) bool {
	_, ok := urlpath.Unhex(c)
	return ok
}
