package fetch_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/fetch"
)

// A fetch without redirects allocates its Result and its first request,
// with the request's URL and header values, at once, then the header map
// (two allocations), its deadline (a context, a timer and two functions) and
// the body: eight allocations. The bound catches a change that adds one to every fetch.
// The body is below the size whose memory is lent, so no pool is involved.
func TestFetchAllocations(t *testing.T) {
	body := []byte(strings.Repeat("Disallow: /x/\n", 20)) // 280 bytes
	cases := []struct {
		name string
		v    fetch.Validators
	}{
		{"plain", fetch.Validators{}},
		{"validators", fetch.Validators{ETag: `"v1"`, LastModified: "Mon, 02 Nov 2026 10:00:00 GMT"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &memorySite{body: body}
			s.resp = http.Response{StatusCode: http.StatusOK, Header: http.Header{"Etag": {`"v1"`}},
				ContentLength: int64(len(body)), Body: io.NopCloser(&s.reader)}
			f := newFetcher(t, fetch.Config{HTTPClient: &http.Client{Transport: s}})
			ctx := context.Background()
			allocs := testing.AllocsPerRun(100, func() {
				res, err := f.Fetch(ctx, "https://example.com/robots.txt", c.v)
				if err != nil || res.Err != nil || len(res.Body) != len(body) {
					t.Fatal(err, res.Err)
				}
			})
			assert.LessOrEqual(t, allocs, 8.0)
		})
	}
}

// headerScribbler changes, in place, the header values of every request it
// is given, after recording them, and answers with a redirect first, then
// with the file.
type headerScribbler struct {
	seen []http.Header   // each request's headers as received, copied
	kept []http.Header   // each request's headers, as the request holds them
	reqs []*http.Request // each request
	urls []string        // each request's URL as received
}

func (s *headerScribbler) RoundTrip(req *http.Request) (*http.Response, error) {
	s.seen = append(s.seen, req.Header.Clone())
	s.kept = append(s.kept, req.Header)
	s.reqs = append(s.reqs, req)
	s.urls = append(s.urls, req.URL.String())
	for _, vs := range req.Header {
		vs[0] = "scribbled"
	}
	req.Header["Accept"] = append(req.Header["Accept"], "appended")
	if len(s.seen)%2 == 1 { // the first hop of each fetch
		return &http.Response{StatusCode: http.StatusFound, Header: http.Header{"Location": {"/elsewhere/robots.txt"}},
			Body: http.NoBody, Request: req}, nil
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, ContentLength: 2,
		Body: io.NopCloser(strings.NewReader("x\n")), Request: req}, nil
}

// Each request has header values of its own, the first hop's included,
// which share memory with its Result: what a RoundTripper does to one
// request's headers changes neither the next hop's nor the next fetch's, and
// a request a RoundTripper keeps stays as it was given.
func TestRequestHeadersOwnedPerHop(t *testing.T) {
	s := &headerScribbler{}
	f := newFetcher(t, fetch.Config{HTTPClient: &http.Client{Transport: s}, UserAgent: "agent/1"})
	v := fetch.Validators{ETag: `"v1"`}
	for range 2 {
		res, err := f.Fetch(context.Background(), "https://example.com/robots.txt", v)
		require.NoError(t, err)
		require.Nil(t, res.Err)
		require.Len(t, res.Redirects, 1)
	}
	require.Len(t, s.seen, 4)
	want := http.Header{
		"User-Agent":      {"agent/1"},
		"Accept":          {"text/plain, */*;q=0.1"},
		"Accept-Encoding": {"gzip"},
		"If-None-Match":   {`"v1"`},
	}
	for i, h := range s.seen {
		assert.Equal(t, want, h, "request %d", i)
	}
	for i, h := range s.kept {
		assert.Equal(t, "scribbled", h.Get("User-Agent"), "request %d keeps what was done to it", i)
		assert.Equal(t, []string{"scribbled", "appended"}, h["Accept"], "request %d", i)
	}
	for i, req := range s.reqs {
		for j := range i {
			assert.NotSame(t, s.reqs[j], req, "requests %d and %d", j, i)
		}
		assert.Equal(t, s.urls[i], req.URL.String(), "request %d", i)
		assert.Equal(t, s.kept[i], req.Header, "request %d", i)
		assert.NotNil(t, req.Context(), "request %d", i)
	}
	assert.Equal(t, []string{"https://example.com/robots.txt", "https://example.com/elsewhere/robots.txt",
		"https://example.com/robots.txt", "https://example.com/elsewhere/robots.txt"}, s.urls)
}

// Read makes its Result and the body's memory, and nothing for the URL it
// only keeps as a string.
func TestReadAllocations(t *testing.T) {
	body := strings.Repeat("Disallow: /x/\n", 20)
	f := newFetcher(t, fetch.Config{})
	var rd strings.Reader
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, ContentLength: int64(len(body)),
		Body: io.NopCloser(&rd)}
	allocs := testing.AllocsPerRun(100, func() {
		rd.Reset(body)
		res, err := f.Read("https://example.com/robots.txt", resp)
		if err != nil || res.Err != nil || len(res.Body) != len(body) {
			t.Fatal(err, res.Err)
		}
	})
	assert.LessOrEqual(t, allocs, 2.0)
}
