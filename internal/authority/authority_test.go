package authority

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseTests are valid URLs and what Parse makes of them.
var parseTests = []struct {
	name, in, key, pathQuery string
}{
	{"canonical", "https://example.com/some/page?q=1", "https://example.com", "/some/page?q=1"},
	{"no path", "https://example.com", "https://example.com", "/"},
	{"query only", "http://example.com?q", "http://example.com", "/?q"},
	{"fragment dropped", "http://example.com/a#frag?x", "http://example.com", "/a"},
	{"fragment right after host", "http://example.com#x/y", "http://example.com", "/"},
	{"empty query kept", "http://example.com/a?", "http://example.com", "/a?"},

	// By design: lowercase scheme; ASCII hosts lowercased by hand.
	{"uppercase scheme and host", "HTTPS://Example.COM/Path", "https://example.com", "/Path"},
	{"mixed-case scheme", "hTtP://example.com/", "http://example.com", "/"},
	// By design: the IDNA lookup profile rejects '_'; ASCII hosts do not go through it.
	{"underscore", "https://my_host.example.com/", "https://my_host.example.com", "/"},
	{"underscore uppercase", "https://My_Host.Example.com/", "https://my_host.example.com", "/"},
	{"hyphens in positions 3-4", "https://r3---sn-apo3qvuoxuxbt-j5pe.googlevideo.com/", "https://r3---sn-apo3qvuoxuxbt-j5pe.googlevideo.com", "/"},
	{"sub-delims in reg-name", "http://a!$&'()*+,;=~b/", "http://a!$&'()*+,;=~b", "/"},

	// By design: one trailing dot dropped.
	{"trailing dot", "https://example.com./x", "https://example.com", "/x"},
	{"trailing dot and port", "https://example.com.:8443/x", "https://example.com:8443", "/x"},

	// Google: https://example.com:443/ is https://example.com/; :8181 is another scope.
	{"default https port", "https://example.com:443/x", "https://example.com", "/x"},
	{"default http port", "http://example.com:80/x", "http://example.com", "/x"},
	{"80 is not https's default", "https://example.com:80/", "https://example.com:80", "/"},
	{"443 is not http's default", "http://example.com:443/", "http://example.com:443", "/"},
	{"other port kept", "https://example.com:8181/", "https://example.com:8181", "/"},
	{"empty port is default", "http://example.com:/x", "http://example.com", "/x"},
	{"leading zeros", "http://example.com:0080/", "http://example.com", "/"},
	{"leading zeros other port", "http://example.com:08080/", "http://example.com:8080", "/"},
	{"highest port", "http://example.com:65535/", "http://example.com:65535", "/"},

	// By design: userinfo dropped.
	{"userinfo", "https://user:pass@example.com/x", "https://example.com", "/x"},
	{"empty userinfo", "https://@example.com/x", "https://example.com", "/x"},
	{"at sign in userinfo", "https://a@b@Example.com/", "https://example.com", "/"},
	{"userinfo looking like host", "http://example.com@evil.test/", "http://evil.test", "/"},

	// IPv6 literals, bracketed, RFC 5952 form.
	{"ipv6 loopback", "http://[::1]:8080/x", "http://[::1]:8080", "/x"},
	{"ipv6 default port", "https://[2001:db8::1]:443/", "https://[2001:db8::1]", "/"},
	{"ipv6 uppercase", "http://[2001:DB8::A]/", "http://[2001:db8::a]", "/"},
	{"ipv6 long form", "http://[2001:0db8:0000:0000:0000:0000:0000:0001]/", "http://[2001:db8::1]", "/"},
	{"ipv4-mapped ipv6", "http://[::ffff:127.0.0.1]/", "http://[::ffff:127.0.0.1]", "/"},
	{"ipv4", "http://192.0.2.1:8080/", "http://192.0.2.1:8080", "/"},

	// Google: IDN hosts equal their punycode form.
	{"idn", "https://www.exämple.com/robots.txt", "https://www.xn--exmple-cua.com", "/robots.txt"},
	{"idn uppercase", "https://EXÄMPLE.com/", "https://xn--exmple-cua.com", "/"},
	{"idn percent-encoded", "https://ex%C3%A4mple.com/", "https://xn--exmple-cua.com", "/"},
	// punycode of "ä_b" is "_b-uia" (Python's codec agrees).
	{"idn with underscore", "https://ä_b.example/", "https://xn--_b-uia.example", "/"},
	{"idn ideographic full stop", "https://例え。テスト/", "https://xn--r8jz45g.xn--zckzah", "/"},
	{"idn trailing dot", "https://exämple.com./", "https://xn--exmple-cua.com", "/"},
	{"idn fullwidth", "https://ｅｘａｍｐｌｅ．ｃｏｍ/", "https://example.com", "/"},
	{"punycode kept", "https://XN--EXMPLE-CUA.com/", "https://xn--exmple-cua.com", "/"},

	// PathQuery as sent on the wire.
	{"space escaped", "http://h/a b?c d", "http://h", "/a%20b?c%20d"},
	{"non-ascii path escaped", "http://h/ä", "http://h", "/%C3%A4"},
	{"escapes kept", "http://h/a%2fb%41", "http://h", "/a%2fb%41"},
	// net/url does not check the query's escapes: neither does Parse.
	{"malformed escape in query kept", "http://h/a?%zz", "http://h", "/a?%zz"},
	{"percent in query kept", "http://h?100%", "http://h", "/?100%"},
	{"control in fragment", "http://h/a#\x00b", "http://h", "/a"},
	{"sub-delims and at in userinfo", "http://u-._~!$&'()*+,;=:p@ss%41@h/", "http://h", "/"},
	{"reserved kept", "http://h/a;b=c/*$?x=[y]&z=@:", "http://h", "/a;b=c/*$?x=[y]&z=@:"},
	{"backslash in path escaped", "http://h/a\\b", "http://h", "/a%5Cb"},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.key, a.Key)
			assert.Equal(t, tt.pathQuery, a.PathQuery)
			assert.Equal(t, tt.key+"/robots.txt", a.RobotsURL())
		})
	}
}

