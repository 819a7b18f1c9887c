package cache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/crawlkit/robots/fetch"
)

// A cache that holds thousands of records keeps each one compact: the body
// compressed, since only an export, a fleet or a Client made by As read it
// again, and the kept headers as one string rather than a map. On the
// real-world corpus that is a third of the body's bytes, and a tenth of the
// headers' (README, "Performance").
//
// A compact Record holds its headers and body in one string, z: a uvarint,
// the length of the packed headers times four plus the format of the body
// (see format); the headers (each value as the index of its name in
// KeptHeaders, a uvarint length and the value); then the body, compressed.
// Body and Header are nil. One string rather than two fields keeps a Record
// at 240 bytes, a size class of the allocator, and a compact record in two
// allocations. The methods of this package read either form, and compact
// bodies of every format.

// BodyCodec is how a compact record compresses its body. The format a body
// was compressed in is kept with it: records compacted with different
// codecs may be mixed.
type BodyCodec uint8

const (
	// BalancedBodies, the zero value, compresses a body under 4 KiB (nine
	// files in ten) with s2 against a built-in vocabulary of robots.txt,
	// and a larger one with zstd's fastest level, where zstd's better ratio
	// saves most for its time: on the real-world corpus, a body in 21% of
	// its bytes (682 B for a mean of 3,230), about 7 µs more per fetch than
	// FastBodies.
	BalancedBodies BodyCodec = iota
	// SmallBodies compresses every body with zstd's fastest level: a body
	// in 21% of its bytes on the corpus (665 B), for about 10 µs more per
	// body than FastBodies (about 4 times s2's time), and a little more to
	// read it back. For a cache that keeps millions of records for hours,
	// whose memory counts for more than a few microseconds of each fetch.
	SmallBodies
	// FastBodies compresses every body with s2's block format alone, for
	// the speed of a cold path: about 1 GB/s, a body in 30% of its bytes
	// on the corpus (983 B).
	FastBodies
)

// balancedZstd is the smallest body BalancedBodies compresses with zstd.
// Below it zstd's fixed cost per body (its entropy tables, a few
// microseconds) buys few bytes: on the corpus, zstd saves 33 B per µs it
// costs on bodies of 1 to 4 KiB, 40 to 68 on larger ones.
const balancedZstd = 4 << 10

// format is how one compact body is compressed: the low bits of the
// uvarint that begins z.
type format uint8

const (
	s2Format    format = iota // s2's block format
	zstdFormat                // a uvarint, the body's length, then a zstd frame
	vocabFormat               // s2's block format, against the vocabulary
	formatBits  = 2
)

// formatFor returns the format codec compresses a body of n octets in;
// a value of no codec is BalancedBodies.
func (codec BodyCodec) formatFor(n int) format {
	switch {
	case codec == FastBodies:
		return s2Format
	case codec == SmallBodies || n >= balancedZstd:
		return zstdFormat
	default:
		return vocabFormat
	}
}

// Compact returns a copy of r, and of its good copy, that holds its body and
// headers in less memory: Body and Header are nil in it, and File and
// Headers read them. It returns r itself when there is nothing to compact,
// so that compacting twice gives the record compacted once. Set Body or
// Header on a compact record only to replace them: a field that is set is
// what every method reads.
//
// The body is compressed as BalancedBodies says; see CompactWith for the
// other codecs.
func (r *Record) Compact() *Record { return r.compactAs(BalancedBodies) }

func (r *Record) compactAs(codec BodyCodec) *Record {
	if r == nil {
		return nil
	}
	g := r.Good.compactAs(codec)
	if len(r.Body) == 0 && len(r.Header) == 0 && g == r.Good {
		return r
	}
	c := *r
	if len(r.Body) > 0 {
		c.z = r.compress(codec)
	} else {
		body, f := r.zbody()
		c.z = pack(r.packedHeader(), body, f)
	}
	c.Body, c.Header, c.Good = nil, nil, g
	return &c
}

