package robots_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/client"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// purposes is a robots.txt with a group for a search crawler, one for a
// training crawler of the same operator, and one for everyone else.
const purposes = `User-agent: SearchBot
Allow: /
Crawl-delay: 2
Content-Usage: search=y, train-ai=n
Content-Signal: search=yes, ai-train=no

User-agent: TrainBot
Disallow: /articles/
Crawl-delay: 10
Content-Usage: /blog/ train-ai=y

User-agent: *
Disallow: /private/
Content-Usage: train-ai=n
`

// One fetch serves every agent set: each Client made by As answers every
// question from its own groups (RFC 9309 §2.2.1), and they all share the
// cache, its fetches and its counts.
func TestAsOneFetchServesAgentSets(t *testing.T) {
	s := newSite(t, robotsTxt(purposes, "Cache-Control", "max-age=3600"))
	rc := newClient(t, newClock(), robots.Options{UserAgent: "ExampleBot/1.0"})
	search, err := rc.As("SearchBot")
	require.NoError(t, err)
	train, err := rc.As("TrainBot")
	require.NoError(t, err)
	assert.Equal(t, []string{"SearchBot"}, search.Agents())
	assert.Equal(t, []string{"ExampleBot"}, rc.Agents(), "the default agents are unchanged")
	assert.Equal(t, "ExampleBot/1.0", search.UserAgent(), "a view sends its Client's User-Agent")
	assert.Empty(t, new(robots.Client).UserAgent(), "a Client not made by New has none")
	ctx := context.Background()

	// Allowed and Check: each its own group.
	for _, tt := range []struct {
		name   string
		c      *robots.Client
		path   string
		want   bool
		reason robots.Reason
		line   int // of the deciding rule
		group  string
	}{
		{"default, * group", rc, "/private/x", false, robots.RuleMatched, 13, "*"},
		{"default, * group allows", rc, "/articles/a", true, robots.NoRuleMatched, 0, "*"},
		{"search, its own group", search, "/private/x", true, robots.RuleMatched, 2, "SearchBot"},
		{"search", search, "/articles/a", true, robots.RuleMatched, 2, "SearchBot"},
		{"train, its own group", train, "/articles/a", false, robots.RuleMatched, 8, "TrainBot"},
		{"train, not the * group's rule", train, "/private/x", true, robots.NoRuleMatched, 0, "TrainBot"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := tt.c.Allowed(ctx, s.URL+tt.path)
			require.NoError(t, err)
			assert.Equal(t, tt.want, ok)
			d, err := tt.c.Check(ctx, s.URL+tt.path)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d.Allowed)
			assert.Equal(t, tt.reason, d.Reason)
			assert.Equal(t, tt.line, d.Rule.Line)
			require.Len(t, d.Agents, 1)
			assert.Equal(t, tt.group, d.Agents[0].Value)
		})
	}

	// Usage (AIPREF, draft-ietf-aipref-attach-05 §3): each its own group's.
	for _, tt := range []struct {
		name            string
		c               *robots.Client
		path            string
		search, trainAI usage.Pref
	}{
		{"default", rc, "/blog/p", usage.Unknown, usage.No},
		{"search", search, "/blog/p", usage.Yes, usage.No},
		{"train", train, "/blog/p", usage.Unknown, usage.Yes},
		{"train, disallowed: none", train, "/articles/a", usage.Unknown, usage.Unknown},
	} {
		p, err := tt.c.Usage(ctx, s.URL+tt.path)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.search, p.Get(usage.Search), tt.name)
		assert.Equal(t, tt.trainAI, p.Get(usage.TrainAI), tt.name)
		d, err := tt.c.Check(ctx, s.URL+tt.path)
		require.NoError(t, err, tt.name)
		assert.Equal(t, p, d.Usage, tt.name)
	}

	// Crawl-delay and Content-Signal: each its own group's.
	for _, tt := range []struct {
		c      *robots.Client
		delay  time.Duration
		signal usage.Signal
	}{
		{rc, 0, usage.Signal{}},
		{search, 2 * time.Second, usage.Signal{Search: usage.Yes, AITrain: usage.No}},
		{train, 10 * time.Second, usage.Signal{}},
	} {
		d, err := tt.c.CrawlDelay(ctx, s.URL+"/")
		require.NoError(t, err)
		assert.Equal(t, tt.delay, d, tt.c.Agents())
		sig, _, err := tt.c.Signal(ctx, s.URL+"/")
		require.NoError(t, err)
		assert.Equal(t, tt.signal, sig, tt.c.Agents())
		maps, err := tt.c.Sitemaps(ctx, s.URL+"/")
		require.NoError(t, err)
		assert.Empty(t, maps)
	}

	// A wrapped http.Client per purpose.
	hc := client.Wrap(&http.Client{}, train)
	_, err = hc.Get(s.URL + "/articles/a")
	assert.ErrorIs(t, err, robots.ErrDisallowed)
	resp, err := client.Wrap(&http.Client{}, search).Get(s.URL + "/articles/a")
	require.NoError(t, err)
	resp.Body.Close()

	assert.Equal(t, int32(1), s.requests.Load(), "one fetch served every agent set")
	st := rc.Stats()
	assert.Equal(t, uint64(1), st.Fetches)
	assert.Equal(t, uint64(2), st.AgentCompiles, "once per set")
	assert.Equal(t, st, search.Stats(), "the counts are shared")
}

