package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
)

const fetchUsage = `Usage: robots fetch [flags] URL

Fetches the robots.txt of URL's site (scheme, host and port) as a crawler
using the library would, and shows what it is and what it means: the final
status and the redirect chain, the outcome (follow its rules, allow all, or
disallow all), until when it may be cached and why, its size, its groups and
their user-agents, rules and crawl-delays, its sitemaps, and the lines the
parser accepted only leniently or not at all.

Exit status: 0 when the site answered (whatever it answered), 1 when it was
unreachable (a 5xx, a 429, a network failure: crawlers then disallow
everything), 2 on bad flags or an invalid URL.
`

func runFetch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("fetch", fetchUsage, stderr)
	ua, timeout := fetchFlags(fs)
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	if fs.NArg() != 1 {
		errorf(stderr, "fetch", "want exactly one URL, got %d (see robots fetch -h)", fs.NArg())
		return exitError
	}
	robotsURL, err := robotsURLOf(fs.Arg(0), false)
	if err != nil {
		errorf(stderr, "fetch", "%v", err)
		return exitError
	}
	res, err := fetchRobots(robotsURL, *ua, *timeout)
	if err != nil {
		errorf(stderr, "fetch", "%v", err)
		return exitError
	}
	out := status.Classify(res, res.End)
	show(stdout, res, out)
	if out.Unreachable() {
		return exitFinding
	}
	return exitOK
}

// robotsURLOf returns the robots.txt URL of rawURL's site; with exact, an
// URL whose path is /robots.txt is returned as it is.
func robotsURLOf(rawURL string, exact bool) (string, error) {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil:
		return "", fmt.Errorf("invalid URL %q: %v", rawURL, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("invalid URL %q: not http or https", rawURL)
	case u.Host == "":
		return "", fmt.Errorf("invalid URL %q: no host", rawURL)
	}
	if exact && u.Path == "/robots.txt" {
		u.User, u.Fragment = nil, ""
		return u.String(), nil
	}
	return u.Scheme + "://" + u.Host + "/robots.txt", nil
}

// fetchRobots fetches robotsURL with package fetch's defaults: redirects,
// the 500 KiB cap, gzip, one deadline.
func fetchRobots(robotsURL, ua string, timeout time.Duration) (*fetch.Result, error) {
	f, err := fetch.New(fetch.Config{UserAgent: ua, Timeout: timeout})
	if err != nil {
		return nil, err
	}
	return f.Fetch(context.Background(), robotsURL, fetch.Validators{})
}

// show writes what res is and means.
func show(w io.Writer, res *fetch.Result, out status.Outcome) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, a...)) }
	row("robots.txt", "%s", res.URL)
	for _, h := range res.Redirects {
		row("redirect", "%d %s -> %s", h.StatusCode, h.URL, h.Location)
	}
	if res.FinalURL != res.URL {
		row("final URL", "%s", res.FinalURL)
	}
	if res.StatusCode != 0 {
		row("status", "%d", res.StatusCode)
	}
	if res.Err != nil {
		row("failure", "%s: %v", res.Err.Class, res.Err)
	}
	row("outcome", "%s, %s: %s", out.Verdict, out.Class, out.Reason)
	switch {
	case out.Unreachable() && !out.RetryAfter.IsZero():
		row("retry after", "%s (Retry-After)", out.RetryAfter.UTC().Format(time.RFC3339))
	case out.Unreachable():
		row("retry after", "%s (backoff: 1 min, doubling to 1 h)", res.End.Add(cache.MinBackoff).UTC().Format(time.RFC3339))
	default:
		lt := cache.LifetimeOf(res.Header, res.End, time.Minute)
		clamped := ""
		if lt.Clamped {
			clamped = ", clamped to [1 min, 24 h]"
		}
		row("fresh until", "%s (%v: %s%s)", res.End.Add(lt.TTL).UTC().Format(time.RFC3339), lt.TTL, lt.Source, clamped)
	}
	row("fetched in", "%v", res.Duration().Round(time.Millisecond))
	if out.Verdict != status.Rules {
		tw.Flush()
		return
	}
	size := fmt.Sprintf("%d bytes", len(res.Body))
	if res.Truncated {
		size += fmt.Sprintf(" (truncated: the file is longer than %d bytes, and crawlers ignore the rest)", fetch.DefaultMaxBytes)
	}
	row("size", "%s", size)
	tw.Flush()
	showRobots(w, parser.Parse(res.Body), "")
}

// showRobots writes the groups, sitemaps and warnings of r; warnings are
// prefixed with name, the file's name, when not empty.
func showRobots(w io.Writer, r *parser.Robots, name string) {
	fmt.Fprintf(w, "\n%s\n", count(len(r.Groups), "group"))
	for _, g := range r.Groups {
		var agents []string
		for _, a := range g.Agents {
			agents = append(agents, a.Value)
		}
		allows := 0
		for _, rl := range g.Rules {
			if rl.Allow {
				allows++
			}
		}
		fmt.Fprintf(w, "  line %d: user-agent %s: %s (%d allow, %d disallow)",
			g.Agents[0].Line, strings.Join(agents, ", "), count(len(g.Rules), "rule"), allows, len(g.Rules)-allows)
		if g.CrawlDelay > 0 {
			fmt.Fprintf(w, ", crawl-delay %v", g.CrawlDelay)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%s\n", count(len(r.Sitemaps), "sitemap"))
	for _, s := range r.Sitemaps {
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintf(w, "\n%s\n", count(len(r.Warnings), "warning"))
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "  %sline %d: %s: %s\n", name, wn.Line, wn.Kind, wn.Message)
	}
}
