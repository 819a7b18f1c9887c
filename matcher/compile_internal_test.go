package matcher

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
)

// trieNodes counts the nodes of the radix trie over keys the long way: the
// root, every key, and every longest common prefix of two keys.
func trieNodes(keys []string) int {
	nodes := map[string]bool{"": true}
	for i, a := range keys {
		nodes[a] = true
		for _, b := range keys[i+1:] {
			nodes[a[:commonPrefix(a, b)]] = true
		}
	}
	return len(nodes)
}

func TestRadixNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		keys := make([]string, rng.IntN(12))
		for i := range keys {
			keys[i] = letters(rng, "ab/", rng.IntN(6))
		}
		slices.Sort(keys)
		got := radixNodes(len(keys), false, func(i int) string { return keys[i] })
		require.Equal(t, trieNodes(keys), got, "%q", keys)
		// No edge is long enough to split.
		require.Equal(t, got, radixNodes(len(keys), true, func(i int) string { return keys[i] }), "%q", keys)
	}
	assert.Equal(t, 1, radixNodes(0, false, nil))
}

// An edge longer than maxEdge octets is split over a chain of nodes: the
// count says how many, and the trie built has exactly that many.
func TestRadixNodesSplitsLongEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		keys := make([]string, 1+rng.IntN(8))
		for i := range keys {
			keys[i] = "/" + letters(rng, "ab", rng.IntN(4)) + strings.Repeat("x", rng.IntN(3*maxEdge)) + letters(rng, "ab", rng.IntN(3))
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		// The long way: a node per distinct string or common prefix, and
		// one more for every maxEdge octets of an edge beyond the first.
		nodes := map[string]bool{"": true}
		for i, a := range keys {
			nodes[a] = true
			for _, b := range keys[i+1:] {
				nodes[a[:commonPrefix(a, b)]] = true
			}
		}
		want := 1
		for s := range nodes {
			if s == "" {
				continue
			}
			parent := 0
			for p := range nodes {
				if len(p) < len(s) && strings.HasPrefix(s, p) {
					parent = max(parent, len(p))
				}
			}
			want += 1 + (len(s)-parent-1)/maxEdge
		}
		require.Equal(t, want, radixNodes(len(keys), true, func(i int) string { return keys[i] }), "%q", keys)
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for _, k := range keys {
			b.WriteString("Disallow: " + k + "\n")
		}
		m := compile(parser.Parse([]byte(b.String())), -1, "bot")
		require.Equal(t, want+1, len(m.trie.nodes), "the nodes and the sentinel")
		for _, k := range keys {
			require.Equal(t, k, m.Match(k+"?q").Rule.Pattern)
		}
	}
}

