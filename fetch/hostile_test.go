package fetch_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shortTimeout keeps the deadline tests fast.
const shortTimeout = 300 * time.Millisecond

// reply returns a raw server handler that writes s and closes.
func reply(s string) func(net.Conn) {
	return func(c net.Conn) { io.WriteString(c, s) }
}

// README status row "a status outside 100–599": unreachable. So is a final 1xx,
// which answers no GET, and a status line net/http cannot read.
func TestOddStatus(t *testing.T) {
	tests := []struct {
		statusLine string
		code       int
	}{
		{"HTTP/1.1 099 Odd", 99},
		{"HTTP/1.1 600 Odd", 600},
		{"HTTP/1.1 999 Odd", 999},
		{"HTTP/1.1 101 Switching Protocols", 101},
		{"HTTP/1.1 000 Zero", 0},
	}
	for _, tt := range tests {
		t.Run(tt.statusLine, func(t *testing.T) {
			base := rawServer(t, reply(tt.statusLine+"\r\nContent-Length: 0\r\nRetry-After: 120\r\n\r\n"))
			res := get(t, fetch.Config{}, base+"/robots.txt")
			assert.Nil(t, res.Err)
			assert.Equal(t, tt.code, res.StatusCode)
			o := outcome(t, res, status.DisallowAll, status.Unreachable)
			assert.Equal(t, now.Add(2*time.Minute), o.RetryAfter)
		})
	}
}

// Google: "invalid responses" are treated as server errors: unreachable.
func TestMalformedResponse(t *testing.T) {
	tests := map[string]string{
		"two-digit status":     "HTTP/1.1 99 Odd\r\n\r\n",
		"no status code":       "HTTP/1.1\r\n\r\n",
		"not HTTP":             "SSH-2.0-OpenSSH_9.6\r\n",
		"bad version":          "HTTP/9 200 OK\r\n\r\n",
		"control in header":    "HTTP/1.1 302 Found\r\nLocation: /robots.txt\x7f\r\n\r\n",
		"closed without reply": "",
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			base := rawServer(t, reply(raw))
			res := get(t, fetch.Config{}, base+"/robots.txt")
			failed(t, res, fetch.BadResponse, "GET")
			assert.Zero(t, res.StatusCode)
			assert.Nil(t, res.Header)
			outcome(t, res, status.DisallowAll, status.Unreachable)
		})
	}
}

// README status row "network error: refused": unreachable.
func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	res := get(t, fetch.Config{}, "http://"+addr+"/robots.txt")
	failed(t, res, fetch.Refused, "GET")
	assert.Zero(t, res.StatusCode)
	outcome(t, res, status.DisallowAll, status.Unreachable)
}

// README status row "network error: DNS". The resolver is the pure Go one with no
// server to ask: every lookup fails at once, whatever the machine's
// resolver, network or /etc/resolv.conf. (RFC 6761: names under .invalid
// never resolve, should a lookup get out anyway.)
func TestDNSFailure(t *testing.T) {
	resolver := &net.Resolver{
		PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("no DNS server in this test")
		},
	}
	dialer := &net.Dialer{Resolver: resolver}
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	res := get(t, fetch.Config{HTTPClient: hc, Timeout: 5 * time.Second}, "http://robots-test.invalid/robots.txt")
	failed(t, res, fetch.DNS, "GET")
	var dnsErr *net.DNSError
	require.ErrorAs(t, res.Err, &dnsErr)
	assert.Equal(t, "robots-test.invalid", dnsErr.Name)
	outcome(t, res, status.DisallowAll, status.Unreachable)
}

// README status row "network error: reset": a connection reset in the middle of
// the body.
func TestResetMidBody(t *testing.T) {
	base := rawServer(t, func(c net.Conn) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nUser-agent: *\nDisallow: /a\n")
		c.(*net.TCPConn).SetLinger(0) // close with RST
	})
	res := get(t, fetch.Config{}, base+"/robots.txt")
	failed(t, res, fetch.Reset, "read body")
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "User-agent: *\nDisallow: /a\n", string(res.Body), "what was read is kept, but is not the file")
	outcome(t, res, status.DisallowAll, status.Unreachable)
}

// README status row "network error: body cut short": fewer bytes than announced,
// then a clean close.
func TestBodyCutShort(t *testing.T) {
	for name, raw := range map[string]string{
		"content-length": "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nUser-agent: *\n",
		"chunked":        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nUser-agent: *\nDi\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			res := get(t, fetch.Config{}, rawServer(t, reply(raw))+"/robots.txt")
			failed(t, res, fetch.BodyCut, "read body")
			assert.Equal(t, 200, res.StatusCode)
			outcome(t, res, status.DisallowAll, status.Unreachable)
		})
	}
}

// README status row "network error: timeout": a server that accepts and never
// answers, and one that drips the body, each octet well within the
// deadline, all of them far past it. One deadline covers the whole fetch:
// a fetch that ends at all, with a timeout, shows it (neither server ends
// on its own), and no test here bounds how fast it ends.
func TestDeadline(t *testing.T) {
	t.Run("never answers", func(t *testing.T) {
		base := rawServer(t, waitClosed)
		start := time.Now()
		res := get(t, fetch.Config{Timeout: shortTimeout}, base+"/robots.txt")
		failed(t, res, fetch.Timeout, "GET")
		assert.Zero(t, res.StatusCode)
		// A lower bound, which no load can break: the deadline is the one
		// configured, not a shorter one.
		assert.GreaterOrEqual(t, time.Since(start), shortTimeout)
		outcome(t, res, status.DisallowAll, status.Unreachable)
	})
	t.Run("drip", func(t *testing.T) {
		// An octet every tenth of the deadline: a timeout on each read
		// would never fire, and the 1,000 octets take 100 deadlines.
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			tick := time.NewTicker(shortTimeout / 10)
			defer tick.Stop()
			for i := 0; ; i++ {
				w.Write([]byte{"User-agent: *\n"[i%14]})
				w.(http.Flusher).Flush()
				select {
				case <-tick.C:
				case <-r.Context().Done():
					return
				}
			}
		})
		res := get(t, fetch.Config{Timeout: shortTimeout}, srv.URL+"/robots.txt")
		failed(t, res, fetch.Timeout, "read body")
		assert.Equal(t, 200, res.StatusCode)
		outcome(t, res, status.DisallowAll, status.Unreachable)
	})
	t.Run("over redirects", func(t *testing.T) {
		// Each hop answers in time; together they do not. A hop takes a
		// third of the deadline at least (a timer never fires early), so
		// at most three fit in it, of the 100 a deadline per hop would
		// let the fetch follow.
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(shortTimeout / 3):
			case <-r.Context().Done():
				return
			}
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		})
		res := get(t, fetch.Config{Timeout: shortTimeout, MaxRedirects: 100}, srv.URL+"/robots.txt")
		failed(t, res, fetch.Timeout, "GET")
		assert.Less(t, len(res.Redirects), 4)
	})
}

// line is a robots.txt line of 101 bytes: 500 KiB is not a multiple of it,
// so the cap falls in the middle of a line.
var line = "Disallow: /" + strings.Repeat("a", 89) + "\n"

// README status row "2xx": at most MaxBytes, a line cut by the cap dropped. The
// server sends 10 MB.
func TestBodyCap(t *testing.T) {
	big := strings.Repeat(line, 10_000_000/len(line))
	srv := serve(t, text(200, big))
	res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
	assert.Nil(t, res.Err)
	assert.True(t, res.Truncated)
	whole := fetch.DefaultMaxBytes / len(line) // complete lines under the cap
	require.Len(t, res.Body, whole*len(line))
	assert.Equal(t, big[:whole*len(line)], string(res.Body))
	outcome(t, res, status.Rules, status.Success)

	t.Run("MaxBytes clamped up", func(t *testing.T) {
		res := get(t, fetch.Config{MaxBytes: 100}, srv.URL+"/robots.txt")
		assert.Len(t, res.Body, whole*len(line))
	})
	t.Run("MaxBytes raised", func(t *testing.T) {
		res := get(t, fetch.Config{MaxBytes: 1 << 20}, srv.URL+"/robots.txt")
		assert.Len(t, res.Body, (1<<20)/len(line)*len(line))
	})
	t.Run("MaxBytes clamped down", func(t *testing.T) {
		res := get(t, fetch.Config{MaxBytes: math.MaxInt64}, srv.URL+"/robots.txt")
		assert.Nil(t, res.Err)
		assert.False(t, res.Truncated)
		assert.Len(t, res.Body, len(big))
	})
}

