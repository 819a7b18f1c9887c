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

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/freshness"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
)

const fetchUsage = `Usage: robots fetch [flags] URL

Fetches the robots.txt of URL's site (scheme, host and port) as a crawler
using the library would, and shows what it is and what it means: the final
status and the redirect chain, the outcome (follow its rules, allow all, or
disallow all), until when it may be cached and why, its size, its groups and
their user-agents, rules, crawl-delays, Content-Usage rules and
Content-Signal records, its sitemaps, and the lines the parser accepted only
leniently or not at all. Past the first 20 groups, sitemaps or warnings, and
a group's first 5 user-agents, Content-Usage rules or Content-Signal
records, it counts the rest; -all lists them all.

Exit status: 0 when the site answered (whatever it answered), 1 when it was
unreachable (a 5xx, a 429, a network failure: crawlers then disallow
everything), 2 on bad flags or an invalid URL.
`

func runFetch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("fetch", fetchUsage, stderr)
	ua, timeout := fetchFlags(fs)
	all := fs.Bool("all", false, fmt.Sprintf("list every group, sitemap and warning, not the first %d of each", screenful))
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
	limit := screenful
	if *all {
		limit = 0
	}
	show(stdout, res, out, limit)
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

// show writes what res is and means, listing at most limit groups,
// sitemaps and warnings (all when limit is 0).
func show(w io.Writer, res *fetch.Result, out status.Outcome, limit int) {
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
		row("retry after", "%s (backoff: 1 min, doubling to 1 h)", res.End.Add(freshness.MinBackoff).UTC().Format(time.RFC3339))
	default:
		lt := freshness.LifetimeOf(res.Header, res.End, time.Minute)
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
	showRobots(w, parser.Parse(res.Body), limit)
}

// screenful is how many groups, sitemaps or warnings fetch lists of each
// before it summarizes the rest; -all lists everything.
const screenful = 20

// maxAgents is how many user-agents of a group fetch names before it counts
// the rest, unless -all.
const maxAgents = 5

// maxUsages is how many Content-Usage rules, and how many Content-Signal
// records, of a group fetch lists before it counts the rest (robots fetch
// -all lists them all).
const maxUsages = 5

// showRobots writes the groups, sitemaps and warnings of r, at most limit
// of each (all when limit is 0), each list ending with a line that counts
// what it left out.
func showRobots(w io.Writer, r *parser.Robots, limit int) {
	fmt.Fprintf(w, "\n%s\n", count(len(r.Groups), "group"))
	sig := 0 // the next of r.ContentSignals
	for i, g := range r.Groups {
		if more(w, i, len(r.Groups), limit, "group") {
			break
		}
		var agents []string
		for j, a := range g.Agents {
			if limit > 0 && j == maxAgents {
				agents = append(agents, fmt.Sprintf("and %d more", len(g.Agents)-j))
				break
			}
			if a.CrawlDelay > 0 { // each line's own: a Crawl-delay binds to the lines above it
				agents = append(agents, fmt.Sprintf("%s (crawl-delay %v)", a.Value, a.CrawlDelay))
			} else {
				agents = append(agents, a.Value)
			}
		}
		allows := 0
		for _, rl := range g.Rules {
			if rl.Allow {
				allows++
			}
		}
		fmt.Fprintf(w, "  line %d: user-agent %s: %s (%d allow, %d disallow)\n",
			g.Agents[0].Line, strings.Join(agents, ", "), count(len(g.Rules), "rule"), allows, len(g.Rules)-allows)
		for j, cu := range g.ContentUsage {
			if limit > 0 && j == maxUsages {
				fmt.Fprintf(w, "    ... and %s\n", count(len(g.ContentUsage)-j, "more Content-Usage rule"))
				break
			}
			fmt.Fprintf(w, "    line %d: %s\n", cu.Line, cu)
		}
		// The records are in file order: those of group i come next.
		for sig < len(r.ContentSignals) && r.ContentSignals[sig].Group < i {
			sig++
		}
		start := sig
		for sig < len(r.ContentSignals) && r.ContentSignals[sig].Group == i {
			sig++
		}
		signals := r.ContentSignals[start:sig]
		for j, cs := range signals {
			if limit > 0 && j == maxUsages {
				fmt.Fprintf(w, "    ... and %s\n", count(len(signals)-j, "more Content-Signal record"))
				break
			}
			fmt.Fprintf(w, "    line %d: Content-Signal: %s\n", cs.Line, cs.Value)
		}
	}
	fmt.Fprintf(w, "\n%s\n", count(len(r.Sitemaps), "sitemap"))
	for i, s := range r.Sitemaps {
		if more(w, i, len(r.Sitemaps), limit, "sitemap") {
			break
		}
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintf(w, "\n%s\n", count(len(r.Warnings)+r.OmittedWarnings, "warning"))
	for i, wn := range r.Warnings {
		if more(w, i, len(r.Warnings), limit, "warning") {
			break
		}
		fmt.Fprintf(w, "  line %d: %s: %s\n", wn.Line, wn.Kind, wn.Message)
	}
	if r.OmittedWarnings > 0 {
		// Not even -all lists these: the parser counts them and keeps nothing.
		fmt.Fprintf(w, "  ... and %s past the first %d, which the parser counts but does not keep\n",
			count(r.OmittedWarnings, "more warning"), parser.MaxWarnings)
	}
}

// more reports whether item i of n is past limit (0: no limit), and then
// writes how many of them are left out.
func more(w io.Writer, i, n, limit int, noun string) bool {
	if limit <= 0 || i < limit {
		return false
	}
	fmt.Fprintf(w, "  ... and %d more %s (robots fetch -all lists them all)\n", n-i, plural(n-i, noun))
	return true
}
