package authority

import (
	"bufio"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/internal/urlpath"
)

// expectation is what oracle says Parse must return for one URL.
type expectation struct {
	refused bool // net/url refuses the URL: Parse must fail, with any kind
	kind    Kind // 0: Parse must succeed with key
	key     string
}

// oracle derives the expected result of Parse from net/url, with the
// canonicalization written out in the plainest way: strings.ToLower,
// strconv.Atoi, netip's String, the IDNA profile, and the extra rejections
// listed in Parse's documentation. A URL is valid exactly when net/url
// accepts it and none of those extra rejections applies to what net/url read.
func oracle(rawURL string) expectation {
	if len(rawURL) > MaxURLLength {
		return expectation{kind: TooLong}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return expectation{refused: true}
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case u.Scheme == "":
		return expectation{kind: NoScheme}
	case scheme != "http" && scheme != "https":
		return expectation{kind: UnsupportedScheme}
	case u.Opaque != "" || !strings.HasPrefix(rawURL[len(u.Scheme)+1:], "//"):
		return expectation{kind: NoHost}
	}
	hostname, port := u.Hostname(), u.Port()
	if hostname == "" {
		return expectation{kind: NoHost}
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return expectation{kind: BadPort}
		}
		port = strconv.Itoa(n)
		if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
			port = ""
		}
	}
	var host string
	if strings.HasPrefix(u.Host, "[") {
		addr, err := netip.ParseAddr(hostname)
		if err != nil || addr.Zone() != "" || strings.Contains(hostname, "%") {
			return expectation{kind: Unparsable}
		}
		host = "[" + addr.String() + "]"
	} else {
		host = hostname
		if !isASCII(host) {
			// The IDNA profile maps invalid UTF-8 to U+FFFD; Parse rejects it.
			if !utf8.ValidString(host) {
				return expectation{kind: Unparsable}
			}
			if host, err = profile.ToASCII(host); err != nil {
				return expectation{kind: Unparsable}
			}
		}
		if strings.Trim(strings.ToLower(host), "abcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=") != "" {
			return expectation{kind: Unparsable}
		}
		host = strings.ToLower(host)
		if host == "" {
			return expectation{kind: NoHost}
		}
		if strings.HasSuffix(host, ".") {
			host = strings.TrimSuffix(host, ".")
			if host == "" {
				return expectation{kind: NoHost}
			}
			if strings.HasSuffix(host, ".") {
				return expectation{kind: Unparsable}
			}
		}
	}
	k := scheme + "://" + host
	if port != "" {
		k += ":" + port
	}
	if len(k)+wireLength(rawURL[len(u.Scheme)+3:]) > MaxURLLength {
		return expectation{kind: TooLong}
	}
	return expectation{key: k}
}

