package matcher

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"unsafe"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/parser"
)

// Most files hold a few rules for a crawler: half the files of a crawl hold
// a dozen or fewer, and 80% at most 48. For them a trie costs more than
// the rules: its nodes, their ids, a record per noted pattern, and for a
// wildcard the structures of the path index, each an array of its own. A
// small set of rules is compiled instead into its text and a record of 20
// bytes per pattern, ordered best rank first, so that a check tries them in
// turn and stops at the first that matches. A record keeps the last four
// octets of its pattern's head, where the patterns of a file differ most,
// so that most patterns that cannot match are passed over at the cost of a
// comparison of a word; and, for a pattern with pieces after its head,
// four features of them (as a wildcard rule of the trie does), so that a
// check that meets more than one such pattern summarizes the path and
// searches only those whose features it holds.

// smallRules is the most rules a Matcher compiles into a small set; a file
// with more gets the trie, whose checks cost time linear in the path
// whatever the number of rules. A small set's checks cost a comparison of
// a word per pattern passed over, and at most a search of the path per
// pattern tried. Up to 48 rules a check of the corpus's own paths costs
// less than the trie's, and about the same beyond.
const smallRules = 48

// maxSmallText is the most octets of text a small set holds, and
// maxSmallLine the largest line of its rules: its records keep 16-bit
// offsets and lines, and lengths of 15 bits.
const (
	maxSmallText = 1<<15 - 1
	maxSmallLine = 1<<16 - 1
)

// smallRule is a compiled pattern of a small set. Its literal, the
// canonical pattern without its final '$', is text[off : off+n], and its
// head the first hn octets of it, up to the first '*'; the canonical
// pattern of its rule is text[off : off+cn], and the pattern as written,
// when it differs (wn > 0), follows it. A pattern of Google's index.html
// rule is a prefix of its rule's, anchored: n is then shorter than the
// rule's literal.
type smallRule struct {
	// tail holds the last four octets of the head, or all of a shorter
	// one, little-endian: the path's octets that end where the head
	// does must be the same.
	tail uint32
	// needs, for a pattern with pieces after its head, are four
	// features of them that a path it matches holds (see featurePicker);
	// zero for the others.
	needs    features
	off, hn  uint16
	n, cn    uint16 // with smallAllow in n, smallDollar in cn
	wn, line uint16
}

const (
	smallAllow  = 1 << 15
	smallDollar = 1 << 15 // in cn: the literal is followed by '$', which anchors the pattern, and counts
	smallLen    = 1<<15 - 1
)

func (r *smallRule) allow() bool  { return r.n&smallAllow != 0 }
func (r *smallRule) dollar() bool { return r.cn&smallDollar != 0 }

// lit returns the literal of r, of a set of text text.
func (r *smallRule) lit(text string) string { return text[r.off : int(r.off)+int(r.n&smallLen)] }

// canon returns the canonical pattern of r's rule, of a set of text text.
func (r *smallRule) canon(text string) string { return text[r.off : int(r.off)+int(r.cn&smallLen)] }

// rank is the pattern's rank: the octets of its literal and its '$'.
func (r *smallRule) rank() rank32 {
	n := int(r.n & smallLen)
	if r.dollar() {
		n++
	}
	return rankOf(n, r.allow())
}

// newSmallRule returns the record of a pattern whose literal is
// text[off:off+n], for a rule of canonical pattern text[off:off+cn]
// followed by its pattern as written, wn octets, when that differs.
func newSmallRule(text []byte, off, n, cn, wn int, line int, allow, dollar bool) smallRule {
	r := smallRule{off: uint16(off), n: uint16(n), cn: uint16(cn), wn: uint16(wn), line: uint16(lineOf(line))}
	if allow {
		r.n |= smallAllow
	}
	if dollar {
		r.cn |= smallDollar
	}
	head := text[off : off+n]
	if i := slices.Index(head, '*'); i >= 0 {
		head = head[:i]
	}
	r.hn = uint16(len(head))
	if lit := unsafe.String(&text[off], n)[len(head):]; strings.Trim(lit, "*") != "" {
		var f featurePicker
		forPieces(lit, 0, func(_ int, piece string) { f.add(piece) })
		r.needs = f.pick()
	}
	var w [4]byte
	copy(w[:], head[max(len(head)-4, 0):])
	r.tail = binary.LittleEndian.Uint32(w[:])
	return r
}

// sortSmall orders the patterns of a small set, given in file order, best
// rank first, and of equal ranks in file order: the first that matches a
// path decides it.
func sortSmall(rules []smallRule) {
	const most = 2 * smallRules // a rule and its index.html pattern
	if len(rules) > most {
		slices.SortStableFunc(rules, func(a, b smallRule) int { return cmp.Compare(b.rank(), a.rank()) })
		return
	}
	// Sort keys of the rank and the index, then move the records: a
	// comparison of records, which moves them as it goes, costs more.
	var keys [most]uint64
	var moved [most]smallRule
	k := keys[:len(rules)]
	for i := range rules {
		k[i] = uint64(^uint32(rules[i].rank()))<<32 | uint64(i)
	}
	slices.Sort(k)
	copy(moved[:], rules)
	for i, key := range k {
		rules[i] = moved[uint32(key)]
	}
}

