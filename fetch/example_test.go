package fetch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/authority"
	"github.com/crawlkit/robots/status"
)

// Fetch an authority's robots.txt and decide what it means.
func ExampleFetcher_Fetch() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, "/robots-v2.txt", http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	}))
	defer srv.Close()

	a, err := authority.Parse(srv.URL + "/private/page?q=1")
	if err != nil {
		panic(err)
	}
	f, err := fetch.New(fetch.Config{UserAgent: "ExampleBot/1.0", Timeout: 10 * time.Second})
	if err != nil {
		panic(err)
	}
	res, err := f.Fetch(context.Background(), a.RobotsURL(), fetch.Validators{})
	if err != nil {
		panic(err) // only a canceled context or an unusable URL
	}
	o := status.Classify(res, time.Now())
	fmt.Println(res.StatusCode, len(res.Redirects), "redirect")
	fmt.Println(o.Verdict, "-", o.Reason)
	fmt.Printf("%s", res.Body)
	// Output:
	// 200 1 redirect
	// rules - 200 OK: success
	// User-agent: *
	// Disallow: /private/
}