func letters(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// Compile allocates each array it keeps at its final size: no slack is
// kept, and none was allocated and copied (by design: parsing and compiling
// allocate at most 8 times the input).
func TestArraysSizedExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	exact := func(t *testing.T, s *patternSet) {
		t.Helper()
		n := len(s.nodes)
		if s.blocks == nil {
			assert.Less(t, n, directNodes, "a trie without blocks is small")
		} else {
			assert.Equal(t, (n+blockNodes-1)/blockNodes, len(s.blocks), "blocks enough for the nodes and the sentinel")
			assert.Equal(t, len(s.blocks), cap(s.blocks), "blocks")
		}
		assert.Equal(t, len(s.octets), cap(s.octets), "octets")
		assert.Contains(t, []int{n - 1, 2 * (n - 1)}, len(s.ids), "an id per node")
		assert.Equal(t, len(s.ids), cap(s.ids), "ids")
		assert.Equal(t, len(s.notes), cap(s.notes), "notes")
		w := s.wild
		if w == nil {
			return
		}
		assert.Equal(t, len(w.wildAt), cap(w.wildAt), "wildAt")
		assert.Equal(t, len(w.wild), cap(w.wild), "wild")
		assert.Contains(t, []int{0, len(w.wild)}, len(w.at), "where the rules of the wildcard patterns are")
		assert.Equal(t, len(w.at), cap(w.at), "at")
		assert.Equal(t, len(w.pieces), cap(w.pieces), "pieces")
		assert.Equal(t, len(w.litNodes), cap(w.litNodes), "litNodes")
		assert.Equal(t, len(w.edge0), cap(w.edge0), "edge0")
		assert.Equal(t, len(w.fan.children), cap(w.fan.children), "the children of the literal nodes that branch")
		assert.Equal(t, (len(w.litNodes)+63)/64, len(w.fan.branching), "a bit per literal node")
	}
	for range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			fmt.Fprintf(&b, "User-agent: %s\n", []string{"*", "a", "b"}[rng.IntN(3)])
			for range rng.IntN(40) {
				key := []string{"Allow", "Disallow", "Content-Usage"}[rng.IntN(3)]
				pattern := letters(rng, "ab/*$%é", rng.IntN(8))
				if rng.IntN(8) == 0 {
					pattern += "/index.html"
				}
				if key == "Content-Usage" {
					pattern += " train-ai=n"
				}
				fmt.Fprintf(&b, "%s: /%s\n", key, pattern)
			}
		}
		r := parser.Parse([]byte(b.String()))
		m := compile(r, -1, "a")
		exact(t, m.trie)
		if small := compile(r, 1<<30, "a"); small.small != nil {
			assert.Equal(t, len(small.small), cap(small.small), "the records of a small set")
			assert.Nil(t, small.trie, "a small set has no trie")
		}
		if m.more != nil && m.more.usage != nil {
			exact(t, &m.more.usage.set)
			u := m.more.usage
			assert.Equal(t, len(u.prefs), cap(u.prefs), "the preferences, counted first")
			assert.Equal(t, len(u.pats), cap(u.pats), "the patterns")
		}
		if t.Failed() {
			t.Fatalf("on\n%s", b.String())
		}
	}
}

// A rule a match never reports costs no more than its text: an empty
// pattern matches nothing (RFC 9309 §2.2.2), and of rules of one pattern
// the first is reported.
func TestKeepsReportedRules(t *testing.T) {
	rules := "Disallow:\nDisallow: /a\nAllow: /a\nDisallow: /b*c\nAllow: /d/index.html\n"
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for range 100 {
		b.WriteString(rules)
	}
	m := compile(parser.Parse([]byte(b.String())), -1)
	once := compile(parser.Parse([]byte("User-agent: *\n"+rules)), -1)
	assert.Equal(t, len(once.trie.nodes), len(m.trie.nodes), "a node per string")
	assert.Len(t, m.trie.notes, len(once.trie.notes), "Allow: /a beats Disallow: /a (RFC 9309 §2.2.2)")
	require.NotNil(t, m.trie.wild)
	assert.Len(t, m.trie.wild.wild, 1, "the first Disallow: /b*c")
	for path, want := range map[string]parser.Rule{
		"/a":            {Allow: true, Pattern: "/a", Line: 4},
		"/bxc":          {Pattern: "/b*c", Line: 5},
		"/d/":           {Allow: true, Pattern: "/d/index.html", Line: 6},
		"/d/index.html": {Allow: true, Pattern: "/d/index.html", Line: 6},
	} {
		assert.Equal(t, want, m.Match(path).Rule, path)
		assert.Equal(t, want, MatchOnce(parser.Parse([]byte(b.String())), path).Rule, path)
	}
}

