package robots

import (
	"time"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/usage"
)

// Reason says why a Decision is what it is.
type Reason uint8

// The reasons of a Decision.
const (
	// RuleMatched: Decision.Rule is the most specific matching rule of the
	// crawler's groups, and decides (RFC 9309 §2.2.2).
	RuleMatched Reason = iota + 1
	// NoRuleMatched: groups apply to the crawler but no rule matches: allowed.
	NoRuleMatched
	// NoGroup: no group applies to the crawler and there is no "*" group,
	// or the file is empty: allowed.
	NoGroup
	// RobotsTxt: the URL is /robots.txt itself, always allowed.
	RobotsTxt
	// Unavailable: robots.txt answered 4xx, or its redirects led nowhere:
	// allowed (RFC 9309 §2.3.1.3).
	Unavailable
	// AuthDenied: robots.txt answered 401 or 403 and
	// Options.DisallowOn401403 is set: disallowed.
	AuthDenied
	// Unreachable: robots.txt could not be fetched (5xx, 429, network) and
	// no good copy is held: disallowed (RFC 9309 §2.3.1.4).
	Unreachable
	// UnreachableTooLong: robots.txt has been unreachable longer than
	// Options.UnreachableAllowAfter and no good copy is held: allowed.
	UnreachableTooLong
)

var reasonNames = [...]string{
	RuleMatched:        "rule matched",
	NoRuleMatched:      "no rule matched",
	NoGroup:            "no group for the agent",
	RobotsTxt:          "robots.txt is always allowed",
	Unavailable:        "robots.txt unavailable: allow all",
	AuthDenied:         "robots.txt denied (401/403): disallow all",
	Unreachable:        "robots.txt unreachable: disallow all",
	UnreachableTooLong: "robots.txt unreachable too long: allow all",
}

// String describes the reason in a few words.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "unknown reason"
}

// Decision is the verdict on one URL, explained. Compare its times with
// time.Time's Equal: most carry no monotonic clock reading, which the
// cache does not keep (see cache.Hold).
type Decision struct {
	// Allowed reports whether the crawler may fetch the URL.
	Allowed bool
	// Reason says how the verdict was reached.
	Reason Reason
	// Stale reports that the robots.txt used is past its freshness: the
	// authority is unreachable and the last good copy, fetched at
	// FetchedAt, answered instead (RFC 9309 §2.3.1.4; UnreachableSince is
	// then set), or the cached copy expired and answered while it is being
	// fetched again.
	Stale bool
	// Rule is the deciding rule, as written, with its line, when Reason is
	// RuleMatched; otherwise the zero Rule, which prints as "(no rule)".
	Rule parser.Rule
	// Agents are the user-agent lines of the groups that applied; none when
	// no group did or no file was used.
	Agents []parser.Agent

	// Usage are the AIPREF usage preferences the file states for the URL
	// (see Client.Usage); all Unknown when it is not Allowed.
	Usage usage.Prefs
	// UsageRule is the Content-Usage rule that stated Usage, as written,
	// with its line; the zero ContentUsage when none did.
	UsageRule parser.ContentUsage

	// RobotsURL is the robots.txt URL of the URL's authority.
	RobotsURL string
	// FinalURL is where the robots.txt used was found, after redirects.
	FinalURL string
	// Redirects is the redirect chain of that fetch.
	Redirects []fetch.Hop
	// StatusCode is the HTTP status of that fetch, 0 when no response.
	StatusCode int
	// Outcome describes that fetch for people: its status or failure and
	// the class it falls in, such as "200 OK: success", "404 Not Found:
	// unavailable" or "503 Service Unavailable: unreachable".
	Outcome string
	// FetchedAt is when the robots.txt used was fetched.
	FetchedAt time.Time
	// FreshUntil is when robots.txt will be fetched again: the end of its
	// freshness, or the next attempt for an unreachable authority.
	FreshUntil time.Time
	// UnreachableSince is when the current run of failed fetches began,
	// zero when the last fetch succeeded.
	UnreachableSince time.Time
}

// FetchEvent is what Options.OnFetch receives after every robots.txt fetch.
type FetchEvent struct {
	// Authority is the cache key: scheme, host and port when not default.
	Authority string
	// Result is what the fetch got: status, headers, body, redirects, error;
	// nil when no fetch could be made. It is the receiver's: the cache
	// keeps copies of what it needs.
	Result *fetch.Result
	// Outcome describes what the result means, as Decision.Outcome does.
	Outcome string
	// Unreachable reports that the fetch said nothing about the file.
	Unreachable bool
	// FreshUntil is when the authority will be fetched again.
	FreshUntil time.Time
}
