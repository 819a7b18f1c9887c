package matcher

import (
	"cmp"
	"slices"
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

// usageRules are the Content-Usage rules of the selected groups, compiled
// into a pattern set of their own: a look-up is one search of the set, as
// for Allow and Disallow, with the same bound on its cost.
type usageRules struct {
	// set holds the distinct canonical paths; a match reports the index in
	// pats. A pattern's rank is its length, and equal ranks go to the
	// lowest index, the path that appears first in the file.
	set  patternSet
	pats []usagePat
	// prefs are the preferences of the patterns: rules that follow one
	// another with the same value share them.
	prefs []usage.Prefs
	// byLen lists the indexes of pats ordered by length, then index: the
	// patterns of one length are a run.
	byLen []int32

	// pathless combines the rules without a path, which match every path
	// with length 0 (aipref.md reading 8); first is the first of them.
	pathless usage.Prefs
	first    usageText
}

// usagePat is one distinct canonical path of the Content-Usage rules: a
// file can hold one for every 20 octets of it ("content-usage:/1 n=y"), so
// it is kept to 36 bytes.
type usagePat struct {
	canon span      // the canonical path, in the set's text; its length is its rank
	first usageText // the first rule of this path
	// The index in prefs of the preferences of every rule with this path,
	// combined, with tiedBit when another pattern has the same length.
	prefs uint32
	wild  int32 // for a wildcard pattern, its index in set.wild; -1 otherwise
}

const tiedBit = 1 << 31

// head returns the literal head of p, the octets of its path before the
// first '*' or its final '$', and its kind, as newEntry finds it.
func (p *usagePat) head(text string) (string, kind) {
	lit, dollar := strings.CutSuffix(p.canon.in(text), "$")
	if p.wild >= 0 {
		return lit[:strings.IndexByte(lit, '*')], wild
	}
	if i := strings.IndexByte(lit, '*'); i >= 0 {
		return lit[:i], prefix // trailing stars absorb the rest of a path
	}
	if dollar {
		return lit, exact
	}
	return lit, prefix
}

// usageText is a Content-Usage rule as written: spans of the set's text.
type usageText struct {
	path, prefs span
	line        int32
}

// compileUsage compiles the Content-Usage rules of groups; nil when they
// have none.
func compileUsage(groups []*parser.Group) *usageRules {
	var sz textSize
	for _, g := range groups {
		for _, cu := range g.ContentUsage {
			sz.add(cu.Path, false)
			sz.text += len(cu.Preferences)
		}
	}
	if sz.rules == 0 {
		return nil
	}
	u := &usageRules{}
	text := make([]byte, 0, sz.text)
	add := func(s string) span {
		sp := span{uint32(len(text)), uint32(len(s))}
		text = append(text, s...)
		return sp
	}
	// The rules of one canonical path combine into one pattern (vocab-07
	// §5.1). The canonical paths go first in the text; sorting them finds
	// the first rule of each, with no map of them.
	paths := make([]span, 0, sz.patterns) // of the rules with a path, in file order
	for _, g := range groups {
		for _, cu := range g.ContentUsage {
			if cu.Path != "" {
				base := len(text)
				text = urlpath.AppendPattern(text, cu.Path)
				paths = append(paths, span{uint32(base), uint32(len(text) - base)})
				if strings.IndexByte(cu.Path, '*') >= 0 {
					text = append(text, '*') // see pieceText
				}
			}
		}
	}
	canon := func(i int32) string {
		// Appending to text later does not change these octets.
		return unsafe.String(unsafe.SliceData(text[paths[i].off:]), paths[i].n)
	}
	order := make([]int32, len(paths))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(canon(a), canon(b)) })
	firstOf := make([]int32, len(paths)) // the first rule of the path of each
	distinct := 0
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && canon(order[hi]) == canon(order[lo]) {
			hi++
		}
		for _, i := range order[lo:hi] {
			firstOf[i] = order[lo] // stable: the lowest index comes first
		}
		distinct++
		lo = hi
	}
	// The preferences of a path stated more than once are combined here,
	// path by path, so that combining them costs one Prefs per path.
	// firstOf of the first rule of such a path becomes -1-k, k their
	// index in combined.
	var combined []usage.Prefs
	if distinct < len(paths) {
		rules := make([]*parser.ContentUsage, 0, len(paths)) // of the rules with a path, in file order
		for _, g := range groups {
			for k := range g.ContentUsage {
				if g.ContentUsage[k].Path != "" {
					rules = append(rules, &g.ContentUsage[k])
				}
			}
		}
		var c combination
		for lo := 0; lo < len(order); {
			f, hi := order[lo], lo+1
			for hi < len(order) && firstOf[order[hi]] == f {
				hi++
			}
			if hi-lo > 1 {
				for _, i := range order[lo:hi] {
					c.add(usage.Parse(rules[i].Preferences))
				}
				firstOf[f] = -1 - int32(len(combined))
				combined = append(combined, c.prefs())
			}
			lo = hi
		}
	}
	// The preferences of the patterns, in a table: a rule whose value is
	// the value of the rule before it shares its entry. Counted first, so
	// that the table is allocated at its size.
	nprefs, last := 0, ""
	forPatterns := func(fn func(cu *parser.ContentUsage, i int32, f int32)) {
		i := int32(0) // the index of the next rule with a path
		for _, g := range groups {
			for k := range g.ContentUsage {
				cu := &g.ContentUsage[k]
				if cu.Path == "" {
					fn(cu, -1, 0)
					continue
				}
				if f := firstOf[i]; f < 0 || f == i {
					fn(cu, i, f)
				} // else combined with the first of its path
				i++
			}
		}
	}
	forPatterns(func(cu *parser.ContentUsage, i, f int32) {
		switch {
		case i < 0:
		case f < 0:
			nprefs, last = nprefs+1, "" // the entry is not the value's
		case last == "" || cu.Preferences != last:
			nprefs, last = nprefs+1, cu.Preferences
		}
	})
	u.pats = make([]usagePat, 0, distinct)
	u.prefs = make([]usage.Prefs, 0, nprefs)
	patOf := order // reused: the pattern of each rule that is the first of its path
	entries := make([]entry, 0, distinct)
	pieces := 0
	var pathless combination
	last = ""
	forPatterns(func(cu *parser.ContentUsage, i, f int32) {
		if i < 0 {
			if u.first.line == 0 {
				u.first = usageText{prefs: add(cu.Preferences), line: int32(min(cu.Line, 1<<31-1))}
			}
			pathless.add(usage.Parse(cu.Preferences))
			return
		}
		switch {
		case f < 0:
			u.prefs = append(u.prefs, combined[-1-f])
			last = "" // the entry is not the value's
		case last == "" || cu.Preferences != last:
			u.prefs = append(u.prefs, usage.Parse(cu.Preferences))
			last = cu.Preferences
		}
		c, base, id := canon(i), paths[i].off, int32(len(u.pats))
		patOf[i] = id
		entries, _ = appendEntries(entries, c, base, id, false, 0)
		if strings.IndexByte(c, '*') >= 0 {
			pieces += countPieces(strings.TrimSuffix(c, "$")) // of the distinct paths, not of every rule
		}
		first := usageText{path: span{base, uint32(len(c))}, line: int32(min(cu.Line, 1<<31-1))}
		if c != cu.Path {
			first.path = add(cu.Path)
		}
		first.prefs = add(cu.Preferences)
		u.pats = append(u.pats, usagePat{canon: span{base, uint32(len(c))}, first: first,
			prefs: uint32(len(u.prefs) - 1), wild: -1})
	})
	u.pathless = pathless.prefs()
	// Order the patterns by length before the set sorts the entries: a
	// pattern's rank is its length.
	u.byLen = make([]int32, len(u.pats))
	for i := range u.byLen {
		u.byLen[i] = int32(i)
	}
	length := func(i int32) uint32 { return u.pats[i].canon.n }
	slices.SortStableFunc(u.byLen, func(a, b int32) int { return cmp.Compare(length(a), length(b)) })
	for lo := 0; lo < len(u.byLen); {
		hi := lo + 1
		for hi < len(u.byLen) && length(u.byLen[hi]) == length(u.byLen[lo]) {
			hi++
		}
		if hi-lo > 1 {
			for _, i := range u.byLen[lo:hi] {
				u.pats[i].prefs |= tiedBit
			}
		}
		lo = hi
	}
	u.set = newPatternSet(entries, pieces, setText{b: text, keep: len(text)}, false, false, nil) // ties needs every pattern
	if ws := u.set.wild; ws != nil {
		for i := range ws.wild {
			u.pats[ws.wild[i].id()].wild = int32(i)
		}
	}
	return u
}

