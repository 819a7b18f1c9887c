package matcher_test

import (
	"strings"

	"github.com/crawlkit/robots/internal/urlpath"
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

// verdict is the reference answer: whether path is allowed, and the line of
// the deciding rule (0 when none decided).
func (ref *reference) verdict(path string) (allowed bool, line int) {
	path = urlpath.Path(path)
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
