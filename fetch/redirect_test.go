package fetch_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redirectOnce answers /robots.txt with code and Location loc, and every
// other path with the rules.
func redirectOnce(code int, loc string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if loc != "" {
				w.Header().Set("Location", loc)
			}
			w.WriteHeader(code)
			return
		}
		text(200, rules+"# at "+r.URL.RequestURI()+"\n")(w, r)
	}
}

// README status row "301, 302, 303, 307, 308 with a usable Location": follow. Other
// 3xx statuses are not redirects to follow: unavailable, allow-all.
func TestRedirectStatuses(t *testing.T) {
	for code := 300; code <= 308; code++ {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv := serve(t, redirectOnce(code, "/elsewhere/robots.txt"))
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			assert.Nil(t, res.Err)
			switch code {
			case 301, 302, 303, 307, 308:
				assert.Equal(t, 200, res.StatusCode)
				assert.Equal(t, []fetch.Hop{{URL: srv.URL + "/robots.txt", StatusCode: code, Location: "/elsewhere/robots.txt"}}, res.Redirects)
				assert.Equal(t, srv.URL+"/elsewhere/robots.txt", res.FinalURL)
				assert.Equal(t, srv.URL+"/robots.txt", res.URL, "rules apply to the original authority")
				assert.Contains(t, string(res.Body), "# at /elsewhere/robots.txt")
				outcome(t, res, status.Rules, status.Success)
			default:
				assert.Equal(t, code, res.StatusCode)
				assert.Empty(t, res.Redirects)
				assert.Equal(t, res.URL, res.FinalURL)
				assert.Nil(t, res.Body)
				outcome(t, res, status.AllowAll, status.RedirectFailed)
			}
		})
	}
}

// chain answers /r/N with a redirect to /r/N+1 for N < n, and /r/n with the
// rules; it counts the requests.
func chain(n int, requests *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if i < n {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", i+1), http.StatusFound)
			return
		}
		text(200, rules)(w, r)
	}
}

// RFC 9309 §2.3.1.2: at least five consecutive redirects are followed; more
// than five MAY be taken as unavailable, which this project does (Google: "treat
// this as a 404").
func TestRedirectLimit(t *testing.T) {
	tests := []struct {
		name         string
		maxRedirects int
		redirects    int
		followed     bool
	}{
		{"5 of default 5", 0, 5, true},
		{"6 of default 5", 0, 6, false},
		{"1 of 1", 1, 1, true},
		{"2 of 1", 1, 2, false},
		{"1 of none", -1, 1, false},
		{"10 of 10", 10, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := serve(t, chain(tt.redirects, &requests))
			res := get(t, fetch.Config{MaxRedirects: tt.maxRedirects}, srv.URL+"/r/0")
			if tt.followed {
				assert.Nil(t, res.Err)
				assert.Equal(t, 200, res.StatusCode)
				assert.Len(t, res.Redirects, tt.redirects)
				assert.Equal(t, fmt.Sprintf("%s/r/%d", srv.URL, tt.redirects), res.FinalURL)
				assert.Equal(t, int32(tt.redirects+1), requests.Load())
				outcome(t, res, status.Rules, status.Success)
				return
			}
			failed(t, res, fetch.TooManyRedirects, "redirect")
			assert.Equal(t, 302, res.StatusCode, "the last response is the redirect refused")
			limit := max(tt.maxRedirects, 0)
			if tt.maxRedirects == 0 {
				limit = fetch.DefaultMaxRedirects
			}
			assert.Len(t, res.Redirects, limit+1, "the refused redirect is listed")
			assert.Equal(t, int32(limit+1), requests.Load(), "the refused target is not requested")
			outcome(t, res, status.AllowAll, status.RedirectFailed)
		})
	}
}

func TestRedirectLoop(t *testing.T) {
	tests := map[string]http.HandlerFunc{
		"self": redirectOnce(301, "/robots.txt"),
		"two steps": func(w http.ResponseWriter, r *http.Request) {
			next := map[string]string{"/robots.txt": "/b", "/b": "/robots.txt"}[r.URL.Path]
			http.Redirect(w, r, next, http.StatusMovedPermanently)
		},
		"same URL spelled differently": func(w http.ResponseWriter, r *http.Request) {
			next := map[string]string{"/robots.txt": "/b", "/b": "HTTP://" + strings.ToUpper(r.Host) + ":80/robots.txt"}[r.URL.Path]
			if r.URL.Path == "/b" {
				next = "http://" + r.Host + "/robots.txt#again"
			}
			http.Redirect(w, r, next, http.StatusTemporaryRedirect)
		},
	}
	for name, h := range tests {
		t.Run(name, func(t *testing.T) {
			srv := serve(t, h)
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			failed(t, res, fetch.RedirectLoop, "redirect")
			assert.LessOrEqual(t, len(res.Redirects), 2)
			outcome(t, res, status.AllowAll, status.RedirectFailed)
		})
	}
}

