package robots_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/sharedtest"
)

// TestConformance runs every published vector (../shared/conformance) through
// AllowedBy and logs the pass count per source; the goal is every one.
func TestConformance(t *testing.T) {
	cases := sharedtest.Cases(t)
	passed := 0
	bySource := map[string][2]int{}
	for _, c := range cases {
		body, err := c.Body()
		require.NoError(t, err)
		got := robots.AllowedBy(body, c.Agent, c.URL)
		ok := got == c.Expected()
		s := bySource[c.Source]
		s[1]++
		if ok {
			passed++
			s[0]++
		}
		bySource[c.Source] = s
		assert.Equal(t, c.Expected(), got, "%s (%s, agent %q, url %.120q, flags %v) %s",
			c.ID, c.Kind, c.Agent, c.URL, c.Flags, c.Note)
	}
	for src, s := range bySource {
		t.Logf("%-20s %d/%d", src, s[0], s[1])
	}
	t.Logf("conformance: %d/%d vectors pass", passed, len(cases))
}

// Issue 11 item 7: a full User-Agent string where the product token belongs
// counts as its token; the strings Google's suite pins stay unmatched.
func TestAllowedByUserAgentString(t *testing.T) {
	body := []byte("User-agent: NewcomerBot\nDisallow: /private\n\nUser-agent: Foo\nAllow: /\n\nUser-agent: *\nDisallow: /\n")
	tests := []struct {
		agent, url string
		want       bool
	}{
		{"NewcomerBot", "https://example.com/page", true},
		{"NewcomerBot/1.0", "https://example.com/page", true},
		{"NewcomerBot/1.0 (+https://example.com/bot)", "https://example.com/page", true},
		{"NewcomerBot/1.0", "https://example.com/private/x", false},
		{"Foo Bar", "https://example.com/page", false},                           // Google: GoogleOnly_AcceptUserAgentUpToFirstSpace
		{"Mozilla/5.0 (compatible; Foo/1.0)", "https://example.com/page", false}, // names no crawler
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, robots.AllowedBy(body, tt.agent, tt.url), "agent %q, %s", tt.agent, tt.url)
	}
}
