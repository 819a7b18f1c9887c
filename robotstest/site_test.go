package robotstest_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/crawlkit/robots/robotstest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// clock is a clock a test moves by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// do sends a request with a User-Agent, following no redirect, and returns
// the response, its body read.
func do(t *testing.T, method, url, ua string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	req.Header.Set("User-Agent", ua)
	resp, err := http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func TestSiteServesRobotsAndPages(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /private/\n"
	site := robotstest.NewSite(t, rules)
	require.True(t, strings.HasPrefix(site.URL, "http://127.0.0.1:"), site.URL)
	c := newClock()
	site.SetClock(c.Now)
	site.SetLinks("/a", "/b?x=<1>")
	t0 := c.Now()

	resp, body := do(t, "GET", site.URL+"/robots.txt", "TestBot/1.0")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Empty(t, resp.Header.Get("Cache-Control"), "no caching headers unless SetRobots gives some")
	assert.Equal(t, rules, body)

	c.Advance(time.Second)
	resp, body = do(t, "GET", site.URL+"/dir/page?q=1", "Mozilla/5.0")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, body, "<title>/dir/page</title>")
	assert.Contains(t, body, `<a href="/a">/a</a>`)
	assert.Contains(t, body, `<a href="/b?x=&lt;1&gt;">`, "links are escaped")

	site.SetLinks()
	_, body = do(t, "GET", site.URL+"/private/x", "")
	assert.NotContains(t, body, "<a ", "SetLinks() removes the links")
	resp, body = do(t, "HEAD", site.URL+"/robots.txt", "TestBot/1.0")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, body)

	assert.Equal(t, []robotstest.Request{
		{Method: "GET", Path: "/robots.txt", UserAgent: "TestBot/1.0", Time: t0, Robots: true, Status: 200},
		{Method: "GET", Path: "/dir/page?q=1", UserAgent: "Mozilla/5.0", Time: t0.Add(time.Second), Status: 200},
		{Method: "GET", Path: "/private/x", UserAgent: "", Time: t0.Add(time.Second), Status: 200},
		{Method: "HEAD", Path: "/robots.txt", UserAgent: "TestBot/1.0", Time: t0.Add(time.Second), Robots: true, Status: 200},
	}, site.Requests())

	site.SetClock(nil)
	before := time.Now()
	do(t, "GET", site.URL+"/", "TestBot/1.0")
	reqs := site.Requests()
	assert.False(t, reqs[len(reqs)-1].Time.Before(before), "SetClock(nil) restores time.Now")
}

func TestSetRobotsAnswers(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /x\n"
	for _, tc := range []struct {
		name    string
		status  int
		kv      []string
		want    http.Header // fields the answer carries
		body    string      // the answer's body
		moved   string      // a path that answers 200 with rules …
		movedCC string      // … and this Cache-Control
	}{
		{name: "503 with Retry-After", status: 503, kv: []string{"Retry-After", "120"},
			want: http.Header{"Retry-After": {"120"}}, body: rules},
		{name: "429", status: 429, body: rules},
		{name: "404", status: 404, body: rules},
		{name: "a status past 599", status: 999, body: rules},
		{name: "204 has no body", status: 204},
		{name: "caching headers and a content type", status: 200,
			kv:   []string{"Cache-Control", "max-age=60", "content-type", "text/html", "Cache-Control", "public"},
			want: http.Header{"Cache-Control": {"max-age=60", "public"}, "Content-Type": {"text/html"}}, body: rules},
		{name: "redirect to this site", status: 301, kv: []string{"Location", "/robots/main.txt", "Cache-Control", "max-age=60"},
			want: http.Header{"Location": {"/robots/main.txt"}}, moved: "/robots/main.txt", movedCC: "max-age=60"},
		{name: "redirect to this site's URL", status: 303, kv: []string{"Location", "{site}/robots/main.txt"},
			moved: "/robots/main.txt"},
		{name: "redirect relative to robots.txt", status: 308, kv: []string{"Location", "main.txt"},
			want: http.Header{"Location": {"main.txt"}}, moved: "/main.txt"},
		{name: "redirect elsewhere", status: 302, kv: []string{"Location", "http://elsewhere.example/robots.txt"},
			want: http.Header{"Location": {"http://elsewhere.example/robots.txt"}}, body: rules},
		{name: "redirect to robots.txt itself", status: 307, kv: []string{"Location", "/robots.txt"}, body: rules},
		{name: "redirect to a Location that does not parse", status: 301, kv: []string{"Location", "http://[::1"}, body: rules},
		{name: "3xx that is no redirect", status: 304},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := robotstest.NewSite(t, "")
			kv := slices.Clone(tc.kv)
			for i := range kv {
				kv[i] = strings.ReplaceAll(kv[i], "{site}", site.URL)
			}
			site.SetRobots(tc.status, rules, kv...)
			resp, body := do(t, "GET", site.URL+"/robots.txt", "TestBot")
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.body, body)
			for k, v := range tc.want {
				assert.Equal(t, v, resp.Header.Values(k), k)
			}
			if tc.moved == "" {
				_, body := do(t, "GET", site.URL+"/robots/main.txt", "TestBot")
				assert.Contains(t, body, "<html>", "a page as any other")
				return
			}
			resp, body = do(t, "GET", site.URL+tc.moved, "TestBot")
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, rules, body)
			assert.Empty(t, resp.Header.Get("Location"))
			assert.Equal(t, tc.movedCC, resp.Header.Get("Cache-Control"), "the other header fields go with the body")
			reqs := site.Requests()
			require.Len(t, reqs, 2)
			assert.True(t, reqs[1].Robots, "the target of the redirect is robots.txt")
			assert.Equal(t, http.StatusOK, reqs[1].Status)
			assert.Equal(t, tc.status, reqs[0].Status)
		})
	}
}

