package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/parser"
)

// A rule that never wins is reported with what beats it: the same rule
// written again, in the same or another spelling (RFC 9309 §2.2.2: patterns
// are compared percent-encoded), an Allow of equal length, or a longer rule.
func TestNeverWinsSays(t *testing.T) {
	tests := []struct {
		name  string
		rules string // after "User-agent: *", from line 2
		msg   string
		why   string // its start
	}{
		{"the same rule twice", "Disallow: /ab\nDisallow: /ab",
			"Disallow: /ab is the same rule as line 2; it never wins",
			"a rule written twice decides nothing the first does not"},
		{"an escaped letter", "Disallow: /ab\nDisallow: /a%62",
			"Disallow: /a%62 is the same rule as line 2 (Disallow: /ab; both read /ab); it never wins",
			"crawlers compare patterns percent-encoded"},
		{"a lower-case escape of a letter", "Allow: /a%6a\nAllow: /aj",
			"Allow: /aj is the same rule as line 2 (Allow: /a%6a; both read /aj); it never wins",
			"crawlers compare patterns percent-encoded"},
		{"raw UTF-8 and its escapes", "Disallow: /ツ\nDisallow: /%E3%83%84",
			"Disallow: /%E3%83%84 is the same rule as line 2 (Disallow: /ツ; both read /%E3%83%84); it never wins",
			"crawlers compare patterns percent-encoded"},
		{"escapes first, raw UTF-8 second", "Disallow: /%e3%83%84\nDisallow: /ツ",
			"Disallow: /ツ is the same rule as line 2 (Disallow: /%e3%83%84; both read /%E3%83%84); it never wins",
			"crawlers compare patterns percent-encoded"},
		{"anchored, two spellings", "Disallow: /%7Ea$\nDisallow: /~a$",
			"Disallow: /~a$ is the same rule as line 2 (Disallow: /%7Ea$; both read /~a$); it never wins",
			"crawlers compare patterns percent-encoded"},
		{"allow wins a tie", "Disallow: /a\nAllow: /a",
			"Disallow: /a is always beaten by line 3 (Allow: /a)",
			"of an Allow and a Disallow of equal length, the Allow wins"},
		{"allow wins a tie, two spellings", "Disallow: /%7Ea\nAllow: /~a",
			"Disallow: /%7Ea is always beaten by line 3 (Allow: /~a; both read /~a)",
			"of an Allow and a Disallow of equal length, the Allow wins"},
		// Shadowed, not the same rule.
		{"a longer rule", "Disallow: /a\nAllow: /a*",
			"Disallow: /a is always beaten by line 3 (Allow: /a*)",
			"a longer rule matches every path this one matches"},
		{"a longer rule, another spelling", "Disallow: /a%2f\nDisallow: /a%2F*",
			"Disallow: /a%2f is always beaten by line 3 (Disallow: /a%2F*)",
			"a longer rule matches every path this one matches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := shadowed(parseGroup(t, "User-agent: *\n"+tt.rules+"\n"))
			require.Len(t, fs, 1)
			assert.Equal(t, "never-wins", fs[0].kind)
			assert.Equal(t, tt.msg, fs[0].msg)
			assert.Contains(t, fs[0].why, tt.why)
		})
	}
}

// unsupportedLines returns the lines of the unsupported findings of body,
// and the count of a "more" finding that stands for others.
func unsupportedLines(body string) (lines []int, more int) {
	for _, f := range lint([]byte(body)) {
		switch f.kind {
		case "unsupported":
			lines = append(lines, f.line)
		case "more":
			if strings.Contains(f.msg, "record") {
				more += f.unlisted
			}
		}
	}
	return lines, more
}

