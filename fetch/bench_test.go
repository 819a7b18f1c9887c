package fetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/crawlkit/robots/fetch"
)

// BenchmarkFetch measures whole fetches from a loopback server. B/op shows
// the memory bound: for the 10 MB body and for the gzip bomb (1 GiB decoded)
// a fetch allocates a little more than the 500 KiB cap, not what the server
// sends.
func BenchmarkFetch(b *testing.B) {
	bomb, _ := bombServer(b, line)
	cases := []struct {
		name string
		url  string
	}{
		{"small", serve(b, text(200, rules)).URL},
		{"10MB", serve(b, text(200, strings.Repeat(line, 10_000_000/len(line)))).URL},
		{"gzip-bomb-1GiB", bomb.URL},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f := newFetcher(b, fetch.Config{})
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				res, err := f.Fetch(context.Background(), c.url+"/robots.txt", fetch.Validators{})
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
				n = int64(len(res.Body))
			}
			b.SetBytes(n)
		})
	}
}

// memorySite answers in memory, with one response reused, so that a
// benchmark counts the Fetcher's allocations alone. It answers with
// redirect first when that has a status. Not for concurrent use.
type memorySite struct {
	resp     http.Response
	redirect http.Response
	body     []byte
	reader   bytes.Reader
	hopped   bool
}

func (s *memorySite) RoundTrip(*http.Request) (*http.Response, error) {
	if s.redirect.StatusCode != 0 && !s.hopped {
		s.hopped = true
		return &s.redirect, nil
	}
	s.hopped = false
	s.reader.Reset(s.body)
	return &s.resp, nil
}

// BenchmarkFetchInMemory measures the Fetcher's own work and allocations
// per fetch, with no network: a 3 KiB body (the corpus mean) sent with the
// headers a real server sends, plain, with validators sent, behind one
// redirect, without a Content-Length, and gzipped; and a body of 12 KiB,
// lent (see Result.Release), released after each fetch or not.
func BenchmarkFetchInMemory(b *testing.B) {
	body := []byte(strings.Repeat("Disallow: /some/path/of/a/site/\n", 3<<10/32))
	large := bytes.Repeat(body, 4)
	header := http.Header{
		"Content-Type":  {"text/plain"},
		"Date":          {"Fri, 27 Nov 2026 10:00:00 GMT"},
		"Cache-Control": {"max-age=86400"},
		"Etag":          {`"5f2e8c1d"`},
		"Last-Modified": {"Mon, 02 Nov 2026 10:00:00 GMT"},
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(body)
	zw.Close()
	gzipHeader := header.Clone()
	gzipHeader.Set("Content-Encoding", "gzip")
	cases := []struct {
		name     string
		v        fetch.Validators
		redirect bool
		length   int64 // announced: -1 for none
		header   http.Header
		sent     []byte
	}{
		{"plain", fetch.Validators{}, false, int64(len(body)), header, body},
		{"validators", fetch.Validators{ETag: `"5f2e8c1d"`, LastModified: "Mon, 02 Nov 2026 10:00:00 GMT"}, false, int64(len(body)), header, body},
		{"redirect", fetch.Validators{}, true, int64(len(body)), header, body},
		{"no-length", fetch.Validators{}, false, -1, header, body},
		{"gzip", fetch.Validators{}, false, int64(zipped.Len()), gzipHeader, zipped.Bytes()},
		{"12KiB", fetch.Validators{}, false, int64(len(large)), header, large},
		{"12KiB-released", fetch.Validators{}, false, int64(len(large)), header, large},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := &memorySite{body: c.sent}
			s.resp = http.Response{StatusCode: http.StatusOK, Header: c.header, ContentLength: c.length, Body: io.NopCloser(&s.reader)}
			if c.redirect {
				s.redirect = http.Response{StatusCode: http.StatusMovedPermanently, Header: http.Header{"Location": {"https://www.example.com/robots.txt"}}, Body: http.NoBody}
			}
			f := newFetcher(b, fetch.Config{HTTPClient: &http.Client{Transport: s}})
			ctx := context.Background()
			decoded := len(body)
			if len(c.sent) == len(large) {
				decoded = len(large)
			}
			b.SetBytes(int64(decoded))
			b.ReportAllocs()
			release := strings.HasSuffix(c.name, "-released")
			for b.Loop() {
				res, err := f.Fetch(ctx, "https://example.com/robots.txt", c.v)
				if err != nil || res.Err != nil || len(res.Body) != decoded {
					b.Fatal(err, res.Err)
				}
				if release {
					res.Release()
				}
			}
		})
	}
}
