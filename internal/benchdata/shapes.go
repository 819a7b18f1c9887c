package benchdata

import (
	"fmt"
	"strings"
)

// Shape is a kind of robots.txt body whose memory cost is measured: blank
// lines, junk, or rules laid out some way.
type Shape struct {
	Name string
	// Dense marks a shape of rules (or of groups); the others hold blank
	// lines, comments, junk, or records that are kept but are not rules.
	Dense bool
	// Agent is the product token to compile the matcher for: the one that
	// selects the most rules of the shape.
	Agent string
	// Body returns a body of the shape, of whole lines, at most size bytes
	// long and as close to it as lines allow (one shape says otherwise).
	Body func(size int) []byte
}

// repeated returns a body of whole lines, line(0), line(1), …, as many as
// fit in size bytes after head.
func repeated(head string, line func(i int) string) func(int) []byte {
	return func(size int) []byte {
		var b strings.Builder
		b.Grow(size)
		b.WriteString(head)
		for i := 0; ; i++ {
			l := line(i)
			if b.Len()+len(l) > size {
				break
			}
			b.WriteString(l)
		}
		return []byte(b.String())
	}
}

func same(s string) func(int) string { return func(int) string { return s } }

// memberLine is a line of about 16,000 bytes, within the parser's longest
// line: key, then member(0), member(1), … joined by sep, then tail.
func memberLine(key, sep, tail string, member func(j int) string) string {
	var b strings.Builder
	b.WriteString(key)
	for j := 0; b.Len() < 16_000; j++ {
		if j > 0 {
			b.WriteString(sep)
		}
		b.WriteString(member(j))
	}
	return b.String() + tail + "\n"
}

// Shapes returns the bodies whose memory the parser's and the matcher's
// benchmarks and tests measure: blank and junk lines of every kind the
// parser skips or only records, and rule-dense files of every layout.
func Shapes() []Shape {
	return append([]Shape{
		{"newlines", false, "ExampleBot", repeated("", same("\n"))},
		{"CRLF", false, "ExampleBot", repeated("", same("\r\n"))},
		{"CR", false, "ExampleBot", repeated("", same("\r"))},
		{"comments", false, "ExampleBot", repeated("", same("#comment\n"))},
		{"a", false, "ExampleBot", repeated("", same("a\n"))},
		{"x: y", false, "ExampleBot", repeated("", same("x: y\n"))},
		{"unknown keys", false, "ExampleBot", repeated("", func(i int) string { return fmt.Sprintf("k%d: v\n", i) })},
		{"misspelled keys", false, "ExampleBot", repeated("", same("dissallowx /\n"))},
		{"long keys", false, "ExampleBot", repeated("", same(strings.Repeat("\xff", 16_000)+": v\n"))},
		{"long lines", false, "ExampleBot", repeated("", same(strings.Repeat("a", 20_000)+"\n"))},
		{"rules outside groups", false, "ExampleBot", repeated("", same("disallow: /\n"))},
		{"bad crawl-delays", false, "ExampleBot", repeated("user-agent: *\n", same("crawl-delay: x\n"))},
		{"NUL lines", false, "ExampleBot", repeated("", same("\x00\n"))},
		{"invalid UTF-8", false, "ExampleBot", repeated("", same("\xff\n"))},
		{"sitemaps", false, "ExampleBot", repeated("", func(i int) string { return fmt.Sprintf("sitemap: /%x\n", i) })},
		{"same sitemap", false, "ExampleBot", repeated("", same("sitemap: /s\n"))},

		{"rules", true, "ExampleBot", repeated("User-agent: *\n", func(i int) string { return fmt.Sprintf("Disallow: /path%d\n", i) })},
		{"rules CRLF", true, "ExampleBot", repeated("User-agent: *\r\n", func(i int) string { return fmt.Sprintf("Disallow: /path%d\r\n", i) })},
		{"rules CR", true, "ExampleBot", repeated("User-agent: *\r", func(i int) string { return fmt.Sprintf("Disallow: /path%d\r", i) })},
		{"short rules", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("allow:/%x\n", i) })},
		{"empty rules", true, "ExampleBot", repeated("user-agent:*\n", same("allow:\n"))},
		{"wildcard rules", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("disallow:/*%x*a\n", i) })},
		{"long rules", true, "ExampleBot", repeated("User-agent: *\n", func(i int) string {
			return fmt.Sprintf("Disallow: /%d%s\n", i, strings.Repeat("p", 16_000))
		})},
		{"rules in groups", true, "ExampleBot", repeated("", func(i int) string {
			if i%50 == 0 {
				return fmt.Sprintf("User-agent: bot%d\nUser-agent: ExampleBot\n", i)
			}
			return fmt.Sprintf("Disallow: /path%d\n", i)
		})},
		{"misspelled agents", true, "a", repeated("", same("useragentx: a\n"))},
		{"agents", true, "a", repeated("", same("User-agent: a\n"))},
		{"tiny groups", true, "a", repeated("", same("User-agent: a\nDisallow: /\n"))},
		// The smallest groups that hold a rule, as the parser's hostile
		// tests build them: 18,963 of them in 500 KiB (the one shape a byte
		// over size).
		{"18963 groups", true, "a", func(size int) []byte {
			return []byte(strings.Repeat("User-agent: a\rDisallow: /x\r", size/27+1))
		}},
		{"content-usage", true, "ExampleBot", repeated("User-agent: *\n", func(i int) string {
			return fmt.Sprintf("Content-Usage: /p%d train-ai=n\n", i)
		})},
		// Wildcard rules of many pieces: a piece of two octets ("*a") is
		// the least a piece can take of a file, and pieces that are all
		// different each make a node of the trie of the literals.
		{"pieces", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string {
			return fmt.Sprintf("disallow:/%x%s\n", i, strings.Repeat("*a", 8000))
		})},
		{"distinct pieces", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string {
			var b strings.Builder
			b.WriteString("disallow:/")
			for k := range 1000 {
				fmt.Fprintf(&b, "*%x", i*1000+k)
			}
			return b.String() + "\n"
		})},
		// Pieces of three octets, all different: the trie of the
		// literals branches at every octet, a node for each piece.
		{"short distinct pieces", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string {
			const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"
			var b strings.Builder
			b.WriteString("disallow:/")
			for k := range 1000 {
				b.WriteByte('*')
				for x := i*1000 + k; b.Len()%4 != 2; x /= len(alphabet) {
					b.WriteByte(alphabet[x%len(alphabet)])
				}
			}
			return b.String() + "\n"
		})},
		{"five pieces", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("allow:/*%x*a*b*c*d*e\n", i) })},
		{"non-ASCII pieces", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string {
			return fmt.Sprintf("disallow:/%x%s\n", i, strings.Repeat("*\xff", 8000))
		})},
		// Pieces nested in one another ("a", "aa", "aaa", …): the trie of
		// the literals is a chain as deep as the longest, which compiling
		// must build at a cost linear in the octets, not their square.
		{"nested pieces", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string {
			return "disallow:/*" + strings.Repeat("a", i+1) + "\n"
		})},
		// Google's index.html rule makes a second wildcard pattern of each.
		{"index.html wildcards", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("allow:/*%x*/index.html\n", i) })},
		{"anchored wildcards", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("disallow:/*%x*a$\n", i) })},
		{"content-usage wildcards", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string {
			return fmt.Sprintf("content-usage:/*%x*a train-ai=n\n", i)
		})},
	}, UsageFloods()...)
}