// smallBest returns the index in rules of the best pattern that matches
// the canonical path, -1 for none, and the steps of work it took: a step
// per pattern, and the octets of the path a pattern tried could read.
func smallBest(rules []smallRule, text, path string) (int, int) {
	steps, wild := 0, false
	for i := range rules {
		r := &rules[i]
		steps++
		hn := int(r.hn)
		if hn > len(path) {
			continue
		}
		if hn >= 4 {
			if binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(path[hn-4:]), 4)) != r.tail {
				continue
			}
		} else {
			var w [4]byte
			copy(w[:], path[:hn])
			if binary.LittleEndian.Uint32(w[:]) != r.tail {
				continue
			}
		}
		if r.needs != 0 {
			if wild {
				// A second pattern with pieces to search: summarize
				// the path, and rule out those it cannot match.
				k, more := smallSummarized(rules[i:], text, path)
				if k >= 0 {
					k += i
				}
				return k, steps + more - 1
			}
			wild = true
		}
		steps += len(path)
		if lit := r.lit(text); len(lit) == hn {
			// No '*': a prefix of the path, or all of it.
			if path[:hn] == lit && (!r.dollar() || len(path) == hn) {
				return i, steps
			}
		} else if matchLiteral(path, lit, r.dollar()) {
			return i, steps
		}
	}
	return -1, steps
}

// smallSummarized is smallBest for the rest of a check, the path
// summarized first (see summary) so that a pattern with pieces whose
// features the path lacks is passed over unsearched.
//
// Its loop repeats smallBest's tail test rather than share a function:
// shared, even inlined, a check of plain-10 measured 12% slower.
func smallSummarized(rules []smallRule, text, path string) (int, int) {
	var sum summary
	sum.summarize(path)
	steps := len(path)
	for i := range rules {
		r := &rules[i]
		steps++
		hn := int(r.hn)
		if hn > len(path) {
			continue
		}
		if hn >= 4 {
			if binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(path[hn-4:]), 4)) != r.tail {
				continue
			}
		} else {
			var w [4]byte
			copy(w[:], path[:hn])
			if binary.LittleEndian.Uint32(w[:]) != r.tail {
				continue
			}
		}
		if r.needs != 0 && !sum.holds(r.needs) {
			continue
		}
		steps += len(path)
		if matchLiteral(path, r.lit(text), r.dollar()) {
			return i, steps
		}
	}
	return -1, steps
}

// matchLiteral reports whether the canonical path matches the pattern of
// literal lit, anchored at the end of the path when anchored, as
// newPattern and matchSegments read it: the head up to the first '*' is a
// prefix of the path, then each run of octets between stars is taken at its
// leftmost occurrence after the previous one, and the last one, when the
// pattern is anchored and does not end with '*', at the very end of the
// path. The greedy choice matches whenever any choice does: one pass
// decides, with no backtracking.
func matchLiteral(path, lit string, anchored bool) bool {
	star := strings.IndexByte(lit, '*')
	if star < 0 {
		if anchored {
			return path == lit
		}
		return strings.HasPrefix(path, lit)
	}
	if !strings.HasPrefix(path, lit[:star]) {
		return false
	}
	rest, pos, end := lit[star+1:], star, len(path)
	if anchored {
		last := strings.LastIndexByte(rest, '*')
		tail := rest[last+1:]
		if tail != "" { // a trailing '*' absorbs the rest of the path
			if len(path)-len(tail) < pos || path[len(path)-len(tail):] != tail {
				return false
			}
			end -= len(tail)
			rest = rest[:max(last, 0)]
		}
	}
	for rest != "" {
		piece := rest
		if i := strings.IndexByte(rest, '*'); i >= 0 {
			piece, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if piece == "" {
			continue
		}
		i := strings.Index(path[pos:end], piece)
		if i < 0 {
			return false
		}
		pos += i + len(piece)
	}
	return true
}

// smallSize is the bytes of the records of a small set.
func smallSize(rules []smallRule) int64 {
	return int64(cap(rules)) * int64(unsafe.Sizeof(smallRule{}))
}

// compileSmall appends to text the patterns of the rules of groups, for a
// small set: each canonical pattern, followed by the pattern as written
// when that differs (a bit of rewritten, by rule). It returns the records
// of the set's n patterns, best first, the text, and scratch.
func compileSmall(groups []*parser.Group, n int, rewritten []uint64, text, scratch []byte) ([]smallRule, []byte, []byte) {
	rules := make([]smallRule, 0, n)
	idx := 0
	for _, g := range groups {
		for _, rl := range g.Rules {
			canonical := rewritten[idx/64]&(1<<(idx%64)) == 0
			idx++
			canon := rl.Pattern
			if !canonical {
				scratch = urlpath.AppendPattern(scratch[:0], rl.Pattern)
				canon = unsafe.String(unsafe.SliceData(scratch), len(scratch))
			}
			if canon == "" {
				continue // it matches nothing (RFC 9309 §2.2.2)
			}
			off := len(text)
			text = append(text, canon...)
			wn := 0
			if !canonical {
				text = append(text, rl.Pattern...)
				wn = len(rl.Pattern)
			}
			lit, dollar := strings.CutSuffix(canon, "$")
			rules = append(rules, newSmallRule(text, off, len(lit), len(canon), wn, rl.Line, rl.Allow, dollar))
			if rl.Allow {
				// Google's index.html rule: as though "$" followed
				// canon[:i+1] (see appendPatterns).
				if i := indexRule(canon); i >= 0 {
					rules = append(rules, newSmallRule(text, off, i+1, len(canon), wn, rl.Line, true, true))
				}
			}
		}
	}
	sortSmall(rules)
	return rules, text, scratch
}
