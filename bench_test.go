package robots_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/benchdata"
)

// BenchmarkClientAllowed measures Client.Allowed on a cache hit: URL parsing,
// the cache look-up and matching, for the typical file's paths in turn. Run
// with -cpu 1,2,…: under RunParallel the time per op must not grow.
func BenchmarkClientAllowed(b *testing.B) {
	_, rc, urls, stop := typicalClient(b)
	defer stop()
	ctx := context.Background()
	cycle(b, urls, func(u string) { rc.Allowed(ctx, u) })
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			rc.Check(ctx, urls[i])
			if i++; i == len(urls) {
				i = 0
			}
		}
	})
	if rc.Stats().Fetches != 1 {
		b.Fatalf("%d fetches", rc.Stats().Fetches)
	}
}

// BenchmarkClientAllowedAs is BenchmarkClientAllowed for a Client made by
// As, once its rules are compiled: its agents select the same groups (the
// file names neither "OtherBot" nor the set), so the two compare the cost
// of finding a set's rules beside the file. Run both together.
func BenchmarkClientAllowedAs(b *testing.B) {
	c, rc, urls, stop := typicalClient(b)
	defer stop()
	rc, err := rc.As(c.Agent, "OtherBot")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := rc.Allowed(ctx, urls[0]); err != nil { // compile the set's rules
		b.Fatal(err)
	}
	cycle(b, urls, func(u string) { rc.Allowed(ctx, u) })
	if st := rc.Stats(); st.Fetches != 1 || st.AgentCompiles != 1 {
		b.Fatalf("%d fetches, %d compiles", st.Fetches, st.AgentCompiles)
	}
}

// typicalClient serves the typical file (or 200 plain rules without the
// corpus) and returns it, a Client for its agent with the file cached, the
// URLs of the file's paths, and a function that stops the server.
func typicalClient(b *testing.B) (benchdata.Case, *robots.Client, []string, func()) {
	c, ok := benchdata.Typical()
	if !ok {
		c = benchdata.PlainRules(200)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(c.Body)
	}))
	rc, err := robots.New(robots.Options{UserAgent: c.Agent + "/1.0"})
	if err != nil {
		b.Fatal(err)
	}
	urls := make([]string, len(c.Paths))
	for i, p := range c.Paths {
		urls[i] = srv.URL + p
	}
	if _, err := rc.Allowed(context.Background(), urls[0]); err != nil { // warm the cache
		b.Fatal(err)
	}
	return c, rc, urls, srv.Close
}

// cycle measures fn on urls in turn, serially and under RunParallel.
func cycle(b *testing.B, urls []string, fn func(string)) {
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			fn(urls[i])
			if i++; i == len(urls) {
				i = 0
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				fn(urls[i])
				if i++; i == len(urls) {
					i = 0
				}
			}
		})
	})
}

// hitShapes are URLs of every shape a crawler passes to Allowed, all on
// authorities the shape benchmarks and TestAllowedHitAllocs warm first. Each
// must cost no allocation on a cache hit (README, "Performance").
var hitShapes = []struct{ name, url string }{
	{"plain", "https://example.com/blogs/pad/entry.html"},
	{"upper-case-host", "https://Example.COM/blogs/pad/entry.html"},
	{"upper-case-scheme", "HTTPS://example.com/blogs/pad/entry.html"},
	{"userinfo", "https://user:secret@example.com/blogs/pad/entry.html"},
	{"raw-utf8-path", "https://example.com/blogs/caf\u00e9/men\u00fc.html"},
	{"idn-host", "https://www.ex\u00e4mple.com/blogs/pad/entry.html"},
	{"ipv6", "http://[2001:db8::1]:8080/blogs/pad/entry.html"},
	{"ipv6-uncanonical", "http://[2001:DB8:0:0::1]:8080/blogs/pad/entry.html"},
	{"default-port", "https://example.com:443/blogs/pad/entry.html"},
	{"port-leading-zeros", "https://example.com:08443/blogs/pad/entry.html"},
	{"percent-encoded-path", "https://example.com/blogs/%7euser/caf%c3%a9%2Fmen%C3%BC"},
	{"query", "https://example.com/search/?text=robots.txt&lr=213"},
	{"fragment", "https://example.com/blogs/pad/entry.html#comments"},
	{"robots-txt", "https://example.com/robots.txt"},
	{"long-path", "https://example.com/" + strings.Repeat("segment-of-a-long-path/", 40) + "end.html"},
}

// anyHost serves body as the robots.txt of every authority, without a
// network: the shape benchmarks reach hosts that do not resolve.
type anyHost []byte

func (b anyHost) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Cache-Control": {"max-age=86400"}}, Body: io.NopCloser(bytes.NewReader(b)),
		ContentLength: int64(len(b)), Request: r}, nil
}

// warmShapes returns a Client that has every authority of hitShapes cached,
// with the typical file (or 200 plain rules without the corpus).
func warmShapes(tb testing.TB) *robots.Client {
	c, ok := benchdata.Typical()
	if !ok {
		c = benchdata.PlainRules(200)
	}
	rc, err := robots.New(robots.Options{UserAgent: c.Agent + "/1.0", HTTPClient: &http.Client{Transport: anyHost(c.Body)}})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	for _, s := range hitShapes {
		if _, err := rc.Allowed(ctx, s.url); err != nil {
			tb.Fatal(err)
		}
		if _, err := rc.Allowed(ctx, s.url); err != nil { // the second sees every memo filled
			tb.Fatal(err)
		}
	}
	return rc
}

// BenchmarkAllowedShapes measures Client.Allowed on a cache hit for each URL
// shape of hitShapes.
func BenchmarkAllowedShapes(b *testing.B) {
	rc := warmShapes(b)
	ctx := context.Background()
	fetches := rc.Stats().Fetches
	for _, s := range hitShapes {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rc.Allowed(ctx, s.url)
			}
		})
	}
	if n := rc.Stats().Fetches; n != fetches {
		b.Fatalf("%d fetches during the benchmark: not all hits", n-fetches)
	}
}

// BenchmarkClientUsage measures Client.Usage on a cache hit beside Allowed
// on the same file: the typical file with Content-Usage rules added to the
// crawler's group (a path-less one and one per path's first segment).
func BenchmarkClientUsage(b *testing.B) {
	c, ok := benchdata.Typical()
	if !ok {
		c = benchdata.PlainRules(200)
	}
	body := benchdata.WithUsage(c)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	defer srv.Close()
	rc, err := robots.New(robots.Options{UserAgent: c.Agent + "/1.0"})
	if err != nil {
		b.Fatal(err)
	}
	urls := make([]string, len(c.Paths))
	for i, p := range c.Paths {
		urls[i] = srv.URL + p
	}
	ctx := context.Background()
	if _, err := rc.Usage(ctx, urls[0]); err != nil { // warm the cache
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name string
		fn   func(string)
	}{
		{"allowed", func(u string) { rc.Allowed(ctx, u) }},
		{"usage", func(u string) { rc.Usage(ctx, u) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				bm.fn(urls[i])
				if i++; i == len(urls) {
					i = 0
				}
			}
		})
	}
}
