package redisfleet

import (
	_ "embed" // the dictionary
	"errors"
	"fmt"
	"strconv"

	"github.com/klauspost/compress/zstd"

	"github.com/crawlkit/robots/cache"
)

// The value of a record's key, layout 2:
//
//	14 decimal digits   when the record stops being fresh, Unix milliseconds,
//	                    zero-padded: the scripts read it with GETRANGE
//	1 byte              the codec: 'z', zstd with the dictionary of this
//	                    layout (records.dict)
//	the rest            the record's binary encoding (cache.Record), compressed
//
// The layout, the codec and the dictionary go together: the keys of this
// layout are named v2, and a change of any of them takes a new name, so that
// processes of two versions never read, nor delete, each other's records.
const (
	layout = "v2"
	dictID = 2 // the zstd dictionary's ID: the layout's number
	// dictSum is the SHA-1 of records.dict, the dictionary of this layout:
	// another dictionary makes other values, so it takes another layout.
	dictSum   = "ed28fa8f54c746742c4dd3ff4ac7637fa394e303"
	freshLen  = 14
	codecZstd = 'z'
	headLen   = freshLen + 1
)

// dictionary is a zstd dictionary trained on the records of the 2,661
// real-world robots.txt files of the project's corpus (TestDictionary
// rebuilds it with -update): it makes a record about 20% smaller than zstd
// alone does, a third smaller than flate.
//
//go:embed records.dict
var dictionary []byte

// codec compresses and decompresses record encodings. Encoder.EncodeAll and
// Decoder.DecodeAll are safe for concurrent use.
type codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
	max int // the longest record encoding accepted, compressed or not
}

func newCodec(max int) *codec {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderDict(dictionary), zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true))
	if err != nil {
		panic(fmt.Sprintf("redisfleet: the embedded dictionary: %v", err)) // a build defect, not input
	}
	// The decoded size is bounded: a value of a few bytes may claim
	// gigabytes.
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDicts(dictionary), zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(uint64(max)))
	if err != nil {
		panic(fmt.Sprintf("redisfleet: the embedded dictionary: %v", err))
	}
	return &codec{enc: enc, dec: dec, max: max}
}

// errTooLong is wrapped by the error of encode for a record whose encoding
// is longer than MaxRecordBytes.
var errTooLong = errors.New("over MaxRecordBytes")

// encode returns the value of rec's key.
func (c *codec) encode(rec *cache.Record) ([]byte, error) {
	b, err := rec.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if len(b) > c.max {
		return nil, fmt.Errorf("a record of %d bytes: %w (%d)", len(b), errTooLong, c.max)
	}
	head := make([]byte, headLen, headLen+len(b)/3)
	ms := strconv.FormatInt(max(rec.FreshUntil.UnixMilli(), 0), 10)
	if len(ms) > freshLen {
		return nil, fmt.Errorf("a freshness past year 5138")
	}
	for i := range freshLen - len(ms) {
		head[i] = '0'
	}
	copy(head[freshLen-len(ms):], ms)
	head[freshLen] = codecZstd
	return c.enc.EncodeAll(b, head), nil
}

// Why a value cannot be used.
var (
	// errForeign: it is not a value this layout writes (too short, a
	// freshness that is not digits, a compression that does not
	// decompress, a record that does not decode, or one of another
	// authority, or fresh for another time than its header says). It may
	// go.
	errForeign = errors.New("not a record of this layout")
	// errNewer: a codec, or a record encoding, this process does not
	// know, written by a newer one. It stays.
	errNewer = errors.New("a record of a newer codec")
)

// decode returns the record of authority key that the value v holds.
func (c *codec) decode(key string, v []byte) (*cache.Record, error) {
	if len(v) < headLen {
		return nil, fmt.Errorf("%w: %d bytes", errForeign, len(v))
	}
	fresh, err := strconv.ParseInt(string(v[:freshLen]), 10, 64)
	if err != nil || fresh < 0 {
		return nil, fmt.Errorf("%w: freshness %q", errForeign, v[:freshLen])
	}
	if v[freshLen] != codecZstd {
		return nil, fmt.Errorf("%w: codec %q", errNewer, v[freshLen])
	}
	b, err := c.dec.DecodeAll(v[headLen:], nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errForeign, err)
	}
	if len(b) > c.max {
		return nil, fmt.Errorf("%w: a record of %d bytes, over MaxRecordBytes", errForeign, len(b))
	}
	var r cache.Record
	if err := r.UnmarshalBinary(b); errors.Is(err, cache.ErrNewerRecord) {
		return nil, fmt.Errorf("%w: %v", errNewer, err)
	} else if err != nil {
		return nil, fmt.Errorf("%w: %v", errForeign, err)
	}
	switch {
	case r.Authority != key:
		return nil, fmt.Errorf("%w: a record of %q", errForeign, r.Authority)
	case r.FreshUntil.UnixMilli() != fresh:
		return nil, fmt.Errorf("%w: fresh until %d by its header, %d by its record", errForeign, fresh, r.FreshUntil.UnixMilli())
	}
	return &r, nil
}
