package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/parser"
)

const checkUsage = `Usage: robots check [flags] URL...

Decides for each URL whether robots.txt allows the crawler to fetch it, and
prints one line per URL, in input order:

  ALLOWED     https://example.com/example/page.html  line 8: Allow: /example/page.html

the verdict (ALLOWED, DISALLOWED, or ERROR for a URL that cannot be decided),
the URL, and why: the rule that decided and its line, or what stood in for
rules ("no rule matched", "404 Not Found: unavailable", ...).

With -file the rules come from a local robots.txt, read as crawlers read
one (its first 500 KiB), and no network is used: every site is taken to
serve that file. URLs may then also be bare paths ("/a?b=c"). Without -file,
each site's robots.txt is fetched once, as a crawler using the library
would, and the decisions follow RFC 9309 for redirects, status codes and
caching. Either way a URL is valid exactly when the library accepts it (a
bare path, when ` + pathSite + ` followed by the path is).

With no URL arguments, URLs are read from standard input, one per line; blank
lines are skipped. Flags come before the URLs.

Exit status: 0 when every URL is allowed, 1 when some URL is disallowed, 2 on
an error: bad flags, an unreadable file, or an invalid URL (reported as an
ERROR line; the other URLs are still decided).
`

// agentHelp documents the -agent flag of the commands that decide URLs.
const agentHelp = "the crawler's name, as its User-Agent starts: ExampleBot, MJ12bot, Mail.RU_Bot (letters, digits and !#$%&'*+-.^_`|~); " +
	"the groups naming it apply, else the \"*\" groups"

// defaultAgent is the name used without -agent: no real robots.txt
// names it, so a file's "*" groups apply.
const defaultAgent = "robots-cli"

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("check", checkUsage, stderr)
	agent := fs.String("agent", defaultAgent, agentHelp)
	file := fs.String("file", "", "decide against this local robots.txt instead of fetching each site's")
	asJSON := fs.Bool("json", false, "print one JSON object per URL (JSON Lines) instead of text")
	ua, timeout := fetchFlags(fs)
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	rc, err := newClient(*agent, *ua, *file, *timeout)
	if err != nil {
		errorf(stderr, "check", "%v", err)
		return exitError
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	c := &checker{agent: *agent, file: *file != "", rc: rc, json: *asJSON, out: out}

	if fs.NArg() > 0 {
		for _, u := range fs.Args() {
			c.check(u)
		}
	} else if err := eachLine(stdin, c.checkLine); err != nil {
		out.Flush()
		errorf(stderr, "check", "reading standard input: %v", err)
		return exitError
	}
	switch {
	case c.errors > 0:
		return exitError
	case c.disallowed > 0:
		return exitFinding
	}
	return exitOK
}

// newClient returns the Client that decides for the crawler whose name is
// agent, sending ua (defaultUA means one naming agent), with a fetch
// deadline of timeout. When file is not empty, every site serves that
// local robots.txt: see fileTransport and fileURL.
func newClient(agent, ua, file string, timeout time.Duration) (*robots.Client, error) {
	if !parser.IsValidName(agent) {
		return nil, fmt.Errorf("-agent %q is not a crawler's name: an HTTP token, letters, digits and !#$%%&'*+-.^_`|~", agent)
	}
	if ua == defaultUA && agent != defaultAgent {
		ua = agent + "/1.0 (+https://github.com/crawlkit/robots)" // name the crawler asked about
	}
	o := robots.Options{UserAgent: ua, Agents: []string{agent}, FetchTimeout: timeout}
	if file != "" {
		res, err := readRobots(file)
		if err != nil {
			return nil, err
		}
		o.HTTPClient = &http.Client{Transport: fileTransport(res.Body)}
	}
	return robots.New(o)
}

// maxLine bounds a line of standard input; a longer one is an ERROR line.
const maxLine = 64 << 10

