package robots_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/authority"
)

// README, "Performance": Allowed on a cache hit allocates nothing, for
// every URL shape; so do Check's and Allowed's answers on /robots.txt.
func TestAllowedHitAllocs(t *testing.T) {
	rc := warmShapes(t)
	ctx := context.Background()
	fetches := rc.Stats().Fetches
	for _, s := range hitShapes {
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := rc.Allowed(ctx, s.url); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "%s: %s", s.name, s.url)
	}
	require.Equal(t, fetches, rc.Stats().Fetches, "every answer was a hit")
}

// A Client made by As answers a cache hit without allocating too, once its
// rules are compiled, for every URL shape.
func TestAsHitAllocs(t *testing.T) {
	rc := warmShapes(t)
	v, err := rc.As(append(rc.Agents(), "OtherBot")...)
	require.NoError(t, err)
	ctx := context.Background()
	for _, s := range hitShapes {
		_, err := v.Allowed(ctx, s.url) // compiles the rules for v's agents
		require.NoError(t, err)
	}
	st := rc.Stats()
	require.Positive(t, st.AgentCompiles)
	for _, s := range hitShapes {
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := v.Allowed(ctx, s.url); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "%s: %s", s.name, s.url)
	}
	after := rc.Stats()
	require.Equal(t, st.Fetches, after.Fetches, "every answer was a hit")
	require.Equal(t, st.AgentCompiles, after.AgentCompiles, "compiled once")
}

// Allowed reads the path as written, not its wire form: every shape must be
// answered as the URL Parse makes of it (Key+PathQuery, in canonical form).
func TestAllowedShapesAsCanonical(t *testing.T) {
	body := "User-agent: *\nDisallow: /private\nAllow: /private/ok\nDisallow: /caf%C3%A9/\n" +
		"Disallow: /*.pdf$\nDisallow: /search?q=\nDisallow: /a%2Fb\nDisallow: /%7Euser\n"
	rc, err := robots.New(robots.Options{UserAgent: "TestBot/1.0", HTTPClient: &http.Client{Transport: anyHost(body)}})
	require.NoError(t, err)
	ctx := context.Background()
	disallowed := 0
	for _, u := range []string{
		"https://Example.COM/private/x",
		"HTTPS://user:pw@example.com:443/private/ok/y",
		"https://example.com/caf\u00e9/menu",
		"https://example.com/caf%c3%a9/menu",
		"https://www.ex\u00e4mple.com/doc.pdf",
		"https://www.ex\u00e4mple.com/doc.pdf?x",
		"http://[2001:DB8::1]:0080/search?q=robots#frag",
		"https://example.com/a%2fb",
		"https://example.com/a/b",
		"https://example.com/~user/x",
		"https://example.com/%7euser/x",
		"https://example.com/space here/\u00fc",
		"https://example.com?q",
	} {
		a, err := authority.Parse(u)
		require.NoError(t, err, u)
		canonical := a.Key + a.PathQuery
		want, err := rc.Check(ctx, canonical)
		require.NoError(t, err, canonical)
		got, err := rc.Check(ctx, u)
		require.NoError(t, err, u)
		assert.Equal(t, want.Allowed, got.Allowed, "%s as %s", u, canonical)
		assert.Equal(t, want.Rule, got.Rule, "%s as %s", u, canonical)
		ok, err := rc.Allowed(ctx, u)
		require.NoError(t, err, u)
		assert.Equal(t, want.Allowed, ok, u)
		if !ok {
			disallowed++
		}
	}
	assert.GreaterOrEqual(t, disallowed, 6, "the table exercises rules")
}

// On the default clock a hit reads no time, but an outage without a good
// copy is answered by the time it has lasted (RFC 9309 §2.3.1.4): the hit
// must read the clock for it.
func TestHitOutageReadsTheClock(t *testing.T) {
	s := newSite(t, statusCode(http.StatusInternalServerError))
	ctx := context.Background()
	for _, tt := range []struct {
		after time.Duration
		want  bool
	}{
		{time.Nanosecond, true}, // lasted longer than that: allowed
		{time.Hour, false},
		{-1, false}, // never
	} {
		c := newClient(t, nil, robots.Options{UnreachableAllowAfter: tt.after})
		_, err := c.Allowed(ctx, s.URL+"/x") // the fetch
		require.NoError(t, err)
		before := c.Stats()
		got, err := c.Allowed(ctx, s.URL+"/x")
		require.NoError(t, err)
		after := c.Stats()
		require.Equal(t, before.Hits+1, after.Hits, "a hit")
		require.Equal(t, before.Fetches, after.Fetches)
		assert.Equal(t, tt.want, got, "UnreachableAllowAfter %v", tt.after)
	}
}
