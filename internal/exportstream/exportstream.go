// Package exportstream frames the records of an export stream: what
// robots.Client.Export writes and cache.ReadStream reads. It knows nothing
// of what a record holds; each is an opaque, non-empty frame.
//
// The stream, version 1:
//
//	"robots-cache" 0x01              magic and version
//	n × {uvarint length, frame}      each a record as cache.Record encodes itself
//	0x00                             end marker (no frame is empty)
//	uvarint n                        the number of frames
//	uint32 CRC-32C of all the above, little-endian
//
// Frames carry checksums of their own; the stream's covers the framing, so
// that a truncation at any byte, or any flipped byte, is detected.
package exportstream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

const (
	magic   = "robots-cache"
	version = 1
	// readChunk is the most Read allocates ahead of the bytes it has
	// actually received.
	readChunk = 64 << 10
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// FormatError says how a stream departs from its format: cut short,
// altered, of another version, or a frame over the limit.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return e.Msg }

func malformed(format string, args ...any) error {
	return &FormatError{Msg: fmt.Sprintf(format, args...)}
}

// Writer writes frames as a stream.
type Writer struct {
	w   *bufio.Writer
	crc hash.Hash32
	n   uint64
	err error
}

// NewWriter returns a Writer that writes to w, starting with the stream's
// header.
func NewWriter(w io.Writer) *Writer {
	s := &Writer{w: bufio.NewWriter(w), crc: crc32.New(castagnoli)}
	s.write(append([]byte(magic), version))
	return s
}

func (s *Writer) write(b []byte) {
	if s.err != nil {
		return
	}
	s.crc.Write(b)
	_, s.err = s.w.Write(b)
}

// Write appends frame, which must not be empty, to the stream. An error is
// sticky: once one write has failed, every later one, and Close, returns
// it.
func (s *Writer) Write(frame []byte) error {
	if len(frame) == 0 {
		return errors.New("exportstream: an empty frame")
	}
	s.write(binary.AppendUvarint(nil, uint64(len(frame))))
	s.write(frame)
	s.n++
	return s.err
}

// Close ends the stream: the end marker, the count and the checksum. It
// does not close the underlying writer.
func (s *Writer) Close() error {
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

// Read reads a whole stream from r and hands each frame, in order, to each,
// which may keep it; an error from each ends the read and is returned as is.
// A frame over maxFrame bytes, a stream cut short, altered or of another
// version give a *FormatError; any other error is r's. Memory follows the
// bytes actually read, never a declared length alone. Read returns only
// once the whole stream is checked, so a caller that keeps the frames and
// uses them only when Read returns nil adds all or nothing.
func Read(r io.Reader, maxFrame int, each func(frame []byte) error) error {
	cr := &crcReader{r: bufio.NewReader(r), crc: crc32.New(castagnoli)}
	head := make([]byte, len(magic)+1)
	if _, err := io.ReadFull(cr, head); err != nil {
		return streamErr("header", err)
	}
	if string(head[:len(magic)]) != magic {
		return malformed("not an export stream")
	}
	if v := head[len(magic)]; v != version {
		return malformed("stream version %d, want %d", v, version)
	}
	var frames uint64
	for {
		n, err := binary.ReadUvarint(cr)
		if err != nil {
			return streamErr("record length", err)
		}
		if n == 0 {
			break
		}
		if n > uint64(maxFrame) {
			return malformed("a record of %d bytes, over %d", n, maxFrame)
		}
		b, err := readN(cr, int(n))
		if err != nil {
			return streamErr("record", err)
		}
		frames++
		if err := each(b); err != nil {
			return err
		}
	}
	count, err := binary.ReadUvarint(cr)
	if err != nil {
		return streamErr("count", err)
	}
	want := cr.crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(cr.r, sum[:]); err != nil {
		return streamErr("checksum", err)
	}
	switch {
	case binary.LittleEndian.Uint32(sum[:]) != want:
		return malformed("stream checksum mismatch")
	case count != frames:
		return malformed("stream says %d records, holds %d", count, frames)
	}
	if _, err := cr.r.ReadByte(); err != io.EOF {
		return malformed("bytes after the end of the stream")
	}
	return nil
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
