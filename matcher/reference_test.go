package matcher_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// This file holds a deliberately simple reference matcher: slow, obviously
// correct, and independent of the compiled one (no trie, no greedy search,
// no trailing-star folding). It shares only the canonical form of paths and
// patterns, which internal/urlpath tests against its own oracle.

// refMatches reports whether the canonical pattern p matches the canonical
// path s, by dynamic programming over the pattern: after i octets of p,
// row[j] says whether p[:i] matches s[:j].
func refMatches(p, s string) bool {
	anchored := strings.HasSuffix(p, "$")
	if anchored {
		p = p[:len(p)-1]
	}
	if !strings.Contains(p, "*") {
		if anchored {
			return p == s
		}
		return strings.HasPrefix(s, p)
	}
	if head, _, _ := strings.Cut(p, "*"); !strings.HasPrefix(s, head) {
		return false // what precedes the first star must start the path
	}
	row, next := make([]bool, len(s)+1), make([]bool, len(s)+1)
	row[0] = true
	for i := 0; i < len(p); i++ {
		for j := 0; j <= len(s); j++ {
			if p[i] == '*' {
				next[j] = row[j] || j > 0 && next[j-1]
			} else {
				next[j] = j > 0 && row[j-1] && p[i] == s[j-1]
			}
		}
		row, next = next, row
	}
	if anchored {
		return row[len(s)]
	}
	for _, ok := range row {
		if ok {
			return true
		}
	}
	return false
}

// refToken is the user-agent line's product token, written out plainly.
func refToken(v string) string {
	end := 0
	for end < len(v) && strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_", rune(v[end])) {
		end++
	}
	return v[:end]
}

func refGroups(r *parser.Robots, agents []string) []parser.Group {
	var specific, global []parser.Group
	for _, g := range r.Groups {
		named, all := false, false
		for _, a := range g.Agents {
			if a.Value == "*" || strings.HasPrefix(a.Value, "* ") || strings.HasPrefix(a.Value, "*\t") {
				all = true
				continue
			}
			for _, want := range agents {
				// "Bot/1.0 (…)" counts as "Bot", a browser's "Mozilla/…" does not.
				if tok, _, ok := strings.Cut(want, "/"); ok && tok != "" && refToken(tok) == tok && !strings.EqualFold(tok, "Mozilla") {
					want = tok
				}
				if want != "" && refToken(want) == want && strings.EqualFold(refToken(a.Value), want) {
					named = true
				}
			}
		}
		if named {
			specific = append(specific, g)
		} else if all {
			global = append(global, g)
		}
	}
	if len(specific) > 0 {
		return specific
	}
	return global
}

// reference is the reference matcher for one file and crawler: the
// canonical patterns of the selected groups' rules, in file order.
type reference struct {
	rules []refRule
}

type refRule struct {
	pattern string // canonical
	allow   bool
	line    int
}

func newReference(r *parser.Robots, agents []string) *reference {
	ref := &reference{}
	for _, g := range refGroups(r, agents) {
		for _, rule := range g.Rules {
			p := urlpath.Pattern(rule.Pattern)
			if p == "" {
				continue // empty patterns match nothing
			}
			ref.rules = append(ref.rules, refRule{p, rule.Allow, rule.Line})
			// Google's index.html rule.
			if slash := strings.LastIndex(p, "/"); rule.Allow && slash >= 0 && strings.HasPrefix(p[slash:], "/index.htm") {
				ref.rules = append(ref.rules, refRule{p[:slash+1] + "$", true, rule.Line})
			}
		}
	}
	return ref
}

// refPath is the canonical path a Matcher is asked about when given s: s
// itself when it starts with '/', else the path and query of s read as a
// URL ("https://example.com/a?b", or "example.com/a"; "0" has none: "/").
func refPath(s string) string {
	if !strings.HasPrefix(s, "/") {
		s = urlpath.FromURL(s)
	}
	return urlpath.Path(s)
}

// verdict is the reference answer: whether path is allowed, and the line of
// the deciding rule (0 when none decided).
func (ref *reference) verdict(path string) (allowed bool, line int) {
	path = refPath(path)
	if path == "/robots.txt" {
		return true, 0
	}
	bestLen, bestAllow, bestLine := -1, false, 0
	for _, r := range ref.rules {
		if !refMatches(r.pattern, path) {
			continue
		}
		better := len(r.pattern) > bestLen ||
			len(r.pattern) == bestLen && r.allow && !bestAllow ||
			len(r.pattern) == bestLen && r.allow == bestAllow && r.line < bestLine
		if better {
			bestLen, bestAllow, bestLine = len(r.pattern), r.allow, r.line
		}
	}
	if bestLen < 0 {
		return true, 0
	}
	return bestAllow, bestLine
}

