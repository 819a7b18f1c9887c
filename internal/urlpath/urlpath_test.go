package urlpath

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/sharedtest"
)

func TestPath(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// RFC 9309 §2.2.2, Figure 4.
		{"fig4 plain query", "/foo/bar?baz=quz", "/foo/bar?baz=quz"},
		{"fig4 encoded reserved stays", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar"},
		{"fig4 raw non-ASCII encoded", "/foo/bar/ツ", "/foo/bar/%E3%83%84"},
		{"fig4 encoded non-ASCII stays", "/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"},
		{"fig4 unreserved decoded", "/foo/bar/%62%61%7A", "/foo/bar/baz"},
		// RFC 9309 §2.2.3, Figure 6: a literal * or $ is compared encoded.
		{"fig6 star", "/path/file-with-a-*.html", "/path/file-with-a-%2A.html"},
		{"fig6 dollar", "/path/foo-$", "/path/foo-%24"},
		// RFC 3986 §6.2.2.1: hex digits of escapes are upper case.
		{"lower-case escape", "/a%2fb", "/a%2Fb"},
		{"lower-case non-ASCII escape", "/%e3%83%84", "/%E3%83%84"},
		{"unreserved escapes decoded", "/%41%7a%30%2D%2E%5F%7E", "/Az0-._~"},
		{"reserved escapes kept", "/%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D", "/%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"},
		{"percent itself kept", "/100%25", "/100%25"},
		{"lone percent encoded", "/100%", "/100%25"},
		{"bad escape encoded", "/%zz", "/%25zz"},
		{"short escape encoded", "/%4", "/%254"},
		// Octets that may not appear raw in a URI (RFC 3986 §2) are encoded.
		{"space", "/a b", "/a%20b"},
		{"controls", "/a\x00\x1f\x7f", "/a%00%1F%7F"},
		{"unwise", "/\"<>\\^`{|}", "/%22%3C%3E%5C%5E%60%7B%7C%7D"},
		{"fragment dropped", "/a/b?c#frag", "/a/b?c"},
		{"empty is root", "", "/"},
		{"query only", "?a=b", "/?a=b"},
		{"fragment only", "#x", "/"},
		{"no leading slash", "a/b", "/a/b"},
		{"reserved raw kept", "/a:b@c!d&e'f(g)h+i,j;k=l?m/n[o]", "/a:b@c!d&e'f(g)h+i,j;k=l?m/n[o]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Path(tt.in))
			assert.Equal(t, tt.want, string(AppendPath(nil, tt.in)))
			assert.Equal(t, tt.in == tt.want, IsCanonicalPath(tt.in), "IsCanonicalPath")
			assert.True(t, IsCanonicalPath(tt.want), "the result is canonical")
		})
	}
}

func TestPattern(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "/a/b", "/a/b"},
		{"wildcard kept", "/a/*.gif", "/a/*.gif"},
		{"final dollar kept", "/a$", "/a$"},
		// Google: '$' is special only as the last character.
		{"inner dollar literal", "/a$b", "/a%24b"},
		{"double dollar", "/a$$", "/a%24$"},
		{"encoded star stays literal", "/file-with-a-%2A.html", "/file-with-a-%2A.html"},
		{"encoded dollar stays literal", "/foo-%24", "/foo-%24"},
		{"non-ASCII", "/ツ", "/%E3%83%84"},
		{"unreserved escape decoded", "/%62%61%7A", "/baz"},
		{"lower-case escape", "/%aa", "/%AA"},
		{"lone percent", "/50%", "/50%25"},
		{"space inside", "/a b", "/a%20b"},
		{"empty", "", ""},
		{"star only", "*", "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Pattern(tt.in))
			assert.Equal(t, tt.in == tt.want, IsCanonicalPattern(tt.in), "IsCanonicalPattern")
			assert.Equal(t, tt.want, Pattern(tt.want), "idempotent")
		})
	}
}

// sharedVectors loads one list of ../shared/conformance/other_cases.json.
func sharedVectors(t *testing.T, list string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "conformance"), "other_cases.json"))
	require.NoError(t, err)
	var all map[string][]map[string]any
	require.NoError(t, json.Unmarshal(data, &all))
	require.NotEmpty(t, all[list])
	return all[list]
}

// Google's TestMaybeEscapePattern: what Google does to a rule value is a
// subset of the canonical form (it neither decodes unreserved escapes nor
// encodes raw ASCII), so on these vectors the two agree.
func TestPatternGoogleVectors(t *testing.T) {
	for _, v := range sharedVectors(t, "escape_pattern") {
		assert.Equal(t, v["want"], Pattern(v["pattern"].(string)), v["id"])
	}
}

