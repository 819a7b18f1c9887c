package robots

import (
	"io"

	"github.com/crawlkit/robots/cache"
)

// Export writes every robots.txt record the Client holds to w, as a stream
// Import reads: for a warm restart, or to seed other Clients. It includes
// the authorities in an outage whose entries were evicted, with their
// backoff and their last good copy. The stream is versioned, ends with a
// count and a checksum, and holds files and times, never compiled rules.
//
// Every record a Client makes encodes; should one not, it is left out, so
// that one authority never costs the export of all: it is logged and
// counted in Stats.ExportSkipped, and the stream holds the others.
func (c *Client) Export(w io.Writer) error {
	if !c.made() {
		return &Error{Op: "export", Err: errNotNew}
	}
	skipped, err := c.cache.Export(w)
	for _, a := range skipped {
		c.log.Error("robots: a record that does not encode was left out of the export", "authority", a)
	}
	c.stats.exportSkipped.Add(uint64(len(skipped)))
	if err != nil {
		return &Error{Op: "export", Err: err}
	}
	return nil
}

// Import reads a stream Export wrote and adds its records, each compiled for
// the agents of the Client's Options (for those of a Client made by As, on
// its first question), where they are newer than what the Client holds and
// no fetch of their authority is under way; of an authority the stream
// holds twice, the newer record. Records keep their times: freshness does
// not restart at import, so a fresh record answers without a fetch until it
// expires, and an expired one is fetched again. A stream that is malformed,
// cut short, altered or of another version, or a record that cannot be
// trusted (an authority not in canonical form, a body over MaxBytes, a
// freshness no fetch gives), makes Import return an error wrapping
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
	n, err := c.cache.Seed(recs, c.now())
	if err != nil {
		return &Error{Op: "import", Err: err}
	}
	c.stats.imported.Add(uint64(n))
	return nil
}
