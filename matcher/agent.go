package matcher

import (
	"slices"
	"strings"

	"github.com/crawlkit/robots/parser"
)

// productTokens returns agents with each full User-Agent product, a product
// token followed by '/' and a version ("NewcomerBot/1.0 (+https://…)"),
// replaced by its token ("NewcomerBot"), as robots.Options takes the token
// of its UserAgent. Any other string is kept as given, so one that is not a
// product token ("Foo Bar", "AB42bot", "") matches no user-agent line, as in
// Google's reference matcher: its test suite pins that "Foo Bar" does not
// obey Foo's group (GoogleOnly_AcceptUserAgentUpToFirstSpace) and "AB42bot"
// not AB's (spec-test stress 369883). "Mozilla/5.0 (…)", a browser's
// User-Agent, is kept too: its first product does not name a crawler.
//
// agents is not modified: a caller's slice passed with ... stays theirs.
func productTokens(agents []string) []string {
	var out []string // a copy, made at the first change
	for i, a := range agents {
		if t := productToken(a); t != a {
			if out == nil {
				out = slices.Clone(agents)
			}
			out[i] = t
		}
	}
	if out == nil {
		return agents
	}
	return out
}

// productToken returns the product token of a when a is a full User-Agent
// product, and a otherwise; see productTokens.
func productToken(a string) string {
	i := 0
	for i < len(a) && parser.IsTokenChar(a[i]) {
		i++
	}
	if i == 0 || i == len(a) || a[i] != '/' || strings.EqualFold(a[:i], "Mozilla") {
		return a
	}
	return a[:i]
}
