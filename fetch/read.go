package fetch

import (
	"errors"
	"net/http"
	"net/url"
)

// ErrNotFinal is wrapped by the error Read returns for a redirect response:
// Read takes the response the redirects led to, not one on the way.
var ErrNotFinal = errors.New("a redirect response, not the final one")

// Read makes a Result of resp, a response to a GET of robotsURL that the
// caller made itself, exactly as Fetch would have recorded it: the status
// and headers, and for a 2xx the body, gzip-decoded when labeled so, read up
// to MaxBytes and never further (a line cut by the cap is dropped). It
// always closes resp.Body.
//
// When resp came through redirects that an http.Client followed, its
// Request (and their Response fields) tell where it came from: FinalURL and
// Redirects are taken from them. The request's If-None-Match or
// If-Modified-Since make it Conditional, so that a 304 means "the copy
// sent back is current".
//
// A body that breaks off is recorded in Result.Err, as in Fetch. The returned
// error is non-nil only when robotsURL is unusable (class InvalidURL), resp
// is nil, or resp is itself a redirect (ErrNotFinal).
func (f *Fetcher) Read(robotsURL string, resp *http.Response) (*Result, error) {
	if resp != nil && resp.Body != nil {
		defer resp.Body.Close()
	}
	var u url.URL // only its String is kept
	_, _, target, err := requestTarget(robotsURL, &u)
	if err != nil {
		return nil, &Error{Class: InvalidURL, Op: opRead, URL: robotsURL, Err: err}
	}
	if resp == nil {
		return nil, &Error{Class: Other, Op: opRead, URL: target, Err: errors.New("no response")}
	}
	res := &Result{URL: target, FinalURL: target, StatusCode: resp.StatusCode, Header: resp.Header, Start: f.now()}
	if req := resp.Request; req != nil {
		if req.URL != nil {
			if final := redact(req.URL.String()); final != target {
				res.FinalURL = final // else one string for both, as Fetch gives
			}
		}
		res.Conditional = req.Header.Get("If-None-Match") != "" || req.Header.Get("If-Modified-Since") != ""
		res.Redirects = redirectsBefore(req, f.maxRedirects)
	}
	if isRedirect(resp.StatusCode) {
		return nil, &Error{Class: Other, Op: opRead, URL: res.FinalURL, Err: ErrNotFinal}
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 && resp.Body != nil {
		res.Body, res.lent, res.Truncated, err = readBody(resp, f.maxBytes)
		if err != nil {
			res.Err = &Error{Class: classOf(err, opBody), Op: opBody, URL: res.FinalURL, Err: err}
		}
	}
	res.End = f.now()
	return res, nil
}

// opRead names the operation of Read in its errors.
const opRead = "read"

// redirectsBefore returns the redirect responses an http.Client followed to
// make req, oldest first, at most limit+1 of them (the chain is the
// caller's, so it is bounded here).
func redirectsBefore(req *http.Request, limit int) []Hop {
	var hops []Hop
	for r := req; r != nil && r.Response != nil && len(hops) <= limit; r = r.Response.Request {
		from := r.Response
		h := Hop{StatusCode: from.StatusCode, Location: from.Header.Get("Location")}
		if from.Request != nil && from.Request.URL != nil {
			h.URL = redact(from.Request.URL.String())
		}
		hops = append(hops, h)
	}
	for i, j := 0, len(hops)-1; i < j; i, j = i+1, j-1 {
		hops[i], hops[j] = hops[j], hops[i]
	}
	return hops
}

// redact returns rawURL in canonical form, without userinfo, which a Result
// never carries; "" for a URL that does not parse.
func redact(rawURL string) string {
	var u url.URL // only its String is kept
	if _, _, s, err := requestTarget(rawURL, &u); err == nil {
		return s
	}
	if u, err := url.Parse(rawURL); err == nil {
		u.User = nil
		return u.String()
	}
	return ""
}