// wireLength returns the length of the path and query of rest, the URL after
// "scheme://", once a '/' is put first and the octets that may not appear
// raw in a URI are percent-encoded.
func wireLength(rest string) int {
	rest, _, _ = strings.Cut(rest, "#")
	i := strings.IndexAny(rest, "/?")
	if i < 0 {
		return 1 // "/"
	}
	pq := rest[i:]
	n := len(pq)
	if pq[0] != '/' {
		n++
	}
	for j := 0; j < len(pq); j++ {
		if pq[j] >= 0x80 || strings.IndexByte(" \"<>\\^`{|}", pq[j]) >= 0 {
			n += 2
		}
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// checkPathQuery checks PathQuery against net/url's reading of the same URL:
// the same path and query once unescaped, and nothing on it that may not go
// raw on the wire.
func checkPathQuery(t *testing.T, rawURL string, u *url.URL, pq string) {
	t.Helper()
	if pq == "" || pq[0] != '/' || strings.ContainsAny(pq, "# \"<>\\^`{|}") || !isASCII(pq) {
		t.Fatalf("Parse(%q).PathQuery = %q: not a wire path", rawURL, pq)
	}
	p, q, hasQuery := strings.Cut(pq, "?")
	if wantQuery := u.RawQuery != "" || u.ForceQuery; hasQuery != wantQuery {
		t.Fatalf("Parse(%q).PathQuery = %q: query present %v, net/url says %v", rawURL, pq, hasQuery, wantQuery)
	}
	wantPath := u.Path
	if wantPath == "" {
		wantPath = "/"
	}
	if got, err := url.PathUnescape(p); err != nil || got != wantPath {
		t.Fatalf("Parse(%q).PathQuery = %q: path unescapes to %q (%v), net/url has %q", rawURL, pq, got, err, wantPath)
	}
	if want, err := url.PathUnescape(u.RawQuery); err == nil {
		if got, err := url.PathUnescape(q); err != nil || got != want {
			t.Fatalf("Parse(%q).PathQuery = %q: query unescapes to %q (%v), net/url has %q", rawURL, pq, got, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"https://example.com/some/page?q=1",       // typical
		"HTTPS://User:Pw@Example.COM:443/a b?c#d", // everything to canonicalize
		"http://example.com.:80",                  // trailing dot, default port
		"http://example.com..",                    // two trailing dots
		"http://my_host.example.com/",             // underscore: no IDNA for ASCII
		"https://www.exämple.com/robots.txt",      // IDN (Google's example)
		"https://ex%C3%A4mple.com/",               // percent-encoded IDN
		"https://例え。テスト/",                         // ideographic full stop maps to '.'
		"http://ä\uff1a80/",                       // fullwidth colon maps to ':'
		"http://[::1]:8080/x",                     // IPv6 literal
		"http://[2001:DB8:0:0::1]/",               // IPv6, not in RFC 5952 form
		"http://[::ffff:10.0.0.1]/",               // IPv4-mapped IPv6
		"http://[fe80::1%25en0]/",                 // zone
		"http://[::1",                             // unclosed bracket
		"http://a:b:c/",                           // colons in host
		"http://example.com:0080/",                // leading zeros
		"http://example.com:65536/",               // port out of range
		"http://@/",                               // empty userinfo, empty host
		"http://a@b@c/",                           // '@' in userinfo
		"http:opaque",                             // no authority
		"ftp://example.com/robots.txt",            // another scheme
		"//example.com/",                          // no scheme
		"http://h?q#f",                            // query right after host
		"http://h/%zz",                            // malformed escape in path
		"http://h/\x7f",                           // control character
		"http://example.com\\@evil.com/",          // userinfo net/url refuses
		"http://u:p%zz@h/",                        // malformed escape in the password
		"http://h/#%zz",                           // malformed escape in the fragment
		"http://h/?%zz",                           // malformed escape in the query: net/url lets it be
		"http://u:secret@h/",                      // password to redact
		"HTTP://U:s@x@Example.COM:0080/",          // everything Split remembers
	} {
		f.Add(s)
	}
	if dir, ok := sharedtest.Lookup("corpus"); !ok {
		sharedtest.Missing(f, "corpus", "fuzzing without the corpus's host names as seeds")
	} else {
		// Hosts of real sites: the manifest's path column ends with the host name.
		if file, err := os.Open(filepath.Join(dir, "manifest.tsv")); err == nil {
			defer file.Close()
			seen := map[string]bool{}
			sc := bufio.NewScanner(file)
			for sc.Scan() {
				cols := strings.Split(sc.Text(), "\t")
				if h := path.Base(cols[len(cols)-1]); strings.Contains(h, ".") && !seen[h] {
					seen[h] = true
					f.Add("https://" + h + "/robots.txt")
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, rawURL string) {
		a, err := Parse(rawURL)
		checkSplit(t, rawURL, a, err)
		checkRedact(t, rawURL)
		want := oracle(rawURL)
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("Parse(%q): error %T, want *Error", rawURL, err)
			}
			if !want.refused && want.kind != e.Kind {
				t.Fatalf("Parse(%q) = %v, oracle wants kind %v (key %q)", rawURL, err, want.kind, want.key)
			}
			return
		}
		switch {
		case want.refused:
			t.Fatalf("Parse(%q) = %+v, but net/url refuses the URL", rawURL, a)
		case want.kind != 0:
			t.Fatalf("Parse(%q) = %+v, oracle wants kind %v", rawURL, a, want.kind)
		case a.Key != want.key:
			t.Fatalf("Parse(%q).Key = %q, oracle wants %q", rawURL, a.Key, want.key)
		}
		u, _ := url.Parse(rawURL)
		checkPathQuery(t, rawURL, u, a.PathQuery)

		// The key is a URL net/url reads back as the same host and port.
		ru, err := url.Parse(a.RobotsURL())
		if err != nil || ru.Hostname() != a.Hostname() || ru.Port() != a.Port() || ru.Scheme != a.Scheme() {
			t.Fatalf("Parse(%q): net/url reads robots URL %q as %+v (%v)", rawURL, a.RobotsURL(), ru, err)
		}
		// Idempotence: the key of the key's robots.txt URL is the key.
		b, err := Parse(a.RobotsURL())
		if err != nil || b.Key != a.Key || b.PathQuery != "/robots.txt" {
			t.Fatalf("Parse(%q) = %+v; Parse(RobotsURL) = %+v, %v", rawURL, a, b, err)
		}
		c, err := Parse(a.Key + a.PathQuery)
		if err != nil || c != a {
			t.Fatalf("Parse(%q) = %+v; Parse(Key+PathQuery) = %+v, %v", rawURL, a, c, err)
		}
	})
}

// fuzzMemo is shared by all the inputs of a fuzzing process, so that Split
// meets authorities it has seen before, with other userinfo, paths and
// errors around them.
var fuzzMemo Memo

// checkSplit checks that Memo.Split agrees with Parse, whose result on
// rawURL is a, err: the same error, the same key, and a path whose canonical
// form is that of a.PathQuery. It asks twice, the second time with the
// authority remembered.
func checkSplit(t *testing.T, rawURL string, a Authority, err error) {
	t.Helper()
	for range 2 {
		key, path, serr := fuzzMemo.Split(rawURL)
		if !reflect.DeepEqual(err, serr) {
			t.Fatalf("Split(%q) = %q, %q, %v; Parse says %v", rawURL, key, path, serr, err)
		}
		if err != nil {
			continue
		}
		if key != a.Key {
			t.Fatalf("Split(%q) key %q, Parse's %q", rawURL, key, a.Key)
		}
		if got, want := urlpath.Path(path), urlpath.Path(a.PathQuery); got != want {
			t.Fatalf("Split(%q) path %q (canonical %q); Parse's %q (canonical %q)", rawURL, path, got, a.PathQuery, want)
		}
	}
}

// checkRedact checks Redact against net/url: for a URL net/url reads, the
// redacted URL reads the same but for a password of "xxxxx".
func checkRedact(t *testing.T, rawURL string) {
	t.Helper()
	r := Redact(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil {
		return
	}
	_, hasPassword := u.User.Password()
	if !hasPassword {
		if r != rawURL {
			t.Fatalf("Redact(%q) = %q: no password to redact", rawURL, r)
		}
		return
	}
	ru, err := url.Parse(r)
	if err != nil {
		t.Fatalf("Redact(%q) = %q, which net/url refuses: %v", rawURL, r, err)
	}
	if p, _ := ru.User.Password(); p != "xxxxx" || ru.User.Username() != u.User.Username() {
		t.Fatalf("Redact(%q) = %q: userinfo %v", rawURL, r, ru.User)
	}
	u.User = url.UserPassword(u.User.Username(), "xxxxx")
	if ru.String() != u.String() {
		t.Fatalf("Redact(%q) = %q, reads as %q; want %q", rawURL, r, ru, u)
	}
}
