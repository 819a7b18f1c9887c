package robots

import (
	"context"

	"github.com/crawlkit/robots/internal/urlpath"
	"github.com/crawlkit/robots/matcher"
	"github.com/crawlkit/robots/parser"
	"github.com/crawlkit/robots/status"
	"github.com/crawlkit/robots/usage"
)

// UsageBy returns the AIPREF usage preferences that the robots.txt file body
// states for the crawler whose product token is agent, on rawURL
// (draft-ietf-aipref-attach-05 §3): those of the longest Content-Usage rule
// of the crawler's groups that matches the URL's path, all Unknown when none
// matches or the file does not let the crawler fetch the URL. rawURL and
// agent are read as AllowedBy reads them. To combine with what the response
// says, use usage.Combine(UsageBy(…), usage.FromHeader(resp.Header)).
func UsageBy(body []byte, agent, rawURL string) usage.Prefs {
	var prefs usage.Prefs
	parser.ParseFunc(body, func(r *parser.Robots) {
		prefs = matcher.Compile(r, agent).Usage(urlpath.FromURL(rawURL)).Prefs
	})
	return prefs
}

// Usage returns the AIPREF usage preferences that the robots.txt of rawURL's
// authority states for the crawler on rawURL, fetching it as Allowed does.
// A URL the crawler may not fetch has none (all Unknown), and so does an
// authority without a usable file; /robots.txt itself, always allowed, has
// what the file's rules state for it, as UsageBy says. Check gives the
// Content-Usage rule that decided them. The preferences of the response itself (its Content-Usage
// header) are the crawler's to combine: see client.Usage.
func (c *Client) Usage(ctx context.Context, rawURL string) (usage.Prefs, error) {
	if !c.made() {
		return usage.Prefs{}, newError("usage", rawURL, errNotNew)
	}
	key, path, err := c.keys.Split(rawURL)
	if err != nil {
		return usage.Prefs{}, invalidURL("usage", rawURL, err)
	}
	e, _, now, err := c.lookup(ctx, key)
	if err != nil {
		return usage.Prefs{}, newError("usage", rawURL, err)
	}
	v, src, _ := c.basis(e, now)
	if v == nil || v.verdict != status.Rules {
		return usage.Prefs{}, nil
	}
	return c.matcherOf(key, v, src).Usage(path).Prefs, nil
}

// Signal returns the Content-Signal (Cloudflare's record, not AIPREF) that
// the robots.txt of rawURL's authority states for the crawler: the records
// of its groups combined most restrictively, and the first of those records
// as written, with its line, as matcher.Matcher.Signal reports them; the
// zero Signal and record when there are none or no usable file.
func (c *Client) Signal(ctx context.Context, rawURL string) (usage.Signal, parser.ContentSignal, error) {
	_, m, err := c.rules(ctx, "signal", rawURL)
	if err != nil || m == nil {
		return usage.Signal{}, parser.ContentSignal{}, err
	}
	s, rec := m.Signal()
	return s, rec, nil
}
