package robots_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/crawlkit/robots"
	"github.com/crawlkit/robots/internal/benchdata"
)

// BenchmarkClientAllowed measures Client.Allowed on a cache hit: URL parsing,
// the cache look-up and matching, for the typical file's paths in turn. Run
// with -cpu 1,2,…: under RunParallel the time per op must not grow.
func BenchmarkClientAllowed(b *testing.B) {
	c, ok := benchdata.Typical()
	if !ok {
		c = benchdata.PlainRules(200)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(c.Body)
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
	if _, err := rc.Allowed(ctx, urls[0]); err != nil { // warm the cache
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			rc.Allowed(ctx, urls[i])
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
				rc.Allowed(ctx, urls[i])
				if i++; i == len(urls) {
					i = 0
				}
			}
		})
	})
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

// BenchmarkClientUsage measures Client.Usage on a cache hit beside Allowed
// on the same file: the typical file with Content-Usage rules added to the
// crawler's group (a path-less one and one per path's first segment).
func BenchmarkClientUsage(b *testing.B) {
	c, ok := benchdata.Typical()
	if !ok {
		c = benchdata.PlainRules(200)
	}
	body := append([]byte(nil), c.Body...)
	body = append(body, "\nUser-agent: "+c.Agent+"\nAllow: /\nContent-Usage: train-ai=n\n"...)
	for i, p := range c.Paths {
		if i < 20 {
			body = append(body, "Content-Usage: "+p+" train-ai=y, search=y\n"...)
		}
	}
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