// A rule reports the pattern as written and its line, whatever the text
// that follows its canonical pattern (a '*' when it holds one or is
// rewritten): star, rewritten, both, neither; and lines up to maxLine as
// they are, in a Robots built by hand (a parsed one has far fewer lines).
func TestRulesReportWhatWasWritten(t *testing.T) {
	r := &parser.Robots{Groups: []parser.Group{{
		Agents: []parser.Agent{{Value: "*", Line: 1}},
		Rules: []parser.Rule{
			{Pattern: "/plain", Line: 2},
			{Pattern: "/st*r", Line: 3},
			{Pattern: "/%61é", Line: 4},
			{Pattern: "/%61*é$", Line: 1<<29 + 7},
			{Allow: true, Pattern: "/*x*/index.html", Line: maxLine},
			{Pattern: "/over", Line: maxLine + 1},
		},
	}}}
	m := Compile(r, "bot")
	for path, want := range map[string]parser.Rule{
		"/plain":        {Pattern: "/plain", Line: 2},
		"/stxr":         {Pattern: "/st*r", Line: 3},
		"/aé/x":         {Pattern: "/%61é", Line: 4},
		"/a-%C3%A9":     {Pattern: "/%61*é$", Line: 1<<29 + 7},
		"/axb/":         {Allow: true, Pattern: "/*x*/index.html", Line: maxLine},
		"/over/and/out": {Pattern: "/over", Line: maxLine},
	} {
		assert.Equal(t, want, m.Match(path).Rule, path)
	}
}

// sortEntries orders entries by their heads as a sort of the strings does,
// keeping the order of equal ones, for heads that share long prefixes, end
// inside one another or repeat, in sets small and large enough to recurse,
// and sorted by comparisons when there are more than its records name.
func TestSortEntries(t *testing.T) {
	t.Run("records", testSortEntries)
	t.Run("comparisons", func(t *testing.T) {
		old := maxRecs
		t.Cleanup(func() { maxRecs = old })
		maxRecs = 12
		testSortEntries(t)
	})
}

func testSortEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 2, 11, 13, 40, lsdMin - 1, lsdMin, 300, 3000} {
		for range 20 {
			var text strings.Builder
			entries := make([]entry, n)
			prefix := strings.Repeat("/p", rng.IntN(40))
			for i := range entries {
				head := prefix[:rng.IntN(len(prefix)+1)] + letters(rng, "ab/", rng.IntN(5))
				base := uint32(text.Len())
				text.WriteString(head + "*x")
				entries[i] = entry{base: base, head: uint32(len(head)), n: uint32(len(head) + 2), id: int32(i)}
			}
			s := text.String()
			sortEntries(entries, s, nil)
			require.True(t, slices.IsSortedFunc(entries, func(a, b entry) int {
				return strings.Compare(s[a.base:a.base+a.head], s[b.base:b.base+b.head])
			}), "n=%d", n)
			ids := make([]int32, n)
			for i, e := range entries {
				ids[i] = e.id
				if i > 0 && s[e.base:e.base+e.head] == s[entries[i-1].base:entries[i-1].base+entries[i-1].head] {
					require.Less(t, entries[i-1].id, e.id, "equal heads keep their order")
				}
			}
			slices.Sort(ids)
			for i, id := range ids {
				require.Equal(t, int32(i), id, "every entry once")
			}
		}
	}
	// Sorted already, as the heads "/" of wildcard patterns are: kept as
	// they are.
	sorted := []entry{{base: 0, head: 1, id: 0}, {base: 0, head: 1, id: 1}, {base: 0, head: 2, id: 2}, {base: 2, head: 2, id: 3}}
	sortEntries(sorted, "/a/b", nil)
	for i, e := range sorted {
		require.Equal(t, int32(i), e.id)
	}
	// Heads nested in one another, each one longer, in reverse: each pass
	// settles one of them.
	var text strings.Builder
	entries := make([]entry, 1000)
	for i := range entries {
		head := "/" + strings.Repeat("a", len(entries)-i)
		entries[i] = entry{base: uint32(text.Len()), head: uint32(len(head))}
		text.WriteString(head)
	}
	s := text.String()
	sortEntries(entries, s, nil)
	for i, e := range entries {
		require.Equal(t, uint32(i+2), e.head)
	}
}

