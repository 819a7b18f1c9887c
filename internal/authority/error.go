package authority

import "strconv"

// Kind says why a URL has no usable authority.
type Kind uint8

// The kinds of Error.
const (
	// NoScheme: the URL does not start with a scheme ("example.com/x", "/x").
	NoScheme Kind = iota + 1
	// UnsupportedScheme: the scheme is neither http nor https.
	UnsupportedScheme
	// NoHost: no "//" authority, or an empty host ("http:/x", "http://:80/").
	NoHost
	// BadPort: the port is not a decimal number in 1–65535.
	BadPort
	// Unparsable: the host is not a valid name or IP literal, the userinfo
	// holds a character net/url refuses, a percent-escape of the userinfo,
	// path or fragment is malformed, or the URL holds a control character
	// outside the fragment.
	Unparsable
	// TooLong: the URL is longer than MaxURLLength.
	TooLong
)

var kindNames = [...]string{
	NoScheme:          "no scheme",
	UnsupportedScheme: "unsupported scheme",
	NoHost:            "no host",
	BadPort:           "bad port",
	Unparsable:        "unparsable",
	TooLong:           "too long",
}

// String returns a short lowercase description of k, such as "no host".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is the error Parse returns: why URL has no usable authority.
type Error struct {
	Kind Kind
	// URL is the URL given to Parse, its password replaced by "xxxxx"
	// (see Redact), cut to its first 100 bytes.
	URL string
	// Err is the underlying cause, when there is one beyond Kind.
	Err error
}

// quotedURLMax bounds the URL quoted in an Error, so that a hostile 8 KiB
// URL does not end up whole in every log line.
const quotedURLMax = 100

func newError(k Kind, rawURL string, cause error) *Error {
	rawURL = Redact(rawURL)
	if len(rawURL) > quotedURLMax {
		rawURL = rawURL[:quotedURLMax] + "..."
	}
	return &Error{Kind: k, URL: rawURL, Err: cause}
}

// Error returns a message such as `authority: no host: "http:/x"`.
func (e *Error) Error() string {
	s := "authority: " + e.Kind.String() + ": " + strconv.Quote(e.URL)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }
