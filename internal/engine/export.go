package engine

import (
	"io"

	"github.com/crawlkit/robots/internal/exportstream"
)

// Export writes every record held (see Records) to w as an export stream,
// which cache.ReadStream reads.
func (c *Cache[V]) Export(w io.Writer) error {
	sw := exportstream.NewWriter(w)
	var buf []byte
	for _, r := range c.Records() {
		var err error
		if buf, err = r.AppendBinary(buf[:0]); err != nil {
			return err
		}
		if err := sw.Write(buf); err != nil {
			return err
		}
	}
	return sw.Close()
}