// A file of a few rules is compiled small, without the trie, and costs its
// text and a record per pattern; more rules, lines or text than a small
// set's records hold get the trie.
func TestSmallSetChosen(t *testing.T) {
	rules := func(n int, pattern string) string {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for i := range n {
			fmt.Fprintf(&b, "Disallow: /%d%s\n", i, pattern)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name  string
		body  string
		small bool
	}{
		{"no rules", "User-agent: *\n", true},
		{"a few rules", rules(smallRules, "/a*b$"), true},
		{"one rule too many", rules(smallRules+1, ""), false},
		{"too much text", rules(3, "/"+strings.Repeat("é", maxSmallText/6)), false},
		{"a line past 16 bits", strings.Repeat("\n", maxSmallLine) + rules(1, ""), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := Compile(parser.Parse([]byte(tt.body)), "bot")
			assert.Equal(t, tt.small, m.small != nil)
			if tt.small {
				assert.Nil(t, m.trie, "no trie")
				want := int64(unsafe.Sizeof(*m)) + int64(len(m.text)) + int64(len(m.small))*int64(unsafe.Sizeof(smallRule{}))
				assert.Equal(t, want, m.Size(), "the text, which holds the agents, and a record a pattern")
			}
		})
	}
}

// The records of a small set keep the patterns, the lines and what a
// match reports: the pattern as written, and the pattern of Google's
// index.html rule as its rule's.
func TestSmallSetReports(t *testing.T) {
	body := "User-agent: *\nDisallow: /a\nAllow: /a\nDisallow: /ä*x$\nAllow: /d/index.html\nDisallow: /b*c\n"
	m := Compile(parser.Parse([]byte(body)))
	require.NotNil(t, m.small)
	for path, want := range map[string]parser.Rule{
		"/a":            {Allow: true, Pattern: "/a", Line: 3},
		"/%C3%A4yx":     {Pattern: "/ä*x$", Line: 4},
		"/d/":           {Allow: true, Pattern: "/d/index.html", Line: 5},
		"/d/index.html": {Allow: true, Pattern: "/d/index.html", Line: 5},
		"/bxc":          {Pattern: "/b*c", Line: 6},
	} {
		assert.Equal(t, want, m.Match(path).Rule, path)
	}
	assert.True(t, m.Allowed("/d/x"), "/d/index.html allows /d/ only")
	assert.True(t, m.Allowed("/äx/y"), "anchored")
}

// Content-Usage rules in a row with the same value share its preferences,
// parsed once: a file of many paths with one value keeps one entry.
func TestUsagePrefsShared(t *testing.T) {
	body := func(value func(i int) string) string {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for i := range 100 {
			fmt.Fprintf(&b, "Content-Usage: /p%d %s\n", i, value(i))
		}
		return b.String()
	}
	m := Compile(parser.Parse([]byte(body(func(int) string { return "train-ai=n" }))))
	require.NotNil(t, m.more)
	assert.Len(t, m.more.usage.prefs, 1, "one value")
	assert.Equal(t, "train-ai=n", m.Usage("/p99/x").Prefs.String())
	m = Compile(parser.Parse([]byte(body(func(i int) string { return []string{"train-ai=n", "search=y"}[i%2] }))))
	assert.Len(t, m.more.usage.prefs, 100, "values that alternate")
	assert.Equal(t, "search=y", m.Usage("/p99/x").Prefs.String())
	assert.Equal(t, "train-ai=n", m.Usage("/p98/x").Prefs.String())
}

