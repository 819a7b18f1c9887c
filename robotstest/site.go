// Package robotstest proves in a crawler's own tests that the crawler obeys
// robots.txt. A Site is a test web site, an httptest.Server whose robots.txt
// the test writes and changes, that records every request it receives and
// judges them with this module's own parser and matcher: pages robots.txt
// disallows, requests sooner than its Crawl-delay allows, and robots.txt
// fetched again while its caching headers said the copy was still good.
//
//	func TestCrawlerObeysRobotsTxt(t *testing.T) {
//		site := robotstest.NewSite(t, "User-agent: *\nDisallow: /private/\n")
//		site.SetLinks("/public", "/private/secret") // every page links to both
//		crawl(site.URL + "/")                        // the crawler under test
//		site.AssertObeyed(t, "ExampleBot")
//	}
//
// The site cannot tell crawlers apart by their requests, and does not try:
// Violations and AssertObeyed judge every request it received by the rules
// for the crawler name they are given, since the test knows which crawler it
// ran. Request.UserAgent tells what each request said it was.
//
// Time is the site's clock (SetClock), read when a request arrives, so that
// a test of Crawl-delay or of caching moves a clock of its own instead of
// sleeping.
//
// Non-goals: serving real content (every page is the same small HTML page),
// TLS, and judging what a crawler does with the pages it fetches (indexing,
// AIPREF usage preferences).
package robotstest

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlkit/robots/parser"
)

// MaxRequests is the number of requests a Site records: the first ones.
// Those past it are answered as usual but neither recorded nor judged, and
// AssertObeyed fails the test for them, so that a crawler caught in a loop
// fails its test instead of exhausting its memory.
const MaxRequests = 100_000

// ParsedBytes is how much of robots.txt a Site judges by: the first 500 KiB,
// the least a crawler must parse (RFC 9309 §2.5), less a line the cut leaves
// incomplete. Rules past it bind no crawler; a crawler may obey them.
const ParsedBytes = 500 << 10

// Site is a test web site. Its zero value is not usable: NewSite makes one.
// Its methods are safe for concurrent use, with each other and with the
// requests the site serves.
type Site struct {
	// URL is the base URL of the site, of the form http://ipaddr:port with
	// no trailing slash, as httptest.Server.URL.
	URL string

	base *url.URL // URL, parsed

	mu       sync.Mutex
	now      func() time.Time
	versions []*version // what robots.txt answered over time; the last answers now
	links    []string
	requests []record
	limit    int // MaxRequests; a test of the bound lowers it
	dropped  int // requests past the limit
}

// Request is one request the site received.
type Request struct {
	// Method is the request's method, such as "GET".
	Method string
	// Path is the request target as sent: the path and any "?query".
	Path string
	// UserAgent is the request's User-Agent header, empty when it has none.
	UserAgent string
	// Time is when the request arrived, by the site's clock.
	Time time.Time
	// Robots reports a request for robots.txt: /robots.txt, or the place on
	// this site where its redirect pointed (see SetRobots). Every other
	// request is a page request.
	Robots bool
	// Status is the status code the site answered with.
	Status int
}

// record is a Request and the robots.txt version in force when it arrived.
type record struct {
	Request
	version *version
	fetch   bool // a request for /robots.txt itself
}

// version is one answer of /robots.txt: what NewSite or a SetRobots set.
type version struct {
	n      int // 1 for NewSite's, then 2, 3, … for each SetRobots
	status int
	body   string
	header http.Header
	// target is the path on this site that a redirect points at, where the
	// site serves body; empty when the answer is not such a redirect.
	target string
	// rules is the parsed body of an answer whose rules bind crawlers (a 2xx
	// with a body, a redirect with a target); nil otherwise.
	rules *parser.Robots
}

// NewSite starts a site whose /robots.txt answers 200 with robotsTxt as its
// text/plain body and no caching headers. The site is closed by t.Cleanup.
func NewSite(t testing.TB, robotsTxt string) *Site {
	s := &Site{now: time.Now, limit: MaxRequests}
	s.versions = []*version{s.newVersion(1, http.StatusOK, robotsTxt, http.Header{})}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	s.base, _ = url.Parse(srv.URL + "/robots.txt") // httptest's URL always parses
	return s
}