// Relative Locations are resolved against the URL that answered (RFC 9110
// §10.2.2, RFC 3986 §5).
func TestRedirectRelative(t *testing.T) {
	var srv *httptest.Server
	tests := []struct{ location, final string }{
		{"/abs/robots.txt", "/abs/robots.txt"},
		{"other.txt", "/dir/other.txt"},
		{"../up.txt", "/up.txt"},
		{"?v=2", "/dir/robots.txt?v=2"},
		{"//HOST/scheme-relative.txt", "/scheme-relative.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.location, func(t *testing.T) {
			srv = serve(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.RequestURI() == "/dir/robots.txt" {
					w.Header().Set("Location", strings.Replace(tt.location, "HOST", r.Host, 1))
					w.WriteHeader(http.StatusFound)
					return
				}
				text(200, rules)(w, r)
			})
			res := get(t, fetch.Config{}, srv.URL+"/dir/robots.txt")
			assert.Nil(t, res.Err)
			assert.Equal(t, srv.URL+tt.final, res.FinalURL)
			outcome(t, res, status.Rules, status.Success)
		})
	}
}

// README status row "no usable Location, a non-http(s) target": unavailable,
// allow-all.
func TestRedirectUnusable(t *testing.T) {
	tests := []struct {
		name, location string
		class          fetch.Class
	}{
		{"no Location", "", fetch.BadLocation},
		{"ftp", "ftp://example.com/robots.txt", fetch.ForbiddenScheme},
		{"javascript", "javascript:alert(1)", fetch.ForbiddenScheme},
		{"file", "file:///etc/passwd", fetch.ForbiddenScheme},
		{"unparsable", "http://[::1/robots.txt", fetch.BadLocation},
		{"no host", "http:///robots.txt", fetch.BadLocation},
		{"bad port", "http://example.com:99999/robots.txt", fetch.BadLocation},
		{"control character", "/robots\t.txt", fetch.BadLocation}, // a header may hold a tab; a URL may not
		{"over-long", "/" + strings.Repeat("a", 9000), fetch.BadLocation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, redirectOnce(http.StatusFound, tt.location))
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			failed(t, res, tt.class, "redirect")
			assert.Equal(t, 302, res.StatusCode)
			require.Len(t, res.Redirects, 1)
			assert.Equal(t, tt.location, res.Redirects[0].Location)
			assert.Equal(t, srv.URL+"/robots.txt", res.FinalURL)
			outcome(t, res, status.AllowAll, status.RedirectFailed)
		})
	}
}

// A redirect may lead to a 4xx: that is the file's status.
func TestRedirectTo404(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, "/gone", http.StatusMovedPermanently)
			return
		}
		http.NotFound(w, r)
	})
	res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
	assert.Nil(t, res.Err)
	assert.Equal(t, 404, res.StatusCode)
	assert.Len(t, res.Redirects, 1)
	assert.Equal(t, srv.URL+"/gone", res.FinalURL)
	outcome(t, res, status.AllowAll, status.Unavailable)
}

// README status row "across hosts by default (option to stay on the same site);
// rules apply to the original authority". Two servers, several host names.
func TestRedirectOtherHost(t *testing.T) {
	var hitsB atomic.Int32
	a := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+r.URL.Query().Get("to")+"/robots.txt", http.StatusMovedPermanently)
	})
	b := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hitsB.Add(1)
		text(200, rules+"# served by "+r.Host+"\n")(w, r)
	})
	client := hostClient(map[string]*httptest.Server{
		"www.example.co.uk": a, "example.co.uk": b, "other.example": b, "cdn.example.co.uk": b,
		"192.0.2.1": a, "192.0.2.2": b,
	})
	tests := []struct {
		from, to string
		sameSite bool
	}{
		{"www.example.co.uk", "other.example", false},
		{"www.example.co.uk", "example.co.uk", true},
		{"www.example.co.uk", "cdn.example.co.uk", true},
		{"192.0.2.1", "192.0.2.2", false},
	}
	for _, tt := range tests {
		t.Run(tt.from+" to "+tt.to, func(t *testing.T) {
			start := "http://" + tt.from + "/robots.txt?to=" + tt.to

			res := get(t, fetch.Config{HTTPClient: client}, start)
			assert.Nil(t, res.Err)
			assert.Equal(t, "http://"+tt.to+"/robots.txt", res.FinalURL)
			assert.Equal(t, start, res.URL, "the rules are the original authority's")
			assert.Contains(t, string(res.Body), "# served by "+tt.to)
			outcome(t, res, status.Rules, status.Success)

			before := hitsB.Load()
			res = get(t, fetch.Config{HTTPClient: client, SameSiteRedirects: true}, start)
			if tt.sameSite {
				assert.Nil(t, res.Err)
				outcome(t, res, status.Rules, status.Success)
				return
			}
			failed(t, res, fetch.CrossSiteRedirect, "redirect")
			assert.Equal(t, before, hitsB.Load(), "the other site is not contacted")
			outcome(t, res, status.AllowAll, status.RedirectFailed)
		})
	}
}