// A URL is valid exactly when net/url accepts it (by design: bad input): each of
// these, which net/url refuses, Parse keyed as evil.test before, so that a
// check of it fetched evil.test's robots.txt and answered with its rules.
func TestParseRefusesWhatNetURLRefuses(t *testing.T) {
	tests := []struct{ name, in string }{
		{"backslash in userinfo", "http://example.com\\@evil.test/"},
		{"space in userinfo", "http://example.com @evil.test/"},
		{"quote in userinfo", "http://example.com\"@evil.test/"},
		{"less-than in userinfo", "http://example.com<@evil.test/"},
		{"greater-than in userinfo", "http://example.com>@evil.test/"},
		{"caret in userinfo", "http://example.com^@evil.test/"},
		{"backquote in userinfo", "http://example.com`@evil.test/"},
		{"brace in userinfo", "http://example.com{@evil.test/"},
		{"pipe in userinfo", "http://example.com|@evil.test/"},
		{"bracket in userinfo", "http://example.com[@evil.test/"},
		{"non-ascii userinfo", "http://ex\u00e4mple.com@evil.test/"},
		{"invalid utf-8 in userinfo", "http://example.com\xff@evil.test/"},
		{"lone percent in userinfo", "http://example.com%@evil.test/"},
		{"bad escape in userinfo", "http://example.com%zz@evil.test/"},
		{"cut escape in password", "http://user:pa%2@evil.test/"},
		{"bad escape in path", "http://evil.test/%zz"},
		{"lone percent in path", "http://evil.test/100%"},
		{"cut escape in path", "http://evil.test/a%2"},
		{"bad escape in fragment", "http://evil.test/a#%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, uerr := url.Parse(tt.in)
			require.Error(t, uerr, "net/url refuses it")
			a, err := Parse(tt.in)
			var e *Error
			require.ErrorAs(t, err, &e, "keyed as %q", a.Key)
			assert.Equal(t, Unparsable, e.Kind, "error: %v", err)
			var m Memo
			_, _, err = m.Split(tt.in)
			assert.Equal(t, e, err, "Split refuses it as Parse does")
		})
	}
}