// sortPieces orders pieces as a comparison of their strings does, whatever
// their number (runs of 16 or fewer are sorted by insertion, more by
// octet), with pieces that are prefixes of others, equal ones, and copies
// past the text (pieceText.copies).
func TestSortPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		var text strings.Builder
		var starts []uint32
		for range rng.IntN(80) {
			text.WriteString("*")
			starts = append(starts, uint32(text.Len()))
			text.WriteString(letters(rng, "ab/", 1+rng.IntN(5)))
		}
		text.WriteString("$*") // as the text ends a pattern that holds a '*'
		pt := pieceText{text: text.String()}
		for range rng.IntN(10) {
			if len(starts) > 0 {
				p := pieceOf(pt.from(starts[rng.IntN(len(starts))]))
				starts = append(starts, pt.copy(p[:rng.IntN(len(p))+1]))
			}
		}
		rng.Shuffle(len(starts), func(i, j int) { starts[i], starts[j] = starts[j], starts[i] })
		got := slices.Clone(starts)
		sortPieces(got, &pt, 0)
		pieces := func(ps []uint32) []string {
			s := make([]string, len(ps))
			for i, p := range ps {
				s[i] = pieceOf(pt.from(p))
			}
			return s
		}
		want := pieces(starts)
		slices.Sort(want)
		require.Equal(t, want, pieces(got))
		slices.Sort(got)
		slices.Sort(starts)
		require.Equal(t, starts, got, "a permutation")
	}
}

// A trie built in the scratch and copied out is the trie built in place
// after its nodes are counted, array for array.
func TestTrieInScratchAsInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 300 {
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for range rng.IntN(120) {
			pattern := letters(rng, "ab/*$%é", rng.IntN(10))
			switch rng.IntN(10) {
			case 0:
				pattern += "/index.html"
			case 1:
				pattern += strings.Repeat("x", 2*maxEdge) // a chain of nodes
			case 2:
				if rng.IntN(20) == 0 {
					pattern += strings.Repeat("*ab", maxScratchPieces) // too many pieces for the scratch
				}
			}
			fmt.Fprintf(&b, "%s: /%s\nContent-Usage: /%s train-ai=n\n", []string{"Allow", "Disallow"}[rng.IntN(2)], pattern, pattern)
		}
		r := parser.Parse([]byte(b.String()))
		require.Equal(t, maxScratchNodes, scratchNodes)
		inScratch := compile(r, -1, "a")
		scratchNodes = 0
		inPlace := compile(r, -1, "a")
		scratchNodes = maxScratchNodes
		require.Equal(t, inPlace.trie, inScratch.trie, "on\n%s", b.String())
		require.Equal(t, inPlace.more, inScratch.more, "the Content-Usage rules' set too")
		require.Equal(t, inPlace.Size(), inScratch.Size())
	}
}

// canonicalStar answers as urlpath.IsCanonicalPattern does, for patterns
// of every octet at every place, escapes canonical or not, and a '$'
// inside or last, and finds the '*' of a canonical one.
func TestCanonicalStar(t *testing.T) {
	isCanonical := func(p string) bool {
		canonical, star := canonicalStar(p)
		if canonical {
			require.Equal(t, strings.IndexByte(p, '*') >= 0, star, "%q holds a star", p)
		}
		return canonical
	}
	for c := range 256 {
		for _, p := range []string{
			string([]byte{byte(c)}),
			"/" + string([]byte{byte(c)}),
			"/abcdefgh" + string([]byte{byte(c)}) + "ijklmnop",
			"/abcdef" + string([]byte{byte(c)}),
		} {
			require.Equal(t, urlpath.IsCanonicalPattern(p), isCanonical(p), "%q", p)
		}
	}
	for hi := range 256 {
		for lo := range 256 {
			esc := "%" + string([]byte{byte(hi), byte(lo)})
			// Short, and long enough that the last eight octets, read
			// as one, hold the escape.
			for _, p := range []string{"/ab" + esc + "c", "/abcdefgh" + esc + "c", "/abcdefgh" + esc + "cd*"} {
				require.Equal(t, urlpath.IsCanonicalPattern(p), isCanonical(p), "%q", p)
			}
		}
	}
	for _, p := range []string{"", "/a$", "/a$b", "/abcdefgh$", "/abcdefg$h", "/%2A", "/%2a", "/%41", "/abcdefgh%2Aij",
		"/abcdefgh%zz", "/a*b#c", "/%", "/%2", "/a%D0%B7$", "/a%D0%B7$x", "%F0%9F%98%80/abcdefgh",
		"/abcdefg*", "/abcdefgh/*", "/*abcdefgh", "/%41*", "/abcdefgh%41ijklmnop*", "*"} {
		assert.Equal(t, urlpath.IsCanonicalPattern(p), isCanonical(p), "%q", p)
	}
}

