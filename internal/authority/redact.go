package authority

import "strings"

// Redact returns rawURL with the password of its userinfo, if it has one,
// replaced by "xxxxx", as url.URL's Redacted does, and everything else as
// given. It reads the userinfo where net/url does (before the last '@' of
// the authority, the password after its first ':'), whether or not the URL
// is valid, so that no error or log line quotes a password.
func Redact(rawURL string) string {
	start := 2 // a network-path reference: "//" and the authority first
	if i := scanScheme(rawURL); i > 0 {
		start = i + 3
	}
	if len(rawURL) < start || rawURL[start-2:start] != "//" {
		return rawURL
	}
	end := start
	for end < len(rawURL) && rawURL[end] != '/' && rawURL[end] != '?' && rawURL[end] != '#' {
		end++
	}
	at := strings.LastIndexByte(rawURL[start:end], '@')
	if at < 0 {
		return rawURL
	}
	colon := strings.IndexByte(rawURL[start:start+at], ':')
	if colon < 0 {
		return rawURL
	}
	return rawURL[:start+colon+1] + "xxxxx" + rawURL[start+at:]
}
