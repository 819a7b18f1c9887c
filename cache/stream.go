package cache

import (
	"errors"
	"fmt"
	"io"

	"github.com/crawlkit/robots/internal/exportstream"
)

// maxRecordBytes bounds one encoded record in an export stream: a body at
// the cap and its good copy's, with room for everything else.
const maxRecordBytes = 2*MaxBodyBytes + 8*MaxStringBytes*(MaxRedirects+MaxHeaderValues)

// ReadStream reads a whole export stream, as robots.Client.Export writes
// it, and returns its records in order. A stream that is cut short,
// altered, of another version, or holds a malformed record gives an error
// wrapping ErrMalformedRecord (or the reader's own error) and no records: a
// caller adds all or nothing. Memory follows the bytes actually read, never
// a declared length alone.
//
// The stream is versioned, counted and checksummed (CRC-32C); each record
// in it is encoded as MarshalBinary encodes it.
func ReadStream(r io.Reader) ([]*Record, error) {
	var recs []*Record
	err := exportstream.Read(r, maxRecordBytes, func(b []byte) error {
		rec, err := decodeRecord(b, true)
		if err != nil {
			return fmt.Errorf("record %d: %w", len(recs)+1, err)
		}
		recs = append(recs, rec)
		return nil
	})
	var fe *exportstream.FormatError
	if errors.As(err, &fe) {
		return nil, malformed("%s", fe.Msg)
	}
	if err != nil {
		return nil, err
	}
	return recs, nil
}