// A trie keeps the labels of its edges, not its plain patterns: a file of
// rules that share a long prefix keeps it once, and each rule is still
// reported as written, whether the trie's text was built in the scratch
// (a few hundred rules) or where it is kept (more), and whether what is
// kept is mostly noted rules, kept in place, or mostly labels, copied out.
func TestTrieKeepsLabelsNotPlainPatterns(t *testing.T) {
	for _, tt := range []struct {
		name         string
		plain, noted int
		maxTextShare float64 // of the octets of the rules' patterns
	}{
		{"in the scratch", 300, 1, 0.2},
		{"large, mostly plain", 3000, 1, 0.3},
		{"large, mostly noted", 50, 3000, 1.2}, // a noted rule keeps its length and a star
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("User-agent: *\n")
			var rules []string
			for i := range tt.plain {
				rules = append(rules, fmt.Sprintf("/catalog/products/item-%04d", i))
			}
			for i := range tt.noted {
				rules = append(rules, fmt.Sprintf("/catalog/*.pdf-%d$", i))
			}
			written := 0
			for _, p := range rules {
				written += len(p)
				fmt.Fprintf(&b, "Disallow: %s\n", p)
			}
			m := Compile(parser.Parse([]byte(b.String())), "bot")
			require.NotNil(t, m.trie)
			assert.Less(t, float64(len(m.text)), tt.maxTextShare*float64(written), "%d octets of text for %d of patterns", len(m.text), written)
			for i, p := range rules[:tt.plain] {
				assert.Equal(t, parser.Rule{Pattern: p, Line: i + 2}, m.Match(p+"/x").Rule)
			}
			for i := range tt.noted {
				assert.Equal(t, parser.Rule{Pattern: rules[tt.plain+i], Line: tt.plain + i + 2}, m.Match(fmt.Sprintf("/catalog/a.pdf-%d", i)).Rule)
			}
			assert.Equal(t, []parser.Agent{{Value: "*", Line: 1}}, m.Agents())
		})
	}
}

// commonPrefix, eight octets at a time, agrees with a comparison of one
// octet at a time, for a difference at every place in and past a word.
func TestCommonPrefix(t *testing.T) {
	base := "/abcdefghijklmnopqrstuvwxyz0123456789"
	for n := range len(base) + 1 {
		for m := range len(base) + 1 {
			a, b := base[:n], []byte(base[:m])
			for d := range m + 1 {
				if d < m {
					b[d] ^= 1
				}
				want := 0
				for want < min(n, m) && a[want] == b[want] {
					want++
				}
				require.Equal(t, want, commonPrefix(a, string(b)), "%q %q", a, b)
				if d < m {
					b[d] ^= 1
				}
			}
		}
	}
}

// lineNames answers as Agent.Names does, for values and names that differ
// or agree in their first octet, in case, or by a character outside ASCII
// that folds to an ASCII letter.
func TestLineNames(t *testing.T) {
	values := []string{"", "*", "* x", "FooBot", "foobot/2.1", "Foo Bot", "fooBot", "xFooBot", "FOO", "MJ12bot", "mj12BOT/1",
		"\u212Abot", "\u212A12bot", "\u017Fbot", "\u017F12bot", "kbot", "Kbot", "s12bot", "-bot", "_x", "ébot", "9bot"}
	names := []string{"FooBot", "foo", "MJ12bot", "kbot", "k12bot", "sbot", "s12bot", "Mail.RU_Bot", "x", "-bot", "9bot", "*"}
	for _, v := range values {
		for _, n := range names {
			a := parser.Agent{Value: v}
			assert.Equal(t, a.Names(n), lineNames(a, n), "%q names %q", v, n)
		}
	}
}