// parseErrorTests are invalid URLs and the kind of error Parse gives.
var parseErrorTests = []struct {
	name, in string
	kind     Kind
}{
	{"empty", "", NoScheme},
	{"bare path", "/robots.txt", NoScheme},
	{"bare host", "example.com/x", NoScheme},
	{"network-path reference", "//example.com/x", NoScheme},
	{"digit first", "1http://example.com/", NoScheme},
	{"empty scheme", "://example.com/", NoScheme},
	{"leading space", " http://example.com/", NoScheme},

	{"ftp", "ftp://example.com/robots.txt", UnsupportedScheme},
	{"mailto", "mailto:someone@example.com", UnsupportedScheme},
	{"host:port looks like a scheme", "example.com:8080/x", UnsupportedScheme},
	{"https with suffix", "httpss://example.com/", UnsupportedScheme},

	{"opaque", "http:example.com", NoHost},
	{"one slash", "http:/example.com", NoHost},
	{"empty authority", "http:///x", NoHost},
	{"port only", "http://:80/", NoHost},
	{"userinfo only", "http://user@/", NoHost},
	{"lone dot", "http://./", NoHost},
	{"idna maps to nothing", "http://\u00ad/", NoHost}, // U+00AD soft hyphen

	{"port letters", "http://example.com:8o/", BadPort},
	{"port zero", "http://example.com:0/", BadPort},
	{"port zeros", "http://example.com:000/", BadPort},
	{"port 65536", "http://example.com:65536/", BadPort},
	{"port huge", "http://example.com:99999999999999999999/", BadPort},
	{"port negative", "http://example.com:-1/", BadPort},
	{"two colons", "http://a:b:80/", BadPort},
	{"text after ipv6", "http://[::1]x/", BadPort},

	{"space in host", "http://exa mple.com/", Unparsable},
	{"angle bracket in host", "http://a<b.com/", Unparsable},
	{"backslash in host", "http://a\\b.com/", Unparsable},
	{"escaped ascii in host", "http://%41.com/", Unparsable},
	{"bad escape in host", "http://a%zz/", Unparsable},
	{"invalid utf-8 host", "http://a%FF/", Unparsable},
	{"two trailing dots", "http://example.com../", Unparsable},
	{"ipv6 unclosed", "http://[::1/", Unparsable},
	{"ipv6 garbage", "http://[foo]/", Unparsable},
	{"ipv4 in brackets", "http://[192.0.2.1]/", Unparsable},
	// A zone names an interface of this machine; it means nothing as a crawl target.
	{"ipv6 zone", "http://[fe80::1%25en0]/", Unparsable},
	{"control in path", "http://example.com/a\nb", Unparsable},
	{"control in query", "http://example.com/a?b\x7f", Unparsable},
	{"control in host", "http://exa\tmple.com/", Unparsable},
	{"control in userinfo", "http://u\x00@example.com/", Unparsable},
	{"idna rejects", "http://a\u200db.com/", Unparsable}, // ZWJ outside its context (RFC 5892 CONTEXTJ)
	{"idna maps to a colon", "http://ä\uff1a80/", Unparsable},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.kind, e.Kind, "error: %v", err)
			assert.Contains(t, err.Error(), "authority: "+tt.kind.String())
		})
	}
}

// STYLE.md 12: the URL length bound, tested at the bound.
func TestParseLengthBound(t *testing.T) {
	const prefix = "https://example.com/"
	atBound := prefix + strings.Repeat("a", MaxURLLength-len(prefix))
	require.Len(t, atBound, MaxURLLength)

	a, err := Parse(atBound)
	require.NoError(t, err)
	assert.Equal(t, "https://example.com", a.Key)
	assert.Len(t, a.PathQuery, MaxURLLength-len("https://example.com"))

	_, err = Parse(atBound + "a")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, TooLong, e.Kind)
	assert.LessOrEqual(t, len(err.Error()), 200, "the message quotes a bounded prefix of the URL")
}

