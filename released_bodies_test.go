package robots_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/cache"
)

// keepingFleet is a MemoryFleet that keeps every record published to it, by
// pointer, as a Fleet that held records in memory would.
type keepingFleet struct {
	*cache.MemoryFleet
	mu        sync.Mutex
	kept      map[string]*cache.Record
	published chan struct{} // a send per record published
}

func (f *keepingFleet) Publish(ctx context.Context, l cache.Lease, rec *cache.Record, now time.Time) error {
	f.mu.Lock()
	f.kept[rec.Authority] = rec
	f.mu.Unlock()
	err := f.MemoryFleet.Publish(ctx, l, rec, now)
	f.published <- struct{}{}
	return err
}

// rvSites serves site i's body in one of several ways: plain with a length,
// chunked (unknown length), or gzip.
type rvSites struct {
	mu     sync.Mutex
	bodies [][]byte
	mode   string
}

func (s *rvSites) RoundTrip(req *http.Request) (*http.Response, error) {
	i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(req.URL.Hostname(), "h"), ".example"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || i >= len(s.bodies) {
		return &http.Response{StatusCode: 404, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
	}
	b := s.bodies[i]
	h := http.Header{"Content-Type": {"text/plain"}, "Cache-Control": {"max-age=60"}}
	cl := int64(len(b))
	switch s.mode {
	case "chunked":
		cl = -1
	case "gzip":
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		b, cl = z.Bytes(), -1
		h.Set("Content-Encoding", "gzip")
	}
	return &http.Response{StatusCode: 200, Header: h, ContentLength: cl, Body: io.NopCloser(bytes.NewReader(b)), Request: req}, nil
}

func rvBody(i, gen, pad int) []byte {
	b := []byte(fmt.Sprintf("User-agent: *\nDisallow: /p%03d-g%d/\nSitemap: https://h%d.example/s%d.xml\nUser-agent: other\nDisallow: /o%03d/\n", i, gen, i, gen, i))
	return append(b, bytes.Repeat([]byte("# padding\n"), pad)...)
}

// With released bodies poisoned (-tags poisonbodies), everything the Client
// keeps or hands on after a fetch stays right: answers, other agents' views,
// sitemaps, exports, records published to a fleet, refreshes of the same
// file and of another of the same size.
func TestReleasedBodiesAnswerRight(t *testing.T) {
	for _, mode := range []string{"length", "chunked", "gzip"} {
		for _, pad := range []int{500, 3000, 60000} { // ~5 KiB, ~30 KiB, ~600 KiB (truncated)
			t.Run(fmt.Sprintf("%s-%d", mode, pad), func(t *testing.T) {
				n := 12
				s := &rvSites{mode: mode}
				for i := range n {
					s.bodies = append(s.bodies, rvBody(i, 0, pad))
				}
				fleet := &keepingFleet{MemoryFleet: cache.NewMemoryFleet(), kept: map[string]*cache.Record{}, published: make(chan struct{}, 4*n)}
				clk := newClock()
				c := newClient(t, clk, robots.Options{HTTPClient: &http.Client{Transport: s}, Fleet: fleet, CacheBytes: 1 << 30})
				other, err := c.As("other")
				require.NoError(t, err)
				ctx := context.Background()
				check := func(gen int) {
					for i := range n {
						ok, err := c.Allowed(ctx, fmt.Sprintf("https://h%d.example/p%03d-g%d/x", i, i, gen))
						require.NoError(t, err)
						assert.False(t, ok, "site %d gen %d", i, gen)
						ok, err = other.Allowed(ctx, fmt.Sprintf("https://h%d.example/o%03d/x", i, i))
						require.NoError(t, err)
						assert.False(t, ok, "site %d other", i)
						sm, err := c.Sitemaps(ctx, fmt.Sprintf("https://h%d.example/", i))
						require.NoError(t, err)
						assert.Equal(t, []string{fmt.Sprintf("https://h%d.example/s%d.xml", i, gen)}, sm)
						d, err := c.Check(ctx, fmt.Sprintf("https://h%d.example/p%03d-g%d/x", i, i, gen))
						require.NoError(t, err)
						assert.False(t, d.Allowed)
					}
					require.NoError(t, c.Flush(ctx))
					var exported bytes.Buffer
					require.NoError(t, c.Export(&exported))
					fleet.mu.Lock()
					defer fleet.mu.Unlock()
					for i := range n {
						want := s.bodies[i]
						rec := fleet.kept[fmt.Sprintf("https://h%d.example", i)]
						require.NotNil(t, rec, "site %d published", i)
						got := rec.File()
						if !rec.Truncated {
							assert.True(t, bytes.Equal(want, got), "site %d gen %d: fleet's record", i, gen)
						} else {
							assert.True(t, bytes.HasPrefix(want, got) && len(got) > 0, "site %d gen %d: fleet's truncated record", i, gen)
						}
						assert.NotContains(t, string(got), "\xaa\xaa\xaa\xaa", "site %d: poisoned memory published", i)
						assert.Contains(t, exported.String(), string(want[:40]), "site %d", i)
					}
					assert.NotContains(t, exported.String(), "\xaa\xaa\xaa\xaa")
				}
				check(0)
				// Refresh: some sites the same file, others another of the same size.
				clk.Advance(2 * time.Minute)
				s.mu.Lock()
				for i := range n {
					if i%2 == 1 {
						s.bodies[i] = rvBody(i, 1, pad)
					}
				}
				s.mu.Unlock()
				for i := range n {
					_, err := c.Allowed(ctx, fmt.Sprintf("https://h%d.example/", i))
					require.NoError(t, err)
				}
				// The refreshes run behind stale answers: each publishes its
				// record once stored, after the first round's n.
				for range 2 * n {
					<-fleet.published
				}
				require.NoError(t, c.Flush(ctx))
				for i := range n {
					gen := i % 2
					ok, err := c.Allowed(ctx, fmt.Sprintf("https://h%d.example/p%03d-g%d/x", i, i, gen))
					require.NoError(t, err)
					assert.False(t, ok, "site %d after refresh", i)
				}
			})
		}
	}
}

// Observed responses give their bodies' memory back too, and what the
// Client keeps of them stays right when that memory is reused (poisoned
// with -tags poisonbodies): answers, sitemaps and exports after each of
// two rounds of observed files, the second of other files of the same
// sizes.
func TestReleasedBodiesObserved(t *testing.T) {
	clk := newClock()
	c := newClient(t, clk, robots.Options{CacheBytes: 1 << 30})
	ctx := context.Background()
	for gen := range 2 {
		var bodies [][]byte
		for i, pad := range []int{100, 500, 3000} { // ~1 KiB, ~5 KiB, ~30 KiB
			body := rvBody(i, gen, pad)
			bodies = append(bodies, body)
			resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/plain"}},
				ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body))}
			require.NoError(t, c.Observe(fmt.Sprintf("https://h%d.example/robots.txt", i), resp))
		}
		var exported bytes.Buffer
		require.NoError(t, c.Export(&exported))
		assert.NotContains(t, exported.String(), "\xaa\xaa\xaa\xaa", "poisoned memory exported")
		for i, body := range bodies {
			ok, err := c.Allowed(ctx, fmt.Sprintf("https://h%d.example/p%03d-g%d/x", i, i, gen))
			require.NoError(t, err)
			assert.False(t, ok, "site %d gen %d", i, gen)
			sm, err := c.Sitemaps(ctx, fmt.Sprintf("https://h%d.example/", i))
			require.NoError(t, err)
			assert.Equal(t, []string{fmt.Sprintf("https://h%d.example/s%d.xml", i, gen)}, sm)
			assert.Contains(t, exported.String(), string(body), "site %d gen %d exported", i, gen)
		}
	}
	assert.Zero(t, c.Stats().Fetches, "observed, not fetched")
}
