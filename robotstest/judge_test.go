package robotstest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/robotstest"
)

const ua = "FooBot/1.0 (+https://example.com/bot)"

// crawl drives a site by hand, on a clock of its own.
type crawl struct {
	t     *testing.T
	site  *robotstest.Site
	clock *clock
}

func newCrawl(t *testing.T, robotsTxt string) *crawl {
	c := &crawl{t: t, site: robotstest.NewSite(t, robotsTxt), clock: newClock()}
	c.site.SetClock(c.clock.Now)
	return c
}

func (c *crawl) fetch()                            { do(c.t, "GET", c.site.URL+"/robots.txt", ua) }
func (c *crawl) page(path string)                  { do(c.t, "GET", c.site.URL+path, ua) }
func (c *crawl) after(d time.Duration)             { c.clock.Advance(d) }
func (c *crawl) set(s int, b string, kv ...string) { c.site.SetRobots(s, b, kv...) }

// found summarizes the violations of agent as "kind path" lines.
func (c *crawl) found(agent string) []string {
	var out []string
	for _, v := range c.site.Violations(agent) {
		out = append(out, v.Kind.String()+" "+v.Request.Path)
	}
	return out
}

const private = "User-agent: *\nDisallow: /private/\n"

// RFC 9309 §2.2: the page requests the robots.txt in force disallows for
// the crawler, and only those.
func TestViolationsDisallowed(t *testing.T) {
	late := "User-agent: *\nDisallow: /early\n" +
		strings.Repeat("# padding\n", robotstest.ParsedBytes/10) + "Disallow: /late\n"
	for _, tc := range []struct {
		name   string
		robots string
		run    func(c *crawl)
		want   []string
	}{
		{"a rule disallows", private, func(c *crawl) {
			c.fetch()
			c.page("/")
			c.page("/private/a")
			c.page("/public")
			c.page("/private") // RFC 9309 §2.2.2: a prefix match; "/private" is not under "/private/"
		}, []string{"disallowed /private/a"}},
		{"the crawler's group, not the others", "User-agent: foobot\nDisallow: /foo\n\nUser-agent: *\nDisallow: /all\n",
			func(c *crawl) {
				c.fetch()
				c.page("/foo/1")
				c.page("/all/1")
			}, []string{"disallowed /foo/1"}},
		{"the query is part of the path", "User-agent: *\nDisallow: /*?sid=\n", func(c *crawl) {
			c.fetch()
			c.page("/a?sid=1")
			c.page("/a?id=1")
		}, []string{"disallowed /a?sid=1"}},
		{"robots.txt is always allowed", "User-agent: *\nDisallow: /\n", func(c *crawl) {
			c.fetch()
			c.fetch()
			c.page("/robots.txt?x=1") // a fetch too: the site answers it with robots.txt
		}, nil},
		{"never fetched: robots.txt as it is", private, func(c *crawl) {
			c.page("/private/a")
		}, []string{"disallowed /private/a"}},
		{"4xx allows everything", "", func(c *crawl) {
			c.set(404, "User-agent: *\nDisallow: /\n")
			c.fetch()
			c.page("/a")
		}, nil},
		{"204 allows everything", "", func(c *crawl) {
			c.set(204, "User-agent: *\nDisallow: /\n")
			c.fetch()
			c.page("/a")
		}, nil},
		{"5xx with no copy disallows everything", private, func(c *crawl) {
			c.set(503, "")
			c.fetch()
			c.page("/a")
		}, []string{"disallowed /a"}},
		{"429 never fetched disallows everything", private, func(c *crawl) {
			c.set(429, "")
			c.page("/a")
		}, []string{"disallowed /a"}},
		// RFC 9309 §2.4: the cached copy stands while robots.txt is
		// unreachable, past the 24 hours.
		{"5xx keeps the copy fetched before", private, func(c *crawl) {
			c.fetch()
			c.set(500, "User-agent: *\nDisallow: /\n")
			c.fetch()
			c.page("/public")
			c.page("/private/a")
			c.after(48 * time.Hour)
			c.fetch()
			c.page("/public/2")
		}, []string{"disallowed /private/a"}},
		{"a redirect on this site: the rules it leads to", private, func(c *crawl) {
			c.set(301, "User-agent: *\nDisallow: /moved/\n", "Location", "/robots/main.txt")
			c.fetch()
			c.page("/robots/main.txt") // the redirect followed: part of the fetch, not a page
			c.page("/moved/a")
			c.page("/private/a")
		}, []string{"disallowed /moved/a"}},
		{"a redirect elsewhere allows everything", private, func(c *crawl) {
			c.set(302, "User-agent: *\nDisallow: /\n", "Location", "http://elsewhere.example/robots.txt")
			c.fetch()
			c.page("/private/a")
		}, nil},
		// RFC 9309 §2.5: a crawler must parse the first 500 KiB.
		{"rules past ParsedBytes bind no one", late, func(c *crawl) {
			c.fetch()
			c.page("/early")
			c.page("/late")
		}, []string{"disallowed /early"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrawl(t, tc.robots)
			tc.run(c)
			assert.Equal(t, tc.want, c.found("FooBot"))
		})
	}
}

