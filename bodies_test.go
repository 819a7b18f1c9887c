package robots_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/sharedtest"
)

// manySites answers the robots.txt of host "h<i>.example" with bodies[i],
// in memory.
type manySites struct{ bodies [][]byte }

func (s *manySites) RoundTrip(req *http.Request) (*http.Response, error) {
	i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(req.URL.Hostname(), "h"), ".example"))
	if err != nil || i >= len(s.bodies) {
		return &http.Response{StatusCode: http.StatusNotFound, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/plain"}},
		ContentLength: int64(len(s.bodies[i])), Body: io.NopCloser(bytes.NewReader(s.bodies[i])), Request: req}, nil
}

// newManySites returns n sites whose robots.txt, of the same size (which a
// fetch reads into memory it may have read another into), disallows
// /p<i>/ for site i and nothing else.
func newManySites(n int) *manySites {
	s := &manySites{}
	for i := range n {
		b := []byte(fmt.Sprintf("User-agent: *\nDisallow: /p%03d/\nAllow: /p%03d/open\n", i, i))
		b = append(b, bytes.Repeat([]byte("# padding\n"), 600)...)
		s.bodies = append(s.bodies, b)
	}
	return s
}

// A Client lets the memory of a fetch's body go once it has compiled and
// compacted it, for the bodies of later fetches: nothing it answers with
// may keep that memory. Each site's answers, asked once all were fetched
// (their bodies' memory read others into), are still its own.
func TestBodiesLetGoAnswerRight(t *testing.T) {
	sites := newManySites(60)
	c, err := robots.New(robots.Options{UserAgent: "TestBot/1.0", HTTPClient: &http.Client{Transport: sites},
		CacheBytes: 1 << 30})
	require.NoError(t, err)
	ctx := context.Background()
	ask := func(i, j int, path string) bool {
		ok, err := c.Allowed(ctx, fmt.Sprintf("https://h%d.example/p%03d/%s", i, j, path))
		require.NoError(t, err)
		return ok
	}
	for i := range sites.bodies {
		assert.False(t, ask(i, i, "x"), "site %d", i)
	}
	for i := range sites.bodies {
		assert.False(t, ask(i, i, "x"), "site %d", i)
		assert.True(t, ask(i, i, "open"), "site %d", i)
		assert.True(t, ask(i, (i+1)%len(sites.bodies), "x"), "site %d", i)
	}
	assert.Equal(t, uint64(len(sites.bodies)), c.Stats().Fetches, "answered from the cache")

	// What the cache keeps of each body is its own too.
	var exported bytes.Buffer
	require.NoError(t, c.Export(&exported))
	for i, b := range sites.bodies {
		assert.Contains(t, exported.String(), string(b[:40]), "site %d", i)
	}
}

// The body an OnFetch hook is given is the hook's: later fetches never read
// into its memory.
func TestOnFetchKeepsItsBody(t *testing.T) {
	sites := newManySites(30)
	o := robots.Options{UserAgent: "TestBot/1.0", HTTPClient: &http.Client{Transport: sites}}
	fetched := onFetch(&o)
	c, err := robots.New(o)
	require.NoError(t, err)
	var events []robots.FetchEvent
	for i := range sites.bodies {
		_, err := c.Allowed(context.Background(), fmt.Sprintf("https://h%d.example/", i))
		require.NoError(t, err)
		events = append(events, <-fetched)
	}
	for i, e := range events {
		require.NotNil(t, e.Result, "site %d", i)
		assert.Equal(t, sites.bodies[i], e.Result.Body, "site %d", i)
	}
}

// Clients whose caches keep bodies with each cache.BodyCodec answer alike,
// export the same files, compile the same rules for the Clients As makes,
// and keep a refetched file unchanged as they held it; over the real
// corpus BalancedBodies (the default) and SmallBodies count, and hold, less
// per authority than FastBodies.
func TestBodyCodecs(t *testing.T) {
	files := sharedtest.CorpusSample(t, 10)
	if len(files) == 0 {
		return // CorpusSample said why
	}
	sites := &manySites{bodies: files}
	clk := newClock()
	codecs := []cache.BodyCodec{cache.FastBodies, cache.BalancedBodies, cache.SmallBodies}
	clients := map[cache.BodyCodec]*robots.Client{}
	for _, codec := range codecs {
		c, err := robots.New(robots.Options{UserAgent: "ExampleBot/1.0", HTTPClient: &http.Client{Transport: sites},
			CacheBytes: 1 << 40, BodyCodec: codec, Now: clk.Now})
		require.NoError(t, err)
		clients[codec] = c
	}
	fast := clients[cache.FastBodies]
	ctx := context.Background()
	paths := []string{"/", "/search?q=1", "/admin/", "/wp-admin/x.php", "/a/b/c.html"}
	same := func(c1, c2 *robots.Client) {
		t.Helper()
		for i := range files {
			for _, p := range paths {
				u := fmt.Sprintf("https://h%d.example%s", i, p)
				d1, err1 := c1.Check(ctx, u)
				d2, err2 := c2.Check(ctx, u)
				require.NoError(t, err1)
				require.NoError(t, err2)
				assert.Equal(t, d1, d2, "%s", u)
			}
		}
	}
	bytesOf := map[cache.BodyCodec]int64{}
	for _, codec := range codecs {
		same(fast, clients[codec])
		bytesOf[codec] = clients[codec].Stats().Bytes
	}
	t.Logf("%d corpus files: %d B per authority with FastBodies, %d with BalancedBodies, %d with SmallBodies", len(files),
		bytesOf[cache.FastBodies]/int64(len(files)), bytesOf[cache.BalancedBodies]/int64(len(files)), bytesOf[cache.SmallBodies]/int64(len(files)))
	assert.Less(t, bytesOf[cache.SmallBodies], bytesOf[cache.FastBodies]*95/100, "about 9% less on the corpus")
	assert.Less(t, bytesOf[cache.BalancedBodies], bytesOf[cache.FastBodies]*95/100, "about 12% less on the corpus")

	fastOther, err := fast.As("OtherBot")
	require.NoError(t, err)
	for _, codec := range codecs[1:] {
		c := clients[codec]
		// Other agents' rules are compiled from the file kept.
		other, err := c.As("OtherBot")
		require.NoError(t, err)
		same(fastOther, other)

		var exported bytes.Buffer
		require.NoError(t, c.Export(&exported))
		for i, b := range files {
			if len(b) > fetch.DefaultMaxBytes {
				// The corpus's largest file is over the cap: its
				// lines within it.
				b = b[:bytes.LastIndexByte(b[:fetch.DefaultMaxBytes], '\n')+1]
			}
			assert.True(t, bytes.Contains(exported.Bytes(), b), "codec %d: file %d exported whole", codec, i)
		}
	}

	// A day later every file is fetched again, unchanged: the body held is
	// kept, in its format.
	held := map[cache.BodyCodec]int64{}
	for _, codec := range codecs {
		held[codec] = clients[codec].Stats().Bytes // the rules of OtherBot included
	}
	clk.Advance(48 * time.Hour)
	for _, codec := range codecs {
		c := clients[codec]
		same(fast, c)
		assert.Equal(t, uint64(2*len(files)), c.Stats().Fetches, "codec %d", codec)
		assert.Equal(t, held[codec], c.Stats().Bytes, "codec %d: what was derived of the bodies refetched is kept", codec)
	}
}