// eachLine calls fn with every non-blank line of r, without its line ending
// and surrounding white space. For a line longer than maxLine, fn gets its
// first bytes and tooLong set, so that it is reported in its place.
func eachLine(r io.Reader, fn func(line string, tooLong bool)) error {
	br := bufio.NewReaderSize(r, maxLine)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Skip the rest of the line; report it by its start.
			fn(string(line[:64]), true)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			continue
		}
		if s := string(bytes.TrimSpace(line)); s != "" {
			fn(s, false)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// pathSite is the one site on which check -file decides every URL, bare
// paths included: every site serves the file, so that it is fetched (from
// memory) and parsed once, however many sites the URLs name. It is the
// shortest http URL, so that no URL the library accepts becomes too long
// when its own site is replaced by this one.
const pathSite = "http://a"

// fileTransport answers every request with body, as a 200: with -file,
// every site serves the file. The library fetches and caches it per site
// as it would over the network, so that check -file decides a URL as a
// crawler using the library does, bounds and validity included.
type fileTransport []byte

func (body fileTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"text/plain"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// checker decides URLs and writes one line for each.
type checker struct {
	agent string
	file  bool // -file: the robots.txt comes from a file, every site serves it
	rc    *robots.Client
	json  bool
	out   *bufio.Writer
	line  []byte // reused output buffer

	disallowed, errors int
}

// checkLine decides a line of standard input.
func (c *checker) checkLine(line string, tooLong bool) {
	if tooLong {
		c.fail(line+"…", fmt.Sprintf("line longer than %d bytes", maxLine))
		return
	}
	c.check(line)
}

// check decides rawURL and writes its line.
func (c *checker) check(rawURL string) {
	u := rawURL
	if c.file {
		var err error
		if u, err = fileURL(c.rc, rawURL); err != nil {
			c.fail(rawURL, invalid(err))
			return
		}
	}
	d, err := c.rc.Check(context.Background(), u)
	switch {
	case err != nil:
		c.fail(rawURL, invalid(err))
	case c.file:
		c.fileResult(rawURL, d)
	default:
		c.decision(rawURL, d)
	}
}

// fileURL returns the URL that rc, a Client whose every site serves the
// -file robots.txt, is asked about for rawURL: the same path on pathSite.
// rawURL may be a bare path; otherwise the library must accept it, and the
// error is the library's when it does not.
func fileURL(rc *robots.Client, rawURL string) (string, error) {
	if strings.HasPrefix(rawURL, "/") {
		return pathSite + rawURL, nil
	}
	// Invalidate checks rawURL as Allowed and Check do, and does nothing
	// else here: only pathSite is ever cached.
	if err := rc.Invalidate(rawURL); err != nil {
		return "", err
	}
	return pathSite + afterAuthority(rawURL), nil
}

// invalid returns the message of err, a Client's error about a URL,
// without the URL: the line names it already.
func invalid(err error) string {
	var re *robots.Error
	if errors.As(err, &re) {
		return re.Err.Error()
	}
	return err.Error()
}

// afterAuthority returns the path, query and fragment of rawURL, a URL the
// library accepts: what follows its authority, which ends where the
// library's ends, at the first '/', '?' or '#' after "//".
func afterAuthority(rawURL string) string {
	_, rest, _ := strings.Cut(rawURL, "//")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return rest[i:]
	}
	return ""
}

// jsonLine is the JSON form of one URL's decision.
type jsonLine struct {
	URL     string    `json:"url"`
	Allowed *bool     `json:"allowed,omitempty"` // absent on error
	Reason  string    `json:"reason,omitempty"`
	Rule    *jsonRule `json:"rule,omitempty"`
	Error   string    `json:"error,omitempty"`

	// Without -file: the robots.txt fetch behind the decision.
	Stale            bool       `json:"stale,omitempty"`
	RobotsURL        string     `json:"robots_url,omitempty"`
	FinalURL         string     `json:"final_url,omitempty"`
	Redirects        []jsonHop  `json:"redirects,omitempty"`
	Status           int        `json:"status,omitempty"`
	Outcome          string     `json:"outcome,omitempty"`
	FetchedAt        *time.Time `json:"fetched_at,omitempty"`
	FreshUntil       *time.Time `json:"fresh_until,omitempty"`
	UnreachableSince *time.Time `json:"unreachable_since,omitempty"`
}

type jsonRule struct {
	Allow   bool   `json:"allow"`
	Pattern string `json:"pattern"`
	Line    int    `json:"line"`
}

type jsonHop struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Location string `json:"location"`
}