func TestViolationsExplain(t *testing.T) {
	c := newCrawl(t, "# rules\nUser-agent: *\nDisallow: /private/\n")
	c.fetch()
	c.page("/private/a")
	vs := c.site.Violations("FooBot")
	require.Len(t, vs, 1)
	v := vs[0]
	assert.Equal(t, robotstest.Disallowed, v.Kind)
	assert.Equal(t, 3, v.Rule.Line)
	assert.Equal(t, "/private/", v.Rule.Pattern)
	assert.False(t, v.Rule.Allow)
	assert.Equal(t, robotstest.Request{Method: "GET", Path: "/private/a", UserAgent: ua, Time: c.clock.Now(), Status: 200},
		v.Request)
	assert.Equal(t, `GET /private/a (User-Agent "`+ua+`"): disallowed by robots.txt line 3: Disallow: /private/`,
		v.String())

	c.set(503, "")
	c.page("/b")
	c.after(25 * time.Hour) // a crawler would fetch again, get the 503, and keep its copy
	c.page("/c")
	assert.Len(t, c.site.Violations("FooBot"), 1)

	c = newCrawl(t, private)
	c.set(503, "")
	c.page("/c")
	vs = c.site.Violations("FooBot")
	require.Len(t, vs, 1)
	assert.Equal(t, robotstest.Request{Method: "GET", Path: "/c", UserAgent: ua, Time: c.clock.Now(), Status: 200},
		vs[0].Request)
	assert.Zero(t, vs[0].Rule)
	assert.Equal(t, "disallowed: robots.txt answered 503, which disallows everything (RFC 9309 §2.3.1.4)",
		vs[0].Reason, "the crawler met one version: the message needs no number")
}

// SetRobots changes robots.txt over time: a page is judged by the copy the
// crawler fetched for 24 hours, then by robots.txt as it is.
func TestViolationsOverTime(t *testing.T) {
	t.Run("fetched", func(t *testing.T) {
		c := newCrawl(t, "User-agent: *\nDisallow: /one\n")
		c.fetch()
		c.set(200, "User-agent: *\nDisallow: /two\n")
		c.page("/two/a") // the crawler's copy allows it
		c.page("/one/a")
		c.after(robotstest.MaxLifetime - time.Second)
		c.page("/one/b")
		c.after(time.Second) // RFC 9309 §2.4: the copy is too old to follow
		c.page("/one/c")
		c.page("/two/b")
		c.fetch()
		c.page("/one/d")
		c.page("/two/c")
		assert.Equal(t, []string{"disallowed /one/a", "disallowed /one/b", "disallowed /two/b", "disallowed /two/c"},
			c.found("FooBot"))
		vs := c.site.Violations("FooBot")
		assert.Contains(t, vs[0].Reason, "robots.txt version 1 line 2")
		assert.Contains(t, vs[3].Reason, "robots.txt version 2 line 2")
	})
	t.Run("never fetched", func(t *testing.T) {
		c := newCrawl(t, "User-agent: *\nDisallow: /one\n")
		c.page("/one/a")
		c.page("/two/a")
		c.set(200, "User-agent: *\nDisallow: /two\n")
		c.page("/one/b")
		c.page("/two/b")
		assert.Equal(t, []string{"disallowed /one/a", "disallowed /two/b"}, c.found("FooBot"))
	})
}