// refVerdict is newReference(r, agents).verdict(path).
func refVerdict(r *parser.Robots, agents []string, path string) (bool, int) {
	return newReference(r, agents).verdict(path)
}

// RFC 9309 §2.2.1: the compiled matcher selects the same groups as the
// reference's own, written-out selection, for files of many groups whose
// user-agent lines are near misses of the crawler's tokens, and for
// crawlers known by several tokens, by none, or by strings that are not
// tokens. The verdicts and the user-agent lines of the selected groups
// must agree, so a bug in either selection shows.
func TestGroupSelectionAgainstReference(t *testing.T) {
	lines := []string{"*", "* x", "*bot", "bot", "Bot", "BOT/2.1", "bot2", "bots", "bo", "bot-news",
		"Bot_News", "other", " bot", "bot bar", "", "googlebot", "GoogleBot-Image", "x*"}
	tokens := [][]string{nil, {"bot"}, {"Bot"}, {"bo"}, {"bots"}, {"bot-news", "bot"}, {"Bot_News"},
		{"bot/1.0"}, {""}, {"googlebot"}, {"GOOGLEBOT", "other"}, {"*"}, {"x"}}
	rng := rand.New(rand.NewPCG(21, 22))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for range 1 + rng.IntN(5) {
			for range 1 + rng.IntN(2) {
				fmt.Fprintf(&b, "User-agent: %s\n", lines[rng.IntN(len(lines))])
			}
			fmt.Fprintf(&b, "Disallow: /%d\nAllow: /%d/a\n", i%7, i%5)
		}
		body := b.String()
		r := parser.Parse([]byte(body))
		agents := tokens[rng.IntN(len(tokens))]
		m := matcher.Compile(r, agents...)
		var want []parser.Agent
		for _, g := range refGroups(r, agents) {
			want = append(want, g.Agents...)
		}
		require.Equal(t, want, m.Agents(), "agents %q on\n%s", agents, body)
		for _, path := range []string{"/", "/0", "/1/a", "/3", "/4/a/b", "/6"} {
			allowed, line := refVerdict(r, agents, path)
			got := m.Match(path)
			require.Equal(t, allowed, got.Allowed, "agents %q, %q on\n%s", agents, path, body)
			require.Equal(t, line, got.Rule.Line, "agents %q, %q on\n%s", agents, path, body)
		}
	}
}

// A large trie, of nodes with dozens of children and tails of up to 63
// octets (an edge's most), answers as the reference matcher does: for every
// pattern, a path it is a prefix of, and paths that part from it in its
// tail or just past it.
func TestLargeTrieAgainstReference(t *testing.T) {
	withAndWithoutBlocks(t, largeTrieAgainstReference)
}

// withAndWithoutBlocks runs check on tries as they are compiled, and on
// tries that all count their nodes from blocks, as a large one does.
func withAndWithoutBlocks(t *testing.T, check func(t *testing.T)) {
	for _, blocks := range []bool{false, true} {
		t.Run(fmt.Sprintf("blocks=%v", blocks), func(t *testing.T) {
			if blocks {
				defer matcher.SetBlocksAlways()()
			}
			check(t)
		})
	}
}

func largeTrieAgainstReference(t *testing.T) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	var patterns []string
	for i, x := range alphabet {
		for j, y := range alphabet {
			tail := make([]byte, 1+(i*len(alphabet)+j)%126)
			for k := range tail {
				tail[k] = alphabet[rng.IntN(len(alphabet))]
			}
			p := "/" + string(x) + string(y) + string(tail)
			patterns = append(patterns, p)
			kind := "Disallow"
			if j%3 == 0 {
				kind = "Allow"
			}
			fmt.Fprintf(&b, "%s: %s\n", kind, p)
		}
	}
	r := parser.Parse([]byte(b.String()))
	m := matcher.Compile(r, "bot")
	require.Greater(t, m.TrieNodes(), 1000, "a trie of many blocks")
	ref := newReference(r, []string{"bot"})
	for _, p := range patterns {
		paths := []string{p, p + "/x", p[:len(p)-1], p[:len(p)-1] + "~"}
		if len(p) > 5 {
			paths = append(paths, p[:4]+"~"+p[5:])
		}
		for _, path := range paths {
			allowed, line := ref.verdict(path)
			got := m.Match(path)
			require.Equal(t, allowed, got.Allowed, path)
			require.Equal(t, line, got.Rule.Line, path)
		}
	}
}