// SetRobots changes what /robots.txt answers from now on: status, body and
// header fields given as name, value pairs, such as
//
//	site.SetRobots(http.StatusServiceUnavailable, "", "Retry-After", "120")
//	site.SetRobots(http.StatusOK, rules, "Cache-Control", "max-age=3600")
//	site.SetRobots(http.StatusMovedPermanently, rules, "Location", "/moved.txt")
//
// The body is sent with every status that allows one, as text/plain unless
// a Content-Type is given, except for a redirect (301, 302, 303, 307, 308)
// whose Location is another path of this site: that path then answers 200
// with body and the other header fields, and body is the robots.txt a
// crawler that follows the redirect gets. A redirect elsewhere leads to
// rules the site cannot see, so it is judged as if it allowed everything.
//
// SetRobots panics when status is not a final status code (200 to 999), as
// http.ResponseWriter.WriteHeader does for an invalid one, and when headerKV
// has an odd number of elements: both are mistakes in the test, not in the
// crawler.
func (s *Site) SetRobots(status int, body string, headerKV ...string) {
	if status < 200 || status > 999 {
		panic(fmt.Sprintf("robotstest: SetRobots: status %d is not a final status code (200-999)", status))
	}
	if len(headerKV)%2 != 0 {
		panic(fmt.Sprintf("robotstest: SetRobots: header fields come in name, value pairs; got %d strings", len(headerKV)))
	}
	h := http.Header{}
	for i := 0; i < len(headerKV); i += 2 {
		h.Add(headerKV[i], headerKV[i+1])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions = append(s.versions, s.newVersion(len(s.versions)+1, status, body, h))
}

// SetLinks sets the links of every page: each page links to each of paths,
// in order, so that a crawler that follows links finds them. There are none
// until SetLinks is called.
func (s *Site) SetLinks(paths ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.links = append([]string(nil), paths...)
}

// SetClock sets the clock that times the requests the site receives from
// now on, so that a test moves through Crawl-delays and caching lifetimes
// without sleeping. A nil now means time.Now, the default.
func (s *Site) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// Requests returns the requests the site has recorded, in the order they
// arrived.
func (s *Site) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.Request
	}
	return out
}

// newVersion makes a robots.txt answer, finding where a redirect points.
func (s *Site) newVersion(n, status int, body string, h http.Header) *version {
	v := &version{n: n, status: status, body: body, header: h}
	if isRedirect(status) {
		if loc, err := s.base.Parse(h.Get("Location")); err == nil && h.Get("Location") != "" &&
			loc.Scheme == s.base.Scheme && loc.Host == s.base.Host && loc.Path != "/robots.txt" {
			v.target = loc.Path
		}
	}
	if status/100 == 2 && status != http.StatusNoContent || v.target != "" {
		v.rules = parser.Parse([]byte(parsed(body)))
	}
	return v
}

// parsed returns the part of body a crawler must parse (ParsedBytes),
// without a line the cut leaves incomplete.
func parsed(body string) string {
	if len(body) <= ParsedBytes {
		return body
	}
	cut := body[:ParsedBytes]
	if i := strings.LastIndexAny(cut, "\r\n"); i >= 0 {
		return cut[:i+1]
	}
	return ""
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// serve records a request and answers it: robots.txt as it is now, or a page.
func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := s.versions[len(s.versions)-1]
	fetch := r.URL.Path == "/robots.txt"
	rec := record{version: v, fetch: fetch, Request: Request{
		Method:    r.Method,
		Path:      r.RequestURI,
		UserAgent: r.UserAgent(),
		Time:      s.now(), // under the lock, so that times follow the order of the log
		Robots:    fetch || v.target != "" && r.URL.Path == v.target,
		Status:    http.StatusOK,
	}}
	if fetch {
		rec.Status = v.status
	}
	if len(s.requests) < s.limit {
		s.requests = append(s.requests, rec)
	} else {
		s.dropped++
	}
	links := s.links
	s.mu.Unlock()

	switch {
	case fetch && v.target != "":
		writeRobots(w, r, v.status, "", v.header)
	case fetch:
		writeRobots(w, r, v.status, v.body, v.header)
	case rec.Robots: // the target of a redirect
		h := v.header.Clone()
		h.Del("Location")
		writeRobots(w, r, http.StatusOK, v.body, h)
	default:
		writePage(w, r.URL.Path, links)
	}
}

func writeRobots(w http.ResponseWriter, r *http.Request, status int, body string, h http.Header) {
	for k, vs := range h {
		w.Header()[k] = append([]string(nil), vs...)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead && status != http.StatusNoContent && status != http.StatusNotModified {
		io.WriteString(w, body) // an error means the crawler hung up
	}
}

// writePage writes the page every path but robots.txt answers: its path as
// its title, and the links SetLinks set.
func writePage(w http.ResponseWriter, path string, links []string) {
	var b strings.Builder
	p := html.EscapeString(path)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><title>%s</title></head>\n<body><h1>%s</h1>\n<ul>\n", p, p)
	for _, l := range links {
		l = html.EscapeString(l)
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", l, l)
	}
	b.WriteString("</ul></body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, b.String()) // an error means the crawler hung up
}
