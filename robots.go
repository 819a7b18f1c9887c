// Package robots answers one question for a crawler, correctly and fast: may
// I fetch this URL? It follows RFC 9309 (the Robots Exclusion Protocol) and,
// where the RFC is silent or permissive, Google's published interpretation.
//
// For bytes already in hand, AllowedBy parses, selects the crawler's groups
// and matches in one call. For repeated questions, parse once with package
// parser, compile once with package matcher, and ask the compiled Matcher:
//
//	r := parser.Parse(body)
//	m := matcher.Compile(r, "ExampleBot")
//	ok := m.Allowed("/some/page?q=1")
package robots

import (
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// AllowedBy reports whether the robots.txt file body allows the crawler
// whose product token is agent to fetch rawURL.
//
// rawURL may be absolute ("https://example.com/a?b") or a bare path ("/a?b");
// only its path and query count, and an empty rawURL means "/". Raw non-ASCII
// octets are percent-encoded before matching (RFC 9309 §2.2.2). The agent is
// used as given: one that is not a valid product token (letters, '_' and '-')
// matches no specific group, so the "*" groups apply.
//
// AllowedBy parses body on every call; to ask many questions of one file,
// use parser.Parse and matcher.Compile once.
func AllowedBy(body []byte, agent, rawURL string) bool {
	return matcher.MatchOnce(parser.Parse(body), urlpath.FromURL(rawURL), agent).Allowed
}
