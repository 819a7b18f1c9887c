package robotscolly

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/client"
)

const robotsTxt = "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n"

func newRobots(t *testing.T) *robots.Client {
	t.Helper()
	rc, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0"})
	require.NoError(t, err)
	return rc
}

// refusals collects what Refused gets, from any goroutine.
type refusals struct {
	mu   sync.Mutex
	reqs []*colly.Request
	errs []error
}

func (f *refusals) add(r *colly.Request, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, r)
	f.errs = append(f.errs, err)
}

// paths returns the paths of the requests refused as disallowed, sorted.
func (f *refusals) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var p []string
	for i, r := range f.reqs {
		if errors.Is(f.errs[i], robots.ErrDisallowed) {
			p = append(p, r.URL.Path)
		}
	}
	slices.Sort(p)
	return p
}

// disallowed asserts that err is a refusal by robots.txt of target, as
// both this library and Colly name one.
func disallowed(t *testing.T, err error, target string) {
	t.Helper()
	assert.ErrorIs(t, err, robots.ErrDisallowed)
	assert.ErrorIs(t, err, colly.ErrRobotsTxtBlocked)
	var re *robots.Error
	if assert.ErrorAs(t, err, &re) {
		assert.Equal(t, target, re.URL)
	}
}

// A crawl that follows links, synchronous or Async: the disallowed pages
// are never requested, and Refused gets each with an error that is both
// robots.ErrDisallowed and colly.ErrRobotsTxtBlocked.
func TestFollowLinks(t *testing.T) {
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%t", async), func(t *testing.T) {
			site := newSite(t, "User-agent: *\nDisallow: /private/\n", time.Now)
			u, err := url.Parse(site.URL)
			require.NoError(t, err)
			c := colly.NewCollector(colly.Async(async), colly.AllowedDomains(u.Hostname())) // not elsewhere.example
			require.NoError(t, c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}))
			var got refusals
			g := &Guard{Robots: newRobots(t), Refused: got.add}
			g.Obey(c)
			c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
			require.NoError(t, c.Visit(site.URL+"/"))
			c.Wait()

			requested := site.paths()
			slices.Sort(requested)
			assert.Equal(t, []string{"/", "/a", "/b", "/c", "/robots.txt"}, requested)
			assert.Equal(t, []string{"/private/other", "/private/secret"}, got.paths())
			require.Len(t, got.errs, 2)
			for i, err := range got.errs {
				disallowed(t, err, got.reqs[i].URL.String())
			}
			assert.Empty(t, g.inFlight, "no request is remembered past its exchange")
		})
	}
}

// Why the Guard is callbacks and a redirect handler: a robots-checking
// transport given to WithTransport refuses a disallowed page until
// SetProxyFunc replaces it; after that, the page is fetched. The Guard
// refuses it either way, and the redirects to it too; the pages it lets
// through go through the proxy.
func TestSetProxyFunc(t *testing.T) {
	site := newSite(t, robotsTxt, time.Now)
	proxy := newProxy(t)
	proxyURL, err := url.Parse(proxy.URL)
	require.NoError(t, err)
	rc := newRobots(t)
	secret := site.URL + "/private/secret"

	tests := []struct {
		name      string
		guard     bool // the Guard, else a client.Transport
		setProxy  bool
		visit     string
		requested bool // the site got /private/secret
	}{
		{"transport", false, false, secret, false},
		{"transport, then SetProxyFunc", false, true, secret, true},
		{"guard", true, false, secret, false},
		{"guard, then SetProxyFunc", true, true, secret, false},
		{"guard, then SetProxyFunc, redirected", true, true, site.URL + "/to?u=/private/secret", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := colly.NewCollector(colly.UserAgent("ExampleBot/1.0"), colly.AllowURLRevisit())
			var got refusals
			if tt.guard {
				(&Guard{Robots: rc, Refused: got.add, Sleep: func(context.Context, time.Duration) error { return nil }}).Obey(c)
			} else {
				c.WithTransport(&client.Transport{Robots: rc, Base: &http.Transport{}})
			}
			if tt.setProxy {
				c.SetProxyFunc(http.ProxyURL(proxyURL))
			}
			before, proxiedBefore := len(site.paths()), len(proxy.paths())
			err := c.Visit(tt.visit)
			requested := slices.Contains(site.paths()[before:], "/private/secret")
			assert.Equal(t, tt.requested, requested, "the site got the disallowed page")
			if tt.requested {
				return
			}
			if tt.guard {
				if tt.visit == secret {
					assert.NoError(t, err, "colly's Visit says nothing of an aborted request")
					require.Len(t, got.errs, 1)
					err = got.errs[0]
				} else {
					assert.Equal(t, []string{"/to"}, proxy.paths()[proxiedBefore:], "the redirect went through the proxy")
				}
				disallowed(t, err, secret)
				return
			}
			assert.ErrorIs(t, err, robots.ErrDisallowed)
		})
	}
}

