package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/crawlkit/robots/internal/authority"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// By design: "a line cut in half by the cap is dropped". A line ends at LF or
// CR, so CRLF, LF and CR files are cut alike.
func TestDropCutLine(t *testing.T) {
	tests := []struct {
		body string
		next byte
		want string
	}{
		{"a\nb\nc", 'c', "a\nb\n"},
		{"a\nb\n", 'c', "a\nb\n"}, // the cap falls between lines
		{"a\nb", '\n', "a\nb"},    // the line ends right past the cap
		{"a\nb", '\r', "a\nb"},
		{"a\r\nb\r", '\n', "a\r\nb\r"}, // CRLF cut between CR and LF
		{"a\rb\rc", 'x', "a\rb\r"},
		{"abc", 'd', ""}, // one line longer than the cap
		{"", 'x', ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(dropCutLine([]byte(tt.body), tt.next)), "%q + %q", tt.body, tt.next)
	}
}

// readBody's memory: exactly the announced length for a plain body; a body
// of unknown length that fits the first buffer (a scratch one) gets one of
// its own size; a longer one grows by 16 up to the cap, which at the
// default cap is one step.
func TestReadBodyBuffer(t *testing.T) {
	const def = DefaultMaxBytes
	tests := []struct {
		name     string
		max      int64
		length   int64 // announced; -1: unknown
		body     string
		wantCap  int
		gzipped  bool
		truncate bool
	}{
		{"known length", def, 100, strings.Repeat("x", 100), 101, false, false},
		{"known length, empty", def, 0, "", 1, false, false},
		{"unknown, small", def, -1, strings.Repeat("x", 100), 100, false, false},
		{"unknown, empty", def, -1, "", 0, false, false},
		{"unknown, one short of the first buffer", def, -1, strings.Repeat("x", firstBuffer-1), firstBuffer - 1, false, false},
		{"unknown, first buffer exactly", def, -1, strings.Repeat("x", firstBuffer), def + 1, false, false},
		{"unknown, large", def, -1, strings.Repeat("x", 100_000), def + 1, false, false},
		{"unknown, over the cap", def, -1, strings.Repeat("x\n", def), def + 1, false, true},
		{"known, over the cap", def, 2 * def, strings.Repeat("x\n", def), def + 1, false, true},
		{"gzip ignores the length", def, 10, strings.Repeat("x", 100), 100, true, false},
		{"gzip, large", def, 10, strings.Repeat("x", 100_000), def + 1, true, false},
		// A large cap costs nothing to a small file, nor a large length
		// announced to a short body.
		{"large cap, mid-size body", 64 << 20, -1, strings.Repeat("x", 100_000), firstBuffer * growth, false, false},
		{"large cap, announced length", 64 << 20, 1 << 30, strings.Repeat("x", 10), firstBuffer * growth, false, false},
		{"large cap, over it", 1 << 20, -1, strings.Repeat("x\n", 1<<20), 1<<20 + 1, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tt.body)
			h := http.Header{}
			if tt.gzipped {
				pr, pw := io.Pipe()
				go func() {
					zw := gzip.NewWriter(pw)
					io.WriteString(zw, tt.body)
					zw.Close()
					pw.Close()
				}()
				body = pr
				h.Set("Content-Encoding", "gzip")
			}
			resp := &http.Response{Header: h, ContentLength: tt.length, Body: io.NopCloser(body)}
			got, lent, truncated, err := readBody(resp, tt.max)
			defer (&Result{lent: lent}).Release()
			require.NoError(t, err)
			assert.NotNil(t, got, "a 2xx has a body, empty or not")
			assert.Equal(t, tt.truncate, truncated)
			assert.Equal(t, tt.wantCap, cap(got))
			if !tt.truncate {
				assert.Equal(t, tt.body, string(got))
			}
		})
	}
}

// Bodies read at once, gzipped or not, through pooled decoders and
// scratch buffers, each get their own bytes, and a decoder back in its pool
// holds nothing of the body it read.
func TestReadBodyPooled(t *testing.T) {
	gz := func(s string) []byte {
		var b strings.Builder
		zw := gzip.NewWriter(&b)
		io.WriteString(zw, s)
		zw.Close()
		return []byte(b.String())
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				want := fmt.Sprintf("User-agent: w%d\nDisallow: /%d/\n", w, i) + strings.Repeat("#", (w*i)%3000)
				h := http.Header{}
				raw := []byte(want)
				if i%2 == 0 {
					h.Set("Content-Encoding", "gzip")
					raw = gz(want)
				}
				if i%5 == 0 { // padding after a gzip member, part of a plain body
					raw = append(raw, 0, 0, 0, 0)
					if i%2 == 1 {
						want = string(raw)
					}
				}
				got, lent, _, err := readBody(&http.Response{Header: h, ContentLength: -1, Body: io.NopCloser(bytes.NewReader(raw))}, DefaultMaxBytes)
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, want, string(got))
				(&Result{Body: got, lent: lent}).Release()
			}
		}()
	}
	wg.Wait()

	g := getDecoder(strings.NewReader("x"))
	putDecoder(g)
	assert.Nil(t, g.src.r, "the source is let go")
}

