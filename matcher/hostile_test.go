package matcher_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/crawlkit/robots/fetch"
)

// bodyCap is the largest robots.txt body the fetcher hands over by default:
// files at the cap are the worst a crawler meets without raising MaxBytes.
const bodyCap = fetch.DefaultMaxBytes

// pathCap is the longest URL path a hostile shape asks about.
const pathCap = 8 << 10

// hostile is a file built to make checks slow, with the path that makes it
// so.
type hostile struct {
	name string
	body []byte
	path string
}

// fill returns "User-agent: *" followed by the lines rule(0), rule(1), …,
// as many as fit in limit bytes: a line that would cross the limit is left
// out, as the fetcher drops a line cut by the cap.
func fill(limit int, rule func(i int) string) []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; ; i++ {
		line := rule(i) + "\n"
		if b.Len()+len(line) > limit {
			return []byte(b.String())
		}
		b.WriteString(line)
	}
}

// pathOf pads prefix to n octets with the repeated filler.
func pathOf(n int, prefix, filler string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for b.Len() < n {
		b.WriteString(filler)
	}
	return b.String()[:n]
}

func letters(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// stars joins the pieces with '*'.
func stars(pieces ...string) string { return strings.Join(pieces, "*") }

// hostileCases are the shapes a check must survive, each at limit bytes of
// file against a path of pathLen octets: the worst cases of a scan per rule,
// of greedy searches, of the wildcard index, and the shapes of the issue.
// Each rule fails late, so that no early exit on a match helps.
func hostileCases(limit, pathLen int) []hostile {
	const lower = "abcdefghijklmnopqrstuvwxyz"
	var cases []hostile

	// About 19,000 different "/*a*b*c*…" rules: single letters, then a
	// pair that the path holds only at its start.
	{
		rng := rand.New(rand.NewPCG(1, 1))
		body := fill(limit, func(int) string {
			var p []string
			for range 8 {
				p = append(p, letters(rng, lower[:24], 1))
			}
			return "Disallow: /*" + stars(append(p, "zy")...)
		})
		path := pathOf(pathLen, "/zy", letters(rng, lower[:24], 4096))
		cases = append(cases, hostile{"distinct-single-letters", body, path})
	}

	// Rules like "/*ab*ac*ad*aaaaaaaaaaaaaaaa*xy": the pairs are found at
	// the start of the path, the run of a's in its body, and the last
	// piece, which starts with the path's most common octet, nowhere
	// after them.
	{
		rng := rand.New(rand.NewPCG(2, 2))
		head := letters(rng, lower, 600) // every pair, for the octet summary
		body := fill(limit, func(int) string {
			p := []string{"a" + letters(rng, lower, 1), "a" + letters(rng, lower, 1), "a" + letters(rng, lower, 1),
				strings.Repeat("a", 16), "a" + letters(rng, lower[1:], 2)}
			return "Disallow: /*" + stars(p...)
		})
		path := pathOf(pathLen, "/"+head, "a")
		cases = append(cases, hostile{"greedy-defeating", body, path})

		// The same, anchored: the anchor holds, the search before it
		// fails.
		rng = rand.New(rand.NewPCG(2, 2))
		body = fill(limit, func(int) string {
			p := []string{"a" + letters(rng, lower, 1), "a" + letters(rng, lower, 1), "a" + letters(rng, lower, 1),
				strings.Repeat("a", 16), "a" + letters(rng, lower[1:], 2), "aa$"}
			return "Disallow: /*" + stars(p...)
		})
		cases = append(cases, hostile{"greedy-defeating-anchored", body, path})
	}

	// Long literal pieces of distinct lengths against a path of one
	// repeated octet: each piece is a run that the path holds, then
	// octets found only at the path's start.
	{
		body := fill(limit, func(i int) string {
			return "Disallow: /*" + strings.Repeat("a", 64+i%400) + "b" + fmt.Sprint(i%10)
		})
		cases = append(cases, hostile{"long-literals", body, pathOf(pathLen, "/ab0ab1ab2ab3ab4ab5ab6ab7ab8ab9", "a")})
	}

	// Plain long rules, no wildcard: the trie's worst case.
	{
		rng := rand.New(rand.NewPCG(3, 3))
		run := pathOf(pathLen, "/", "a")
		body := fill(limit, func(i int) string {
			return "Allow: " + run[:1+rng.IntN(pathLen/2)] + letters(rng, lower[1:], 1)
		})
		cases = append(cases, hostile{"long-plain", body, run})
	}

	// Rules of many stars: 300 single-octet pieces, then a pair that is
	// missing after them.
	{
		rng := rand.New(rand.NewPCG(4, 4))
		body := fill(limit, func(int) string {
			return "Disallow: /" + strings.Repeat("*a", 300) + "*a" + letters(rng, lower[1:], 1)
		})
		cases = append(cases, hostile{"many-stars", body, pathOf(pathLen, "/"+lower, "a")})
	}

	// Percent-encoded pieces against a path of raw non-ASCII octets, which
	// the check encodes to three times its length: the pieces are the
	// escapes of three characters that fill the path, the last piece that
	// of one found only at its start.
	{
		rng := rand.New(rand.NewPCG(5, 5))
		body := fill(limit, func(int) string {
			var p []string
			for range 6 {
				p = append(p, fmt.Sprintf("%%E3%%83%%%02X", 0x84+2*rng.IntN(3)))
			}
			return "Disallow: /*" + stars(append(p, "%E3%83%8A")...)
		})
		raw := pathOf(pathLen, "/ナ", "ツテト")
		cases = append(cases, hostile{"percent-encoded", body, raw[:(pathLen-4)/3*3+4]})
	}

	// Subsequences: rules of single octets from a path that cycles
	// through them, so each rule advances far before it fails. Every rule
	// costs a step per piece found, whatever the engine. With a last piece
	// found only at the path's start, a rule fails at once (it could not
	// end after the others); with 200 pieces and a path too short for
	// them, with the last piece at its end, each rule takes about 160
	// steps before it runs out of path.
	{
		const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!&'()+,;=:@"
		cycle := alpha[1:]
		for _, c := range []struct {
			name   string
			pieces int
			path   string
		}{
			{"subsequences", 40, pathOf(pathLen, "/a", cycle)},
			{"subsequences-tight", 200, pathOf(min(pathLen, 6250), "/", cycle) + "a"},
		} {
			rng := rand.New(rand.NewPCG(6, 6))
			body := fill(limit, func(int) string {
				var p []string
				for range c.pieces {
					p = append(p, letters(rng, cycle, 1))
				}
				return "Disallow: *" + stars(append(p, "a")...)
			})
			cases = append(cases, hostile{c.name, body, c.path})
		}
	}

	// Windows of the path as pieces, in the wrong order: each window is
	// found, the one after it is not.
	{
		rng := rand.New(rand.NewPCG(7, 7))
		path := "/" + letters(rng, lower, pathLen-1)
		body := fill(limit, func(int) string {
			a, b := rng.IntN(pathLen/2), pathLen/2+rng.IntN(pathLen/2-40)
			return "Disallow: /*" + stars(path[b:b+24], path[a:a+24])
		})
		cases = append(cases, hostile{"windows", body, path})
	}

	// A periodic path and pieces that branch at every offset into it, the
	// worst case for sharing work between pieces.
	{
		const period = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
		rng := rand.New(rand.NewPCG(8, 8))
		body := fill(limit, func(int) string {
			r := rng.IntN(len(period))
			run := strings.Repeat(period, 8)[r : r+1+rng.IntN(12)]
			return "Disallow: /*" + stars(run+letters(rng, "!&'()+,;=:@", 1), "~")
		})
		// The path's start holds every pair the rules hold, so that no
		// summary of its octets rules them out.
		var pairs strings.Builder
		for i := 0; i < len(period); i++ {
			for _, p := range "!&'()+,;=:@" {
				pairs.WriteString(period[i:i+1] + string(p) + "/")
			}
		}
		cases = append(cases, hostile{"periodic-branches", body, pathOf(pathLen, "/~"+pairs.String(), period)})
	}

	// Every prefix of every rotation of a periodic path as a piece: each
	// occurs in the path, many times, and the piece after it is missing.
	// A period of 64 (n/128) makes the most positions per depth of the
	// trie of pieces.
	for _, periodLen := range []int{64, 200} {
		rng := rand.New(rand.NewPCG(9, 9))
		period := letters(rng, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", periodLen)
		twice := strings.Repeat(period, 40)
		body := fill(limit, func(i int) string {
			r, l := i%len(period), 1+i/len(period)
			return "Disallow: /*" + stars(twice[r:r+l], "~")
		})
		cases = append(cases, hostile{fmt.Sprintf("periodic-prefixes-%d", periodLen), body, pathOf(pathLen, "/~", period)})
	}

	// The same pieces, each in nine rules, so that each is looked up often
	// enough to get positions of its own, then a piece found only at the
	// start of the path.
	{
		rng := rand.New(rand.NewPCG(9, 10))
		period := letters(rng, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 64)
		many := strings.Repeat(period, 40)
		body := fill(limit, func(i int) string {
			i /= 9
			r, l := i%len(period), 1+i/len(period)
			return "Disallow: /*" + stars(many[r:r+l], "Q", "!")
		})
		cases = append(cases, hostile{"periodic-prefixes-owned", body, pathOf(pathLen-1, "/Q", period) + "!"})
	}

	// Nested pieces whose first octet fills the path: "a" and ever longer
	// prefixes of a string found once, at the end of a run of a's, then a
	// piece found only at the start. Each nested piece, looked up from the
	// start, meets every a before it.
	{
		rng := rand.New(rand.NewPCG(10, 10))
		tail := letters(rng, "bcdefghijklmnopqrstuvwxyz", min(1200, pathLen/4))
		body := fill(limit, func(i int) string {
			return "Disallow: /*a" + tail[:1+i%len(tail)] + "*Q*~"
		})
		path := pathOf(pathLen-len(tail)-1, "/Q", "a") + tail + "~"
		cases = append(cases, hostile{"nested-chain", body, path})
	}
	return cases
}