// What Refused gets: ErrDisallowed for a disallowed URL (or a site whose
// robots.txt is unreachable: RFC 9309 §2.3.1.4), and the cause, not
// ErrDisallowed, for a request that could not be checked.
func TestRefused(t *testing.T) {
	site := newSite(t, robotsTxt, time.Now)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name       string
		ctx        context.Context
		url        string
		disallowed bool
		cause      error
	}{
		{"disallowed", context.Background(), site.URL + "/private/x", true, nil},
		{"robots.txt unreachable", context.Background(), down.URL + "/page", true, nil},
		{"collector's context ended", canceled, site.URL + "/b", false, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := colly.NewCollector(colly.StdlibContext(tt.ctx))
			var got refusals
			(&Guard{Robots: newRobots(t), Refused: got.add}).Obey(c)
			fetched := false
			c.OnResponse(func(*colly.Response) { fetched = true })
			require.NoError(t, c.Visit(tt.url))
			assert.False(t, fetched)
			require.Len(t, got.errs, 1)
			err := got.errs[0]
			if tt.disallowed {
				disallowed(t, err, tt.url)
			} else {
				assert.NotErrorIs(t, err, robots.ErrDisallowed)
				assert.NotErrorIs(t, err, colly.ErrRobotsTxtBlocked)
			}
			if tt.cause != nil {
				assert.ErrorIs(t, err, tt.cause)
			}
		})
	}
}

// A redirect is a request too: the Guard checks its target before it is
// sent, on the site or another. A refused one fails its request, with an
// error Visit (when not Async) and OnError see, and Refused gets the
// request redirected.
func TestRedirect(t *testing.T) {
	site := newSite(t, "User-agent: *\nDisallow: /private/\n", time.Now)
	closed := newSite(t, "User-agent: *\nDisallow: /\n", time.Now)

	tests := []struct {
		name    string
		async   bool
		target  string // where /to redirects
		refused bool
	}{
		{"allowed", false, site.URL + "/b", false},
		{"disallowed", false, site.URL + "/private/secret", true},
		{"disallowed, async", true, site.URL + "/private/secret", true},
		{"disallowed on another site", false, closed.URL + "/b", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := colly.NewCollector(colly.Async(tt.async), colly.AllowURLRevisit())
			var got refusals
			g := &Guard{Robots: newRobots(t), Refused: got.add}
			g.Obey(c)
			var mu sync.Mutex
			var fetched []string
			var failed []error
			c.OnResponse(func(r *colly.Response) {
				mu.Lock()
				defer mu.Unlock()
				fetched = append(fetched, r.Request.URL.String())
			})
			c.OnError(func(_ *colly.Response, err error) {
				mu.Lock()
				defer mu.Unlock()
				failed = append(failed, err)
			})
			from := site.URL + "/to?u=" + url.QueryEscape(tt.target)
			siteBefore, closedBefore := len(site.paths()), len(closed.paths())
			err := c.Visit(from)
			c.Wait()
			assert.Empty(t, g.inFlight, "no request is remembered past its exchange")

			if !tt.refused {
				require.NoError(t, err)
				assert.Equal(t, []string{tt.target}, fetched)
				assert.Empty(t, got.errs)
				return
			}
			assert.NotContains(t, site.paths()[siteBefore:], "/private/secret")
			assert.NotContains(t, closed.paths()[closedBefore:], "/b")
			assert.Empty(t, fetched)
			require.Len(t, got.errs, 1)
			assert.Equal(t, from, got.reqs[0].URL.String(), "Refused gets the request redirected")
			disallowed(t, got.errs[0], tt.target)
			require.Len(t, failed, 1)
			disallowed(t, failed[0], tt.target)
			if tt.async {
				assert.NoError(t, err)
			} else {
				disallowed(t, err, tt.target)
			}
		})
	}
}

