package cache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

// An export stream, version 1:
//
//	"robots-cache" 0x01              magic and version
//	n × {uvarint length, Record}     each as MarshalBinary encodes it
//	0x00                             end marker (no record is empty)
//	uvarint n                        the number of records
//	uint32 CRC-32C of all the above, little-endian
//
// The records carry checksums of their own; the stream's covers the framing,
// so that a truncation at any byte, or any flipped byte, is detected.

const (
	streamMagic   = "robots-cache"
	streamVersion = 1
	// maxRecordBytes bounds one encoded record: a body at the cap and its
	// good copy's, with room for everything else.
	maxRecordBytes = 2*MaxBodyBytes + 8*maxString*(maxRedirects+maxHeaders)
	// readChunk is the most a reader allocates ahead of the bytes it has
	// actually received.
	readChunk = 64 << 10
)

// StreamWriter writes Records as an export stream, which ReadStream reads.
type StreamWriter struct {
	w   *bufio.Writer
	crc hash.Hash32
	n   uint64
	err error
	buf []byte
}

// NewStreamWriter returns a StreamWriter that writes to w, starting with the
// stream's header.
func NewStreamWriter(w io.Writer) *StreamWriter {
	s := &StreamWriter{w: bufio.NewWriter(w), crc: crc32.New(castagnoli)}
	s.write(append([]byte(streamMagic), streamVersion))
	return s
}

func (s *StreamWriter) write(b []byte) {
	if s.err != nil {
		return
	}
	s.crc.Write(b)
	_, s.err = s.w.Write(b)
}

// Write appends r to the stream. An error is sticky: once one write has
// failed, every later one, and Close, returns it.
func (s *StreamWriter) Write(r *Record) error {
	if err := r.validate(true); err != nil {
		return err
	}
	if s.err != nil {
		return s.err
	}
	s.buf = r.appendBinary(s.buf[:0])
	s.write(binary.AppendUvarint(nil, uint64(len(s.buf))))
	s.write(s.buf)
	s.n++
	return s.err
}

// Close ends the stream: the end marker, the count and the checksum. It
// does not close the underlying writer.
func (s *StreamWriter) Close() error {
	s.write(binary.AppendUvarint([]byte{0}, s.n))
	if s.err != nil {
		return s.err
	}
	sum := binary.LittleEndian.AppendUint32(nil, s.crc.Sum32())
	if _, err := s.w.Write(sum); err != nil {
		return err
	}
	return s.w.Flush()
}

// ReadStream reads a whole export stream and returns its records, in order.
// A stream that is cut short, altered, of another version, or holds a
// malformed record gives an error wrapping ErrMalformedRecord (or the
// reader's own error) and no records: a caller adds all or nothing. Memory
// follows the bytes actually read, never a declared length alone.
func ReadStream(r io.Reader) ([]*Record, error) {
	cr := &crcReader{r: bufio.NewReader(r), crc: crc32.New(castagnoli)}
	head := make([]byte, len(streamMagic)+1)
	if _, err := io.ReadFull(cr, head); err != nil {
		return nil, streamErr("header", err)
	}
	if string(head[:len(streamMagic)]) != streamMagic {
		return nil, malformed("not an export stream")
	}
	if v := head[len(streamMagic)]; v != streamVersion {
		return nil, malformed("stream version %d, want %d", v, streamVersion)
	}
	var recs []*Record
	for {
		n, err := binary.ReadUvarint(cr)
		if err != nil {
			return nil, streamErr("record length", err)
		}
		if n == 0 {
			break
		}
		if n > maxRecordBytes {
			return nil, malformed("a record of %d bytes, over %d", n, maxRecordBytes)
		}
		b, err := readN(cr, int(n))
		if err != nil {
			return nil, streamErr("record", err)
		}
		rec, err := decodeRecord(b, true)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", len(recs)+1, err)
		}
		recs = append(recs, rec)
	}
	count, err := binary.ReadUvarint(cr)
	if err != nil {
		return nil, streamErr("count", err)
	}
	want := cr.crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(cr.r, sum[:]); err != nil {
		return nil, streamErr("checksum", err)
	}
	switch {
	case binary.LittleEndian.Uint32(sum[:]) != want:
		return nil, malformed("stream checksum mismatch")
	case count != uint64(len(recs)):
		return nil, malformed("stream says %d records, holds %d", count, len(recs))
	}
	if _, err := cr.r.ReadByte(); err != io.EOF {
		return nil, malformed("bytes after the end of the stream")
	}
	return recs, nil
}

// streamErr describes a failure to read part of a stream: a cut stream is
// malformed; any other error is the reader's.
func streamErr(part string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return malformed("stream cut short in its %s", part)
	}
	return fmt.Errorf("reading the %s: %w", part, err)
}

// readN reads exactly n bytes, growing its buffer as they arrive, so that a
// length that lies costs at most readChunk beyond the bytes really there.
func readN(r io.Reader, n int) ([]byte, error) {
	b := make([]byte, 0, min(n, readChunk))
	for len(b) < n {
		if len(b) == cap(b) {
			b = append(b, make([]byte, min(n-len(b), max(len(b), readChunk)))...)[:len(b)]
		}
		m, err := io.ReadFull(r, b[len(b):min(cap(b), n)])
		b = b[:len(b)+m]
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// crcReader checksums the bytes read through it.
type crcReader struct {
	r   *bufio.Reader
	crc hash.Hash32
	one [1]byte
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc.Write(p[:n])
	return n, err
}

func (c *crcReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.one[0] = b
		c.crc.Write(c.one[:])
	}
	return b, err
}