// The cap has a ceiling of 32 MiB, whatever MaxBytes asks: a body past it is
// cut there, as past any cap.
func TestBodyCapCeiling(t *testing.T) {
	const ceiling = 32 << 20
	require.EqualValues(t, ceiling, fetch.MaxMaxBytes)
	big := strings.Repeat(line, ceiling/len(line)+2)
	srv := serve(t, text(200, big))
	for _, asked := range []int64{ceiling + 1, 1 << 30, math.MaxInt64} {
		res := get(t, fetch.Config{MaxBytes: asked}, srv.URL+"/robots.txt")
		assert.Nil(t, res.Err)
		assert.True(t, res.Truncated, "MaxBytes %d", asked)
		assert.Len(t, res.Body, ceiling/len(line)*len(line), "MaxBytes %d", asked)
	}
	res := get(t, fetch.Config{MaxBytes: ceiling}, srv.URL+"/robots.txt")
	assert.Len(t, res.Body, ceiling/len(line)*len(line), "at the ceiling")
}

// STYLE.md 12: the body bound, tested at the bound.
func TestBodyCapBound(t *testing.T) {
	const max = fetch.DefaultMaxBytes
	fill := func(n int) string { // n bytes of lines, the last ending at n
		return strings.Repeat("#", n-1) + "\n"
	}
	tests := []struct {
		name      string
		body      string
		want      int
		truncated bool
	}{
		{"one under", fill(max - 1), max - 1, false},
		{"exactly", fill(max), max, false},
		{"line ends at the cap, LF after", fill(max) + "\n", max, true},
		{"line ends at the cap, CR after", fill(max-1) + "\r" + "\r\n", max, true},
		{"one over, cut line dropped", fill(max-10) + strings.Repeat("x", 11), max - 10, true},
		{"single line over the cap", strings.Repeat("x", max+1), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, text(200, tt.body))
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			assert.Nil(t, res.Err)
			assert.Equal(t, tt.truncated, res.Truncated)
			require.Len(t, res.Body, tt.want)
			assert.Equal(t, tt.body[:tt.want], string(res.Body))
		})
	}
	// A body reduced to nothing by the cap is an empty file: allow-all.
	srv := serve(t, text(200, strings.Repeat("x", max+1)))
	outcome(t, get(t, fetch.Config{}, srv.URL+"/robots.txt"), status.AllowAll, status.Empty)
}

// gzipMember returns one gzip member of n bytes made of s repeated.
func gzipMember(t testing.TB, s string, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write([]byte(strings.Repeat(s, n/len(s))))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// gzipServer serves body with Content-Encoding encoding.
func gzipServer(t testing.TB, encoding string, body []byte) *httptest.Server {
	return serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", encoding)
		w.Write(body)
	})
}

func TestGzip(t *testing.T) {
	member := gzipMember(t, rules, 10*len(rules))
	want := strings.Repeat(rules, 10)
	corrupt := bytes.Clone(member)
	corrupt[len(corrupt)-5] ^= 0xff // the CRC-32 of the trailer

	tests := []struct {
		name, encoding string
		body           []byte
		want           string
		class          fetch.Class
	}{
		{"gzip", "gzip", member, want, 0},
		{"x-gzip", "x-gzip", member, want, 0},
		{"case and space", " GZip ", member, want, 0},
		{"two members", "gzip", append(bytes.Clone(member), member...), want + want, 0},
		// Some servers pad gzip bodies; browsers ignore what follows a member.
		{"trailing garbage", "gzip", append(bytes.Clone(member), 0, 0, 0, 0), want, 0},
		// A body labeled gzip that is not is parsed as it is.
		{"mislabeled", "gzip", []byte(rules), rules, 0},
		{"empty", "gzip", nil, "", 0},
		{"unrequested encoding", "br", []byte("\x1b\x00"), "\x1b\x00", 0},
		// By design: undecodable bodies are parsed anyway; deflate is not asked for.
		{"deflate", "deflate", deflated(t, rules), string(deflated(t, rules)), 0},
		{"checksum", "gzip", corrupt, "", fetch.BadResponse},
		{"truncated", "gzip", member[:len(member)/2], "", fetch.BodyCut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gzipServer(t, tt.encoding, tt.body)
			res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
			if tt.class != 0 {
				failed(t, res, tt.class, "read body")
				outcome(t, res, status.DisallowAll, status.Unreachable)
				return
			}
			assert.Nil(t, res.Err)
			assert.Equal(t, tt.want, string(res.Body))
		})
	}
}

// countingTransport counts the bytes read from response bodies, as they
// come off the wire.
type countingTransport struct {
	rt http.RoundTripper
	n  atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{resp.Body, &c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// bombServer serves 1 GiB once decoded: 1024 copies of a gzip member of
// 1 MiB of s (a few KB each), which gzip.Reader reads as one stream.
func bombServer(t testing.TB, s string) (srv *httptest.Server, wire int) {
	member := gzipMember(t, s, 1<<20)
	srv = serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		for range 1024 {
			if _, err := w.Write(member); err != nil {
				return
			}
		}
	})
	return srv, 1024 * len(member)
}

