package robots

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/authority"
	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/status"
)

// Observe takes a response to a GET of robotsURL (an authority's
// /robots.txt) that the crawler fetched itself, and caches what it says
// exactly as if the Client had fetched it: the same status handling, the
// same lifetime from its headers, the same verdicts. It reads the body up to
// the Client's cap (Options.MaxBytes), never further, and closes it, in
// every case.
//
// The response is the final one: when an http.Client followed redirects to
// it, its Request tells where it came from, and the redirects are recorded.
// A 304 counts only when it answers the validators of the copy the Client
// holds; a redirect response, or a 304 to other validators, is an error and
// changes nothing. An observed response becomes current at once: a fetch of
// the same authority under way will not store its result. Observe is not a
// fetch: it does not call Options.OnFetch, and with a Fleet it shares
// nothing.
func (c *Client) Observe(robotsURL string, resp *http.Response) error {
	fail := func(err error) error {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return newError("observe", robotsURL, err)
	}
	if !c.made() {
		return fail(errNotNew)
	}
	a, err := authority.Parse(robotsURL)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", ErrInvalidURL, err))
	}
	if urlpath.Path(a.PathQuery) != "/robots.txt" {
		return fail(fmt.Errorf("%w: not the URL of a robots.txt (%s)", ErrInvalidURL, a.PathQuery))
	}
	if resp == nil {
		return fail(errors.New("no response"))
	}
	var sentETag, sentSince string
	if resp.Request != nil {
		sentETag, sentSince = resp.Request.Header.Get("If-None-Match"), resp.Request.Header.Get("If-Modified-Since")
	}
	res, err := c.fetcher.Read(robotsURL, resp)
	if err != nil {
		return newError("observe", robotsURL, err)
	}
	// What is held is read where a fetch's result would be stored, so that
	// a refresh that ended while the body was read is built on, not undone.
	err = c.cache.Observe(a.Key, func(held *cache.Record) (*cache.Record, error) {
		now := c.now()
		out := c.classify.Classify(res, now)
		if out.Verdict == status.NotModified {
			v := held.Validators()
			switch {
			case held.GoodCopy() == nil:
				return nil, errors.New("a 304, but no copy is held")
			case sentETag != "" && sentETag != v.ETag:
				return nil, fmt.Errorf("a 304 to If-None-Match %s, but the copy held has ETag %s", sentETag, v.ETag)
			case sentSince != "" && sentSince != v.LastModified:
				return nil, fmt.Errorf("a 304 to If-Modified-Since %s, but the copy held was last modified %s", sentSince, v.LastModified)
			}
		}
		return c.policy.Next(a.Key, held, res, out, now), nil
	})
	// What is stored holds the body compressed, and Observe hands it to no
	// hook: its memory goes to the bodies of later fetches.
	res.Release()
	if err != nil {
		return newError("observe", robotsURL, err)
	}
	c.stats.observed.Add(1)
	return nil
}