func ruleJSON(r parser.Rule) *jsonRule {
	return &jsonRule{Allow: r.Allow, Pattern: r.Pattern, Line: r.Line}
}

func timeJSON(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func (c *checker) fail(rawURL, msg string) {
	c.errors++
	if c.json {
		c.writeJSON(jsonLine{URL: rawURL, Error: msg})
		return
	}
	c.writeText("ERROR", rawURL, msg)
}

// fileResult writes the decision on rawURL with -file: no fetch stands
// behind it, so only the verdict and the rule.
func (c *checker) fileResult(rawURL string, d robots.Decision) {
	if !d.Allowed {
		c.disallowed++
	}
	if c.json {
		l := jsonLine{URL: rawURL, Allowed: &d.Allowed, Reason: d.Reason.String()}
		if d.Reason == robots.RuleMatched {
			l.Rule = ruleJSON(d.Rule)
		}
		c.writeJSON(l)
		return
	}
	c.writeText(verdict(d.Allowed), rawURL, because(c.agent, d))
}

func (c *checker) decision(rawURL string, d robots.Decision) {
	if !d.Allowed {
		c.disallowed++
	}
	if c.json {
		l := jsonLine{URL: rawURL, Allowed: &d.Allowed, Reason: d.Reason.String(), Stale: d.Stale,
			RobotsURL: d.RobotsURL, FinalURL: d.FinalURL, Status: d.StatusCode, Outcome: d.Outcome,
			FetchedAt: timeJSON(d.FetchedAt), FreshUntil: timeJSON(d.FreshUntil), UnreachableSince: timeJSON(d.UnreachableSince)}
		if d.Reason == robots.RuleMatched {
			l.Rule = ruleJSON(d.Rule)
		}
		for _, h := range d.Redirects {
			l.Redirects = append(l.Redirects, jsonHop{URL: h.URL, Status: h.StatusCode, Location: h.Location})
		}
		c.writeJSON(l)
		return
	}
	c.writeText(verdict(d.Allowed), rawURL, because(c.agent, d))
}

// because says why d, the decision for the crawler agent, is what it is:
// the rule that decided and its line, or what stood in for rules.
func because(agent string, d robots.Decision) string {
	var why string
	switch d.Reason {
	case robots.RuleMatched:
		why = ruleText(d.Rule)
	case robots.NoRuleMatched, robots.RobotsTxt:
		why = d.Reason.String()
	case robots.NoGroup:
		why = "no group for " + agent + " and no * group"
	case robots.Unreachable, robots.UnreachableTooLong:
		why = d.Reason.String() + " (" + d.Outcome + ", since " + d.UnreachableSince.UTC().Format(time.RFC3339) + ")"
	default:
		why = d.Reason.String() + " (" + d.Outcome + ")"
	}
	if d.Stale {
		why += " [stale copy of " + d.FetchedAt.UTC().Format(time.RFC3339) + ": robots.txt unreachable since " +
			d.UnreachableSince.UTC().Format(time.RFC3339) + "]"
	}
	return why
}

func verdict(allowed bool) string {
	if allowed {
		return "ALLOWED"
	}
	return "DISALLOWED"
}

func ruleText(r parser.Rule) string {
	return "line " + strconv.Itoa(r.Line) + ": " + r.String()
}

// writeText writes "VERDICT     url  why", the verdict padded so that URLs
// line up.
func (c *checker) writeText(v, rawURL, why string) {
	b := append(c.line[:0], v...)
	for n := len(v); n < len("DISALLOWED")+2; n++ {
		b = append(b, ' ')
	}
	b = append(b, rawURL...)
	b = append(b, "  "...)
	b = append(b, why...)
	b = append(b, '\n')
	c.out.Write(b)
	c.line = b
}

func (c *checker) writeJSON(l jsonLine) {
	b, err := json.Marshal(l)
	if err != nil { // only strings, bools, ints and times: cannot happen
		b = []byte(`{"error":` + strconv.Quote(err.Error()) + `}`)
	}
	c.out.Write(append(b, '\n'))
}
