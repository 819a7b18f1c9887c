package robots

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/parser"
)

// Defaults of Options.
const (
	// DefaultMinTTL is the shortest time a fetched robots.txt is kept.
	DefaultMinTTL = time.Minute
	// DefaultUnreachableAllowAfter is how long an authority may stay
	// unreachable, without a good copy held, before everything is allowed
	// (Google; RFC 9309 §2.3.1.4 names 30 days as an example). It is also
	// how old a good copy may be and still be used while unreachable.
	DefaultUnreachableAllowAfter = 30 * 24 * time.Hour
)

// Options configures a Client. Every zero field means its documented
// default; New fails only on a configuration that cannot work.
type Options struct {
	// UserAgent is the User-Agent header of robots.txt requests. Required:
	// a crawler must identify itself, ideally with a URL that explains it
	// ("ExampleBot/1.0 (+https://example.com/bot)").
	UserAgent string

	// Agents are the product tokens the crawler obeys robots.txt groups for
	// (RFC 9309 §2.2.1): letters, '_' and '-' only, compared ignoring case;
	// groups naming any of them merge. Empty means the leading token of
	// UserAgent ("ExampleBot" for "ExampleBot/1.0 (…)"). An invalid token,
	// or a UserAgent with no usable leading token (one starting with
	// "Mozilla/"), is a configuration error.
	Agents []string

	// HTTPClient supplies the transport for robots.txt requests; nil means
	// a transport of the Client's own, never http.DefaultClient. Only its
	// Transport and Timeout are used (see fetch.Config.HTTPClient).
	HTTPClient *http.Client

	// Store holds the cached entries; nil means an in-memory LRU of
	// CacheSize entries. See package cache and cache/cachetest.
	Store cache.Store

	// CacheSize is the number of authorities the default Store keeps; zero
	// or negative means cache.DefaultSize (10,000).
	CacheSize int

	// MinTTL is the shortest time a fetched robots.txt is kept, whatever its
	// caching headers say (no-store, max-age=0). Zero or negative means
	// DefaultMinTTL; more than 24 hours means 24 hours.
	MinTTL time.Duration

	// MaxBytes is the most bytes of robots.txt read after decompression;
	// below 500 KiB (RFC 9309 §2.5), including zero, means 500 KiB.
	MaxBytes int64

	// FetchTimeout bounds one robots.txt fetch, all redirects included;
	// zero or negative means 30 seconds. A caller's context bounds only that
	// caller's wait, never the shared fetch.
	FetchTimeout time.Duration

	// SameSiteRedirects refuses robots.txt redirects to another site (the
	// fetch then counts as unavailable). By default redirects across hosts
	// are followed, as RFC 9309 §2.3.1.2 asks.
	SameSiteRedirects bool

	// BlockPrivateNetworks refuses to connect to loopback, private,
	// link-local and unspecified addresses for robots.txt, on every hop.
	// Off by default, since crawler tests run against local servers.
	BlockPrivateNetworks bool

	// DisallowOn401403 makes a 401 or 403 answer to robots.txt disallow
	// everything. By default it allows everything, as any 4xx does.
	DisallowOn401403 bool

	// UnreachableAllowAfter is how long an authority may stay unreachable,
	// with no good copy held, before everything is allowed; and how old a
	// good copy may be and still be used while unreachable. Zero means
	// DefaultUnreachableAllowAfter (30 days); negative means never allow:
	// disallow until the authority answers.
	UnreachableAllowAfter time.Duration

	// Now returns the current time. Nil means time.Now. Tests set it to
	// move through expiry without sleeping.
	Now func() time.Time

	// OnFetch, when set, is called after every robots.txt fetch with what
	// was fetched and what it means, for metrics and logs. It runs in the
	// fetch, before waiting callers get their answer: keep it fast.
	OnFetch func(FetchEvent)

	// Logger receives a record of every fetch (debug level, warn for an
	// unreachable authority). Nil means silent.
	Logger *slog.Logger
}

// agentsOf returns the product tokens o configures, or why there are none.
func (o *Options) agentsOf() ([]string, error) {
	if len(o.Agents) > 0 {
		for _, a := range o.Agents {
			if !parser.IsValidToken(a) {
				return nil, fmt.Errorf("Options.Agents: %q is not a product token (letters, '_' and '-' only; RFC 9309 §2.2.1)", a)
			}
		}
		return append([]string(nil), o.Agents...), nil
	}
	tok := o.UserAgent
	for i := 0; i < len(tok); i++ {
		if !parser.IsTokenChar(tok[i]) {
			tok = tok[:i]
			break
		}
	}
	switch {
	case tok == "":
		return nil, fmt.Errorf("Options.UserAgent %q does not start with a product token; set Options.Agents", o.UserAgent)
	case strings.EqualFold(tok, "Mozilla"):
		return nil, fmt.Errorf("Options.UserAgent %q starts with Mozilla, not the crawler's product token; set Options.Agents", o.UserAgent)
	}
	return []string{tok}, nil
}

func (o *Options) fetchConfig() fetch.Config {
	return fetch.Config{
		UserAgent:            o.UserAgent,
		HTTPClient:           o.HTTPClient,
		MaxBytes:             o.MaxBytes,
		Timeout:              o.FetchTimeout,
		SameSiteRedirects:    o.SameSiteRedirects,
		BlockPrivateNetworks: o.BlockPrivateNetworks,
		Now:                  o.Now,
	}
}

func validUserAgent(ua string) error {
	if strings.TrimSpace(ua) == "" {
		return errors.New("Options.UserAgent is required: a crawler must identify itself")
	}
	for i := 0; i < len(ua); i++ {
		if c := ua[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return fmt.Errorf("Options.UserAgent %q holds a control character", ua)
		}
	}
	return nil
}