// Escaping can make the canonical form longer than the input; the bound
// applies to both, so that every accepted URL's Key+PathQuery parses again.
func TestParseLengthBoundAfterEscaping(t *testing.T) {
	const prefix = "https://example.com/"
	fits := prefix + strings.Repeat("a", MaxURLLength-len(prefix)-3) + "ä" // 2 octets, escaped to 6
	require.Len(t, fits, MaxURLLength-1)
	_, err := Parse(fits)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, TooLong, e.Kind)

	// "https://example.com" + "/" + n×"a" + "%C3%A4" is MaxURLLength long.
	exact := prefix + strings.Repeat("a", MaxURLLength-len(prefix)-len("%C3%A4")) + "ä"
	a, err := Parse(exact)
	require.NoError(t, err)
	assert.Len(t, a.Key+a.PathQuery, MaxURLLength)
	b, err := Parse(a.Key + a.PathQuery)
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

func TestErrorUnwrap(t *testing.T) {
	_, err := Parse("http://[fe80::1%25en0]/")
	require.Error(t, err)
	assert.ErrorIs(t, err, errZone)
	assert.Equal(t, "Kind(0)", Kind(0).String())
}

func TestAuthorityParts(t *testing.T) {
	tests := []struct {
		in, scheme, hostname, port string
	}{
		{"https://Example.com:443/x", "https", "example.com", ""},
		{"http://example.com:8080/x", "http", "example.com", "8080"},
		{"http://[::1]:8080/", "http", "::1", "8080"},
		{"http://[::1]/", "http", "::1", ""},
		{"https://xn--exmple-cua.com/", "https", "xn--exmple-cua.com", ""},
	}
	for _, tt := range tests {
		a, err := Parse(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.scheme, a.Scheme(), tt.in)
		assert.Equal(t, tt.hostname, a.Hostname(), tt.in)
		assert.Equal(t, tt.port, a.Port(), tt.in)
	}
	assert.Empty(t, Authority{}.Scheme())
	assert.Empty(t, Authority{}.Hostname())
	assert.Empty(t, Authority{}.Port())
}

// Parse returns substrings of a canonical URL: the hot path of a cache hit
// costs no allocation.
func TestParseAllocs(t *testing.T) {
	tests := []struct {
		in     string
		allocs float64
	}{
		{"https://example.com/some/page?q=1", 0},
		{"https://example.com:8080/some/page", 0},
		{"https://example.com:443/some/page", 0},
		{"https://example.com./x", 0},
		{"http://[::1]:8080/x", 0},
		{"https://Example.com/some/page", 1},
		{"https://example.com?q", 1},
		{"HTTPS://user@Example.com:0443/a b", 2},
	}
	for _, tt := range tests {
		got := testing.AllocsPerRun(100, func() {
			if _, err := Parse(tt.in); err != nil {
				t.Fatal(err)
			}
		})
		assert.Equal(t, tt.allocs, got, tt.in)
	}
}

func TestKindsDistinct(t *testing.T) {
	seen := map[string]bool{}
	for k := NoScheme; k <= TooLong; k++ {
		s := k.String()
		assert.False(t, seen[s], s)
		assert.NotContains(t, s, "Kind(")
		seen[s] = true
	}
	var e *Error
	assert.False(t, errors.As(errors.New("x"), &e))
}

// The path is checked eight octets at a time where it can be: a control,
// a bad escape or an octet to escape is found wherever it stands.
func TestPathCheckedAtEveryOffset(t *testing.T) {
	for i := range 20 {
		path := "/" + strings.Repeat("a", i)
		for _, tt := range []struct {
			insert string
			ok     bool
			pq     string
		}{
			{"%zz", false, ""},
			{"%4", false, ""},
			{"\x01", false, ""},
			{"%41", true, path + "%41ghijklmno"},
			{" ", true, path + "%20ghijklmno"},
			{"?%zz", true, path + "?%zzghijklmno"},
		} {
			in := "http://h" + path + tt.insert + "ghijklmno"
			a, err := Parse(in)
			if !tt.ok {
				assert.Error(t, err, "%q", in)
				continue
			}
			if assert.NoError(t, err, "%q", in) {
				assert.Equal(t, tt.pq, a.PathQuery, "%q", in)
			}
		}
	}
}
