// Command colly crawls one site with Colly (github.com/gocolly/colly/v2), the
// most used Go crawler, obeying its robots.txt through
// github.com/crawlkit/robots: disallowed pages are never requested, even
// with a proxy set, and requests to a site are spaced by its Crawl-delay.
//
//	go run . https://example.com/
//	go run . -agent ExampleBot -max 100 -proxy http://127.0.0.1:3128 https://example.com/
//
// It prints a line per page fetched or refused. The wiring is
// robotscolly.Guard (github.com/crawlkit/robots/robotscolly): import it
// into a crawler of your own. This is a separate module, so that the
// library itself does not depend on Colly.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/robotscolly"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// config is what a crawl needs besides its start URL.
type config struct {
	agent    string             // the product token robots.txt groups are matched against
	maxPages int                // stop after this many requests
	proxy    string             // send page requests through this proxy, when set
	guard    *robotscolly.Guard // its Robots and Refused are set by crawl; nil means a Guard with the defaults
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("colly", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.agent, "agent", "ExampleBot", "the crawler's product token")
	fs.IntVar(&cfg.maxPages, "max", 50, "stop after this many requests")
	fs.StringVar(&cfg.proxy, "proxy", "", "send page requests through this HTTP proxy (robots.txt is fetched directly)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: colly [-agent TOKEN] [-max N] [-proxy URL] URL")
		return 2
	}
	if err := crawl(ctx, fs.Arg(0), cfg, stdout); err != nil {
		fmt.Fprintln(stderr, "colly:", err)
		return 1
	}
	return 0
}

// crawl crawls the site of start, following its links, and writes a line
// for each page fetched or refused.
func crawl(ctx context.Context, start string, cfg config, w io.Writer) error {
	u, err := url.Parse(start)
	if err != nil {
		return err
	}
	ua := cfg.agent + "/1.0 (+https://github.com/crawlkit/robots)"
	rc, err := robots.New(robots.Options{UserAgent: ua})
	if err != nil {
		return err
	}
	c := colly.NewCollector(
		colly.UserAgent(ua),
		colly.AllowedDomains(u.Hostname()),
		colly.MaxRequests(uint32(max(cfg.maxPages, 1))),
		colly.StdlibContext(ctx),
		colly.IgnoreRobotsTxt(), // the default; the Guard decides, by RFC 9309
	)

	var mu sync.Mutex // Async collectors call back concurrently
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format, a...)
	}
	g := cfg.guard
	if g == nil {
		g = &robotscolly.Guard{}
	}
	g.Robots = rc
	g.Refused = func(r *colly.Request, err error) {
		// The URL refused: r's own, or where r was redirected.
		refused := r.URL.String()
		var re *robots.Error
		if errors.As(err, &re) && re.URL != "" {
			refused = re.URL
		}
		if errors.Is(err, robots.ErrDisallowed) {
			say("disallowed %s\n", refused)
			return
		}
		say("unchecked  %s: %v\n", refused, err)
	}
	g.Obey(c) // first: the callbacks below see only what is sent

	// After Obey, and it does not matter: the Guard is callbacks and a
	// redirect handler, which a new transport does not replace.
	if cfg.proxy != "" {
		if err := c.SetProxy(cfg.proxy); err != nil {
			return err
		}
	}

	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		e.Request.Visit(e.Attr("href")) // errors: visited, other domain, max requests
	})
	c.OnResponse(func(r *colly.Response) {
		say("fetched    %s %d\n", r.Request.URL, r.StatusCode)
	})
	c.OnError(func(r *colly.Response, err error) {
		if errors.Is(err, robots.ErrDisallowed) {
			return // a redirect the Guard refused: Refused said so
		}
		say("failed     %s: %v\n", r.Request.URL, err)
	})
	if err := c.Visit(start); err != nil {
		return err
	}
	c.Wait()
	return nil
}
