package robots_test

import (
	"fmt"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// The robots.txt of RFC 9309 §5.1.
const rfcExample = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot
`

// Decide one URL from bytes already in hand.
func ExampleAllowedBy() {
	body := []byte(rfcExample)
	fmt.Println(robots.AllowedBy(body, "foobot", "https://example.com/example/page.html"))
	fmt.Println(robots.AllowedBy(body, "foobot", "https://example.com/example/other.html"))
	fmt.Println(robots.AllowedBy(body, "otherbot", "https://example.com/images/logo.gif"))
	// Output:
	// true
	// false
	// false
}

// Parse once, compile once per crawler, then ask many questions; Match says
// which rule decided.
func Example_parserAndMatcher() {
	r := parser.Parse([]byte(rfcExample))
	m := matcher.Compile(r, "barbot")
	for _, path := range []string{"/example/page.html", "/example/page.html?x=1", "/publications/"} {
		res := m.Match(path)
		fmt.Printf("%-24s allowed=%-5v %s", path, res.Allowed, res.Reason)
		if res.Reason == matcher.RuleMatched {
			fmt.Printf(" (line %d: %s)", res.Rule.Line, res.Rule)
		}
		fmt.Println()
	}
	// Output:
	// /example/page.html       allowed=false rule matched (line 13: Disallow: /example/page.html)
	// /example/page.html?x=1   allowed=false rule matched (line 13: Disallow: /example/page.html)
	// /publications/           allowed=true  no rule matched
}

// The parser keeps what it does not enforce, and says what it accepted only
// leniently.
func Example_warnings() {
	r := parser.Parse([]byte("User-agent: *\nCrawl-delay: 2.5\nDisalow /private\nSitemap: https://example.com/sitemap.xml\nNoindex: /x\n"))
	fmt.Println("crawl-delay:", r.Groups[0].CrawlDelay)
	fmt.Println("sitemaps:", r.Sitemaps)
	fmt.Println("rules:", r.Groups[0].Rules)
	for _, w := range r.Warnings {
		fmt.Println(w)
	}
	// Output:
	// crawl-delay: 2.5s
	// sitemaps: [https://example.com/sitemap.xml]
	// rules: [Disallow: /private]
	// line 3: no colon between key and value; accepted
	// line 3: "Disalow" accepted as disallow
}
