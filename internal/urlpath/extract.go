package urlpath

import "strings"

// FromURL returns the part of rawURL that robots.txt rules are matched
// against: the path, params and query, without the fragment, always starting
// with '/'. rawURL may be absolute ("https://example.com/a?b"), a bare path
// ("/a?b"), or scheme-less ("example.com/a", taken as a host and a path), as in
// Google's reference implementation (GetPathParamsQuery). It never fails: input
// without a path yields "/". The result is not canonical; see AppendPath.
func FromURL(rawURL string) string {
	start := 0
	if strings.HasPrefix(rawURL, "//") {
		start = 2 // a network-path reference: the authority comes first
	}
	authority := start
	if i := strings.Index(rawURL[start:], "://"); i >= 0 {
		// "://" marks the end of a scheme only if no path, param or query
		// started before it ("/a?b=http://c" has no scheme).
		if j := strings.IndexAny(rawURL[start:], "/?;"); j < 0 || j > i {
			authority = start + i + 3
		}
	}
	p := strings.IndexAny(rawURL[authority:], "/?;")
	if p < 0 {
		return "/"
	}
	p += authority
	end := len(rawURL)
	if h := strings.IndexByte(rawURL[start:], '#'); h >= 0 {
		if start+h < p {
			return "/" // the fragment starts inside the authority
		}
		end = start + h
	}
	if rawURL[p] != '/' {
		return "/" + rawURL[p:end]
	}
	return rawURL[p:end]
}
