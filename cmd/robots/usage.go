package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

const usageCmdUsage = `Usage: robots usage [flags] URL

Shows the AIPREF usage preferences for URL: how its content may be used
(train-ai: AI training, search: search, ai-use: AI use), as the site's
robots.txt states them for the crawler in its Content-Usage rules
(draft-ietf-aipref-attach-05 §3) and, given -header, as the response's
Content-Usage header field states them (§2):

  URL            https://example.com/blog/post
  agent          ExampleBot
  robots.txt     https://example.com/robots.txt (200 OK: success)
  verdict        ALLOWED: no rule matched
  group          line 4: User-agent: ExampleBot
  Content-Usage  line 6: Content-Usage: /blog/ train-ai=n, search=y
  preferences    train-ai=n, search=y (ai-use unknown)

The longest Content-Usage rule of the crawler's groups that matches the URL
states the preferences; a label it does not state is unknown, and so is
every label when no rule matches. A URL the crawler may not fetch has no
preferences at all. With -header, the preferences of robots.txt and of the
header are shown, then combined: the most restrictive per label
(draft-ietf-aipref-vocab-07 §5.1). A Content-Signal record of the
crawler's groups is shown apart: it is Cloudflare's, not AIPREF, and is
not combined.

With -file the rules come from a local robots.txt, read as crawlers read
one (its first 500 KiB), and no network is used; URL may then be a bare
path ("/a?b=c"). Without -file, the site's robots.txt is fetched as
"robots check" fetches it. Flags come before the URL.

Exit status: 0 when the crawler may fetch URL, 1 when it may not, 2 on an
error: bad flags, an unreadable file, an invalid URL or -header.
`

// headerFlags collects the repeated -header flag: Content-Usage field
// lines, "Content-Usage: train-ai=n".
type headerFlags []string

func (h *headerFlags) String() string { return strings.Join(*h, "\n") }

func (h *headerFlags) Set(line string) error {
	*h = append(*h, line)
	return nil
}

func runUsage(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("usage", usageCmdUsage, stderr)
	agent := fs.String("agent", defaultAgent, agentHelp)
	file := fs.String("file", "", "read this local robots.txt instead of fetching the site's")
	var headers headerFlags
	fs.Var(&headers, "header", "a Content-Usage field line of the response, such as 'Content-Usage: train-ai=n'; repeat for several lines")
	ua, timeout := fetchFlags(fs)
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	if fs.NArg() != 1 {
		errorf(stderr, "usage", "want exactly one URL, got %d (see robots usage -h)", fs.NArg())
		return exitError
	}
	rawURL := fs.Arg(0)
	h, err := contentUsageHeader(headers)
	if err != nil {
		errorf(stderr, "usage", "%v", err)
		return exitError
	}
	rc, err := newClient(*agent, *ua, *file, *timeout)
	if err != nil {
		errorf(stderr, "usage", "%v", err)
		return exitError
	}
	u := rawURL
	if *file != "" {
		if u, err = fileURL(rc, rawURL); err != nil {
			errorf(stderr, "usage", "%s: %s", rawURL, invalid(err))
			return exitError
		}
	}
	ctx := context.Background()
	d, err := rc.Check(ctx, u)
	if err != nil {
		errorf(stderr, "usage", "%s: %s", rawURL, invalid(err))
		return exitError
	}
	sig, sigRec, err := rc.Signal(ctx, u) // the file Check fetched: no second fetch
	if err != nil {
		errorf(stderr, "usage", "%s: %s", rawURL, invalid(err))
		return exitError
	}

	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("URL", rawURL)
	row("agent", *agent)
	switch {
	case *file != "":
		row("robots.txt", *file)
	case d.Outcome != "":
		row("robots.txt", d.RobotsURL+" ("+d.Outcome+")")
	default:
		row("robots.txt", d.RobotsURL)
	}
	row("verdict", verdict(d.Allowed)+": "+because(*agent, d))
	if len(d.Agents) > 0 {
		row("group", agentsText(d.Agents))
	}
	switch {
	case !d.Allowed:
		row("Content-Usage", "none: a URL the crawler may not fetch has no usage preferences (attach-05 §3)")
	case d.UsageRule.Line > 0:
		row("Content-Usage", fmt.Sprintf("line %d: %s", d.UsageRule.Line, d.UsageRule))
	default:
		row("Content-Usage", "no rule matches")
	}
	fromRobots := prefsText(d.Usage, d.UsageRule.Line > 0, d.UsageRule.Preferences)
	if lines := h.Values(usage.HeaderName); len(lines) > 0 {
		hp := usage.FromHeader(h)
		row("from robots.txt", fromRobots)
		row("from header", prefsText(hp, true, strings.Join(lines, ", "), count(len(lines), usage.HeaderName+" line")))
		row("preferences", prefsText(usage.Combine(d.Usage, hp), false, "", "the most restrictive of both, per label"))
	} else {
		row("preferences", fromRobots)
	}
	if sig != (usage.Signal{}) {
		row("Content-Signal", fmt.Sprintf("line %d: %s (Cloudflare's record, not AIPREF: not combined with Content-Usage)", sigRec.Line, sig))
	}
	tw.Flush()
	if !d.Allowed {
		return exitFinding
	}
	return exitOK
}

// contentUsageHeader returns the response header that the -header lines
// make: each must be a Content-Usage field line, "Content-Usage: value";
// optional white space around the value is not part of it (RFC 9110 §5.5).
func contentUsageHeader(lines []string) (http.Header, error) {
	h := http.Header{}
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		if !ok || !strings.EqualFold(strings.TrimRight(name, " \t"), usage.HeaderName) {
			return nil, fmt.Errorf("-header %q: want a %s field line, such as %q", l, usage.HeaderName, usage.HeaderName+": train-ai=n")
		}
		h.Add(usage.HeaderName, strings.Trim(value, " \t"))
	}
	return h, nil
}

// prefsText describes p, the preferences one source states: its
// Content-Usage value, such as "train-ai=n, search=y", then in parentheses
// the labels of the vocabulary it leaves unknown and notes. When p states
// nothing although the source has a value (stated), the first problem
// usage.Validate finds in value says why.
func prefsText(p usage.Prefs, stated bool, value string, notes ...string) string {
	var s, why string
	if p == (usage.Prefs{}) {
		s = "none stated: every label unknown"
		if stated {
			if ps := usage.Validate(value); len(ps) > 0 {
				why = " — " + ps[0].String()
			}
		}
	} else {
		s = p.String()
		var unknown []string
		for _, l := range []string{usage.TrainAI, usage.Search, usage.AIUse} {
			if p.Get(l) == usage.Unknown {
				unknown = append(unknown, l)
			}
		}
		if len(unknown) > 0 {
			notes = append([]string{strings.Join(unknown, ", ") + " unknown"}, notes...)
		}
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s + why
}

// agentsText lists the user-agent lines of the groups that applied, the
// first maxAgents of them.
func agentsText(agents []parser.Agent) string {
	var b strings.Builder
	for i, a := range agents {
		if i == maxAgents {
			fmt.Fprintf(&b, ", and %d more", len(agents)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "line %d: User-agent: %s", a.Line, a.Value)
	}
	return b.String()
}