// Crawl-delay is not part of RFC 9309; the largest of the groups that apply
// binds the crawler, as matcher.Matcher.CrawlDelay reads it.
func TestViolationsTooSoon(t *testing.T) {
	const robotsTxt = "User-agent: FooBot\nCrawl-delay: 2\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 10\n"
	c := newCrawl(t, robotsTxt)
	c.fetch()
	c.page("/a")
	c.after(time.Second)
	c.page("/x") // disallowed and too soon, and counts as the previous request
	c.after(2 * time.Second)
	c.page("/b")
	c.after(time.Second)
	c.fetch() // robots.txt does not count
	c.after(time.Second)
	c.page("/c")
	c.after(1999 * time.Millisecond)
	c.page("/d")
	assert.Equal(t, []string{"disallowed /x", "too soon /x", "too soon /d"}, c.found("FooBot"))
	vs := c.site.Violations("FooBot")
	assert.Equal(t, "too soon: 1s after the previous page request, under the Crawl-delay of 2s that robots.txt sets for "+
		"line 1 (User-agent: FooBot)", vs[1].Reason)
	assert.Zero(t, vs[1].Rule)
	assert.Equal(t, []string{"too soon /x", "too soon /b", "too soon /c", "too soon /d"}, c.found("BarBot"),
		"the * group's 10 s for another crawler")

	c = newCrawl(t, "User-agent: FooBot\nCrawl-delay: 1\nDisallow: /q\n\nUser-agent: foobot\nCrawl-delay: 3\nDisallow: /r\n")
	c.fetch()
	c.page("/a")
	c.after(2 * time.Second)
	c.page("/b")
	c.after(3 * time.Second)
	c.page("/c")
	assert.Equal(t, []string{"too soon /b"}, c.found("FooBot"), "the largest Crawl-delay")

	c = newCrawl(t, private)
	c.fetch()
	for i := range 5 {
		c.page(fmt.Sprintf("/p%d", i))
	}
	assert.Empty(t, c.found("FooBot"), "no Crawl-delay, no hurry")
}

