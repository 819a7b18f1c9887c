package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/internal/authority"
	"github.com/crawlkit/robots/status"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// README status row "2xx": the body is the file. Also the request as designed
// describes: GET, User-Agent, Accept, gzip at most, no cookies or
// credentials, no conditional headers without a copy held.
func TestOK(t *testing.T) {
	var got *http.Request
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		text(200, rules)(w, r)
	})
	robotsURL := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "/robots.txt#frag"
	res := get(t, fetch.Config{}, robotsURL)

	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, rules, string(res.Body))
	assert.False(t, res.Truncated)
	assert.Nil(t, res.Err)
	assert.Empty(t, res.Redirects)
	assert.Equal(t, srv.URL+"/robots.txt", res.URL, "userinfo and fragment dropped")
	assert.Equal(t, res.URL, res.FinalURL)
	assert.Equal(t, "text/plain", res.Header.Get("Content-Type"))
	assert.False(t, res.Conditional)
	assert.Equal(t, now, res.Start)
	assert.Equal(t, now, res.End)

	require.NotNil(t, got)
	assert.Equal(t, http.MethodGet, got.Method)
	assert.Equal(t, "/robots.txt", got.RequestURI)
	assert.Equal(t, fetch.DefaultUserAgent, got.Header.Get("User-Agent"))
	assert.Equal(t, "text/plain, */*;q=0.1", got.Header.Get("Accept"))
	assert.Equal(t, "gzip", got.Header.Get("Accept-Encoding"))
	for _, h := range []string{"Authorization", "Cookie", "If-None-Match", "If-Modified-Since"} {
		assert.Empty(t, got.Header.Get(h), h)
	}
	outcome(t, res, status.Rules, status.Success)
}

func TestUserAgent(t *testing.T) {
	var ua string
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { ua = r.UserAgent() })
	get(t, fetch.Config{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"}, srv.URL+"/robots.txt")
	assert.Equal(t, "ExampleBot/1.0 (+https://example.com/bot)", ua)
}

// README status row "204 or empty body": allow-all.
func TestNoContentAndEmptyBody(t *testing.T) {
	for _, code := range []int{200, 204} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			srv := serve(t, text(code, ""))
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			assert.Equal(t, code, res.StatusCode)
			assert.Empty(t, res.Body)
			assert.Nil(t, res.Err)
			outcome(t, res, status.AllowAll, status.Empty)
		})
	}
}

// README status row "2xx": HTML and undecodable bodies are parsed anyway; the
// fetcher passes them on byte for byte, Content-Type unchecked.
func TestBodyPassedAsIs(t *testing.T) {
	tests := map[string]struct{ contentType, body string }{
		"html":         {"text/html", "<!doctype html><html><body>Not a robots.txt</body></html>\n"},
		"invalid utf8": {"text/plain", "User-agent: *\nDisallow: /\xff\xfe\xc3(\n"},
		"binary":       {"application/octet-stream", "\x00\x01\x02\x89PNG\r\n"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.Write([]byte(tt.body))
			})
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			assert.Equal(t, 200, res.StatusCode)
			assert.Equal(t, []byte(tt.body), res.Body)
			assert.Nil(t, res.Err)
			outcome(t, res, status.Rules, status.Success)
		})
	}
}

// README status row "4xx except 429": unavailable, allow-all; the option makes 401
// and 403 disallow-all. The body of an error is not read.
func TestClientErrors(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404, 410, 451} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			srv := serve(t, text(code, "User-agent: *\nDisallow: /\n"))
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			assert.Equal(t, code, res.StatusCode)
			assert.Nil(t, res.Body, "error bodies are not read")
			assert.Nil(t, res.Err)
			o := outcome(t, res, status.AllowAll, status.Unavailable)
			assert.True(t, o.Unavailable())
			assert.False(t, o.Unreachable())
			assert.True(t, o.RetryAfter.IsZero())

			o = status.Options{DisallowOnAuthError: true}.Classify(res, now)
			if code == 401 || code == 403 {
				assert.Equal(t, status.DisallowAll, o.Verdict)
				assert.Equal(t, status.AuthDenied, o.Class)
			} else {
				assert.Equal(t, status.AllowAll, o.Verdict)
				assert.Equal(t, status.Unavailable, o.Class)
			}
		})
	}
}

