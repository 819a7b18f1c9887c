package authority

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// Memo makes Split cost no allocation for URLs whose authority is not
// written in canonical form: an upper-case host or scheme, a userinfo, an
// IDN host, an IPv6 literal not in RFC 5952 form, a port with leading zeros.
// It remembers the key of each such authority, as written, on first sight.
//
// A Memo is a fixed table of memoSlots entries, each holding the last
// authority whose text hashed to it, so its memory is bounded (at most
// memoSlots authorities of up to maxMemoText bytes) and a lookup takes no
// lock. Its zero value is ready to use, and it is safe for concurrent use.
type Memo struct {
	slots [memoSlots]atomic.Pointer[memoEntry]
}

const (
	// memoSlots is the number of authorities a Memo holds, a power of two.
	memoSlots = 1024
	// maxMemoText bounds the authority text remembered: longer ones, which
	// no real host name needs, are canonicalized on every call instead.
	maxMemoText = 512
)

// memoEntry is one remembered authority: the key of hostPort under scheme.
type memoEntry struct {
	scheme, hostPort, key string
}

// memoSeed seeds the slot hash. Chosen at random per process, it keeps
// hostile URLs from aiming at a given slot; a collision costs only an
// allocation.
var memoSeed = maphash.MakeSeed()

// Split is Parse for the hot path of a lookup: it accepts and rejects
// exactly the URLs Parse does, with the same *Error, and returns the same
// key. Instead of the wire form of the path, it returns the path and query
// as written in rawURL, fragment excluded: the canonical form of matching
// (urlpath.Path) is the same for both. On success it does not allocate when
// the authority is written canonically or was seen recently.
func (m *Memo) Split(rawURL string) (key, path string, err error) {
	if key, path, ok := splitPlain(rawURL); ok {
		return key, path, nil
	}
	p, err := scan(rawURL)
	if err != nil {
		return "", "", err
	}
	if p.plain() {
		key, err = p.key(rawURL)
	} else {
		slot := &m.slots[memoIndex(p.scheme, p.hostPort)]
		if e := slot.Load(); e != nil && e.scheme == p.scheme && e.hostPort == p.hostPort {
			key = e.key
		} else if key, err = p.key(rawURL); err == nil && len(p.hostPort) <= maxMemoText {
			// Copies: the entry must not keep the caller's URL alive.
			key = strings.Clone(key)
			slot.Store(&memoEntry{scheme: p.scheme, hostPort: strings.Clone(p.hostPort), key: key})
		}
	}
	if err != nil {
		return "", "", err
	}
	if len(key)+p.wireLen() > MaxURLLength {
		return "", "", newError(TooLong, rawURL, nil)
	}
	return key, p.path, nil
}

// splitPlain is Split for the URL most callers pass: a lowercase http or
// https scheme, a host of lowercase reg-name octets not ending in a dot, no
// userinfo, and no port or one written canonically, so that the key is a
// prefix of the URL. It reads
// the URL once and reports whether it was of that form and valid; for any
// other URL, valid or not, it reports false and Split reads it in full.
// What it returns is what the general path would: the key such a host
// canonicalizes to is the host as written.
func splitPlain(rawURL string) (key, path string, ok bool) {
	var i int
	var defaultPort string
	switch {
	case strings.HasPrefix(rawURL, "https://"):
		i, defaultPort = len("https://"), "443"
	case strings.HasPrefix(rawURL, "http://"):
		i, defaultPort = len("http://"), "80"
	default:
		return "", "", false
	}
	start := i
	for i < len(rawURL) && hostChars[rawURL[i]] == hostOK {
		i++
	}
	if i == start || rawURL[i-1] == '.' {
		return "", "", false
	}
	keyEnd := i
	if i < len(rawURL) && rawURL[i] == ':' {
		// A port written canonically: no leading zero, at most 65535.
		i++
		p := i
		for i < len(rawURL) && '0' <= rawURL[i] && rawURL[i] <= '9' {
			i++
		}
		port := rawURL[p:i]
		if port == "" || port[0] == '0' || len(port) > 5 || len(port) == 5 && port > "65535" {
			return "", "", false
		}
		if port != defaultPort {
			keyEnd = i
		}
	}
	// The authority ends here, or the URL is of another form: an
	// upper-case or non-ASCII host, a userinfo, an IP literal.
	if i < len(rawURL) && rawURL[i] != '/' && rawURL[i] != '?' && rawURL[i] != '#' {
		return "", "", false
	}
	key, path = rawURL[:keyEnd], rawURL[i:]
	fragment := ""
	if h := strings.IndexByte(path, '#'); h >= 0 {
		path, fragment = path[:h], path[h+1:]
	}
	escapes, err := checkPath(path)
	if err != nil || !validEscapes(fragment) {
		return "", "", false
	}
	p := parts{path: path, escapes: escapes}
	if len(rawURL) > MaxURLLength || len(key)+p.wireLen() > MaxURLLength {
		return "", "", false
	}
	return key, path, true
}

// memoIndex returns the slot of the authority text hostPort under scheme.
func memoIndex(scheme, hostPort string) uint64 {
	h := maphash.String(memoSeed, hostPort)
	if scheme == "https" {
		h = h>>1 | h<<63 // the same text under the other scheme is another key
	}
	return h % memoSlots
}