// Noindex and the like are reported wherever they stand, past the first
// parser.MaxOther records the parser keeps too: on each line where the
// parser reads one, and nowhere else.
func TestUnsupportedEveryRecord(t *testing.T) {
	// Records the parser reads as Noindex, Nofollow or Noarchive, and lines
	// that only look like them.
	const tricky = "User-agent: *\n" +
		"Noindex: /a\n" + // 2
		"NOINDEX: /b\r\n" + // 3, CRLF
		"nofollow /c\r" + // 4, no colon, CR
		"Noarchive: /d # comment\n" + // 5
		"Disallow: /noindex\n" + // 6: a rule
		"# Noindex: /e\n" + // 7: a comment
		"\xEF\xBB\xBFNoindex: /f\n" + // 8: a byte order mark spoils the key
		"Noindexing: /g\n" + // 9: another key
		"  noindex  :  /h  \n" + // 10
		"Noindex: /i\x00x\n" + // 11, NUL
		"Allow: /Noindex: /j\n" + // 12: a rule
		"Noindex\n" + // 13: a key alone is no record
		"Noindex:\n" // 14
	want := []int{2, 3, 4, 5, 10, 11, 14}
	lines, more := unsupportedLines(tricky)
	require.Equal(t, want, lines, "the parser's reading, all records kept")
	require.Zero(t, more)
	others := len(parser.Parse([]byte(tricky)).Other)

	tests := []struct {
		name   string
		filler string // a record the parser keeps in Other, but no Noindex
		sep    string
	}{
		{"Host", "Host: example.com", "\n"},
		{"unknown keys, CRLF", "X-Thing: y", "\r\n"},
		{"Clean-param, CR", "Clean-param: ref /", "\r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{parser.MaxOther - 1, parser.MaxOther, parser.MaxOther + 1, 3 * parser.MaxOther} {
				body := strings.Repeat(tt.filler+tt.sep, n) + tricky
				r := parser.Parse([]byte(body))
				require.Equal(t, max(0, n+others-parser.MaxOther), r.OmittedOther, "records past the parser's first")
				var shifted []int
				for _, l := range want {
					shifted = append(shifted, l+n)
				}
				lines, more := unsupportedLines(body)
				assert.Equal(t, shifted, lines, "after %d records", n)
				assert.Zero(t, more)
			}
		})
	}
}

// Past the first maxUnsupported, lint counts the records crawlers do not
// support; the total counts them too.
func TestUnsupportedCounted(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range []int{0, 1, 2 * parser.MaxOther} {
		t.Run(fmt.Sprint(extra), func(t *testing.T) {
			body := "User-agent: *\n" + strings.Repeat("Noindex: /x\n", maxUnsupported+extra)
			lines, more := unsupportedLines(body)
			require.Len(t, lines, maxUnsupported)
			assert.Equal(t, extra, more)

			f := filepath.Join(dir, "robots.txt")
			require.NoError(t, os.WriteFile(f, []byte(body), 0o644))
			code, stdout, stderr := runCmd(t, "", "lint", f)
			assert.Equal(t, 1, code, stderr)
			assert.Equal(t, maxUnsupported, strings.Count(stdout, ": unsupported: Noindex is not part of robots.txt"))
			assertHas(t, stdout, fmt.Sprintf("robots.txt: %d problems\n", maxUnsupported+extra))
			if extra > 0 {
				assertHas(t, stdout, fmt.Sprintf("robots.txt:%d: more: %s crawlers do not support on later lines, not listed — lint lists the first %d such records\n",
					maxUnsupported+1, count(extra, "more record"), maxUnsupported))
			} else {
				assert.NotContains(t, stdout, ": more: ")
			}
		})
	}
}

// BenchmarkLintUnsupportedPastOther lints a 500 KiB file whose Noindex
// records all stand past the parser's first parser.MaxOther records: each of
// their lines is parsed on its own.
func BenchmarkLintUnsupportedPastOther(b *testing.B) {
	body := []byte(strings.Repeat("Host: x\n", parser.MaxOther))
	for len(body) < maxBytes-len("noindex:/\n") {
		body = append(body, "noindex:/\n"...)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		lint(body)
	}
}