// CompactWith is Compact, with the body compressed by codec, but a body
// that held holds compact already (the file fetched again, unchanged) is
// taken from held, in its format, rather than compressed again: a refetch
// of an unchanged file costs a decompression and a comparison instead of a
// compression.
func (r *Record) CompactWith(held *Record, codec BodyCodec) *Record {
	if r == nil || held == nil || len(r.Body) == 0 || held.bodyAsField() || !r.SameBody(held) {
		return r.compactAs(codec)
	}
	c := *r
	body, f := held.zbody()
	c.z = pack(r.packedHeader(), body, f)
	c.Body, c.Header, c.Good = nil, nil, r.Good.compactAs(codec)
	return &c
}

// Expand returns r with its Body and Header, and its good copy's, as
// fields: r itself when it holds them so already, else a copy, whose Body is
// a slice of its own. Records given to a Fleet, or encoded, are expanded.
func (r *Record) Expand() *Record {
	if r == nil || !r.compact() && (r.Good == nil || !r.Good.compact()) {
		return r
	}
	c := *r
	c.Body, c.Header, c.z = r.File(), r.Headers(), ""
	c.Good = r.Good.Expand()
	return &c
}

// WithHeader returns a copy of r that shares its body, with header as its
// kept headers, compact if r is: a 304 renews a record so (RFC 9111
// §4.3.4).
func (r *Record) WithHeader(header http.Header) *Record {
	c := *r
	if r.compact() {
		body, f := r.zbody()
		c.z, c.Header = pack(packHeader(header), body, f), nil
	} else {
		c.Header = header
	}
	return &c
}

// SameBody reports whether r and o hold the same non-empty body, compact or
// not: what was derived from the body of one holds for the other (a 304
// renewal, an outage keeping its good copy, or a refetch that got the file
// held again).
func (r *Record) SameBody(o *Record) bool {
	if r == nil || o == nil {
		return false
	}
	ra, oa := r.bodyAsField(), o.bodyAsField()
	switch {
	case ra && oa:
		return len(r.Body) > 0 && bytes.Equal(r.Body, o.Body)
	case !ra && !oa:
		rb, rf := r.zbody()
		ob, of := o.zbody()
		if rf == of {
			// This process compressed both, in one format: equal
			// bodies are equal blocks.
			return bytes.Equal(rb, ob)
		}
		if r.BodyLen() != o.BodyLen() {
			return false
		}
		return bytes.Equal(r.File(), o.File()) // of two formats: rare
	case ra:
		r, o = o, r
	}
	// r is compact, o holds its Body as a field: decompress r only when
	// the lengths agree, into scratch memory.
	body, f := r.zbody()
	n := decodedLen(body, f)
	if n != len(o.Body) {
		return false
	}
	buf := getScratch(n)
	defer putScratch(buf)
	return bytes.Equal(decode((*buf)[:0], body, f), o.Body)
}

// File returns the body of r, compact or not: Body when it is set, else,
// for a compact record, the body decompressed into a slice of its own.
func (r *Record) File() []byte {
	if r.bodyAsField() {
		return r.Body
	}
	body, f := r.zbody()
	return decode(make([]byte, 0, decodedLen(body, f)), body, f)
}

// BodyLen returns the length of the body of r, compact or not.
func (r *Record) BodyLen() int {
	if r == nil {
		return 0
	}
	if r.bodyAsField() {
		return len(r.Body)
	}
	return decodedLen(r.zbody())
}

// Headers returns the kept headers of r, compact or not: Header when it is
// set, else, for a compact record, a map of its own.
func (r *Record) Headers() http.Header {
	if r.headerAsField() {
		return r.Header
	}
	h := make(http.Header, 2)
	forHeaders(r.zheader(), func(k string, v []byte) { h[k] = append(h[k], string(v)) })
	return h
}

// header returns the first value of the kept header name of r, compact or
// not, without building a map.
func (r *Record) header(name string) string {
	if r.headerAsField() {
		return r.Header.Get(name)
	}
	var first string
	forHeaders(r.zheader(), func(k string, v []byte) {
		if k == name && first == "" {
			first = string(v)
		}
	})
	return first
}

func (r *Record) compact() bool { return r.z != "" }

// bodyAsField and headerAsField report whether r holds its body, or its
// headers, in its field: it is not compact, or the field was set since.
func (r *Record) bodyAsField() bool {
	body, _ := r.zbody()
	return len(r.Body) > 0 || len(body) == 0
}
func (r *Record) headerAsField() bool { return r.Header != nil || len(r.zheader()) == 0 }

