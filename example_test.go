package robots_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/client"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
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

// What a robots.txt states about the use of what it lets a crawler fetch
// (AIPREF, draft-ietf-aipref-attach-05 §3), combined with what a response's
// Content-Usage header states.
func ExampleUsageBy() {
	body := []byte(`User-agent: *
Disallow: /private/
Content-Usage: train-ai=n
Content-Usage: /blog/ train-ai=y, search=y
`)
	blog := robots.UsageBy(body, "ExampleBot", "https://example.com/blog/post")
	fmt.Println(blog)
	fmt.Println(robots.UsageBy(body, "ExampleBot", "https://example.com/shop/item"))
	fmt.Println(robots.UsageBy(body, "ExampleBot", "https://example.com/private/x")) // not crawlable: nothing stated

	h := http.Header{"Content-Usage": {"search=n"}} // the response's own statement
	p := usage.Combine(blog, usage.FromHeader(h))
	fmt.Println(p, p.Get(usage.TrainAI) == usage.Yes)
	// Output:
	// train-ai=y, search=y
	// train-ai=n
	//
	// train-ai=y, search=n true
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
	fmt.Println("crawl-delay:", r.Groups[0].Agents[0].CrawlDelay)
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

// newExampleSite serves a robots.txt and pages, as a site on the web would.
func newExampleSite() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Cache-Control", "max-age=3600")
			io.WriteString(w, "User-agent: *\nDisallow: /private/\nAllow: /private/press/\n\nSitemap: https://example.com/sitemap.xml\n")
			return
		}
		io.WriteString(w, "a page")
	}))
}

// The crawl loop: ask before every fetch. robots.txt is fetched once per
// site and cached; later questions cost well under a microsecond.
func ExampleClient_Allowed() {
	site := newExampleSite()
	defer site.Close()

	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
	if err != nil {
		log.Fatal(err)
	}
	for _, path := range []string{"/", "/private/payroll.pdf", "/private/press/launch.html"} {
		ok, err := rc.Allowed(context.Background(), site.URL+path)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-28s %v\n", path, ok)
	}
	fmt.Println("robots.txt fetches:", rc.Stats().Fetches)
	// Output:
	// /                            true
	// /private/payroll.pdf         false
	// /private/press/launch.html   true
	// robots.txt fetches: 1
}

// One crawler, two purposes: a search bot and an AI-training bot, each with
// its own group in robots.txt. One fetch of robots.txt answers both.
func ExampleClient_As() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `User-agent: ExampleSearch
Allow: /
Crawl-delay: 1

User-agent: ExampleTrain
Disallow: /articles/
Content-Usage: /blog/ train-ai=y

User-agent: *
Disallow: /
`)
	}))
	defer site.Close()

	rc, err := robots.New(robots.Options{UserAgent: "ExampleSearch/1.0 (+https://example.com/bot)"})
	if err != nil {
		log.Fatal(err)
	}
	train, err := rc.As("ExampleTrain") // make it once, keep it
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []*robots.Client{rc, train} {
		articles, _ := c.Allowed(ctx, site.URL+"/articles/1.html")
		blog, _ := c.Usage(ctx, site.URL+"/blog/post.html")
		delay, _ := c.CrawlDelay(ctx, site.URL+"/")
		fmt.Printf("%-13s articles: %-5v blog train-ai: %-7v crawl-delay: %v\n",
			c.Agents()[0], articles, blog.Get(usage.TrainAI), delay)
	}
	fmt.Println("robots.txt fetches:", rc.Stats().Fetches)

	_, err = rc.As("Example Train")
	fmt.Println(errors.Is(err, robots.ErrInvalidAgent))
	// Output:
	// ExampleSearch articles: true  blog train-ai: unknown crawl-delay: 1s
	// ExampleTrain  articles: false blog train-ai: y       crawl-delay: 0s
	// robots.txt fetches: 1
	// true
}

// Check explains a verdict: the rule and its line, and the fetch behind it.
func ExampleClient_Check() {
	site := newExampleSite()
	defer site.Close()

	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
	if err != nil {
		log.Fatal(err)
	}
	d, err := rc.Check(context.Background(), site.URL+"/private/payroll.pdf")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("allowed:", d.Allowed)
	fmt.Println("reason:", d.Reason)
	fmt.Printf("rule: %s (line %d)\n", d.Rule, d.Rule.Line)
	fmt.Println("status:", d.StatusCode)
	fmt.Println("fresh for:", d.FreshUntil.Sub(d.FetchedAt))
	// Output:
	// allowed: false
	// reason: rule matched
	// rule: Disallow: /private/ (line 2)
	// status: 200
	// fresh for: 1h0m0s
}

// A wrapped http.Client refuses disallowed URLs itself, without contacting
// the server.
func Example_wrappedHTTPClient() {
	site := newExampleSite()
	defer site.Close()

	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
	if err != nil {
		log.Fatal(err)
	}
	hc := client.Wrap(&http.Client{}, rc)

	resp, err := hc.Get(site.URL + "/public/page.html")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("public:", resp.Status)

	_, err = hc.Get(site.URL + "/private/payroll.pdf")
	fmt.Println("private refused:", errors.Is(err, robots.ErrDisallowed))
	// Output:
	// public: 200 OK
	// private refused: true
}

// Save what a Client knows and start the next run with it: records keep
// their times, so fresh ones answer without a fetch and backoff holds.
func ExampleClient_Export() {
	var fetches int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches++
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))
	defer srv.Close()
	ctx := context.Background()

	before, _ := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})
	before.Allowed(ctx, srv.URL+"/")
	var saved bytes.Buffer // a file, in a crawler
	if err := before.Export(&saved); err != nil {
		log.Fatal(err)
	}

	after, _ := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})
	if err := after.Import(&saved); err != nil {
		log.Fatal(err) // a damaged file adds nothing
	}
	ok, _ := after.Allowed(ctx, srv.URL+"/private/x")
	fmt.Println(ok, "fetches:", fetches)
	// Output: false fetches: 1
}

// A crawler that fetched a robots.txt itself hands the response over: the
// Client caches it as if it had fetched it.
func ExampleClient_Observe() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))
	defer srv.Close()
	rc, _ := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})

	resp, err := http.Get(srv.URL + "/robots.txt") // the crawler's own fetch
	if err != nil {
		log.Fatal(err)
	}
	if err := rc.Observe(srv.URL+"/robots.txt", resp); err != nil { // reads and closes the body
		log.Fatal(err)
	}
	ok, _ := rc.Allowed(context.Background(), srv.URL+"/private/x")
	fmt.Println(ok, "fetches:", rc.Stats().Fetches)
	// Output: false fetches: 0
}

// Clients that share a Fleet fetch each robots.txt once between them. In one
// process, a cache.MemoryFleet; across processes, package redisfleet.
func ExampleOptions_fleet() {
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))
	defer srv.Close()
	fleet := cache.NewMemoryFleet()
	search, _ := robots.New(robots.Options{UserAgent: "ExampleBot/1.0", Fleet: fleet})
	archive, _ := robots.New(robots.Options{UserAgent: "ExampleArchiver/1.0", Fleet: fleet})

	ctx := context.Background()
	a, _ := search.Allowed(ctx, srv.URL+"/private/x")
	b, _ := archive.Allowed(ctx, srv.URL+"/public/y")
	fmt.Println(a, b, "fetches:", fetches.Load(), "from the fleet:", archive.Stats().FleetHits)
	// Output: false true fetches: 1 from the fleet: 1
}
