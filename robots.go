// Package robots answers one question for a crawler, correctly and fast: may
// I fetch this URL? It follows RFC 9309 (the Robots Exclusion Protocol) and,
// where the RFC is silent or permissive, Google's published interpretation.
//
// A Client is what a crawler uses: it fetches each authority's /robots.txt
// with real HTTP semantics (redirects, status codes, Cache-Control, a body
// cap), caches what it says, and answers from the cache in well under a
// microsecond, without allocating:
//
//	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
//	ok, err := rc.Allowed(ctx, "https://example.com/some/page?q=1")
//	d, err := rc.Check(ctx, rawURL) // the same, explained
//
// The cache is bounded by bytes (Options.CacheBytes) and keeps the backoff
// and the last good copy of failing sites apart, so that both survive
// eviction; an expired robots.txt keeps answering while it is refetched. Observe takes a robots.txt response
// the crawler fetched itself; Export and Import save and restore what is
// cached; Options.Fleet shares it with other processes (package cache's
// MemoryFleet in one process, module redisfleet on Redis). As makes a
// Client for other crawler names that shares all of it: one fetch answers
// a crawler's every purpose.
//
// Package client wraps an http.Client so that every request obeys
// robots.txt. For bytes already in hand, AllowedBy parses, selects the
// crawler's groups and matches in one call; for many questions of one file,
// parse once with package parser, compile once with package matcher, and ask
// the compiled Matcher.
//
// Non-goals: rate limiting (CrawlDelay reports the file's Crawl-delay, the
// crawler decides), robots meta tags and X-Robots-Tag (they govern indexing,
// not fetching), and protocols other than HTTP and HTTPS.
package robots

import (
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// AllowedBy reports whether the robots.txt file body allows the crawler
// named agent to fetch rawURL.
//
// rawURL may be absolute ("https://example.com/a?b") or a bare path ("/a?b");
// only its path and query count, and an empty rawURL means "/". Raw non-ASCII
// octets are percent-encoded before matching (RFC 9309 §2.2.2).
//
// agent is the crawler's name ("NewcomerBot", "MJ12bot"), read as
// Options.Agents reads one; a full User-Agent product given instead
// ("MJ12bot/v1.4.8 (+http://mj12bot.com/)") counts as its name, as
// Options.UserAgent does. A string that is not a name (an HTTP token), such
// as "Foo Bar" or a browser's "Mozilla/5.0 (…)", matches no specific group,
// so the "*" groups apply: so does Google's reference matcher, and its test
// suite requires it ("Foo Bar" must not obey the group of "User-agent:
// Foo"). A name with digits or dots obeys the groups that name it in full
// (see parser.Agent.Names), where Google's reference matcher applies none.
//
// AllowedBy parses body on every call; to ask many questions of one file,
// use parser.Parse and matcher.Compile once.
func AllowedBy(body []byte, agent, rawURL string) bool {
	allowed := true
	parser.ParseFunc(body, func(r *parser.Robots) {
		allowed = matcher.MatchOnce(r, urlpath.FromURL(rawURL), agent).Allowed
	})
	return allowed
}
