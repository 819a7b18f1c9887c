package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