// RFC 9111 §5.2 and §10.2.3: robots.txt fetched again while the previous
// answer was fresh, or before the time its Retry-After asked for.
func TestViolationsRefetchedRobots(t *testing.T) {
	inAnHour := newClock().Now().Add(time.Hour).Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		status int
		kv     []string
		gap    time.Duration
		want   bool
	}{
		{"max-age: too soon", 200, []string{"Cache-Control", "max-age=3600"}, 10 * time.Minute, true},
		{"max-age: in time", 200, []string{"Cache-Control", "max-age=3600"}, time.Hour, false},
		{"s-maxage before max-age", 200, []string{"Cache-Control", "public, max-age=60, s-maxage=600"}, 2 * time.Minute, true},
		{"s-maxage=0 before max-age", 200, []string{"Cache-Control", "max-age=600, S-MaxAge=0"}, time.Second, false},
		{"quoted", 200, []string{"Cache-Control", `max-age="600"`}, time.Minute, true},
		{"two header lines", 200, []string{"Cache-Control", "public", "Cache-Control", "max-age=60"}, 30 * time.Second, true},
		{"no-store", 200, []string{"Cache-Control", "no-store, max-age=600"}, time.Second, false},
		{"no-cache", 200, []string{"Cache-Control", "max-age=600, No-Cache"}, time.Second, false},
		{"no caching headers", 200, nil, time.Second, false},
		{"max-age that is not a number", 200, []string{"Cache-Control", "max-age=-5"}, time.Second, false},
		{"max-age past 24 hours: too soon", 200, []string{"Cache-Control", "max-age=99999999999999999999999"}, 23 * time.Hour, true},
		{"max-age past 24 hours: in time", 200, []string{"Cache-Control", "max-age=99999999999999999999999"}, 24 * time.Hour, false},
		{"a 4xx is cached too", 404, []string{"Cache-Control", "max-age=600"}, time.Minute, true},
		{"Retry-After seconds: too soon", 503, []string{"Retry-After", "120"}, time.Minute, true},
		{"Retry-After seconds: in time", 503, []string{"Retry-After", "120"}, 2 * time.Minute, false},
		{"Retry-After date: too soon", 429, []string{"Retry-After", inAnHour}, 30 * time.Minute, true},
		{"Retry-After date: in time", 429, []string{"Retry-After", inAnHour}, time.Hour, false},
		{"5xx without Retry-After", 503, []string{"Cache-Control", "max-age=600"}, time.Second, false},
		{"Retry-After that is neither", 503, []string{"Retry-After", "soon"}, time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrawl(t, "")
			c.set(tc.status, private, tc.kv...)
			c.fetch()
			c.after(tc.gap)
			c.fetch()
			if !tc.want {
				assert.Empty(t, c.found("FooBot"))
				return
			}
			assert.Equal(t, []string{"refetched robots.txt /robots.txt"}, c.found("FooBot"))
		})
	}

	c := newCrawl(t, "")
	c.set(200, private, "Cache-Control", "max-age=3600")
	c.fetch()
	c.after(10 * time.Minute)
	c.fetch()
	c.after(10 * time.Minute)
	c.fetch() // the lifetime runs from the latest fetch
	vs := c.site.Violations("FooBot")
	require.Len(t, vs, 2)
	assert.Equal(t, "robots.txt fetched again 10m0s after the previous fetch, whose answer stayed fresh for 1h0m0s "+
		"(Cache-Control: max-age=3600)", vs[1].Reason)
}

// tb records what AssertObeyed reports.
type tb struct {
	testing.TB // nil: calling anything else panics
	errors     []string
}

func (t *tb) Helper() {}

func (t *tb) Errorf(format string, args ...any) {
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
}

func TestAssertObeyed(t *testing.T) {
	c := newCrawl(t, "User-agent: *\nCrawl-delay: 1\nDisallow: /private/\n")
	c.fetch()
	c.page("/public")
	var rec tb
	assert.True(t, c.site.AssertObeyed(&rec, "FooBot"))
	assert.Empty(t, rec.errors)

	c.after(time.Second)
	c.page("/private/a")
	assert.False(t, c.site.AssertObeyed(&rec, "FooBot"))
	assert.Equal(t, []string{"robotstest: FooBot did not obey robots.txt: 1 violation\n" +
		"\tGET /private/a (User-Agent \"" + ua + "\"): disallowed by robots.txt line 3: Disallow: /private/"}, rec.errors)

	for i := range 60 {
		c.page(fmt.Sprintf("/p%d", i))
	}
	rec.errors = nil
	assert.False(t, c.site.AssertObeyed(&rec, "FooBot"))
	require.Len(t, rec.errors, 1)
	lines := strings.Split(rec.errors[0], "\n")
	assert.Equal(t, "robotstest: FooBot did not obey robots.txt: 61 violations", lines[0])
	assert.Len(t, lines, 1+50+1, "the first 50, then how many more")
	assert.Equal(t, "\t… and 11 more", lines[len(lines)-1])
}

func TestKindString(t *testing.T) {
	assert.Equal(t, "disallowed", robotstest.Disallowed.String())
	assert.Equal(t, "too soon", robotstest.TooSoon.String())
	assert.Equal(t, "refetched robots.txt", robotstest.RefetchedRobots.String())
	assert.Equal(t, "Kind(9)", robotstest.Kind(9).String())
}