// Google's GetPathParamsQuery vectors.
func TestFromURLGoogleVectors(t *testing.T) {
	for _, v := range sharedVectors(t, "path_params_query") {
		assert.Equal(t, v["want"], FromURL(v["url"].(string)), "%s: %q", v["id"], v["url"])
	}
}

func TestFromURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/a/b?c=d#e", "/a/b?c=d"},
		{"https://example.com", "/"},
		{"https://example.com?q", "/?q"},
		{"https://example.com#frag/x", "/"},
		{"/just/a/path", "/just/a/path"},
		{"/a?b=http://c/d", "/a?b=http://c/d"},
		{"HTTP://EXAMPLE.COM/Case", "/Case"},
		{"https://user:pw@example.com:8080/x", "/x"},
		{"", "/"},
		{"://", "/"},
		{"///", "/"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FromURL(tt.in), "FromURL(%q)", tt.in)
	}
}

// oracleCanonical is an obviously correct, slow canonicalizer: it splits s
// into units (an escape %XX or one octet) and writes each unit's canonical
// form, decided from the octet it stands for and whether it was escaped.
func oracleCanonical(s string, pattern bool) string {
	const unreservedSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	const rawOK = unreservedSet + ":/?[]@!&'()+,;=#"
	var out strings.Builder
	if !pattern {
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		if !strings.HasPrefix(s, "/") {
			out.WriteByte('/')
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i+1])) &&
			strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i+2])) {
			var b byte
			fmt.Sscanf(s[i+1:i+3], "%02x", &b)
			if strings.IndexByte(unreservedSet, b) >= 0 {
				out.WriteByte(b)
			} else {
				fmt.Fprintf(&out, "%%%02X", b)
			}
			i += 2
			continue
		}
		switch {
		case pattern && c == '*':
			out.WriteByte('*')
		case pattern && c == '$' && i == len(s)-1:
			out.WriteByte('$')
		case c != '*' && c != '$' && strings.IndexByte(rawOK, c) >= 0:
			out.WriteByte(c)
		default:
			fmt.Fprintf(&out, "%%%02X", c)
		}
	}
	return out.String()
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"/foo/bar/%62%61%7A", "/ツ", "/a%2fb", "/%", "/%4", "/a$b$", "*.gif$", "/a b#c",
		"/path/file-with-a-*.html", "?q", "", "%%%", "/\x00\xff", "/%E3%83%84",
		"/%72obots.tx%74", "robots.txt#x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Path(s)
		require.Equal(t, oracleCanonical(s, false), p, "Path(%q)", s)
		require.Equal(t, p, Path(p), "Path is idempotent")
		require.True(t, IsCanonicalPath(p))
		require.Equal(t, s == p, IsCanonicalPath(s))
		require.Equal(t, p == "/robots.txt", IsRobotsTxt(s), "IsRobotsTxt(%q)", s)

		q := Pattern(s)
		require.Equal(t, oracleCanonical(s, true), q, "Pattern(%q)", s)
		require.Equal(t, q, Pattern(q), "Pattern is idempotent")
		require.Equal(t, s == q, IsCanonicalPattern(s))

		// FromURL never fails and always yields a path.
		require.True(t, strings.HasPrefix(FromURL(s), "/"))
	})
}

// RFC 9309 §2.2.2: /robots.txt is always allowed, however it is written;
// with a query it is another URL.
func TestIsRobotsTxt(t *testing.T) {
	for _, p := range []string{
		"/robots.txt", "/%72obots.txt", "/robots%2Etxt", "/robots.tx%74", "/%72%6F%62%6F%74%73%2E%74%78%74",
		"/robots.txt#frag", "robots.txt",
	} {
		assert.True(t, IsRobotsTxt(p), p)
		assert.Equal(t, Path(p) == "/robots.txt", IsRobotsTxt(p), p)
	}
	for _, p := range []string{
		"", "/", "/robots.txt?x=1", "/robots.txt?", "/Robots.txt", "/robots.txt/", "/robots%2etxt%20", "/x/robots.txt",
		"/robots%252Etxt", "/robots.txtt", "/%72%6F%62%6F%74%73%2E%74%78%74%74",
	} {
		assert.False(t, IsRobotsTxt(p), p)
		assert.Equal(t, Path(p) == "/robots.txt", IsRobotsTxt(p), p)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { IsRobotsTxt("/%72obots.txt") }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { IsRobotsTxt("/r\u00e9sum\u00e9.txt") }))
}
