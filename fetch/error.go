package fetch

import (
	"compress/flate"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
)

// Class says what kind of failure ended a fetch.
type Class uint8

// The classes of Error. Canceled and InvalidURL only occur in the error
// Fetch returns; the others only in Result.Err.
const (
	// DNS: the host name could not be resolved.
	DNS Class = iota + 1
	// Refused: the server refused the connection.
	Refused
	// Reset: the connection was reset or aborted, before or during the
	// response.
	Reset
	// TLS: the TLS handshake failed, the certificate was not trusted, or
	// the server does not speak TLS on an https port.
	TLS
	// Timeout: the fetch's own deadline (Config.Timeout) passed.
	Timeout
	// BodyCut: the connection ended before the body announced was complete.
	BodyCut
	// TooManyRedirects: a redirect beyond Config.MaxRedirects.
	TooManyRedirects
	// RedirectLoop: a redirect to a URL already requested in this fetch.
	RedirectLoop
	// BadLocation: a redirect without a Location, or with one that is not a
	// usable URL.
	BadLocation
	// ForbiddenScheme: a redirect to a scheme other than http or https.
	ForbiddenScheme
	// CrossSiteRedirect: a redirect to another site, refused because of
	// Config.SameSiteRedirects.
	CrossSiteRedirect
	// Blocked: a connection refused by Config.BlockPrivateNetworks.
	Blocked
	// HeadersTooLarge: the response headers exceeded Config.MaxHeaderBytes.
	HeadersTooLarge
	// BadResponse: not an HTTP response: a malformed status line or header,
	// no response at all, or a gzip body (labeled gzip and starting as gzip
	// does) whose decoding fails, as a transfer gone wrong. A body in an
	// encoding the Fetcher does not decode is no failure: see Result.Body.
	BadResponse
	// Other: a failure of none of the kinds above.
	Other
	// Canceled: the caller's context was canceled or its deadline passed.
	Canceled
	// InvalidURL: the URL given to Fetch is unusable.
	InvalidURL
)

var classNames = [...]string{
	DNS:               "dns",
	Refused:           "refused",
	Reset:             "reset",
	TLS:               "tls",
	Timeout:           "timeout",
	BodyCut:           "body cut short",
	TooManyRedirects:  "too many redirects",
	RedirectLoop:      "redirect loop",
	BadLocation:       "bad location",
	ForbiddenScheme:   "forbidden scheme",
	CrossSiteRedirect: "cross-site redirect",
	Blocked:           "blocked",
	HeadersTooLarge:   "headers too large",
	BadResponse:       "bad response",
	Other:             "other",
	Canceled:          "canceled",
	InvalidURL:        "invalid url",
}

// String returns a short lowercase name of c, such as "dns".
func (c Class) String() string {
	if int(c) < len(classNames) && classNames[c] != "" {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// Operations an Error names.
const (
	opGet      = "GET"
	opRedirect = "redirect"
	opBody     = "read body"
)

// Error describes a failed fetch: the class of failure, the operation that
// failed ("GET", "redirect" or "read body"), the URL it failed on and the
// underlying cause.
type Error struct {
	// Class is the kind of failure.
	Class Class
	// Op is the operation that failed: "GET", "redirect" or "read body".
	Op string
	// URL is the URL the operation was on.
	URL string
	// Err is the underlying cause.
	Err error
}

// Error returns a message such as
// "fetch: GET https://example.com/robots.txt: refused: dial tcp ...".
func (e *Error) Error() string {
	s := "fetch: " + e.Op + " " + e.URL + ": " + e.Class.String()
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// classOf returns the class of err, an error of net/http, the network or
// the body decoders, met during op. net/http exports no type for some of its
// errors; those are recognized by their text, which the tests pin.
func classOf(err error, op string) Class {
	var dnsErr *net.DNSError
	msg := err.Error()
	switch {
	case errors.Is(err, errBlocked):
		return Blocked
	case errors.As(err, &dnsErr):
		return DNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return Reset
	case isTLS(err):
		return TLS
	case strings.Contains(msg, "server response headers exceeded"), // HTTP/1
		strings.Contains(msg, "response header list larger than"): // HTTP/2
		return HeadersTooLarge
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if op == opBody {
			return BodyCut
		}
		return BadResponse // the connection closed without a response
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, new(flate.CorruptInputError)),
		strings.Contains(msg, "malformed"): // "malformed HTTP status code", "malformed response from server"
		return BadResponse
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Timeout // a timeout of a caller's transport or client
	}
	return Other
}

func isTLS(err error) bool {
	var (
		rh    tls.RecordHeaderError
		alert tls.AlertError
		verr  *tls.CertificateVerificationError
		ua    x509.UnknownAuthorityError
		he    x509.HostnameError
		ci    x509.CertificateInvalidError
	)
	return errors.As(err, &rh) || errors.As(err, &alert) || errors.As(err, &verr) ||
		errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) ||
		errors.Is(err, http.ErrSchemeMismatch) || strings.HasPrefix(err.Error(), "tls: ")
}
