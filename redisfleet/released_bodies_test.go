package redisfleet_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/redisfleet"
	"github.com/crawlkit/robots/redisfleet/internal/redistest"
)

type rvSites struct {
	bodies  [][]byte
	fetches atomic.Int64
}

func (s *rvSites) RoundTrip(req *http.Request) (*http.Response, error) {
	s.fetches.Add(1)
	i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(req.URL.Hostname(), "h"), ".example"))
	b := s.bodies[i]
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/plain"}}, ContentLength: int64(len(b)),
		Body: io.NopCloser(bytes.NewReader(b)), Request: req}, nil
}

// Records a Client publishes after its fetches, whose bodies it releases,
// are the files fetched: another process answers right from them.
func TestReleasedBodiesPublished(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	p := prefix()
	s := &rvSites{}
	n := 40
	for i := range n {
		b := []byte(fmt.Sprintf("User-agent: *\nDisallow: /p%03d/\n", i))
		s.bodies = append(s.bodies, append(b, bytes.Repeat([]byte("# pad\n"), 1000+i)...))
	}
	newC := func() *robots.Client {
		c, err := robots.New(robots.Options{UserAgent: "TestBot/1.0", HTTPClient: &http.Client{Transport: s},
			Fleet: redisfleet.New(rdb, redisfleet.Options{Prefix: p})})
		require.NoError(t, err)
		return c
	}
	a := newC()
	ctx := context.Background()
	for i := range n {
		ok, err := a.Allowed(ctx, fmt.Sprintf("https://h%d.example/p%03d/x", i, i))
		require.NoError(t, err)
		assert.False(t, ok)
	}
	require.NoError(t, a.Flush(ctx))
	b := newC()
	for i := range n {
		ok, err := b.Allowed(ctx, fmt.Sprintf("https://h%d.example/p%03d/x", i, i))
		require.NoError(t, err)
		assert.False(t, ok, "site %d from the fleet", i)
		ok, err = b.Allowed(ctx, fmt.Sprintf("https://h%d.example/p%03d/x", i, (i+1)%n))
		require.NoError(t, err)
		assert.True(t, ok, "site %d from the fleet", i)
	}
	assert.Equal(t, int64(n), s.fetches.Load(), "b took every record from the fleet")
	var exported bytes.Buffer
	require.NoError(t, b.Export(&exported))
	assert.NotContains(t, exported.String(), "\xaa\xaa\xaa\xaa")
}