// Redirect decides whether a redirect is followed, before the Guard
// checks it; nil is Colly's default: 10 redirects at most, Authorization
// dropped for another host.
func TestRedirectPolicy(t *testing.T) {
	site := newSite(t, "User-agent: *\nDisallow: /private/\n", time.Now)
	other := newSite(t, "", time.Now)
	stop := errors.New("stop")

	t.Run("default: 10 redirects", func(t *testing.T) {
		c := colly.NewCollector()
		(&Guard{Robots: newRobots(t)}).Obey(c)
		before := len(site.paths())
		c.Visit(site.URL + "/hop/")
		assert.Len(t, site.paths()[before:], 1+maxRedirects)
	})
	t.Run("default: Authorization kept on the host, dropped for another", func(t *testing.T) {
		c := colly.NewCollector()
		(&Guard{Robots: newRobots(t)}).Obey(c)
		for _, target := range []string{site.URL + "/b", other.URL + "/b"} {
			require.NoError(t, c.Request(http.MethodGet, site.URL+"/to?u="+url.QueryEscape(target), nil, nil,
				http.Header{"Authorization": {"Bearer token"}}))
		}
		site.mu.Lock()
		defer site.mu.Unlock()
		other.mu.Lock()
		defer other.mu.Unlock()
		require.Equal(t, "/b", site.hits[len(site.hits)-2].path)
		assert.Equal(t, "Bearer token", site.hits[len(site.hits)-2].auth)
		require.Equal(t, "/b", other.hits[len(other.hits)-1].path)
		assert.Empty(t, other.hits[len(other.hits)-1].auth)
	})

	tests := []struct {
		name    string
		policy  error
		want    error // what Visit returns
		refused bool
	}{
		{"policy follows: the Guard checks", nil, robots.ErrDisallowed, true},
		{"policy stops: nothing to check", stop, stop, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := colly.NewCollector()
			var got refusals
			var asked []string
			g := &Guard{Robots: newRobots(t), Refused: got.add, Redirect: func(req *http.Request, via []*http.Request) error {
				asked = append(asked, req.URL.Path)
				return tt.policy
			}}
			g.Obey(c)
			before := len(site.paths())
			err := c.Visit(site.URL + "/to?u=/private/secret")
			assert.ErrorIs(t, err, tt.want)
			assert.Equal(t, []string{"/private/secret"}, asked)
			assert.Equal(t, []string{"/robots.txt", "/to"}, site.paths()[before:])
			assert.Equal(t, tt.refused, len(got.errs) == 1)
		})
	}
}

// The site's Crawl-delay spaces the requests to it, a redirect's too: no
// wait before the first, then the delay between each and the next, as the
// site saw them.
func TestCrawlDelay(t *testing.T) {
	clk := newClock()
	start := clk.Now()
	site := newSite(t, robotsTxt, clk.Now)
	u, err := url.Parse(site.URL)
	require.NoError(t, err)
	c := colly.NewCollector(colly.AllowedDomains(u.Hostname()), colly.AllowURLRevisit()) // the redirect to /b
	(&Guard{Robots: newRobots(t), Now: clk.Now, Sleep: clk.Sleep}).Obey(c)
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	require.NoError(t, c.Visit(site.URL+"/"))
	disallowed(t, c.Visit(site.URL+"/to?u=/private/secret"), site.URL+"/private/secret") // no wait for it
	require.NoError(t, c.Visit(site.URL+"/to?u=/b"))                                     // /b again, redirected

	// Depth first, in link order.
	assert.Equal(t, []string{"/robots.txt", "/", "/a", "/c", "/b", "/to", "/to", "/b"}, site.paths())
	at := site.pageTimes()
	require.Len(t, at, 7)
	assert.Equal(t, start, at[0])
	for i := 1; i < len(at); i++ {
		assert.Equal(t, 2*time.Second, at[i].Sub(at[i-1]), "between requests %d and %d", i-1, i)
	}
}

// Requests an Async collector makes at once are given starts a
// Crawl-delay apart: with time standing still, their waits are 2 s, 4 s,
// 6 s.
func TestCrawlDelayAsync(t *testing.T) {
	clk := newClock()
	clk.fixed = true
	site := newSite(t, robotsTxt, clk.Now)
	u, err := url.Parse(site.URL)
	require.NoError(t, err)
	c := colly.NewCollector(colly.Async(true), colly.AllowedDomains(u.Hostname()))
	require.NoError(t, c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}))
	(&Guard{Robots: newRobots(t), Now: clk.Now, Sleep: clk.Sleep}).Obey(c)
	for _, p := range []string{"/", "/a", "/b", "/c"} {
		require.NoError(t, c.Visit(site.URL+p))
	}
	c.Wait()
	slices.Sort(clk.sleeps)
	assert.Equal(t, []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second}, clk.sleeps)
}

// A Crawl-delay above MaxDelay counts as MaxDelay; zero means a minute.
func TestMaxDelay(t *testing.T) {
	tests := []struct {
		name     string
		maxDelay time.Duration
		want     time.Duration
	}{
		{"default", 0, DefaultMaxDelay},
		{"negative", -time.Second, DefaultMaxDelay},
		{"set", 5 * time.Second, 5 * time.Second},
		{"above the file's", 2 * time.Hour, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			site := newSite(t, "User-agent: *\nCrawl-delay: 3600\n", clk.Now)
			c := colly.NewCollector()
			(&Guard{Robots: newRobots(t), Now: clk.Now, Sleep: clk.Sleep, MaxDelay: tt.maxDelay}).Obey(c)
			require.NoError(t, c.Visit(site.URL+"/b"))
			require.NoError(t, c.Visit(site.URL+"/c"))
			at := site.pageTimes()
			require.Len(t, at, 2)
			assert.Equal(t, tt.want, at[1].Sub(at[0]))
		})
	}
}

