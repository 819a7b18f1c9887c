package engine

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/authority"
	"github.com/crawlkit/robots/internal/exportstream"
)

// Records that come from outside the process, and those that leave it.

// admit reports why rec, which comes from outside the process (a fleet, an
// import), is not to be trusted at now as the record of key: it is about
// another authority, or about one not written in canonical form, or holds a
// body over this process's cap, or fails cache.Record.Check. An empty key
// takes rec's own authority. Every record from outside passes here.
func (c *Cache[V]) admit(rec *cache.Record, key string, now time.Time) error {
	if key == "" {
		key = rec.Authority
	}
	switch {
	case rec.Authority != key:
		return fmt.Errorf("%w: the record for %q is about %q", cache.ErrMalformedRecord, key, rec.Authority)
	case !canonical(key):
		return fmt.Errorf("%w: %q is not an authority in canonical form", cache.ErrMalformedRecord, key)
	case int64(rec.BodyLen()) > c.cfg.MaxBody || int64(rec.Good.BodyLen()) > c.cfg.MaxBody:
		return fmt.Errorf("%w: the record of %q holds a body over the cap of %d bytes", cache.ErrMalformedRecord, key, c.cfg.MaxBody)
	}
	return rec.Check(now)
}

// canonical reports whether key is an authority in the form the cache keys
// authorities by.
func canonical(key string) bool {
	a, err := authority.Parse(key + "/")
	return err == nil && a.Key == key
}

// Seed adds records known from elsewhere, such as an export: for each
// authority, its newest record, when it is newer than what is held and no
// fetch of it is under way. Their times stand: a fresh one answers until its
// freshness ends, an expired one is refetched. A record that admit refuses
// at now makes Seed return an error wrapping cache.ErrMalformedRecord, with
// the record's place in recs, and add nothing, as it does when deriving a
// value fails. It returns how many authorities the local tier or the
// politeness table took.
func (c *Cache[V]) Seed(recs []*cache.Record, now time.Time) (int, error) {
	newest := make(map[string]*cache.Record, len(recs))
	for i, r := range recs {
		if err := c.admit(r, "", now); err != nil {
			return 0, fmt.Errorf("record %d: %w", i+1, err)
		}
		if cur := newest[r.Authority]; cur == nil || r.FetchedAt.After(cur.FetchedAt) {
			newest[r.Authority] = r
		}
	}
	// Oldest first, so that if they do not all fit, the newest stay.
	order := make([]*cache.Record, 0, len(newest))
	for _, r := range newest {
		order = append(order, r)
	}
	slices.SortStableFunc(order, func(a, b *cache.Record) int { return a.FetchedAt.Compare(b.FetchedAt) })
	var entries []*Entry[V]
	for _, r := range order {
		if !c.isNewer(r.Authority, r.FetchedAt) {
			continue // not worth compiling
		}
		e, err := c.derive(r, nil)
		if err != nil {
			return 0, err
		}
		entries = append(entries, e)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	added := 0
	for _, e := range entries {
		key := e.Held.Authority()
		if c.flightOf(key) != nil || !c.isNewer(key, e.Held.FetchedAt()) {
			continue
		}
		if c.store(key, e) || e.Held.Outage() != nil {
			added++
		}
	}
	return added, nil
}

// isNewer reports whether a record of key fetched at fetchedAt is newer
// than what is held for key.
func (c *Cache[V]) isNewer(key string, fetchedAt time.Time) bool {
	if cur, ok := c.local.get(key); ok && !cur.Held.FetchedAt().Before(fetchedAt) {
		return false
	}
	if o, ok := c.outages.get(key); ok && !o.Last.Before(fetchedAt) {
		return false
	}
	return true
}

// Records returns every record held: the local tier's, least recently used
// first, then, for authorities whose entry was evicted, the record of their
// outage, with its good copy when the politeness tier kept it.
func (c *Cache[V]) Records() []*cache.Record {
	entries, outages := c.snapshot()
	out := make([]*cache.Record, 0, len(entries)+len(outages))
	for _, e := range entries {
		out = append(out, e.Record())
	}
	for _, o := range outages {
		out = append(out, o.Record())
	}
	return out
}

// snapshot returns what Records reads: the local tier's entries, least
// recently used first, and the outages of authorities whose entry was
// evicted.
func (c *Cache[V]) snapshot() ([]*Entry[V], []Outage) {
	keys, entries := c.local.snapshot()
	held := make(map[string]bool, len(keys))
	for _, k := range keys {
		held[k] = true
	}
	var outages []Outage
	for _, o := range c.outages.snapshot() {
		if !held[o.key] {
			outages = append(outages, o)
		}
	}
	return entries, outages
}

// Export writes every record held (see Records) to w as an export stream,
// which cache.ReadStream reads. A record that does not encode is left out,
// so that one authority never costs the export of all: Export returns the
// authorities of those it left out. (Records are made within what encodes;
// none is left out unless that fails.) The entries' records are made and
// written one at a time: an export never holds a copy of them all.
func (c *Cache[V]) Export(w io.Writer) (skipped []string, err error) {
	x := exporter{w: exportstream.NewWriter(w)}
	entries, outages := c.snapshot()
	for _, e := range entries {
		if err := x.write(e.Record()); err != nil {
			return x.skipped, err
		}
	}
	for _, o := range outages {
		if err := x.write(o.Record()); err != nil {
			return x.skipped, err
		}
	}
	return x.skipped, x.w.Close()
}

// exporter is an Export under way.
type exporter struct {
	w       *exportstream.Writer
	buf     []byte
	skipped []string
}

// write writes r, or, should it not encode, notes its authority.
func (x *exporter) write(r *cache.Record) error {
	b, err := r.AppendBinary(x.buf[:0])
	if err != nil {
		x.skipped = append(x.skipped, r.Authority)
		return nil
	}
	x.buf = b
	return x.w.Write(b)
}
