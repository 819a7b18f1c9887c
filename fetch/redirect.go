package fetch

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"

	"github.com/crawlkit/robots/internal/authority"
	"golang.org/x/net/publicsuffix"
)

// isRedirect reports whether a response with status code is a redirect the
// Fetcher follows (RFC 9110 §15.4). 300, 304, 305 and 306 are not.
func isRedirect(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

var errNoLocation = errors.New("no Location header")

// redirectTarget returns the URL a redirect from cur with Location loc leads
// to, and its String, or the *Error that refuses it. n is the number of
// redirects received so far, this one included; seen holds the URLs already
// requested.
func (f *Fetcher) redirectTarget(first authority.Authority, cur *url.URL, loc string, n int, seen map[string]bool) (*url.URL, string, error) {
	refuse := func(c Class, err error) (*url.URL, string, error) {
		return nil, "", &Error{Class: c, Op: opRedirect, URL: cur.String(), Err: err}
	}
	if n > f.maxRedirects {
		return refuse(TooManyRedirects, fmt.Errorf("redirect %d, at most %d followed", n, f.maxRedirects))
	}
	if loc == "" {
		return refuse(BadLocation, errNoLocation)
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return refuse(BadLocation, err)
	}
	a, next, nextURL, err := requestTarget(cur.ResolveReference(ref).String(), nil)
	if err != nil {
		var ae *authority.Error
		if errors.As(err, &ae) && (ae.Kind == authority.UnsupportedScheme || ae.Kind == authority.NoScheme) {
			return refuse(ForbiddenScheme, err)
		}
		return refuse(BadLocation, err)
	}
	if seen[nextURL] {
		return refuse(RedirectLoop, fmt.Errorf("%s requested already", nextURL))
	}
	if f.sameSite && !sameSite(first, a) {
		return refuse(CrossSiteRedirect, fmt.Errorf("%s is not on the site of %s", a.Key, first.Key))
	}
	return next, nextURL, nil
}

// sameSite reports whether a and b are on the same site: equal hosts, or
// hosts with the same registrable domain (eTLD+1 by the public suffix list).
// An IP address is on its own site only.
func sameSite(a, b authority.Authority) bool {
	ha, hb := a.Hostname(), b.Hostname()
	if ha == hb {
		return true
	}
	if _, err := netip.ParseAddr(ha); err == nil {
		return false
	}
	if _, err := netip.ParseAddr(hb); err == nil {
		return false
	}
	sa, err := publicsuffix.EffectiveTLDPlusOne(ha)
	if err != nil {
		return false
	}
	sb, err := publicsuffix.EffectiveTLDPlusOne(hb)
	return err == nil && sa == sb
}
