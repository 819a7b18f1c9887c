package matcher_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// A full User-Agent string given where a crawler's name belongs counts as
// its name, as robots.Options.UserAgent does; other strings that are not
// names match no group, as Google's test suite requires. A name with digits
// obeys the group that names it in full (README, "What it gets right", Group selection: where it
// departs from Google on purpose).
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
		// spec-test stress 369883 (its design_want): "AB42bot" obeys the
		// group that names AB42bot, not the "*" group, as Google would have
		// it; and it is never cut to AB.
		{"AB42bot", "/x", true},
		{"AB42bot/1.0", "/x", true},
		{"MJ12bot/v1.4.8 (+http://mj12bot.com/)", "/x", false}, // no MJ12bot group: "*"
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

// Crawler names with digits or dots, as real crawlers have them, read the
// same way with or without a version, and are compared whole with a line's
// value up to its first white space or '/'; a product-token name is compared
// with the line's product token, as Google reads the line.
func TestNamesWithDigits(t *testing.T) {
	r := parser.Parse([]byte("User-agent: MJ12bot\nDisallow: /\n\n" +
		"User-agent: 360Spider/2.0\nUser-agent: Mail.RU_Bot\nDisallow: /mail\n\n" +
		"User-agent: AB\nDisallow: /ab\n\n" +
		"User-agent: CD42bot\nDisallow: /cd\n\n" +
		"User-agent: *\nDisallow: /star\n"))
	for _, tt := range []struct {
		agent, path string
		allowed     bool
	}{
		{"MJ12bot", "/x", false},
		{"mj12bot", "/x", false},
		{"MJ12bot/v1.4.8 (+http://mj12bot.com/)", "/x", false},
		{"MJ", "/x", false}, // a product token: "MJ12bot" names MJ, as Google reads the line
		{"360Spider", "/mail", false},
		{"Mail.RU_Bot", "/mail", false},
		{"Mail.RU_Bot", "/star", true},
		{"AB42bot", "/ab", true},    // never cut to AB: "*"
		{"AB42bot", "/star", false}, // the "*" group
		{"CD", "/cd", false},        // "CD42bot" names CD, as Google reads the line
	} {
		m := matcher.Compile(r, tt.agent)
		assert.Equal(t, tt.allowed, m.Allowed(tt.path), "Compile(%q).Allowed(%q)", tt.agent, tt.path)
		assert.Equal(t, tt.allowed, matcher.MatchOnce(r, tt.path, tt.agent).Allowed, "MatchOnce(%q, %q)", tt.path, tt.agent)
	}
}

// Allowed, Match and Usage given a full URL read its path and query, as
// robots.AllowedBy does, instead of answering for a path that is not there.
func TestFullURL(t *testing.T) {
	r := parser.Parse([]byte("User-agent: *\nDisallow: /some/page\nAllow: /some/page?ok\nContent-Usage: /some/ train-ai=n\n"))
	m := matcher.Compile(r, "ExampleBot")
	for _, tt := range []struct {
		url     string
		allowed bool
	}{
		{"https://example.com/some/page", false},
		{"https://example.com/some/page?ok=1", true},
		{"https://example.com/some/page#frag", false},
		{"http://example.com:8080/some/page", false},
		{"https://example.com", true},
		{"", true},
		{"?x", true},
	} {
		assert.Equal(t, tt.allowed, m.Allowed(tt.url), "Allowed(%q)", tt.url)
		assert.Equal(t, tt.allowed, m.Match(tt.url).Allowed, "Match(%q)", tt.url)
		assert.Equal(t, tt.allowed, matcher.MatchOnce(r, tt.url, "ExampleBot").Allowed, "MatchOnce(%q)", tt.url)
		assert.Equal(t, robots.AllowedBy([]byte("User-agent: *\nDisallow: /some/page\nAllow: /some/page?ok\n"), "ExampleBot", tt.url), tt.allowed, "as AllowedBy")
	}
	for _, p := range []string{"//some/page", "//example.com/some/page"} {
		assert.True(t, m.Allowed(p), "%q is a path on the wire, not a URL without a scheme", p)
	}
	u := m.Usage("https://example.com/some/other")
	assert.Equal(t, usage.No, u.Prefs.Get(usage.TrainAI), "the Content-Usage rule of the URL's path")
}