func TestSameSite(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"http://example.com", "https://example.com:8443", true},
		{"https://www.example.com", "https://example.com", true},
		{"https://a.b.example.co.uk", "https://example.co.uk", true},
		{"https://example.co.uk", "https://other.co.uk", false}, // co.uk is a public suffix
		{"https://example.com", "https://example.org", false},
		{"https://example.com", "https://notexample.com", false},
		{"https://foo.github.io", "https://bar.github.io", false}, // a private suffix
		{"http://127.0.0.1:1", "http://127.0.0.1:2", true},
		{"http://127.0.0.1", "http://127.0.0.2", false},
		{"http://[::1]", "http://[::1]:8080", true},
		{"http://localhost", "http://127.0.0.1", false},
		{"http://localhost", "http://localhost:81", true},
		{"https://xn--exmple-cua.com", "https://www.exämple.com", true},
	}
	for _, tt := range tests {
		a, err := authority.Parse(tt.a)
		require.NoError(t, err)
		b, err := authority.Parse(tt.b)
		require.NoError(t, err)
		assert.Equal(t, tt.same, sameSite(a, b), "%s, %s", tt.a, tt.b)
		assert.Equal(t, tt.same, sameSite(b, a), "%s, %s", tt.b, tt.a)
	}
}

// classOf on errors that the httptest suite cannot produce on loopback.
func TestClassOf(t *testing.T) {
	op := func(err error) error { return &net.OpError{Op: "read", Net: "tcp", Err: err} }
	tests := []struct {
		err  error
		op   string
		want Class
	}{
		{&net.DNSError{Err: "server misbehaving", Name: "example.com", IsTemporary: true}, opGet, DNS},
		{&net.DNSError{Err: "i/o timeout", Name: "example.com", IsTimeout: true}, opGet, DNS},
		{op(os.NewSyscallError("connect", syscall.ECONNREFUSED)), opGet, Refused},
		{op(os.NewSyscallError("read", syscall.ECONNRESET)), opBody, Reset},
		{op(os.NewSyscallError("read", syscall.ECONNABORTED)), opGet, Reset},
		{op(os.NewSyscallError("write", syscall.EPIPE)), opGet, Reset},
		{x509.UnknownAuthorityError{}, opGet, TLS},
		{x509.HostnameError{Host: "example.com", Certificate: &x509.Certificate{}}, opGet, TLS},
		{x509.CertificateInvalidError{Reason: x509.Expired, Cert: &x509.Certificate{}}, opGet, TLS},
		{errors.New("tls: handshake failure"), opGet, TLS},
		{errors.New("http2: response header list larger than advertised limit"), opGet, HeadersTooLarge},
		{errors.New("malformed response from server: missing status pseudo header"), opGet, BadResponse},
		{fmt.Errorf("gzip: %w", gzip.ErrChecksum), opBody, BadResponse},
		{io.ErrUnexpectedEOF, opBody, BodyCut},
		{io.ErrUnexpectedEOF, opGet, BadResponse},
		{op(os.ErrDeadlineExceeded), opGet, Timeout},
		{fmt.Errorf("dial: %w", errBlocked), opGet, Blocked},
		{context.Canceled, opGet, Other},
		{errors.New("something else"), opGet, Other},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, classOf(tt.err, tt.op), "%v", tt.err)
	}
}

// requestTarget makes of a robots.txt URL what url.Parse makes of its
// canonical form, whether it takes the short way (the robots.txt of an
// authority) or not, and its String is that URL's.
func TestRequestTarget(t *testing.T) {
	urls := []string{
		"https://example.com/robots.txt",
		"http://example.com/robots.txt",
		"HTTPS://Example.COM:443/robots.txt",
		"https://example.com:8443/robots.txt",
		"http://user:pass@example.com/robots.txt#frag",
		"http://[::1]:8080/robots.txt",
		"http://[fe80::1%25en0]/robots.txt",
		"http://127.0.0.1/robots.txt",
		"https://bücher.example/robots.txt",
		"https://xn--bcher-kva.example/robots.txt",
		"https://example.com/robots.txt?x=1",
		"https://example.com/a%20b/robots.txt",
		"https://example.com/robots.txt/",
		"https://example.com",
		"https://exa%6Dple.com/robots.txt",
	}
	for _, raw := range urls {
		a, u, s, err := requestTarget(raw, nil)
		if err != nil {
			continue // refused alike either way: url.Parse is not reached
		}
		want, err := url.Parse(a.Key + a.PathQuery)
		require.NoError(t, err, raw)
		assert.Equal(t, want, u, raw)
		assert.Equal(t, want.String(), s, raw)
	}
	_, _, _, err := requestTarget("ftp://example.com/robots.txt", nil)
	assert.Error(t, err)
}

// A fetch of a canonical robots.txt URL allocates no string for it, and
// no url.URL when given one.
func TestRequestTargetKeepsCanonicalURL(t *testing.T) {
	raw := "https://example.com:8443/robots.txt"
	allocs := testing.AllocsPerRun(100, func() {
		_, _, s, err := requestTarget(raw, nil)
		if err != nil || s != raw {
			t.Fatal(s, err)
		}
	})
	assert.LessOrEqual(t, allocs, 1.0, "the url.URL alone")
	var into url.URL
	allocs = testing.AllocsPerRun(100, func() {
		_, u, _, err := requestTarget(raw, &into)
		if err != nil || u != &into {
			t.Fatal(u, err)
		}
	})
	assert.Zero(t, allocs, "made in the url.URL given")
}
