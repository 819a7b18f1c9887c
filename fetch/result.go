package fetch

import (
	"net/http"
	"time"
)

// Result is what happened when fetching one robots.txt: the response to the
// last request made, how it was reached, and what went wrong, if anything. It holds
// facts only; package status says what they mean.
//
// The file's rules, if any, apply to the authority of URL, not to the one of
// FinalURL (RFC 9309 §2.3.1.2): a robots.txt reached through a redirect to
// another host governs the host first asked.
type Result struct {
	// URL is the URL requested first, canonical (lowercase scheme and host,
	// no default port, userinfo or fragment).
	URL string

	// FinalURL is the URL of the last request made: URL itself, or the
	// last redirect target.
	FinalURL string

	// StatusCode is the status of the response to FinalURL, 0 when none was
	// obtained. It may lie outside 100–599: servers send what they like
	// (package status counts any status outside 200–599 as unreachable).
	StatusCode int

	// Header holds the headers of the response to FinalURL, nil when none
	// was obtained. For a refused redirect, they are the redirect's headers.
	Header http.Header

	// Body is the body of a 2xx last response, at most MaxBytes long after
	// gzip decoding; nil for other statuses, whose bodies are not read. A
	// body in another encoding (deflate, br, …), or labeled gzip without
	// starting as gzip does, is kept as sent, undecoded. When Err is set,
	// Body holds what was read before the failure and is not the file.
	Body []byte

	// Truncated reports that the body was longer than MaxBytes: Body holds
	// its first MaxBytes bytes less the line the cap cut in half.
	Truncated bool

	// Conditional reports that the requests carried If-None-Match or
	// If-Modified-Since, so that a 304 means "the copy held is current".
	Conditional bool

	// Redirects lists the redirect responses received, in order, including
	// one that was not followed (a refused Location, or one redirect too
	// many). A response is a redirect when its status is 301, 302, 303, 307
	// or 308; other 3xx statuses end the fetch like any final status.
	Redirects []Hop

	// Start and End are when the fetch began and ended, by Config.Now.
	Start, End time.Time

	// Err describes the failure that ended the fetch, nil when a final
	// response was obtained and read. StatusCode and Header may be set
	// along with Err: a body cut short, or a redirect that was refused.
	Err *Error

	lent loan // Body's memory, when lent (see Release)
}

// Release gives the memory of Body back to the package, for the bodies of
// later fetches, and sets Body to nil. Call it, if at all, once nothing
// reads Body, nor any slice of it, any more: that memory will hold another
// body. Releasing is optional: a Result not released keeps its Body as long
// as it is referenced, and releasing twice, or releasing copies of a
// Result, gives the memory back once. Release writes r: it is not safe to
// call concurrently with itself, or with reads of r, on the same Result.
func (r *Result) Release() {
	if r == nil {
		return
	}
	r.lent.give()
	r.lent, r.Body = loan{}, nil
}

// Hop is one redirect response on the way to the robots.txt file.
type Hop struct {
	// URL is the URL requested.
	URL string
	// StatusCode is the redirect status: 301, 302, 303, 307 or 308.
	StatusCode int
	// Location is the Location header as sent, "" when absent.
	Location string
}

// Duration returns how long the fetch took, by Config.Now.
func (r *Result) Duration() time.Duration { return r.End.Sub(r.Start) }