func TestSetRobotsPanicsOnMistakes(t *testing.T) {
	site := robotstest.NewSite(t, "")
	for _, status := range []int{-1, 0, 99, 100, 199, 1000} {
		assert.PanicsWithValue(t,
			fmt.Sprintf("robotstest: SetRobots: status %d is not a final status code (200-999)", status),
			func() { site.SetRobots(status, "") })
	}
	assert.PanicsWithValue(t, "robotstest: SetRobots: header fields come in name, value pairs; got 3 strings",
		func() { site.SetRobots(200, "", "Cache-Control", "max-age=1", "Retry-After") })
	assert.NotPanics(t, func() { site.SetRobots(200, ""); site.SetRobots(999, "") })
	resp, _ := do(t, "GET", site.URL+"/robots.txt", "TestBot")
	assert.Equal(t, 999, resp.StatusCode, "a panicking call changes nothing")
}

// Many crawlers at once, while the test changes robots.txt and reads the log.
func TestConcurrentUse(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /private/\n"
	site := robotstest.NewSite(t, rules)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				path := fmt.Sprintf("/public/%d/%d", w, i)
				switch i % 5 {
				case 0:
					path = "/robots.txt"
				case 1:
					path = fmt.Sprintf("/private/%d/%d", w, i)
				case 2:
					site.SetRobots(200, rules, "X-Version", fmt.Sprint(i)) // the same rules, as another version
				case 3:
					site.SetLinks(path)
					assert.NotEmpty(t, site.Requests())
					site.Violations("TestBot")
				}
				resp, err := http.Get(site.URL + path)
				if !assert.NoError(t, err) {
					return
				}
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	assert.Len(t, site.Requests(), workers*each)
	vs := site.Violations("TestBot")
	assert.Len(t, vs, workers*each/5, "every /private/ request, and only those")
	for _, v := range vs {
		assert.Equal(t, robotstest.Disallowed, v.Kind)
		assert.True(t, strings.HasPrefix(v.Request.Path, "/private/"), v.Request.Path)
	}
}

// What a crawler sends and SetRobots takes may be large or odd; the site
// answers and judges it.
func TestHostileInput(t *testing.T) {
	huge := strings.Repeat("Disallow: /"+strings.Repeat("x", 100)+"\n", 50_000) // 5 MiB
	site := robotstest.NewSite(t, "User-agent: *\n"+huge)
	resp, body := do(t, "GET", site.URL+"/robots.txt", "TestBot")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Len(t, body, len("User-agent: *\n")+len(huge), "the whole body is served")

	long := "/" + strings.Repeat("x", 100) + strings.Repeat("%E3%83%84*$ツ\xff", 1000)
	req, err := http.NewRequest("GET", site.URL+"/", nil)
	require.NoError(t, err)
	req.URL.Opaque = long // sent as is
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, site.Requests(), 2)
	assert.Equal(t, long, site.Requests()[1].Path)
	vs := site.Violations("TestBot")
	require.Len(t, vs, 1)
	assert.Equal(t, 2, vs[0].Rule.Line, "the first rule of 50,000 that match decides")

	for _, agent := range []string{"", "Foo Bar", "\xff", strings.Repeat("a", 1<<20)} {
		assert.Len(t, site.Violations(agent), 1, "a name that is no crawler's follows the * group")
	}
}
