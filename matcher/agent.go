package matcher

import (
	"slices"
	"strings"

	"github.com/crawlkit/robots/parser"
)

// names returns agents with each full User-Agent product, a crawler's name
// followed by '/' and a version ("MJ12bot/v1.4.8 (+http://mj12bot.com/)"),
// replaced by its name ("MJ12bot"), as robots.Options takes the name of its
// UserAgent (parser.NameOf). Any other string is kept as given, so one that
// is not a name ("Foo Bar", "") matches no user-agent line, as in Google's
// reference matcher: its test suite pins that "Foo Bar" does not obey Foo's
// group (GoogleOnly_AcceptUserAgentUpToFirstSpace). "Mozilla/5.0 (…)", a
// browser's User-Agent, is kept too: its first product names no crawler.
//
// agents is not modified: a caller's slice passed with ... stays theirs.
func names(agents []string) []string {
	var out []string // a copy, made at the first change
	for i, a := range agents {
		if n := nameOf(a); n != a {
			if out == nil {
				out = slices.Clone(agents)
			}
			out[i] = n
		}
	}
	if out == nil {
		return agents
	}
	return out
}

// nameOf returns the crawler's name of a when a is a full User-Agent
// product, and a otherwise; see names.
func nameOf(a string) string {
	n := parser.NameOf(a)
	if n == "" || n == a || a[len(n)] != '/' || strings.EqualFold(n, "Mozilla") {
		return a
	}
	return n
}
