package robots

import (
	"fmt"
	"io"
	"slices"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/authority"
)

// Export writes every robots.txt record the Client holds, the politeness
// state of failing authorities included, to w, as a stream Import reads: for
// a warm restart, or to seed other Clients. The stream is versioned, ends
// with a count and a checksum, and holds files and times, never compiled
// rules.
func (c *Client) Export(w io.Writer) error {
	if !c.made() {
		return &Error{Op: "export", Err: errNotNew}
	}
	if err := c.cache.Export(w); err != nil {
		return &Error{Op: "export", Err: err}
	}
	return nil
}

// Import reads a stream Export wrote and adds its records, each compiled for
// the agents of the Client's Options (for those of a Client made by As, on
// its first question), where they are newer than what the Client holds and
// no fetch of their authority is under way. Records keep their times:
// freshness does not restart at import, so a fresh record answers without a
// fetch until it expires, and an expired one is fetched again. A stream that
// is malformed, cut short, altered or of another version, or a record that
// cannot be trusted (an authority not in canonical form, a freshness no
// fetch gives), makes Import return an error wrapping
// cache.ErrMalformedRecord and add nothing. Import holds the stream's
// records in memory until it has checked the whole stream.
func (c *Client) Import(r io.Reader) error {
	if !c.made() {
		return &Error{Op: "import", Err: errNotNew}
	}
	recs, err := cache.ReadStream(r)
	if err != nil {
		return &Error{Op: "import", Err: err}
	}
	now := c.now()
	for i, rec := range recs {
		if err := rec.Check(now); err != nil {
			return &Error{Op: "import", Err: fmt.Errorf("record %d: %w", i+1, err)}
		}
		if a, err := authority.Parse(rec.Authority + "/"); err != nil || a.Key != rec.Authority {
			return &Error{Op: "import", Err: fmt.Errorf("record %d: %w: %q is not an authority in canonical form", i+1, cache.ErrMalformedRecord, rec.Authority)}
		}
	}
	// Oldest first, so that if they do not all fit, the newest stay.
	slices.SortStableFunc(recs, func(a, b *cache.Record) int { return a.FetchedAt.Compare(b.FetchedAt) })
	n, err := c.cache.Seed(recs)
	if err != nil {
		return &Error{Op: "import", Err: err}
	}
	c.stats.imported.Add(uint64(n))
	return nil
}