// README status row "429, 5xx": unreachable, next try after Retry-After, clamped.
func TestServerErrors(t *testing.T) {
	tests := []struct {
		code       int
		retryAfter string
		want       time.Time
	}{
		{429, "120", now.Add(2 * time.Minute)},
		{429, "Wed, 21 Oct 2026 09:28:00 GMT", now.Add(2 * time.Hour)}, // an HTTP date
		{429, "5", now.Add(status.MinRetryAfter)},                      // clamped up
		{429, "", time.Time{}},                                         // no hint: the cache backs off
		{500, "", time.Time{}},
		{502, "", time.Time{}},
		{503, "3600", now.Add(time.Hour)},
		{503, "9999999999999999999999", now.Add(status.MaxRetryAfter)}, // clamped down
		{599, "soon", time.Time{}},                                     // invalid hint
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d %s", tt.code, tt.retryAfter), func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.code)
			})
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			assert.Equal(t, tt.code, res.StatusCode)
			assert.Nil(t, res.Err)
			o := outcome(t, res, status.DisallowAll, status.Unreachable)
			assert.True(t, o.Unreachable())
			assert.Equal(t, tt.want, o.RetryAfter)
		})
	}
}

// README status row "304 to a conditional refetch": the held validators are sent,
// and a 304 keeps the cached rules. Without validators a 304 is a 3xx that
// leads nowhere.
func TestConditional(t *testing.T) {
	var inm, ims atomic.Value
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		inm.Store(r.Header.Get("If-None-Match"))
		ims.Store(r.Header.Get("If-Modified-Since"))
		w.Header().Set("Cache-Control", "max-age=3600")
		w.WriteHeader(http.StatusNotModified)
	})
	f := newFetcher(t, fetch.Config{})
	v := fetch.Validators{ETag: `"abc"`, LastModified: "Tue, 20 Oct 2026 07:28:00 GMT"}
	res, err := f.Fetch(context.Background(), srv.URL+"/robots.txt", v)
	require.NoError(t, err)
	assert.Equal(t, `"abc"`, inm.Load())
	assert.Equal(t, "Tue, 20 Oct 2026 07:28:00 GMT", ims.Load())
	assert.True(t, res.Conditional)
	assert.Equal(t, 304, res.StatusCode)
	assert.Equal(t, "max-age=3600", res.Header.Get("Cache-Control"))
	outcome(t, res, status.NotModified, status.Unchanged)

	// A validator that is not a valid header value is not sent: a bad copy
	// must not make the file unreachable.
	res, err = f.Fetch(context.Background(), srv.URL+"/robots.txt", fetch.Validators{ETag: "\"a\"\r\nX-Evil: 1"})
	require.NoError(t, err)
	assert.Equal(t, "", inm.Load())
	assert.False(t, res.Conditional)
	outcome(t, res, status.AllowAll, status.RedirectFailed)
}

// README status row "the caller's context canceled or its deadline passed": an
// error, never an outcome.
func TestCallerContext(t *testing.T) {
	silent := rawServer(t, func(c net.Conn) { waitClosed(c) })

	t.Run("canceled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := newFetcher(t, fetch.Config{}).Fetch(ctx, silent+"/robots.txt", fetch.Validators{})
		assert.Nil(t, res)
		assert.ErrorIs(t, err, context.Canceled)
		var fe *fetch.Error
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, fetch.Canceled, fe.Class)
	})
	t.Run("deadline during the request", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		res, err := newFetcher(t, fetch.Config{Timeout: time.Minute}).Fetch(ctx, silent+"/robots.txt", fetch.Validators{})
		assert.Nil(t, res)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("canceled during the body", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("User-agent: *\n"))
			w.(http.Flusher).Flush()
			cancel()
			<-r.Context().Done()
		})
		res, err := newFetcher(t, fetch.Config{Timeout: time.Minute}).Fetch(ctx, srv.URL+"/robots.txt", fetch.Validators{})
		assert.Nil(t, res)
		assert.ErrorIs(t, err, context.Canceled)
	})
	t.Run("own deadline is not the caller's", func(t *testing.T) {
		res, err := newFetcher(t, fetch.Config{Timeout: 200 * time.Millisecond}).Fetch(context.Background(), silent+"/robots.txt", fetch.Validators{})
		require.NoError(t, err)
		failed(t, res, fetch.Timeout, "GET")
		assert.False(t, errors.Is(res.Err, context.DeadlineExceeded), "a fetch timeout must not look like the caller's")
		outcome(t, res, status.DisallowAll, status.Unreachable)
	})
}