// UsageFloods are the shapes of Content-Usage and Content-Signal lines built
// to cost: lines of many members, or of one long member, and many lines
// whose labels outside the vocabulary combine. Work on a line is bounded by
// its bytes, not by how many members it claims, and combining rules by the
// labels they keep, not by the rules.
func UsageFloods() []Shape {
	return []Shape{
		// Every x is a problem of its Content-Signal record, and every
		// search=yes but the last a duplicate. Every a is a member of a
		// Content-Usage value that the uppercase key at its end spoils,
		// and every k… label is outside the vocabulary and different.
		{"content-signal members", true, "ExampleBot", repeated("user-agent: *\n", same(memberLine("content-signal: ", ",", "", same("x"))))},
		{"content-signal duplicates", true, "ExampleBot", repeated("user-agent: *\n", same(memberLine("content-signal: ", ",", "", same("search=yes"))))},
		{"content-usage members", true, "ExampleBot", repeated("user-agent: *\n", same(memberLine("content-usage: ", ",", ",X", same("a"))))},
		{"content-usage labels", true, "ExampleBot", repeated("user-agent: *\n", func(i int) string {
			return memberLine("content-usage: ", ", ", "", func(j int) string { return fmt.Sprintf("k%x=y", i<<16|j) })
		})},
		{"long content-usage member", true, "ExampleBot", repeated("user-agent: *\n", same("content-usage: train-ai="+strings.Repeat("y", 16_000)+"\n"))},
		{"long content-signal member", true, "ExampleBot", repeated("user-agent: *\n", same("content-signal: search="+strings.Repeat("y", 16_000)+"\n"))},
		// Each label comes first in byte order so far, so that it changes
		// what the rules of its path, or of none, combine to.
		{"content-usage rules of no path", true, "ExampleBot", repeated("user-agent: *\n", func(i int) string {
			return fmt.Sprintf("content-usage: k%06d=y\n", 999_999-i)
		})},
		{"content-usage rules of one path", true, "ExampleBot", repeated("user-agent: *\n", func(i int) string {
			return fmt.Sprintf("content-usage:/a k%06d=y\n", 999_999-i)
		})},
		// Rules of distinct paths on short lines: each path is a pattern of
		// the Matcher, with its preferences, at a cost a short line covers.
		{"content-usage paths", true, "ExampleBot", repeated("user-agent: *\n", func(i int) string { return fmt.Sprintf("content-usage: /p%d train-ai=n\n", i) })},
		{"short content-usage paths", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("content-usage:/%x train-ai=n\n", i) })},
		{"shortest content-usage paths", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("content-usage:/%x n=y\n", i) })},
		{"content-usage wildcard paths", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("content-usage:/*%x*a n=y\n", i) })},
		{"content-usage anchored paths", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("content-usage:/%x$ n=y\n", i) })},
		{"content-usage paths of distinct labels", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("content-usage:/%x k%x=y\n", i, i) })},
		{"content-usage paths of two labels", true, "ExampleBot", repeated("user-agent:*\n", func(i int) string { return fmt.Sprintf("content-usage:/%x a=y,b=n\n", i) })},
	}
}

// Largest returns the largest file of the real corpus (527 KB, 21,050 rules,
// mostly Disallow lines); ok is false when the corpus is absent.
func Largest() ([]byte, bool) {
	c, ok := corpusCase("largest", "2661.txt", nil)
	return c.Body, ok
}