// packedHeader returns r's kept headers packed: Header when it is set (it
// replaces what was packed, even with none), else what was packed.
func (r *Record) packedHeader() []byte {
	if r.Header != nil {
		return packHeader(r.Header)
	}
	return r.zheader()
}

// zheader and zbody return the packed headers and the compressed body of a
// compact record, in z's memory, which nothing writes; empty for others.
// zbody also returns the format of the body.
func (r *Record) zheader() []byte {
	z := unsafe.Slice(unsafe.StringData(r.z), len(r.z))
	n, i := binary.Uvarint(z)
	return z[i : i+int(n>>formatBits)]
}

func (r *Record) zbody() ([]byte, format) {
	z := unsafe.Slice(unsafe.StringData(r.z), len(r.z))
	n, i := binary.Uvarint(z)
	return z[i+int(n>>formatBits):], format(n & (1<<formatBits - 1))
}

// pack returns the z of a compact record of the packed headers header and
// the body compressed in format f; "" when both are empty. A string, 8 bytes
// less than a slice in every Record. (A strings.Builder, whose memory is
// not zeroed before it is written: a cold site's z is its largest
// allocation.)
func pack(header, body []byte, f format) string {
	if len(header) == 0 && len(body) == 0 {
		return ""
	}
	lead := uint64(len(header))<<formatBits | uint64(f)
	var n [binary.MaxVarintLen64]byte
	hn := binary.PutUvarint(n[:], lead)
	var z strings.Builder
	z.Grow(hn + len(header) + len(body))
	z.Write(n[:hn])
	z.Write(header)
	z.Write(body)
	return z.String()
}

// scratch holds the buffers compress builds a record's z in before it is
// copied at its size; buffers of up to keptScratch bytes go back to it.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// keptScratch is the largest scratch buffer kept for another record: room
// for a body at the default cap of a fetch, compressed, and its headers.
// Larger ones, for larger caps, are made for each record and left to the
// collector. The pool keeps as many as compressions ran at once between
// two collections (an s2 compression blocks on nothing, so about one per
// processor; a zstd one may wait for one of its encoders, its buffer
// held, so as many as compact records at once): some 600 KB each at most.
var keptScratch = s2.MaxEncodedLen(fetch.DefaultMaxBytes+1) + 4<<10

// compress returns the z of a compact copy of r: its kept headers packed,
// and its Body, compressed by codec, in a string of its own size. The
// headers and the body are built in a scratch buffer and copied once.
func (r *Record) compress(codec BodyCodec) string {
	buf := scratch.Get().(*[]byte)
	defer putScratch(buf)
	b := (*buf)[:0]
	if r.Header != nil {
		b = appendPackedHeader(b, r.Header)
	} else {
		b = append(b, r.zheader()...)
	}
	header := len(b)
	// Room for any format: s2's bound is the largest.
	if n := header + s2.MaxEncodedLen(len(r.Body)); cap(b) < n {
		b = append(make([]byte, 0, max(n, min(2*cap(b), keptScratch))), b...)
		*buf = b
	}
	var body []byte
	f := codec.formatFor(len(r.Body))
	switch f {
	case zstdFormat:
		body = binary.AppendUvarint(b[header:header], uint64(len(r.Body)))
		body = zstdCodec().enc.EncodeAll(r.Body, body)
	case vocabFormat:
		body = appendVocab(b[header:header], r.Body)
	default:
		body = s2.Encode(b[header:cap(b)], r.Body)
	}
	return pack(b[:header], body, f)
}

// zstdCodec returns the encoder and decoder of zstd's format, made the
// first time a record asks for them: a process that compacts with
// FastBodies alone never does. Both are safe for concurrent use; each runs
// up to zstdConcurrency calls at once, and holds memory for them: about
// 0.8 MB per encoder (a window of zstdWindow), 50 KB per decoder.
var zstdCodec = sync.OnceValue(func() (c struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}) {
	n := min(runtime.GOMAXPROCS(0), zstdConcurrency)
	var err error
	c.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(zstdWindow), zstd.WithLowerEncoderMem(true), zstd.WithZeroFrames(true),
		zstd.WithEncoderConcurrency(n))
	if err == nil {
		c.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(n), zstd.WithDecoderLowmem(true))
	}
	if err != nil {
		panic(fmt.Errorf("cache: zstd: %w", err)) // constant options: cannot fail
	}
	return c
})

