package matcher

import (
	"strings"
	"unsafe"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// UsageResult is what the selected groups' Content-Usage rules state for one
// path (draft-ietf-aipref-attach-05 §3.1).
type UsageResult struct {
	// Prefs are the usage preferences for the path: those of the longest
	// matching Content-Usage rule, combined most restrictively with every
	// other matching rule of the same length. All Unknown when no rule
	// matches or the crawler may not fetch the path.
	Prefs usage.Prefs
	// Rule is the longest matching rule as written (the first in file order
	// when several of the same length match); the zero ContentUsage when
	// none does.
	Rule parser.ContentUsage
	// Allowed reports whether the crawler may fetch the path. A path it may
	// not fetch has no usage preferences (attach-05 §3).
	Allowed bool
}

// usageRules are the Content-Usage rules of the selected groups, compiled.
type usageRules struct {
	rules []usageRule
	// pathless combines the rules without a path, which match every path
	// with length 0 (aipref.md reading 8); first is the first of them.
	pathless usage.Prefs
	first    int32 // index in rules of the first path-less rule; -1 for none
}

// usageRule is one Content-Usage rule. A path rule's pattern is compiled as
// an Allow/Disallow pattern is, from the same canonical form (attach-05 §3.1:
// "the same path prefix matching rules … counting the number of bytes in
// the encoded path").
type usageRule struct {
	pat     pattern
	octets  int // octets of the canonical pattern: the rule's length
	prefs   usage.Prefs
	path    string // as written
	written string // the preferences as written
	line    int32
}

// compileUsage compiles the Content-Usage rules of groups; nil when they
// have none.
func compileUsage(groups []*parser.Group) *usageRules {
	n := 0
	for _, g := range groups {
		n += len(g.ContentUsage)
	}
	if n == 0 {
		return nil
	}
	u := &usageRules{rules: make([]usageRule, 0, n), first: -1}
	var segs []span
	for _, g := range groups {
		for _, cu := range g.ContentUsage {
			r := usageRule{prefs: usage.Parse(cu.Preferences), path: strings.Clone(cu.Path),
				written: strings.Clone(cu.Preferences), line: int32(min(cu.Line, 1<<31-1))}
			if cu.Path == "" {
				if u.first < 0 {
					u.first = int32(len(u.rules))
				}
				u.pathless = usage.Combine(u.pathless, r.prefs)
			} else {
				canon := urlpath.Pattern(cu.Path)
				r.octets = len(canon)
				r.pat, segs = newPattern(segs, canon, canon, 0)
			}
			u.rules = append(u.rules, r)
		}
	}
	return u
}

// lookup returns the combined preferences for the canonical path and the
// index of the rule that states them; -1 when none matches.
func (u *usageRules) lookup(path string) (usage.Prefs, int32) {
	best, win := -1, int32(-1)
	var prefs usage.Prefs
	for i := range u.rules {
		r := &u.rules[i]
		if r.path == "" || r.octets < best || !r.pat.matches(path) {
			continue
		}
		if r.octets > best {
			best, win, prefs = r.octets, int32(i), r.prefs
			continue
		}
		prefs = usage.Combine(prefs, r.prefs) // equal length: most restrictive (reading 10)
	}
	if win < 0 && u.first >= 0 {
		return u.pathless, u.first
	}
	return prefs, win
}

func (u *usageRules) size() int64 {
	if u == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*u)) + int64(cap(u.rules))*int64(unsafe.Sizeof(usageRule{}))
	for i := range u.rules {
		r := &u.rules[i]
		// A Prefs keeps the labels outside the vocabulary in a canonical
		// string of its own, at most twice the value it was read from.
		n += int64(len(r.path) + 3*len(r.written) + len(r.pat.canon))
		n += int64(cap(r.pat.segs)) * int64(unsafe.Sizeof(span{}))
	}
	return n
}

// Usage returns the usage preferences the selected groups state for path,
// a URL path with an optional query as Allowed takes it, and the rule that
// states them (draft-ietf-aipref-attach-05 §3.1): the longest matching
// Content-Usage rule wins, with the same percent-encoding and length as
// Allow and Disallow; a rule without a path has length 0; matching rules
// of the same length combine most restrictively; a path the crawler may
// not fetch has none.
func (m *Matcher) Usage(path string) UsageResult {
	if !urlpath.IsCanonicalPath(path) {
		var buf [512]byte
		b := urlpath.AppendPath(buf[:0], path)
		path = unsafe.String(unsafe.SliceData(b), len(b))
	}
	res := UsageResult{Allowed: m.allowedCanonical(path)}
	if !res.Allowed || m.usage == nil {
		return res
	}
	prefs, win := m.usage.lookup(path)
	if win < 0 {
		return res
	}
	r := &m.usage.rules[win]
	res.Prefs = prefs
	res.Rule = parser.ContentUsage{Path: r.path, Preferences: r.written, Line: int(r.line)}
	return res
}

// allowedCanonical is Allowed for a canonical path.
func (m *Matcher) allowedCanonical(path string) bool {
	if path == "/robots.txt" || m.groups == 0 {
		return true
	}
	win := m.set.best(path)
	return win < 0 || m.rules[win].allow
}

// Signal returns the Content-Signal the selected groups state (Cloudflare's
// record, not AIPREF): their records combined most restrictively, and the
// first of them as written; the zero values when they have none.
func (m *Matcher) Signal() (usage.Signal, parser.ContentSignal) {
	return m.signal, m.signalRecord
}

// compileSignal combines the Content-Signal records of r that belong to
// the selected groups.
func compileSignal(r *parser.Robots, groups []*parser.Group) (usage.Signal, parser.ContentSignal) {
	var s usage.Signal
	var first parser.ContentSignal
	if r == nil || len(r.ContentSignals) == 0 {
		return s, first
	}
	selected := make(map[*parser.Group]bool, len(groups))
	for _, g := range groups {
		selected[g] = true
	}
	for _, rec := range r.ContentSignals {
		if rec.Group < 0 || rec.Group >= len(r.Groups) || !selected[&r.Groups[rec.Group]] {
			continue
		}
		v, _ := usage.ParseSignal(rec.Value)
		s = usage.CombineSignals(s, v)
		if first.Line == 0 {
			first = parser.ContentSignal{Group: rec.Group, Value: strings.Clone(rec.Value), Line: rec.Line}
		}
	}
	return s, first
}
