// Command crawl is a crawl loop on net/http alone that obeys robots.txt
// through github.com/crawlkit/robots: it crawls one site breadth first,
// never requests a page robots.txt disallows (nor one a redirect leads to),
// and waits the site's Crawl-delay between requests.
//
//	go run . https://example.com/
//	go run . -agent ExampleBot -max 100 https://example.com/
//
// It prints a line per page fetched or refused. The loop is Crawler.Crawl:
// copy it into a crawler of your own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"time"

	"golang.org/x/net/html"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agent := fs.String("agent", "ExampleBot", "the crawler's product token")
	maxPages := fs.Int("max", 50, "stop after this many pages")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: crawl [-agent TOKEN] [-max N] URL")
		return 2
	}
	c, err := New(*agent+"/1.0 (+https://github.com/crawlkit/robots)", stdout)
	if err != nil {
		fmt.Fprintln(stderr, "crawl:", err)
		return 2
	}
	if err := c.Crawl(ctx, fs.Arg(0), *maxPages); err != nil {
		fmt.Fprintln(stderr, "crawl:", err)
		return 1
	}
	return 0
}

// DefaultMaxDelay is the longest Crawl-delay a Crawler obeys unless told
// otherwise: a site asking for more is crawled at one page a minute.
const DefaultMaxDelay = time.Minute

// maxBody bounds what is read of a page: links past it are not followed.
const maxBody = 1 << 20

// Crawler crawls one site at a time, obeying its robots.txt.
type Crawler struct {
	// Robots decides, and tells the Crawl-delay.
	Robots *robots.Client
	// HTTP fetches the pages. Wrapped by client.Wrap, it refuses a
	// disallowed URL itself, redirects included, with an error for which
	// errors.Is(err, robots.ErrDisallowed) holds.
	HTTP *http.Client
	// Out receives a line per page fetched or refused.
	Out io.Writer
	// MaxDelay caps the Crawl-delay obeyed. Zero means DefaultMaxDelay.
	MaxDelay time.Duration
	// Now and Sleep are the clock; nil means time.Now and a timer that
	// ends early with ctx. Tests set both to move time without waiting.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// New returns a Crawler whose requests say userAgent, with the defaults.
func New(userAgent string, out io.Writer) (*Crawler, error) {
	rc, err := robots.New(robots.Options{UserAgent: userAgent})
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &userAgentTransport{userAgent, http.DefaultTransport}}
	return &Crawler{Robots: rc, HTTP: client.Wrap(hc, rc), Out: out}, nil
}

// Crawl fetches start and the pages of its site it links to, breadth first,
// at most maxPages of them. It returns an error only when start is not a
// URL to crawl or ctx ends; a page that fails is reported and skipped.
func (c *Crawler) Crawl(ctx context.Context, start string, maxPages int) error {
	site, err := url.Parse(start)
	if err != nil || (site.Scheme != "http" && site.Scheme != "https") || site.Host == "" {
		return fmt.Errorf("not an http(s) URL: %q", start)
	}
	site.Fragment = ""
	queue := []*url.URL{site}
	seen := map[string]bool{site.String(): true}
	var last time.Time // when the last request to the site started
	for fetched := 0; len(queue) > 0 && fetched < maxPages; {
		u := queue[0]
		queue = queue[1:]

		// Ask first, so that a disallowed page costs no Crawl-delay.
		ok, err := c.Robots.Allowed(ctx, u.String())
		switch {
		case errors.Is(err, robots.ErrInvalidURL):
			fmt.Fprintf(c.Out, "invalid    %.200s: %v\n", u, err) // say, a link longer than 8 KiB
			continue
		case err != nil:
			return err // ctx ended
		case !ok:
			fmt.Fprintf(c.Out, "disallowed %s\n", u)
			continue
		}
		if err := c.wait(ctx, u.String(), last); err != nil {
			return err
		}
		last = c.now()
		fetched++
		links, err := c.fetch(ctx, u)
		switch {
		case errors.Is(err, robots.ErrDisallowed):
			fmt.Fprintf(c.Out, "disallowed %s (%v)\n", u, err) // a redirect to a disallowed URL
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			fmt.Fprintf(c.Out, "failed     %s: %v\n", u, err)
			continue
		}
		for _, l := range links {
			l.Fragment = ""
			if l.Host != site.Host || l.Scheme != site.Scheme || seen[l.String()] {
				continue // one site: same scheme, host and port
			}
			seen[l.String()] = true
			queue = append(queue, l)
		}
	}
	return nil
}

// wait returns when a request to rawURL's site may start: the site's
// Crawl-delay (at most MaxDelay) after last.
func (c *Crawler) wait(ctx context.Context, rawURL string, last time.Time) error {
	if last.IsZero() {
		return nil
	}
	delay, err := c.Robots.CrawlDelay(ctx, rawURL)
	if err != nil {
		return err
	}
	maxDelay := c.MaxDelay
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	if d := last.Add(min(delay, maxDelay)).Sub(c.now()); d > 0 {
		return c.sleep(ctx, d)
	}
	return nil
}

// fetch GETs u, reports it, and returns the links of an HTML page.
func (c *Crawler) fetch(ctx context.Context, u *url.URL) ([]*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	fmt.Fprintf(c.Out, "fetched    %s %d\n", u, resp.StatusCode)
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/html" {
		return nil, nil
	}
	return links(resp.Request.URL, io.LimitReader(resp.Body, maxBody)), nil
}

// links returns the targets of the <a href> of the HTML page r, resolved
// against base, the page's URL.
func links(base *url.URL, r io.Reader) []*url.URL {
	var out []*url.URL
	z := html.NewTokenizer(r)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out // io.EOF, the bound, or broken HTML: what was read counts
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) != "href" {
					continue
				}
				if l, err := base.Parse(string(v)); err == nil {
					out = append(out, l)
				}
			}
		}
	}
}

func (c *Crawler) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Crawler) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// userAgentTransport sets the User-Agent header of every request, so that
// pages are fetched under the name robots.txt was fetched with.
type userAgentTransport struct {
	userAgent string
	base      http.RoundTripper
}

func (t *userAgentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not modify the request
	req.Header.Set("User-Agent", t.userAgent)
	return t.base.RoundTrip(req)
}
