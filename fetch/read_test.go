package fetch_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
)

// body is a response body that counts what is read of it and whether it
// was closed; it never ends unless limited.
type body struct {
	r      io.Reader
	read   atomic.Int64
	closed atomic.Bool
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read.Add(int64(n))
	return n, err
}

func (b *body) Close() error { b.closed.Store(true); return nil }

// endless repeats line forever.
type endless string

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e[i%len(e)]
	}
	return len(p), nil
}

func response(t *testing.T, code int, b io.Reader, header ...string) (*http.Response, *body) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "https://example.com/robots.txt", nil)
	require.NoError(t, err)
	bd := &body{r: b}
	resp := &http.Response{StatusCode: code, Header: http.Header{}, Body: bd, Request: req, ContentLength: -1}
	for i := 0; i+1 < len(header); i += 2 {
		resp.Header.Add(header[i], header[i+1])
	}
	return resp, bd
}

// Read records a response the caller made itself as Fetch records its own.
func TestReadAsFetch(t *testing.T) {
	f := newFetcher(t, fetch.Config{})
	resp, bd := response(t, 200, strings.NewReader(rules), "Cache-Control", "max-age=60")
	res, err := f.Read("https://example.com/robots.txt", resp)
	require.NoError(t, err)
	assert.Equal(t, []byte(rules), res.Body)
	assert.Equal(t, "https://example.com/robots.txt", res.URL)
	assert.Equal(t, "https://example.com/robots.txt", res.FinalURL)
	assert.Equal(t, "max-age=60", res.Header.Get("Cache-Control"))
	assert.False(t, res.Conditional)
	assert.Nil(t, res.Err)
	assert.True(t, bd.closed.Load())
	outcome(t, res, status.Rules, status.Success)

	// A 503's body is not read, but closed; the status says it all.
	resp, bd = response(t, 503, endless("x"))
	res, err = f.Read("https://example.com/robots.txt", resp)
	require.NoError(t, err)
	assert.Nil(t, res.Body)
	assert.Zero(t, bd.read.Load())
	assert.True(t, bd.closed.Load())
	outcome(t, res, status.DisallowAll, status.Unreachable)
}

// The body is read up to the cap, never to the end of an oversized one, and
// a gzip body is decoded as a fetch decodes it.
func TestReadBounded(t *testing.T) {
	f := newFetcher(t, fetch.Config{})
	resp, bd := response(t, 200, endless("Disallow: /a\n"))
	res, err := f.Read("https://example.com/robots.txt", resp)
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.LessOrEqual(t, len(res.Body), fetch.DefaultMaxBytes)
	assert.Less(t, bd.read.Load(), int64(fetch.DefaultMaxBytes+64<<10), "never read to the end")
	assert.True(t, bd.closed.Load())

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(rules))
	zw.Close()
	resp, _ = response(t, 200, &gz, "Content-Encoding", "gzip")
	res, err = f.Read("https://example.com/robots.txt", resp)
	require.NoError(t, err)
	assert.Equal(t, rules, string(res.Body))

	resp, _ = response(t, 200, io.MultiReader(strings.NewReader("User-agent: *\n"), errReader{io.ErrUnexpectedEOF}))
	res, err = f.Read("https://example.com/robots.txt", resp)
	require.NoError(t, err)
	failed(t, res, fetch.BodyCut, "read body")
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// The redirects an http.Client followed are recorded from the response's
// request chain; userinfo is never recorded.
func TestReadRedirects(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, "/moved/robots.txt", http.StatusMovedPermanently)
			return
		}
		w.Write([]byte(rules))
	})
	u, _ := url.Parse(srv.URL)
	u.User = url.UserPassword("user", "secret")
	resp, err := srv.Client().Get(u.String() + "/robots.txt")
	require.NoError(t, err)
	res, err := newFetcher(t, fetch.Config{}).Read(srv.URL+"/robots.txt", resp)
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/moved/robots.txt", res.FinalURL)
	require.Len(t, res.Redirects, 1)
	assert.Equal(t, fetch.Hop{URL: srv.URL + "/robots.txt", StatusCode: 301, Location: "/moved/robots.txt"}, res.Redirects[0])
	assert.NotContains(t, res.FinalURL+res.Redirects[0].URL, "secret")
	assert.Equal(t, rules, string(res.Body))
}

func TestReadRefuses(t *testing.T) {
	f := newFetcher(t, fetch.Config{})
	resp, bd := response(t, 302, strings.NewReader(""), "Location", "/elsewhere")
	_, err := f.Read("https://example.com/robots.txt", resp)
	assert.ErrorIs(t, err, fetch.ErrNotFinal)
	assert.True(t, bd.closed.Load())

	resp, bd = response(t, 200, strings.NewReader(rules))
	_, err = f.Read("ftp://example.com/robots.txt", resp)
	var fe *fetch.Error
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, fetch.InvalidURL, fe.Class)
	assert.True(t, bd.closed.Load(), "the body is closed whatever the error")

	_, err = f.Read("https://example.com/robots.txt", nil)
	assert.Error(t, err)

	// A conditional request makes a 304 mean "unchanged".
	resp, _ = response(t, 304, strings.NewReader(""))
	resp.Request.Header.Set("If-None-Match", `"v1"`)
	res, err := f.Read("https://example.com/robots.txt", resp)
	require.NoError(t, err)
	assert.True(t, res.Conditional)
	outcome(t, res, status.NotModified, status.Unchanged)
}