// combination combines many Prefs as usage.Combine does, a batch at a
// time: a Prefs of its own per batch, not per Prefs added.
type combination struct {
	batch [32]usage.Prefs
	n     int
}

func (c *combination) add(p usage.Prefs) {
	if c.n == len(c.batch) {
		c.batch[0], c.n = usage.Combine(c.batch[:c.n]...), 1
	}
	c.batch[c.n] = p
	c.n++
}

// prefs returns the combination of the Prefs added since the last call,
// and starts a new one.
func (c *combination) prefs() usage.Prefs {
	p := usage.Combine(c.batch[:c.n]...)
	c.n = 0
	return p
}

// lookup returns the combined preferences for the canonical path and the
// rule that states them; ok is false when none does.
func (u *usageRules) lookup(path string) (prefs usage.Prefs, rule usageText, ok bool) {
	h := u.set.best(path)
	if h.kind == noHit {
		return u.pathless, u.first, u.first.line != 0
	}
	win := u.set.idOf(h)
	p := &u.pats[win]
	prefs = u.prefs[p.prefs&^tiedBit]
	if p.prefs&tiedBit != 0 {
		prefs = u.ties(path, win, prefs)
	}
	return prefs, p.first, true
}

// ties combines into prefs the preferences of the other patterns of win's
// length that match the canonical path (aipref.md reading 10: equally
// specific rules combine most restrictively). Only patterns after win can
// match: the set reports the first. A literal pattern is compared with the
// path, at a cost bounded by the octets of the file; the wildcard ones go
// through a path index, as the set's own search does past its budget.
func (u *usageRules) ties(path string, win int32, prefs usage.Prefs) usage.Prefs {
	// The run of win's length in byLen.
	n := u.pats[win].canon.n
	lo, _ := slices.BinarySearchFunc(u.byLen, n, func(i int32, n uint32) int { return cmp.Compare(u.pats[i].canon.n, n) })
	hi, _ := slices.BinarySearchFunc(u.byLen, n+1, func(i int32, n uint32) int { return cmp.Compare(u.pats[i].canon.n, n) })
	var ix *pathIndex
	var batch [lanes]lane
	var from [lanes]usage.Prefs
	nb := 0
	flush := func() {
		if ix == nil {
			ix = newPathIndex(u.set.wild, path)
		}
		m := ix.matchLanes(batch[:nb])
		for j := range nb {
			if m&(1<<j) != 0 {
				prefs = usage.Combine(prefs, from[j])
			}
		}
		nb = 0
	}
	for _, i := range u.byLen[lo:hi] {
		q := &u.pats[i]
		if i <= win {
			continue
		}
		head, k := q.head(u.set.text)
		if !strings.HasPrefix(path, head) {
			continue
		}
		qp := u.prefs[q.prefs&^tiedBit]
		switch k {
		case prefix:
			prefs = usage.Combine(prefs, qp)
		case exact:
			if len(path) == len(head) {
				prefs = usage.Combine(prefs, qp)
			}
		default:
			batch[nb], from[nb] = lane{q.wild, uint32(len(head))}, qp
			if nb++; nb == lanes {
				flush()
			}
		}
	}
	if nb > 0 {
		flush()
	}
	if ix != nil {
		ix.release()
	}
	return prefs
}