// The rules of an agent set are compiled on its first question about a
// file, once, and kept with the file: across questions, methods and
// equivalent sets (tokens compare ignoring case, RFC 9309 §2.2.1, and the
// groups of all of them merge, so order does not count). A 304 keeps them;
// a new body compiles them again, and answers by it.
func TestAsCompilesOncePerSetPerRecord(t *testing.T) {
	body := purposes
	var mu sync.Mutex
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := body
		mu.Unlock()
		if r.Header.Get("If-None-Match") == `"`+strconv.Itoa(len(b))+`"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		robotsTxt(b, "Cache-Control", "max-age=60", "ETag", `"`+strconv.Itoa(len(b))+`"`)(w, r)
	})
	other := newSite(t, robotsTxt(purposes))
	clk := newClock()
	var o robots.Options
	fetched := onFetch(&o)
	rc := newClient(t, clk, o)
	ctx := context.Background()
	compiles := func() uint64 { return rc.Stats().AgentCompiles }

	train, err := rc.As("TrainBot")
	require.NoError(t, err)
	assert.Zero(t, compiles(), "As compiles nothing")
	assert.False(t, allowed(t, train, s.URL+"/articles/a"))
	<-fetched
	assert.Equal(t, uint64(1), compiles())
	for range 3 {
		assert.False(t, allowed(t, train, s.URL+"/articles/b"))
		assert.True(t, check(t, train, s.URL+"/blog/").Allowed)
		_, err := train.Usage(ctx, s.URL+"/blog/")
		require.NoError(t, err)
		_, err = train.CrawlDelay(ctx, s.URL+"/")
		require.NoError(t, err)
	}
	assert.Equal(t, uint64(1), compiles(), "kept with the file")

	for _, agents := range [][]string{{"trainbot"}, {"TRAINBOT", "TrainBot"}} {
		same, err := rc.As(agents...)
		require.NoError(t, err)
		assert.False(t, allowed(t, same, s.URL+"/articles/a"))
	}
	assert.Equal(t, uint64(1), compiles(), "the same set, however spelt")
	both, err := rc.As("TrainBot", "SearchBot")
	require.NoError(t, err)
	assert.False(t, allowed(t, both, s.URL+"/articles/a"), "groups merge: TrainBot's Disallow: /articles/ is the longest match")
	assert.True(t, allowed(t, both, s.URL+"/private/x"), "groups merge: SearchBot's Allow: /")
	reversed, err := rc.As("SearchBot", "trainbot")
	require.NoError(t, err)
	assert.False(t, allowed(t, reversed, s.URL+"/articles/a"))
	assert.Equal(t, uint64(2), compiles(), "a set in any order is one set")

	assert.False(t, allowed(t, train, other.URL+"/articles/a"))
	<-fetched
	assert.Equal(t, uint64(3), compiles(), "per file")

	// A 304 renews the record, not its rules.
	clk.Advance(time.Minute)
	allowed(t, train, s.URL+"/articles/a")
	assert.Equal(t, http.StatusNotModified, (<-fetched).Result.StatusCode)
	assert.False(t, allowed(t, train, s.URL+"/articles/a"))
	assert.False(t, check(t, train, s.URL+"/articles/a").Stale)
	assert.Equal(t, uint64(3), compiles(), "kept across a 304")

	// A new body: compiled again, and it answers.
	mu.Lock()
	body = "User-agent: TrainBot\nDisallow: /\n"
	mu.Unlock()
	clk.Advance(time.Minute)
	assert.True(t, allowed(t, train, s.URL+"/blog/"), "the old copy answers while it is refetched")
	assert.Equal(t, http.StatusOK, (<-fetched).Result.StatusCode)
	assert.Equal(t, uint64(3), compiles(), "nothing compiled before the question")
	assert.False(t, allowed(t, train, s.URL+"/blog/"), "the new body's rules")
	assert.True(t, allowed(t, rc, s.URL+"/blog/"), "and the default's: no group names it")
	assert.Equal(t, uint64(4), compiles())
	assert.Equal(t, int32(3), s.requests.Load())
}

// The set of the Options answers from the rules compiled with each file,
// compiling nothing more, as the Client New made does.
func TestAsDefaultSet(t *testing.T) {
	s := newSite(t, robotsTxt(purposes))
	rc := newClient(t, nil, robots.Options{UserAgent: "x", Agents: []string{"TrainBot", "Family"}})
	for _, agents := range [][]string{{"TrainBot", "Family"}, {"family", "trainbot"}, {"Family", "TrainBot", "family"}} {
		same, err := rc.As(agents...)
		require.NoError(t, err)
		assert.Equal(t, agents, same.Agents())
		assert.False(t, allowed(t, same, s.URL+"/articles/a"))
		assert.Equal(t, check(t, rc, s.URL+"/articles/a"), check(t, same, s.URL+"/articles/a"))
	}
	// As on a Client made by As counts from the Options' set too.
	search, err := rc.As("SearchBot")
	require.NoError(t, err)
	back, err := search.As("TrainBot", "Family")
	require.NoError(t, err)
	assert.False(t, allowed(t, back, s.URL+"/articles/a"))
	assert.Zero(t, rc.Stats().AgentCompiles)
	assert.True(t, allowed(t, search, s.URL+"/articles/a"))
	assert.Equal(t, uint64(1), rc.Stats().AgentCompiles)
}

// A crawler's name is an HTTP token (RFC 9110 §5.6.2), but for '*': As
// refuses anything else, and more than MaxAgents, as New does, with
// ErrInvalidAgent.
func TestAsInvalidAgents(t *testing.T) {
	rc := newClient(t, nil, robots.Options{})
	tooMany := make([]string, robots.MaxAgents+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("Bot%d", i)
	}
	for _, agents := range [][]string{
		nil,
		{},
		{""},
		{"Search Bot"},
		{"SearchBot/1.0"},
		{"SearchBot", "*"},
		{"Bot\n"},
		{"B\u00f6t"},
		{"SearchBot", ""},
		tooMany,
	} {
		v, err := rc.As(agents...)
		assert.Nil(t, v, "%q", agents)
		assert.ErrorIs(t, err, robots.ErrInvalidAgent, "%q", agents)
		var re *robots.Error
		if assert.ErrorAs(t, err, &re, "%q", agents) {
			assert.Equal(t, "as", re.Op)
		}
		for _, a := range agents {
			if !parser.IsValidName(a) {
				assert.Contains(t, err.Error(), "not a name", "%q names the culprit", agents)
			}
		}
	}
	for _, name := range []string{"Bot42", "MJ12bot", "360Spider", "Mail.RU_Bot"} {
		v, err := rc.As(name)
		require.NoError(t, err, "%q is a crawler's name", name)
		assert.Equal(t, []string{name}, v.Agents())
	}
	for _, o := range []robots.Options{
		{UserAgent: "x", Agents: []string{"Search Bot"}},
		{UserAgent: "x", Agents: tooMany},
		{UserAgent: "/1.0 (no name)"},
		{UserAgent: "Mozilla/5.0 (compatible)"},
	} {
		_, err := robots.New(o)
		assert.ErrorIs(t, err, robots.ErrInvalidAgent, "%+v", o)
	}
	var zero robots.Client
	_, err := zero.As("SearchBot")
	assert.Error(t, err)
	_, err = (*robots.Client)(nil).As("SearchBot")
	assert.Error(t, err)
}

// Concurrent first questions of many agent sets, on a cold authority:
// one fetch, each set compiled once, every answer its own group's. The file
// is long, so that compiling it takes long enough for the others to ask
// meanwhile.
func TestAsConcurrent(t *testing.T) {
	var long strings.Builder
	long.WriteString(purposes + "\nUser-agent: FillerBot\n")
	for i := 0; long.Len() < 400<<10; i++ {
		fmt.Fprintf(&long, "Disallow: /filler/%d/*.html$\n", i)
	}
	g := newGate()
	s := newSite(t, g.hold(robotsTxt(long.String())))
	rc := newClient(t, nil, robots.Options{})
	sets := []struct {
		agents []string
		want   bool // on /articles/a
	}{
		{[]string{"SearchBot"}, true},
		{[]string{"TrainBot"}, false},
		{[]string{"OtherBot"}, true},
		{[]string{"TrainBot", "OtherBot"}, false},
	}
	const perSet = 16
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, set := range sets {
		v, err := rc.As(set.agents...)
		require.NoError(t, err)
		for i := range perSet {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ctx := context.Background()
				var ok bool
				var err error
				switch i % 3 {
				case 0:
					ok, err = v.Allowed(ctx, s.URL+"/articles/a")
				case 1:
					var d robots.Decision
					d, err = v.Check(ctx, s.URL+"/articles/a")
					ok = d.Allowed
				default:
					_, err = v.Usage(ctx, s.URL+"/articles/a")
					ok = set.want
				}
				assert.NoError(t, err)
				assert.Equal(t, set.want, ok, set.agents)
			}()
		}
	}
	close(start)
	<-g.arrived
	g.open()
	wg.Wait()
	assert.Equal(t, int32(1), s.requests.Load())
	assert.Equal(t, uint64(len(sets)), rc.Stats().AgentCompiles, "each set compiled once")
}
