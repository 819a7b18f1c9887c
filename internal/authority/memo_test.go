package authority

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/urlpath"
)

// Split accepts and refuses what Parse does, with the same key, and a path
// that matches as Parse's PathQuery does; the second time too, when the
// authority is remembered.
func TestSplitAgreesWithParse(t *testing.T) {
	var m Memo
	check := func(in string) {
		t.Helper()
		a, err := Parse(in)
		for i := range 2 {
			key, path, serr := m.Split(in)
			require.Equal(t, err, serr, "%q, call %d", in, i)
			if err == nil {
				assert.Equal(t, a.Key, key, "%q, call %d", in, i)
				assert.Equal(t, urlpath.Path(a.PathQuery), urlpath.Path(path), "%q, call %d", in, i)
			}
		}
	}
	for _, tt := range parseTests {
		check(tt.in)
	}
	for _, tt := range parseErrorTests {
		check(tt.in)
	}
	// A remembered authority does not make a bad URL on it good.
	check("https://User@Example.com/ok")
	check("https://User\\@Example.com/bad")
	check("https://User@Example.com/%zz")
	check("https://User@Example.com/" + strings.Repeat("ä", MaxURLLength/6))
}

func TestSplitPath(t *testing.T) {
	var m Memo
	tests := []struct{ in, path string }{
		{"https://Example.com", ""},
		{"https://Example.com?q", "?q"},
		{"https://Example.com/a b/ä?x=ü#frag", "/a b/ä?x=ü"},
	}
	for _, tt := range tests {
		_, path, err := m.Split(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.path, path, tt.in)
	}
}

// Split costs no allocation for any shape of URL once its authority has
// been seen: the hot path of a cache hit (README, "Performance").
func TestSplitAllocs(t *testing.T) {
	var m Memo
	for _, in := range []string{
		"https://example.com/some/page?q=1",
		"https://Example.COM/some/page",
		"HTTPS://example.com/some/page",
		"https://user:pw@example.com/some/page",
		"https://example.com/caf\u00e9/men\u00fc",
		"https://www.ex\u00e4mple.com/some/page",
		"https://ex%C3%A4mple.com/some/page",
		"http://[2001:db8::1]:8080/x",
		"http://[2001:DB8:0:0::1]:8080/x",
		"https://example.com:443/x",
		"https://example.com:08443/x",
		"https://example.com/a%2fb%7e?q=%zz#f",
	} {
		_, _, err := m.Split(in)
		require.NoError(t, err, in)
		assert.Zero(t, testing.AllocsPerRun(100, func() { m.Split(in) }), in)
	}
}

// The memo holds a bounded number of authorities, of bounded length, and
// stays right when they collide.
func TestMemoBounds(t *testing.T) {
	var m Memo
	for i := range 4 * memoSlots {
		in := fmt.Sprintf("https://Host%d.example/", i)
		key, _, err := m.Split(in)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("https://host%d.example", i), key)
	}
	held := 0
	for i := range m.slots {
		if e := m.slots[i].Load(); e != nil {
			held++
			assert.LessOrEqual(t, len(e.hostPort), maxMemoText)
		}
	}
	assert.LessOrEqual(t, held, memoSlots)
	assert.Greater(t, held, memoSlots/2, "the hash spreads authorities over the slots")

	long := "https://User@" + strings.Repeat("a", maxMemoText) + ".example/"
	key, _, err := m.Split(long)
	require.NoError(t, err)
	assert.Equal(t, "https://"+strings.Repeat("a", maxMemoText)+".example", key)
	for i := range m.slots {
		if e := m.slots[i].Load(); e != nil {
			assert.NotEqual(t, key, e.key, "an authority text over maxMemoText is not remembered")
		}
	}

	// The same text under http and https is two keys.
	k1, _, _ := m.Split("http://Example.com:443/")
	k2, _, _ := m.Split("https://Example.com:443/")
	assert.Equal(t, "http://example.com:443", k1)
	assert.Equal(t, "https://example.com", k2)
	k1, _, _ = m.Split("http://Example.com:443/")
	assert.Equal(t, "http://example.com:443", k1)
}

func TestMemoConcurrent(t *testing.T) {
	var m Memo
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				n := (i + g) % 50
				key, _, err := m.Split(fmt.Sprintf("https://u@Host%d.example/x", n))
				assert.NoError(t, err)
				assert.Equal(t, fmt.Sprintf("https://host%d.example", n), key)
			}
		}()
	}
	wg.Wait()
}

// splitPlain takes the common URL, whose key is a prefix of it, and leaves
// every other to the general path; what it takes it answers as Parse does.
func TestSplitPlain(t *testing.T) {
	tests := []struct {
		in    string
		taken bool
	}{
		{"https://example.com/blogs/pad/entry.html", true},
		{"http://example.com", true},
		{"https://example.com?q=1", true},
		{"https://example.com#f", true},
		{"https://a-b.example_c.com/a b/ä?x=%zz#f%41", true},
		{"https://example.com/a%2fb", true},
		{"https://Example.com/", false},    // lowercased: not a prefix
		{"HTTPS://example.com/", false},    // scheme lowercased
		{"https://example.com./", false},   // trailing dot dropped
		{"https://example.com:443/", true}, // the default: the key has no port
		{"http://example.com:80", true},
		{"http://example.com:443/", true},
		{"https://example.com:8080/", true},
		{"http://127.0.0.1:65535?q", true},
		{"http://127.0.0.1:65536/", false}, // out of range: the general path says why
		{"http://127.0.0.1:99999/", false},
		{"http://127.0.0.1:123456/", false},
		{"http://127.0.0.1:0/", false},
		{"http://127.0.0.1:080/", false}, // the key drops the zero: not a prefix
		{"http://127.0.0.1:/", false},
		{"http://127.0.0.1:8a/", false},
		{"http://127.0.0.1:80:80/", false},
		{"http://u:80@127.0.0.1/", false},
		{"https://u@example.com/", false},
		{"https://[::1]/", false},
		{"https://ex%41mple.com/", false},
		{"https://exämple.com/", false},
		{"https:///x", false},              // no host
		{"https://example.com/%zz", false}, // invalid: the general path says why
		{"https://example.com/#%zz", false},
		{"https://example.com/\x01", false},
		{"https://exa<mple.com/", false},
		{"https://example.com/" + strings.Repeat("a", MaxURLLength), false},
		{"https://example.com/" + strings.Repeat(" ", MaxURLLength/3), false}, // too long once escaped
		{"ftp://example.com/", false},
	}
	for _, tt := range tests {
		key, path, ok := splitPlain(tt.in)
		assert.Equal(t, tt.taken, ok, "%q", tt.in)
		if !ok {
			continue
		}
		a, err := Parse(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, a.Key, key, tt.in)
		assert.Equal(t, urlpath.Path(a.PathQuery), urlpath.Path(path), tt.in)
	}
	var all []string
	for _, tt := range parseTests {
		all = append(all, tt.in)
	}
	for _, tt := range parseErrorTests {
		all = append(all, tt.in)
	}
	for _, in := range all {
		key, path, ok := splitPlain(in)
		if !ok {
			continue
		}
		a, err := Parse(in)
		require.NoError(t, err, "%q taken but refused by Parse", in)
		assert.Equal(t, a.Key, key, in)
		assert.Equal(t, urlpath.Path(a.PathQuery), urlpath.Path(path), in)
	}
}
