package main

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
)

// A collector that obeys robots.txt, whatever transport or proxy it is
// given afterwards.
func ExampleGuard() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
			return
		}
		io.WriteString(w, "a page")
	}))
	defer site.Close()

	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"})
	if err != nil {
		log.Fatal(err)
	}
	c := colly.NewCollector(colly.UserAgent("ExampleBot/1.0 (+https://example.com/bot)"))
	g := &Guard{Robots: rc, Refused: func(r *colly.Request, err error) {
		fmt.Println("refused", r.URL.Path, "disallowed:", errors.Is(err, robots.ErrDisallowed))
	}}
	g.Obey(c)
	// A new transport (here one that uses no proxy) changes nothing.
	c.SetProxyFunc(func(*http.Request) (*url.URL, error) { return nil, nil })
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })

	c.Visit(site.URL + "/public/page")
	c.Visit(site.URL + "/private/payroll.pdf")
	// Output:
	// fetched /public/page
	// refused /private/payroll.pdf disallowed: true
}