// A Crawl-delay wait ends with the collector's context, and the request
// is refused with the context's error.
func TestCrawlDelayCanceled(t *testing.T) {
	site := newSite(t, robotsTxt, time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := colly.NewCollector(colly.StdlibContext(ctx))
	waiting := make(chan time.Duration, 1)
	var got refusals
	g := &Guard{Robots: newRobots(t), Refused: got.add, Sleep: func(ctx context.Context, d time.Duration) error {
		waiting <- d
		<-ctx.Done()
		return ctx.Err()
	}}
	g.Obey(c)
	require.NoError(t, c.Visit(site.URL+"/b"))
	go func() {
		<-waiting
		cancel()
	}()
	require.NoError(t, c.Visit(site.URL+"/c"))
	assert.Equal(t, []string{"/robots.txt", "/b"}, site.paths())
	require.Len(t, got.errs, 1)
	assert.ErrorIs(t, got.errs[0], context.Canceled)
}

// The Guard's own sleep ends when its time is up, or earlier with ctx.
func TestSleep(t *testing.T) {
	var g Guard
	assert.NoError(t, g.sleep(context.Background(), time.Nanosecond))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, g.sleep(ctx, time.Hour), context.Canceled)
}

// reserve gives requests to one host starts delay apart, whatever the
// order and concurrency of the callers, and leaves other hosts alone.
func TestReserve(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var g Guard
	assert.Equal(t, t0, g.reserve("a.test", t0, 2*time.Second), "the first waits not")
	assert.Equal(t, t0.Add(2*time.Second), g.reserve("a.test", t0, 2*time.Second))
	assert.Equal(t, t0.Add(4*time.Second), g.reserve("a.test", t0.Add(time.Second), 2*time.Second))
	assert.Equal(t, t0, g.reserve("b.test", t0, 2*time.Second), "another host")
	assert.Equal(t, t0.Add(10*time.Second), g.reserve("a.test", t0.Add(10*time.Second), 2*time.Second), "long after")
	assert.Equal(t, t0.Add(12*time.Second), g.reserve("a.test", t0.Add(10*time.Second), 0), "no delay still waits its turn")

	const callers = 64
	var wg sync.WaitGroup
	starts := make([]time.Time, callers)
	for i := range callers {
		wg.Go(func() { starts[i] = g.reserve("c.test", t0, time.Second) })
	}
	wg.Wait()
	slices.SortFunc(starts, time.Time.Compare)
	for i, s := range starts {
		assert.Equal(t, t0.Add(time.Duration(i)*time.Second), s)
	}
}

// The map of hosts is bounded: past maxHosts, hosts whose turn has come are
// forgotten.
func TestReserveForgets(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var g Guard
	for i := range 3 * maxHosts {
		g.reserve(fmt.Sprintf("h%d.test", i), t0.Add(time.Duration(i)*time.Second), time.Second)
	}
	assert.LessOrEqual(t, len(g.next), maxHosts+1)
}

// A request another callback aborts after the Guard let it through, in
// OnRequest or as its headers go, is not remembered either.
func TestAbortedLater(t *testing.T) {
	site := newSite(t, "", time.Now)
	for _, hook := range []string{"OnRequest", "OnRequestHeaders"} {
		t.Run(hook, func(t *testing.T) {
			c := colly.NewCollector(colly.AllowURLRevisit())
			g := &Guard{Robots: newRobots(t)}
			g.Obey(c)
			abort := func(r *colly.Request) { r.Abort() }
			if hook == "OnRequest" {
				c.OnRequest(abort)
			} else {
				c.OnRequestHeaders(abort)
			}
			c.Visit(site.URL + "/b")
			assert.Empty(t, g.inFlight)
			assert.NotContains(t, site.paths(), "/b")
		})
	}
}

// A clone has no callbacks of its own: Obey it, and it obeys.
func TestClone(t *testing.T) {
	site := newSite(t, robotsTxt, time.Now)
	c := colly.NewCollector()
	var got refusals
	g := &Guard{Robots: newRobots(t), Refused: got.add, Sleep: func(context.Context, time.Duration) error { return nil }}
	g.Obey(c)
	clone := c.Clone()
	g.Obey(clone)
	require.NoError(t, clone.Visit(site.URL+"/private/secret"))
	require.NoError(t, clone.Visit(site.URL+"/b"))
	assert.Equal(t, []string{"/robots.txt", "/b"}, site.paths())
	assert.Equal(t, []string{"/private/secret"}, got.paths())
}

func TestObeyWithoutRobots(t *testing.T) {
	assert.PanicsWithValue(t, "robotscolly: Guard.Robots is nil", func() { (&Guard{}).Obey(colly.NewCollector()) })
}
