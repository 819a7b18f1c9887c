package robotscolly_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/gocolly/colly/v2"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/robotscolly"
)

// A collector that obeys robots.txt, whatever transport or proxy it is
// given afterwards, and whatever redirects it follows.
func ExampleGuard() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
		case "/payroll-2025":
			http.Redirect(w, r, "/private/payroll-2025.pdf", http.StatusMovedPermanently)
		default:
			io.WriteString(w, "a page")
		}
	}))
	defer site.Close()

	const ua = "ExampleBot/1.0 (+https://example.com/bot)"
	rc, err := robots.New(robots.Options{UserAgent: ua})
	if err != nil {
		log.Fatal(err)
	}
	c := colly.NewCollector(colly.UserAgent(ua))
	g := &robotscolly.Guard{Robots: rc, Refused: func(r *colly.Request, err error) {
		fmt.Println("refused", r.URL.Path, "disallowed:", errors.Is(err, robots.ErrDisallowed))
	}}
	g.Obey(c)
	// A new transport (here one that uses no proxy) changes nothing.
	c.SetProxyFunc(func(*http.Request) (*url.URL, error) { return nil, nil })
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })

	c.Visit(site.URL + "/public/page")
	c.Visit(site.URL + "/private/payroll.pdf")
	// A refused redirect also fails the request, as Colly's own robots.txt
	// check would.
	err = c.Visit(site.URL + "/payroll-2025")
	fmt.Println("blocked:", errors.Is(err, colly.ErrRobotsTxtBlocked))
	// Output:
	// fetched /public/page
	// refused /private/payroll.pdf disallowed: true
	// refused /payroll-2025 disallowed: true
	// blocked: true
}