// An HTML page served as robots.txt is one problem: lint says so once, with
// the number of lines crawlers skip or misread, not a warning per line.
func TestLintHTML(t *testing.T) {
	// htmlPage returns an HTML page of n paragraphs, and how many of its
	// lines draw a warning: each paragraph (an unknown key "<p>line"), each
	// other third also not UTF-8 (one line, two warnings); not the blank
	// lines, nor the rules after the user-agent line in the middle; the
	// rules before it, outside any group.
	htmlPage := func(n int) (string, int) {
		var b strings.Builder
		warned := 0
		b.WriteString("<!DOCTYPE html>\n<html>\n") // two lines, an unknown key and a warning each
		warned += 2
		for i := range n {
			if i == n/2 {
				b.WriteString("User-agent: *\n")
			}
			switch {
			case i%3 == 1:
				fmt.Fprintf(&b, "<p>line\xff %d</p>\n", i)
			case i%5 == 2:
				b.WriteString("\n")
				continue
			case i%7 == 3:
				b.WriteString("Disallow: /x\n") // outside any group before n/2
				if i < n/2 {
					warned++
				}
				continue
			default:
				fmt.Fprintf(&b, "<p>line %d</p>\n", i)
			}
			warned++
		}
		b.WriteString("</html>\n")
		return b.String(), warned + 1
	}
	for _, n := range []int{3, 100, parser.MaxWarnings, 5 * parser.MaxWarnings} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			page, warned := htmlPage(n)
			require.Less(t, len(page), maxBytes)
			r := parser.Parse([]byte(page))
			if n >= parser.MaxWarnings {
				require.Positive(t, r.OmittedWarnings, "a page past the warnings the parser keeps")
			}
			f := filepath.Join(t.TempDir(), "index.html")
			require.NoError(t, os.WriteFile(f, []byte(page), 0o644))
			code, stdout, stderr := runCmd(t, "", "lint", f)
			assert.Equal(t, 1, code, stderr)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			never := 0 // Disallow: /x repeated in the group never wins
			for _, l := range lines {
				if strings.Contains(l, ": never-wins: ") {
					never++
				}
			}
			require.Len(t, lines, 2+never, stdout)
			assert.Equal(t, fmt.Sprintf("index.html: html: the file is an HTML page, not robots.txt: crawlers skip or misread %d of its lines — "+
				"an HTML page holds no rules; serve a text/plain robots.txt", warned), lines[0])
			assert.Equal(t, fmt.Sprintf("index.html: %s", count(1+never, "problem")), lines[len(lines)-1])
		})
	}
}

// isHTML knows an HTML page by a tag near its start, not a tag in a
// robots.txt comment.
func TestIsHTML(t *testing.T) {
	tests := []struct {
		body string
		html bool
	}{
		{"<!DOCTYPE html>\n<html><body>x</body></html>", true},
		{" <!doctype HTML> <html lang=en>", true},
		{"\n\n<HTML>\n<HEAD><TITLE>404</TITLE></HEAD>", true},
		{"<body>Disallow: /</body>", true},
		{"User-agent: *\nDisallow: /\n", false},
		{"# robots.txt, not <html>: keep it text/plain\nUser-agent: *\nDisallow: /\n", false},
		{strings.Repeat("#\n", 600) + "<html>", false}, // past the first KiB
	}
	for _, tt := range tests {
		assert.Equal(t, tt.html, isHTML([]byte(tt.body)), "%.60q", tt.body)
	}
}

// problemsOf returns the total lint reports for body.
func problemsOf(body string) int {
	n := 0
	for _, f := range lint([]byte(body)) {
		n += max(f.unlisted, 1)
	}
	return n
}

// The total counts each problem once, whether the parser kept its warning
// or only counted it: k misspelled rules before a tail add k problems to
// the tail's, wherever the parser's cap of MaxWarnings falls. A
// Content-Usage value's problems are lint's own; the parser's invalid-value
// warning on its line, kept or not, is not counted again.
func TestTotalsPastTheWarningCap(t *testing.T) {
	tails := []struct {
		name string
		tail string
	}{
		{"empty Content-Usage", "Content-Usage:\n"},
		{"path starting with *", "Content-Usage: *x=y\n"},
		{"not a Dictionary", "Content-Usage: train-ai=n,\n"},
		{"a line warning, then invalid", "Content-Usage: *\xff\n"},
		{"between misspellings", "Dissallow: /q1\nContent-Usage:\nDissallow: /q2\nContent-Usage: /a *=n,\n"},
		{"Content-Signal", "Content-Signal: ai-train=maybe, ai-train=no\nContent-Usage: x\n"},
		{"a valid Content-Signal", "Content-Signal: search=yes, ai-train=no\nDissallow: /q\n"},
	}
	for _, tt := range tails {
		t.Run(tt.name, func(t *testing.T) {
			want := problemsOf("User-agent: *\n" + tt.tail)
			require.Positive(t, want)
			for k := parser.MaxWarnings - 4; k <= parser.MaxWarnings+1; k++ {
				var b strings.Builder
				b.WriteString("User-agent: *\n")
				for i := range k {
					fmt.Fprintf(&b, "Dissallow: /p%d\n", i) // a warning each
				}
				b.WriteString(tt.tail)
				assert.Equal(t, k+want, problemsOf(b.String()), "after %d misspellings", k)
			}
		})
	}
}
