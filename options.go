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
	// (Google; RFC 9309 §2.3.1.4 names 30 days as an example).
	DefaultUnreachableAllowAfter = 30 * 24 * time.Hour
	// DefaultCacheBytes is the default of Options.CacheBytes.
	DefaultCacheBytes = 64 << 20
	// DefaultMaxOutages is the default of Options.MaxOutages.
	DefaultMaxOutages = 1 << 16
)

// maxBytes returns the body cap o asks for, within its bounds (as package
// fetch clamps it).
func (o *Options) maxBytes() int64 {
	return min(max(o.MaxBytes, fetch.DefaultMaxBytes), fetch.MaxMaxBytes)
}

// cacheBytes returns the byte budget o asks for, within its bounds.
func (o *Options) cacheBytes() int64 {
	b := o.CacheBytes
	if b <= 0 {
		b = DefaultCacheBytes
	}
	return max(b, 16*o.maxBytes())
}

// fetchTimeout returns the fetch timeout o asks for.
func (o *Options) fetchTimeout() time.Duration {
	if o.FetchTimeout <= 0 {
		return fetch.DefaultTimeout
	}
	return o.FetchTimeout
}

// Options configures a Client. Every zero field means its documented
// default; New fails only on a configuration that cannot work.
type Options struct {
	// UserAgent is the User-Agent header of robots.txt requests. Required:
	// a crawler must identify itself, ideally with a URL that explains it
	// ("ExampleBot/1.0 (+https://example.com/bot)").
	UserAgent string

	// Agents are the names the crawler obeys robots.txt groups for, each an
	// HTTP token (letters, digits and !#$%&'*+-.^_`|~: ExampleBot, MJ12bot,
	// Mail.RU_Bot), compared ignoring case; groups naming any of them merge
	// (RFC 9309 §2.2.1; parser.Agent.Names says how a line names a crawler).
	// Empty means the leading name of UserAgent, up to '/' ("MJ12bot" for
	// "MJ12bot/v1.4.8 (+http://mj12bot.com/)"). At most MaxAgents. A name
	// that is not an HTTP token, or a UserAgent with no usable leading name
	// (one starting with "Mozilla/"), is a configuration error, wrapping
	// ErrInvalidAgent. Client.As answers for other names from the same
	// cache.
	Agents []string

	// HTTPClient supplies the transport for robots.txt requests; nil means
	// a transport of the Client's own, never http.DefaultClient. Only its
	// Transport and Timeout are used (see fetch.Config.HTTPClient).
	HTTPClient *http.Client

	// CacheBytes bounds the memory of the cache: each authority counts
	// its robots.txt, the rules compiled from it and its bookkeeping, as
	// they weigh in memory, and the least recently used authorities are
	// evicted past the bound. Zero or negative means DefaultCacheBytes
	// (64 MiB); below 16 times the body cap (MaxBytes, 500 KiB by default)
	// means that, so that the largest files always fit.
	//
	// What the Client knows of authorities whose robots.txt cannot be
	// fetched (their backoff, their outage's start and their last good copy)
	// is kept apart (see MaxOutages) and survives the eviction of their
	// rules: an authority in backoff is never fetched early, and one with a
	// good copy keeps answering from it. The good copies of evicted
	// authorities count in CacheBytes, up to a quarter of it; past that,
	// those of the authorities retried soonest go first.
	CacheBytes int64

	// BodyCodec is how the cache compresses the robots.txt files it keeps,
	// which chiefly Export, a Fleet, Sitemaps and the Clients As makes read
	// again. cache.BalancedBodies, the zero value (and any value that is
	// no codec), compresses a file under 4 KiB with s2 against a built-in
	// vocabulary of robots.txt and a larger one with zstd: 682 B per file
	// on the real-world corpus, about 7 µs more per fetch than
	// cache.FastBodies, which uses s2 alone (983 B), for the fastest cold
	// path. cache.SmallBodies uses zstd for every file (665 B, about 10 µs
	// more than FastBodies).
	BodyCodec cache.BodyCodec

	// MaxConcurrentFetches bounds the robots.txt fetches in flight at once
	// across the Client; zero or negative means no bound. A fetch waiting
	// for its turn takes no goroutine, and its time in the queue does not
	// count against the FetchTimeout grace of an expired robots.txt, which
	// keeps answering. Callers queued behind the bound still give up when
	// their context ends, and a queued fetch whose callers have all gone,
	// or that Invalidate or Observe made obsolete, is never made, nor the
	// refresh of a robots.txt evicted while it waited; so the queue holds
	// a fetch per waiting caller and per cached robots.txt being
	// refreshed, and those evicted wait only for their turn to end
	// (Stats.QueuedFetches).
	MaxConcurrentFetches int

	// MaxOutages bounds how many authorities whose robots.txt cannot be
	// fetched the Client remembers apart from its cache (see CacheBytes);
	// zero or negative means DefaultMaxOutages (65,536). Each costs about
	// 160 bytes besides its good copy, which CacheBytes counts: 10 MB for
	// the default. Past the bound, the authorities whose retry time has
	// passed are forgotten first, then those retried soonest, never one
	// with a long Retry-After before a short one; one forgotten is fetched
	// again on its next question.
	MaxOutages int

	// Fleet, when set, shares robots.txt records with other Clients,
	// usually in other processes: an authority is fetched once for all of
	// them, and its backoff holds for all of them. See cache.Fleet,
	// cache.MemoryFleet and package redisfleet. A failing Fleet falls back
	// to fetching locally and never fails a decision.
	Fleet cache.Fleet

	// MinTTL is the shortest time a fetched robots.txt is kept, whatever its
	// caching headers say (no-store, max-age=0). Zero or negative means
	// DefaultMinTTL; more than 24 hours means 24 hours.
	MinTTL time.Duration

	// MaxBytes is the most bytes of robots.txt read after decompression;
	// below 500 KiB (RFC 9309 §2.5), including zero, means 500 KiB, and above
	// 32 MiB (fetch.MaxMaxBytes) means 32 MiB. The ceiling bounds what one
	// file costs: parsing and compiling it allocates at most 8 times its
	// size, whatever its shape, so under 300 MB for a file at the ceiling,
	// which is 64 times the RFC's minimum and far above any real robots.txt. The rest of a
	// longer file is ignored, as past any cap. Raising MaxBytes raises the
	// least CacheBytes too (16 times MaxBytes).
	MaxBytes int64

	// FetchTimeout bounds one robots.txt fetch, all redirects included;
	// zero or negative means 30 seconds. A caller's context bounds only that
	// caller's wait, never the shared fetch. It also bounds how long an
	// expired robots.txt keeps answering while it is refetched, and, with a
	// Fleet, how long a Client waits for another's fetch (plus two terms
	// of the short lease the fetcher renews) before it fetches itself.
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
	// with no good copy held, before everything is allowed. Zero means
	// DefaultUnreachableAllowAfter (30 days); negative means never allow:
	// disallow until the authority answers. A good copy, when one is held,
	// answers for the whole outage, however long.
	UnreachableAllowAfter time.Duration

	// Now returns the current time. Nil means time.Now. Tests set it to
	// move through expiry without sleeping.
	Now func() time.Time

	// OnFetch, when set, is called after every robots.txt fetch with what
	// was fetched and what it means, for metrics and logs. It runs once the
	// result is cached and before waiting callers get their answer: a test
	// that waits for it sees the cache as callers will. Keep it fast. A
	// panic in it is recovered, logged and counted (Stats.Panics).
	OnFetch func(FetchEvent)

	// Logger receives a record of every fetch (debug level, warn for an
	// unreachable authority). Nil means silent.
	Logger *slog.Logger
}

// agentsOf returns the crawler names o configures, or why there are none.
func (o *Options) agentsOf() ([]string, error) {
	if len(o.Agents) > 0 {
		if err := validAgents(o.Agents); err != nil {
			return nil, fmt.Errorf("Options.Agents: %w", err)
		}
		return append([]string(nil), o.Agents...), nil
	}
	name := parser.NameOf(o.UserAgent)
	switch {
	case name == "":
		return nil, fmt.Errorf("%w: Options.UserAgent %q does not start with the crawler's name; set Options.Agents", ErrInvalidAgent, o.UserAgent)
	case strings.EqualFold(name, "Mozilla"):
		return nil, fmt.Errorf("%w: Options.UserAgent %q starts with Mozilla, not the crawler's name; set Options.Agents", ErrInvalidAgent, o.UserAgent)
	}
	return []string{name}, nil
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