// A gzip bomb: at most the cap is decoded, reading a small part of
// what the server sends and holding little more than the cap in memory.
func TestGzipBomb(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		srv, wire := bombServer(t, line)
		ct := &countingTransport{rt: &http.Transport{DisableCompression: true}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := get(t, fetch.Config{HTTPClient: &http.Client{Transport: ct}}, srv.URL+"/robots.txt")
		runtime.ReadMemStats(&after)

		assert.Nil(t, res.Err)
		assert.True(t, res.Truncated)
		assert.Len(t, res.Body, fetch.DefaultMaxBytes/len(line)*len(line))
		outcome(t, res, status.Rules, status.Success)

		t.Logf("wire bytes read: %d of %d; allocated: %d bytes", ct.n.Load(), wire, after.TotalAlloc-before.TotalAlloc)
		assert.Less(t, ct.n.Load(), int64(wire/10), "a small part of the bomb is read")
		// The body buffer (cap+1), the first buffer (32 KiB), the gzip
		// state and the HTTP machinery of both ends: ~640 KB measured.
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(fetch.DefaultMaxBytes+256<<10))
	})
	t.Run("zeros", func(t *testing.T) {
		// No line ends: the whole cap is one cut line, dropped.
		srv, _ := bombServer(t, "\x00")
		res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
		assert.Nil(t, res.Err)
		assert.True(t, res.Truncated)
		assert.Empty(t, res.Body)
		outcome(t, res, status.AllowAll, status.Empty)
	})
}

// By design: "response headers capped (64 KiB)": oversized headers are a
// network error, unreachable.
func TestHugeHeaders(t *testing.T) {
	headers := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for i := 0; n > 0; i++ {
				v := strings.Repeat("v", min(n, 4000))
				w.Header().Add(fmt.Sprintf("X-Big-%d", i), v)
				n -= len(v)
			}
			text(200, rules)(w, r)
		}
	}
	tests := []struct {
		name   string
		cap    int64
		header int
		ok     bool
	}{
		// net/http counts the bytes it has buffered, so the bound is
		// checked with a margin of one read buffer (4 KiB) on each side.
		{"under the default", 0, fetch.DefaultMaxHeaderBytes - 8<<10, true},
		{"over the default", 0, fetch.DefaultMaxHeaderBytes + 4<<10, false},
		{"far over the default", 0, 1 << 20, false},
		{"under a smaller cap", 16 << 10, 8 << 10, true},
		{"over a smaller cap", 16 << 10, 20 << 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, headers(tt.header))
			res := get(t, fetch.Config{MaxHeaderBytes: tt.cap}, srv.URL+"/robots.txt")
			if tt.ok {
				assert.Nil(t, res.Err)
				outcome(t, res, status.Rules, status.Success)
				return
			}
			failed(t, res, fetch.HeadersTooLarge, "GET")
			assert.Zero(t, res.StatusCode)
			outcome(t, res, status.DisallowAll, status.Unreachable)
		})
	}
	t.Run("caller transport", func(t *testing.T) {
		// A caller's *http.Transport is cloned with the cap.
		srv := serve(t, headers(1<<20))
		res := get(t, fetch.Config{HTTPClient: &http.Client{Transport: &http.Transport{}}}, srv.URL+"/robots.txt")
		failed(t, res, fetch.HeadersTooLarge, "GET")
	})
}

// README status row "network error: TLS": unreachable. A caller's client that
// trusts the server gets through.
func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(text(200, rules))
	t.Cleanup(srv.Close)

	res := get(t, fetch.Config{}, srv.URL+"/robots.txt")
	failed(t, res, fetch.TLS, "GET")
	outcome(t, res, status.DisallowAll, status.Unreachable)

	res = get(t, fetch.Config{HTTPClient: srv.Client()}, srv.URL+"/robots.txt")
	assert.Nil(t, res.Err)
	assert.Equal(t, rules, string(res.Body))

	// https to a server that speaks plain HTTP.
	plain := serve(t, text(200, rules))
	res = get(t, fetch.Config{}, strings.Replace(plain.URL, "http://", "https://", 1)+"/robots.txt")
	failed(t, res, fetch.TLS, "GET")
}

// deflated returns s compressed with zlib, as Content-Encoding: deflate means.
func deflated(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, err := io.WriteString(w, s)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}
