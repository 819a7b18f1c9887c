package matcher_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// A full User-Agent string given where a product token belongs counts as its
// product token, as robots.Options.UserAgent does; other strings that are not
// product tokens match no group, as Google's test suite requires.
func TestAgentAsUserAgent(t *testing.T) {
	r := parser.Parse([]byte("User-agent: NewcomerBot\nDisallow: /private\n\n" +
		"User-agent: Foo\nUser-agent: AB42bot\nUser-agent: Mozilla\nAllow: /\n\n" +
		"User-agent: *\nDisallow: /\n"))
	tests := []struct {
		agent   string
		path    string
		allowed bool
	}{
		{"NewcomerBot", "/public", true},
		{"NewcomerBot/1.0", "/public", true},
		{"NewcomerBot/1.0", "/private/x", false},
		{"newcomerbot/2.1 (+https://example.com/bot)", "/public", true},
		{"NewcomerBot/", "/public", true},
		// Google: GoogleOnly_AcceptUserAgentUpToFirstSpace. "Foo Bar" is not
		// Foo: the "*" group applies.
		{"Foo Bar", "/x", false},
		// spec-test stress 369883: "AB42bot" is not AB.
		{"AB42bot", "/x", false},
		{"AB42bot/1.0", "/x", false},
		// A browser's User-Agent names no crawler.
		{"Mozilla/5.0 (compatible; NewcomerBot/1.0)", "/x", false},
		{"", "/x", false},
		{"/1.0", "/x", false},
	}
	for _, tt := range tests {
		m := matcher.Compile(r, tt.agent)
		assert.Equal(t, tt.allowed, m.Allowed(tt.path), "Compile(%q).Allowed(%q)", tt.agent, tt.path)
		assert.Equal(t, tt.allowed, matcher.MatchOnce(r, tt.path, tt.agent).Allowed, "MatchOnce(%q, %q)", tt.path, tt.agent)
	}
}

// The agents a caller passes with ... are not changed.
func TestAgentSliceKept(t *testing.T) {
	agents := []string{"NewcomerBot/1.0", "Other"}
	r := parser.Parse([]byte("User-agent: NewcomerBot\nDisallow: /\n"))
	assert.False(t, matcher.Compile(r, agents...).Allowed("/x"))
	assert.False(t, matcher.MatchOnce(r, "/x", agents...).Allowed)
	assert.Equal(t, []string{"NewcomerBot/1.0", "Other"}, agents)
}