func (u *usageRules) size() int64 {
	if u == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*u)) + u.set.size()
	n += int64(cap(u.pats)) * int64(unsafe.Sizeof(usagePat{}))
	n += int64(cap(u.prefs)) * int64(unsafe.Sizeof(usage.Prefs{}))
	n += int64(cap(u.byLen)) * int64(unsafe.Sizeof(int32(0)))
	for _, p := range u.prefs {
		n += extraSize(p)
	}
	return n + extraSize(u.pathless)
}

// extraSize is the size of the string of its own in which p keeps the
// labels outside the vocabulary, "a=y, b=n": at most usage.MaxExtraLabels
// of them, whatever the value p was read from.
func extraSize(p usage.Prefs) int64 {
	n := int64(0)
	for l := range p.All() {
		switch l {
		case usage.TrainAI, usage.Search, usage.AIUse:
		default:
			n += int64(len(l) + len("=y, "))
		}
	}
	return max(n-int64(len(", ")), 0)
}

// Usage returns the usage preferences the selected groups state for path,
// a URL path with an optional query, or a full URL, as Allowed takes it, and the rule that
// states them (draft-ietf-aipref-attach-05 §3.1): the longest matching
// Content-Usage rule wins, with the same percent-encoding and length as
// Allow and Disallow; a rule without a path has length 0; matching rules
// of the same length combine most restrictively; a path the crawler may
// not fetch has none.
func (m *Matcher) Usage(path string) UsageResult {
	path = pathOf(path)
	if !urlpath.IsCanonicalPath(path) {
		var buf [512]byte
		b := urlpath.AppendPath(buf[:0], path)
		path = unsafe.String(unsafe.SliceData(b), len(b))
	}
	res := UsageResult{Allowed: m.allowedCanonical(path)}
	if !res.Allowed || m.more == nil || m.more.usage == nil {
		return res
	}
	prefs, rule, ok := m.more.usage.lookup(path)
	if !ok {
		return res
	}
	text := m.more.usage.set.text
	res.Prefs = prefs
	res.Rule = parser.ContentUsage{Path: rule.path.in(text), Preferences: rule.prefs.in(text), Line: int(rule.line)}
	return res
}

// allowedCanonical is Allowed for a canonical path.
func (m *Matcher) allowedCanonical(path string) bool {
	if path == "/robots.txt" || m.agents.n == 0 {
		return true
	}
	var h hit
	if m.trie != nil {
		h = m.trie.best(path)
	} else {
		h = m.smallBest(path)
	}
	return h.kind == noHit || h.allow
}

// Signal returns the Content-Signal the selected groups state (Cloudflare's
// record, not AIPREF): their records combined most restrictively, and the
// first of them as written; the zero values when they have none.
func (m *Matcher) Signal() (usage.Signal, parser.ContentSignal) {
	if m.more == nil {
		return usage.Signal{}, parser.ContentSignal{}
	}
	return m.more.signal, m.more.signalRecord
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
		v, _ := usage.ParseSignalN(rec.Value, 0) // no problems: none is reported
		s = usage.CombineSignals(s, v)
		if first.Line == 0 {
			first = parser.ContentSignal{Group: rec.Group, Value: strings.Clone(rec.Value), Line: rec.Line}
		}
	}
	return s, first
}
