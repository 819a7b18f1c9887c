package robotstest_test

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/client"
	"github.com/crawlkit/robots/robotstest"
)

// exampleT stands for the *testing.T of a test, which an example has not:
// it prints what would fail the test, and runs the cleanups when done.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()          {}
func (t *exampleT) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
}

func (t *exampleT) done() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// A naive crawler fetches the pages it was told to without asking
// robots.txt, and fails the test.
func Example() {
	t := &exampleT{}
	defer t.done()

	site := robotstest.NewSite(t, "User-agent: *\nDisallow: /private/\n")
	for _, path := range []string{"/", "/public", "/private/secret"} {
		resp, err := http.Get(site.URL + path)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
	}
	fmt.Println("obeyed:", site.AssertObeyed(t, "ExampleBot"))
	// Output:
	// FAIL: robotstest: ExampleBot did not obey robots.txt: 1 violation
	//	GET /private/secret (User-Agent "Go-http-client/1.1"): disallowed by robots.txt line 2: Disallow: /private/
	// obeyed: false
}

// A crawler whose http.Client is wrapped by client.Wrap never sends what
// robots.txt disallows, and passes.
func Example_clientWrap() {
	t := &exampleT{}
	defer t.done()

	site := robotstest.NewSite(t, "User-agent: *\nDisallow: /private/\n")
	const ua = "ExampleBot/1.0 (+https://example.com/bot)"
	rc, err := robots.New(robots.Options{UserAgent: ua})
	if err != nil {
		log.Fatal(err)
	}
	hc := client.Wrap(http.DefaultClient, rc)
	for _, path := range []string{"/", "/public", "/private/secret"} {
		req, err := http.NewRequest("GET", site.URL+path, nil)
		if err != nil {
			log.Fatal(err)
		}
		req.Header.Set("User-Agent", ua) // a crawler names itself on every request
		resp, err := hc.Do(req)
		if errors.Is(err, robots.ErrDisallowed) {
			fmt.Println("refused", path)
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
	}
	fmt.Println("obeyed:", site.AssertObeyed(t, "ExampleBot"))
	fmt.Println("requests:", len(site.Requests()))
	// Output:
	// refused /private/secret
	// obeyed: true
	// requests: 3
}

// Crawl-delay and caching, judged by a clock the test moves: no sleeping.
func ExampleSite_Violations() {
	t := &exampleT{}
	defer t.done()

	site := robotstest.NewSite(t, "")
	site.SetRobots(http.StatusOK, "User-agent: *\nCrawl-delay: 5\nDisallow: /private/\n",
		"Cache-Control", "max-age=3600")
	var seconds atomic.Int64
	site.SetClock(func() time.Time { return time.Unix(seconds.Load(), 0) })

	get := func(path string) {
		resp, err := http.Get(site.URL + path)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
	}
	get("/robots.txt")
	get("/a")
	seconds.Add(2)
	get("/b")
	seconds.Add(10)
	get("/robots.txt")
	get("/private/c")

	for _, v := range site.Violations("ExampleBot") {
		fmt.Println(v)
	}
	// Output:
	// GET /b (User-Agent "Go-http-client/1.1"): too soon: 2s after the previous page request, under the Crawl-delay of 5s that robots.txt sets for line 1 (User-agent: *)
	// GET /robots.txt (User-Agent "Go-http-client/1.1"): robots.txt fetched again 12s after the previous fetch, whose answer stayed fresh for 1h0m0s (Cache-Control: max-age=3600)
	// GET /private/c (User-Agent "Go-http-client/1.1"): disallowed by robots.txt line 3: Disallow: /private/
}