func TestInvalidURL(t *testing.T) {
	f := newFetcher(t, fetch.Config{})
	for _, u := range []string{"", "/robots.txt", "ftp://example.com/robots.txt", "http://", "http://example.com:99999/robots.txt", "http://example.com/%zz"} {
		res, err := f.Fetch(context.Background(), u, fetch.Validators{})
		assert.Nil(t, res, u)
		var fe *fetch.Error
		require.ErrorAs(t, err, &fe, u)
		assert.Equal(t, fetch.InvalidURL, fe.Class, u)
		if u != "http://example.com/%zz" {
			var ae *authority.Error
			assert.ErrorAs(t, err, &ae, u)
		}
	}
}

// The clock is injectable: Result timestamps come from Config.Now.
func TestClock(t *testing.T) {
	srv := serve(t, text(200, rules))
	tick := now
	clock := func() time.Time { tick = tick.Add(time.Second); return tick }
	res := get(t, fetch.Config{Now: clock}, srv.URL+"/robots.txt")
	assert.Equal(t, now.Add(time.Second), res.Start)
	assert.Equal(t, now.Add(2*time.Second), res.End)
	assert.Equal(t, time.Second, res.Duration())
}

// A caller's client is used for its transport and timeout, never modified,
// and neither its jar nor its redirect policy is used.
func TestCallerClient(t *testing.T) {
	var cookies atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" {
			cookies.Add(1)
		}
		if r.URL.Path == "/robots.txt" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "1", Path: "/"})
			http.Redirect(w, r, "/real/robots.txt", http.StatusFound)
			return
		}
		text(200, rules)(w, r)
	})
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	transport := &http.Transport{MaxResponseHeaderBytes: 1 << 20}
	checkRedirect := func(*http.Request, []*http.Request) error { return errors.New("caller policy") }
	client := &http.Client{Transport: transport, Jar: jar, CheckRedirect: checkRedirect}

	res := get(t, fetch.Config{HTTPClient: client}, srv.URL+"/robots.txt")
	assert.Equal(t, 200, res.StatusCode)
	assert.Len(t, res.Redirects, 1)
	assert.Zero(t, cookies.Load(), "no cookie sent")
	outcome(t, res, status.Rules, status.Success)

	assert.Same(t, transport, client.Transport)
	assert.Equal(t, int64(1<<20), transport.MaxResponseHeaderBytes)
	assert.False(t, transport.DisableKeepAlives)
	assert.Same(t, jar, client.Jar)
	assert.NotNil(t, client.CheckRedirect)

	// The client's Timeout, shorter than the fetcher's (an hour), is the
	// deadline: the fetch fails with it before the caller's context, a
	// guard against a hang only, ends the wait.
	silent := rawServer(t, func(c net.Conn) { waitClosed(c) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err = newFetcher(t, fetch.Config{HTTPClient: &http.Client{Timeout: 200 * time.Millisecond}, Timeout: time.Hour}).
		Fetch(ctx, silent+"/robots.txt", fetch.Validators{})
	require.NoError(t, err, "the client's Timeout did not end the fetch")
	failed(t, res, fetch.Timeout, "GET")
}

// A RoundTripper that is not an *http.Transport is used as is.
func TestCallerRoundTripper(t *testing.T) {
	srv := serve(t, text(200, rules))
	var calls atomic.Int32
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})
	res := get(t, fetch.Config{HTTPClient: &http.Client{Transport: rt}}, srv.URL+"/robots.txt")
	assert.Equal(t, rules, string(res.Body))
	assert.Equal(t, int32(1), calls.Load())

	_, err := fetch.New(fetch.Config{HTTPClient: &http.Client{Transport: rt}, BlockPrivateNetworks: true})
	assert.Error(t, err, "the guard cannot be enforced through an opaque RoundTripper")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestErrorMessage(t *testing.T) {
	e := &fetch.Error{Class: fetch.Refused, Op: "GET", URL: "http://example.com/robots.txt", Err: errors.New("connection refused")}
	assert.Equal(t, "fetch: GET http://example.com/robots.txt: refused: connection refused", e.Error())
	assert.Equal(t, "Class(0)", fetch.Class(0).String())
	seen := map[string]bool{}
	for c := fetch.DNS; c <= fetch.InvalidURL; c++ {
		assert.False(t, seen[c.String()], c.String())
		assert.NotContains(t, c.String(), "Class(")
		seen[c.String()] = true
	}
}