// A scratch that grew for a large file lets it go once small files have
// followed it for a while: a goroutine that met one large file does not
// hold its memory for the rest of a crawl. While files that need it keep
// coming, it is kept.
func TestScratchLetsGoOfALargeFileAfterSmallOnes(t *testing.T) {
	var large []byte
	large = append(large, "User-agent: *\n"...)
	for i := range 4000 {
		large = fmt.Appendf(large, "Disallow: /gp/video/%d/page\nDisallow: /region/*/%d\n", i, i)
	}
	big := parser.Parse(large)
	small := parser.Parse([]byte("User-agent: *\nDisallow: /1\n"))
	sc := new(scratch)
	compileIn := func(r *parser.Robots) { compileIn(sc, r, smallRules, "ExampleBot") }
	compileIn(big)
	require.Greater(t, sc.size(), keptScratch)
	require.True(t, sc.keeps(), "a large file's scratch is kept for the next")
	for range maxIdle - 1 {
		compileIn(small)
		require.True(t, sc.keeps())
	}
	compileIn(big)
	require.True(t, sc.keeps(), "a large file resets the count")
	for range maxIdle {
		compileIn(small)
		require.True(t, sc.keeps())
	}
	compileIn(small)
	assert.False(t, sc.keeps(), "after %d small files in a row, a scratch of %d B is let go", maxIdle, sc.size())
}

// plainEntry places a plain pattern as newEntry does.
func TestPlainEntry(t *testing.T) {
	for _, tt := range []struct {
		lit   string
		allow bool
	}{{"/", false}, {"/a/b", true}, {"/a%20b", false}, {"", true}} {
		want, pieces := newEntry(7, tt.lit, len(tt.lit), false, 3, tt.allow, 7)
		require.Zero(t, pieces)
		assert.Equal(t, want, plainEntry(7, len(tt.lit), 3, tt.allow), "%q", tt.lit)
	}
}

// A node holds its tail and children counted from its block's in 16 bits
// each: at the bounds (every node before it in its block with 256 children
// and a tail of maxTail octets, and every flag set) they are read back as
// they were filled in.
func TestNodesCountedFromTheirBlocks(t *testing.T) {
	require.Equal(t, 4, int(unsafe.Sizeof(node{})), "a node is four bytes")
	const n = 3*blockNodes + 5
	type want struct{ off, first, flags uint32 }
	wants := make([]want, n)
	s := patternSet{nodes: make([]node, n), blocks: make([]nodeBlock, blocksOf(n))}
	for i := range wants {
		wants[i] = want{off: 1<<20 + uint32(i)*maxTail, first: 1 + uint32(i)*256, flags: uint32(i) % (1 << nodeFlags)}
		s.nodes[i] = fill(s.blocks, i, wants[i].off, wants[i].first, wants[i].flags)
	}
	require.Len(t, s.blocks, 4)
	for i, w := range wants {
		n := int32(i)
		assert.Equal(t, int32(w.first), s.firstChild(n), "children of node %d", i)
		assert.Equal(t, uint16(w.flags), s.flagsOf(n), "flags of node %d", i)
		assert.Equal(t, w.off, s.blocks[i/blockNodes].off+uint32(s.nodes[i].off), "tail of node %d", i)
	}
	// A node not filled in yet holds where its entries start, in 32 bits.
	for _, lo := range []uint32{0, 1, 1<<16 - 1, 1 << 16, 1<<32 - 1} {
		assert.Equal(t, lo, pending(lo).start())
	}
}