// zstdConcurrency bounds the zstd compressions, and decompressions, that
// run at once: four compress about 800 MB of files a second, more than a
// process fetches. zstdWindow is the window of its compression: the real
// corpus compresses as well with it as with 8 MiB (665 B per file), in a
// fifth of the encoder's memory.
const (
	zstdConcurrency = 4
	zstdWindow      = 256 << 10
)

// decodedLen returns the length of what body, compressed in format f,
// decodes to: a zstd body begins with it as a uvarint, as an s2 block does.
func decodedLen(body []byte, f format) int {
	if f == zstdFormat {
		n, i := binary.Uvarint(body)
		if i <= 0 || n > math.MaxInt32 {
			panic(corrupt(errors.New("no length")))
		}
		return int(n)
	}
	n, err := s2.DecodedLen(body)
	if err != nil {
		panic(corrupt(err))
	}
	return n
}

// decode appends what compress made body of to dst. body is this package's
// own output, held in memory: should it not decode, the memory was
// corrupted, and nothing could be trusted to answer with.
func decode(dst, body []byte, f format) []byte {
	n := decodedLen(body, f)
	dst = slices.Grow(dst, n)
	if f == zstdFormat {
		_, i := binary.Uvarint(body)
		b, err := zstdCodec().dec.DecodeAll(body[i:], dst)
		if err != nil || len(b) != len(dst)+n {
			panic(corrupt(fmt.Errorf("zstd gave %d octets of %d: %v", len(b)-len(dst), n, err)))
		}
		return b
	}
	block := s2.Decode
	if f == vocabFormat {
		block = vocabularyDict().Decode
	}
	if _, err := block(dst[len(dst):len(dst)+n], body); err != nil {
		panic(corrupt(err))
	}
	return dst[:len(dst)+n]
}

// getScratch returns a scratch buffer of at least n bytes, for putScratch.
func getScratch(n int) *[]byte {
	buf := scratch.Get().(*[]byte)
	if cap(*buf) < n {
		*buf = make([]byte, max(n, min(2*cap(*buf), keptScratch)))
	}
	return buf
}

// putScratch gives buf back to the pool, unless it is larger than what the
// pool keeps. Nothing may read it afterwards.
func putScratch(buf *[]byte) {
	if cap(*buf) <= keptScratch {
		scratch.Put(buf)
	}
}

func corrupt(err error) error {
	return fmt.Errorf("cache: a compact record's body does not decode (memory corrupted?): %w", err)
}

// packHeader returns the kept headers of h, in the order of KeptHeaders, as
// a compact record holds them. Names that are not kept are left out, as an
// encoding leaves them out.
func packHeader(h http.Header) []byte {
	n := 0
	for _, k := range KeptHeaders {
		for _, v := range h[k] {
			n += 1 + binary.MaxVarintLen32 + len(v)
		}
	}
	return appendPackedHeader(make([]byte, 0, n), h)
}

// appendPackedHeader appends the kept headers of h as packHeader packs
// them.
func appendPackedHeader(b []byte, h http.Header) []byte {
	for i, k := range KeptHeaders {
		for _, v := range h[k] {
			if sec, ok := fixdate(v); ok {
				b = binary.AppendVarint(append(b, byte(i)|dateTag), sec)
				continue
			}
			b = append(b, byte(i))
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	return b
}

// forHeaders calls fn with each name and value packHeader packed in z. The
// value is fn's only for the call.
func forHeaders(z []byte, fn func(k string, v []byte)) {
	var date [len(http.TimeFormat)]byte
	for len(z) > 0 {
		k := KeptHeaders[z[0]&^dateTag]
		if z[0]&dateTag != 0 {
			sec, n := binary.Varint(z[1:])
			fn(k, appendFixdate(date[:0], sec))
			z = z[1+n:]
			continue
		}
		n, i := binary.Uvarint(z[1:])
		start := 1 + i
		fn(k, z[start:start+int(n)])
		z = z[start+int(n):]
	}
}
