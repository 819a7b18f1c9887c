package robots

import (
	"errors"
	"strconv"

	"github.com/crawlkit/robots/internal/authority"
)

// Sentinel errors, for errors.Is. Every error a Client returns is an *Error
// that wraps one of these, a context error, or a configuration problem.
var (
	// ErrInvalidURL: the URL has no scheme, a scheme other than http or
	// https, no host, a bad port, is too long, or does not parse. A URL is
	// valid exactly when net/url accepts it and it names an http(s) host
	// (so "http://a.test\@b.test/" is refused, never checked as b.test's).
	ErrInvalidURL = errors.New("invalid URL")
	// ErrDisallowed: robots.txt does not allow the crawler to fetch the
	// URL. Package client's RoundTripper returns it for a refused request.
	ErrDisallowed = errors.New("disallowed by robots.txt")
	// ErrInvalidAgent: a name that names no crawler: empty, or not an HTTP
	// token (letters, digits and !#$%&'*+-.^_`|~); or none at all, or more
	// than MaxAgents. New and As return it.
	ErrInvalidAgent = errors.New("invalid crawler name")
)

// Error describes a failed operation of a Client: which one, on what URL,
// and why. errors.Is and errors.As see through it to the cause, and through
// a *url.Error that wraps it.
type Error struct {
	// Op is the operation: "new", "as", "allowed", "check", "crawl-delay",
	// "sitemaps", "usage", "signal", "invalidate", "observe", "export",
	// "import", or "round-trip".
	Op string
	// URL is the URL the operation was asked about, its password replaced
	// by "xxxxx" as url.URL's Redacted does; empty for "new".
	URL string
	// Err is the cause.
	Err error
}

// newError returns the error of operation op on rawURL, its password
// redacted: errors end up in logs.
func newError(op, rawURL string, err error) *Error {
	return &Error{Op: op, URL: authority.Redact(rawURL), Err: err}
}

// Error returns "robots: op "url": cause", the URL's password, if any,
// replaced by "xxxxx".
func (e *Error) Error() string {
	s := "robots: " + e.Op
	if e.URL != "" {
		u := authority.Redact(e.URL)
		if len(u) > 200 {
			u = u[:200] + "…"
		}
		s += " " + strconv.Quote(u)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
