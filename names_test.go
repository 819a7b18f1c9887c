package robots_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
)

// mj12Group finds a "User-agent: MJ12bot" line, as 81 of the corpus's
// files have one, mostly to block it.
var mj12Group = regexp.MustCompile(`(?im)^\s*user-agent\s*:\s*mj12bot\s*$`)

// A crawler named with digits or dots is read the same way at every entry
// point: a Client whose UserAgent is its full User-Agent, As, AllowedBy
// and matcher.Compile agree on every path, and it obeys the group that
// names it in full (README, "What it gets right", Group selection; the CLI's -agent is tested in
// cmd/robots). Checked on a file written for the test and on every corpus
// file that names MJ12bot.
func TestNamesReadAlike(t *testing.T) {
	files := [][]byte{[]byte("User-agent: MJ12bot\nDisallow: /\n\nUser-agent: MJ\nAllow: /\n\nUser-agent: *\nDisallow: /private\n")}
	if _, ok := sharedtest.Lookup("corpus/robots"); ok {
		for _, b := range sharedtest.Corpus(t) {
			if mj12Group.Match(b) {
				files = append(files, b)
			}
		}
		require.Greater(t, len(files), 50, "the corpus has 81 files naming MJ12bot")
	} else {
		sharedtest.Missing(t, "corpus/robots", "checked on one file written for the test, not on the 81 corpus files naming MJ12bot")
	}
	paths := []string{"/", "/private/x", "/index.html", "/search?q=1"}
	for i, body := range files {
		w := newWeb(robotsTxt(string(body)))
		c := w.client(t, nil, robots.Options{UserAgent: "MJ12bot/v1.4.8 (+http://mj12bot.com/)"})
		require.Equal(t, []string{"MJ12bot"}, c.Agents())
		other := w.client(t, nil, robots.Options{UserAgent: "OtherBot/1.0"})
		as, err := other.As("MJ12bot")
		require.NoError(t, err)
		m := matcher.Compile(parser.Parse(body), "MJ12bot")
		for _, p := range paths {
			u := "http://site.test" + p
			want := m.Allowed(p)
			assert.Equal(t, want, allowed(t, c, u), "file %d, %s: the Client", i, p)
			assert.Equal(t, want, allowed(t, as, u), "file %d, %s: As", i, p)
			assert.Equal(t, want, robots.AllowedBy(body, "MJ12bot", u), "file %d, %s: AllowedBy", i, p)
			assert.Equal(t, want, robots.AllowedBy(body, "MJ12bot/v1.4.8 (+http://mj12bot.com/)", u), "file %d, %s: AllowedBy, a full User-Agent", i, p)
		}
		if i == 0 {
			assert.False(t, m.Allowed("/"), "the group naming MJ12bot, not MJ's, not *'s")
			assert.True(t, robots.AllowedBy(body, "MJ", "/"), "MJ obeys its own")
		}
		names := false
		for _, a := range m.Agents() {
			names = names || a.Names("MJ12bot")
		}
		assert.True(t, names, "file %d: the group naming MJ12bot applies, not the * groups", i)
	}
}

// Client.CrawlDelay is the Crawl-delay bound to the user-agent lines that
// name the crawler (README, "What it gets right", Crawl-delay): the peers' shapes and the README's.
func TestClientCrawlDelay(t *testing.T) {
	for _, tt := range []struct {
		body, agent string
		want        time.Duration
	}{
		{"User-agent: bingbot\nCrawl-delay: 1\n\nUser-agent: msnbot\nCrawl-delay: 2\n", "msnbot", 2 * time.Second},
		{"User-agent: bingbot\nCrawl-delay: 1\n\nUser-agent: msnbot\nCrawl-delay: 2\n", "bingbot", time.Second},
		{"User-agent: foobot\nCrawl-delay: 20\nUser-agent: *\nDisallow: /baz\n", "otherbot", 0},
		{"User-agent: foobot\nCrawl-delay: 20\nUser-agent: *\nDisallow: /baz\n", "foobot", 20 * time.Second},
		{"User-agent: a\nCrawl-delay: 1\nUser-agent: b\nCrawl-delay: 2\nDisallow: /x\n", "b", 2 * time.Second},
	} {
		w := newWeb(robotsTxt(tt.body))
		c := w.client(t, nil, robots.Options{UserAgent: tt.agent + "/1.0"})
		d, err := c.CrawlDelay(context.Background(), "http://site.test/")
		require.NoError(t, err)
		assert.Equal(t, tt.want, d, "%s in %q", tt.agent, tt.body)
	}
}
