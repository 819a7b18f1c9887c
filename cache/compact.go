package cache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"

	"github.com/crawlkit/robots/fetch"
)

// A cache that holds thousands of records keeps each one compact: the body
// compressed, since only an export, a fleet or a Client made by As read it
// again, and the kept headers as one string rather than a map. On the
// real-world corpus that is a third of the body's bytes, and a tenth of the
// headers' (README, "Performance").
//
// A compact Record holds its headers and body in one string, z: the length
// of the packed headers as a uvarint, the headers (each value as the index
// of its name in KeptHeaders, a uvarint length and the value), then the
// body in s2's block format (chosen for the speed of a cold path: about
// 1 GB/s where zstd's fastest level does 240 MB/s and flate's 115 MB/s, for
// 30% more bytes than zstd). Body and Header are nil. One string rather
// than two fields keeps a Record at 240 bytes, a size class of the
// allocator, and a compact record in two allocations. The methods of this
// package read either form.

// Compact returns a copy of r, and of its good copy, that holds its body and
// headers in less memory: Body and Header are nil in it, and File and
// Headers read them. It returns r itself when there is nothing to compact,
// so that compacting twice gives the record compacted once. Set Body or
// Header on a compact record only to replace them: a field that is set is
// what every method reads.
func (r *Record) Compact() *Record {
	if r == nil {
		return nil
	}
	g := r.Good.Compact()
	if len(r.Body) == 0 && len(r.Header) == 0 && g == r.Good {
		return r
	}
	c := *r
	if len(r.Body) > 0 {
		c.z = r.compress()
	} else {
		c.z = pack(r.packedHeader(), r.zbody())
	}
	c.Body, c.Header, c.Good = nil, nil, g
	return &c
}

// CompactWith is Compact, but a body that held holds compact already (the
// file fetched again, unchanged) is taken from held rather than compressed
// again: a refetch of an unchanged file costs a decompression and a
// comparison instead of a compression.
func (r *Record) CompactWith(held *Record) *Record {
	if r == nil || held == nil || len(r.Body) == 0 || held.bodyAsField() || !r.SameBody(held) {
		return r.Compact()
	}
	c := *r
	c.z = pack(r.packedHeader(), held.zbody())
	c.Body, c.Header, c.Good = nil, nil, r.Good.Compact()
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
		c.z, c.Header = pack(packHeader(header), r.zbody()), nil
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
		// This process compressed both: equal bodies are equal blocks.
		return bytes.Equal(r.zbody(), o.zbody())
	case ra:
		r, o = o, r
	}
	// r is compact, o holds its Body as a field: decompress r only when
	// the lengths agree, into scratch memory.
	n, err := s2.DecodedLen(r.zbody())
	if err != nil || n != len(o.Body) {
		return false
	}
	buf := getScratch(n)
	defer putScratch(buf)
	b, err := s2.Decode((*buf)[:n], r.zbody())
	if err != nil {
		panic(corrupt(err))
	}
	return bytes.Equal(b, o.Body)
}

// File returns the body of r, compact or not: Body when it is set, else,
// for a compact record, the body decompressed into a slice of its own.
func (r *Record) File() []byte {
	if r.bodyAsField() {
		return r.Body
	}
	return decompress(r.zbody())
}

// BodyLen returns the length of the body of r, compact or not.
func (r *Record) BodyLen() int {
	if r == nil {
		return 0
	}
	if r.bodyAsField() {
		return len(r.Body)
	}
	n, err := s2.DecodedLen(r.zbody())
	if err != nil {
		panic(corrupt(err))
	}
	return n
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
func (r *Record) bodyAsField() bool   { return len(r.Body) > 0 || len(r.zbody()) == 0 }
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
func (r *Record) zheader() []byte {
	z := unsafe.Slice(unsafe.StringData(r.z), len(r.z))
	n, i := binary.Uvarint(z)
	return z[i : i+int(n)]
}

func (r *Record) zbody() []byte {
	z := unsafe.Slice(unsafe.StringData(r.z), len(r.z))
	n, i := binary.Uvarint(z)
	return z[i+int(n):]
}

// pack returns the z of a compact record of the packed headers header and
// the compressed body body; "" when both are empty. A string, 8 bytes less
// than a slice in every Record. (A strings.Builder, whose memory is not
// zeroed before it is written: a cold site's z is its largest allocation.)
func pack(header, body []byte) string {
	if len(header) == 0 && len(body) == 0 {
		return ""
	}
	var n [binary.MaxVarintLen64]byte
	hn := binary.PutUvarint(n[:], uint64(len(header)))
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
// two collections (a compression blocks on nothing, so about one per
// processor): some 600 KB each at most.
var keptScratch = s2.MaxEncodedLen(fetch.DefaultMaxBytes+1) + 4<<10

// compress returns the z of a compact copy of r: its kept headers packed,
// and its Body, compressed in s2's block format, in a string of its own
// size. The headers and the body are built in a scratch buffer and copied
// once.
func (r *Record) compress() string {
	buf := scratch.Get().(*[]byte)
	defer putScratch(buf)
	b := (*buf)[:0]
	if r.Header != nil {
		b = appendPackedHeader(b, r.Header)
	} else {
		b = append(b, r.zheader()...)
	}
	header := len(b)
	if n := header + s2.MaxEncodedLen(len(r.Body)); cap(b) < n {
		b = append(make([]byte, 0, max(n, min(2*cap(b), keptScratch))), b...)
		*buf = b
	}
	body := s2.Encode(b[header:cap(b)], r.Body)
	return pack(b[:header], body)
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

// decompress returns what compress made z of. z is this package's own
// output, held in memory: should it not decode, the memory was corrupted,
// and nothing could be trusted to answer with.
func decompress(z []byte) []byte {
	n, err := s2.DecodedLen(z)
	if err == nil {
		var b []byte
		if b, err = s2.Decode(make([]byte, n), z); err == nil {
			return b
		}
	}
	panic(corrupt(err))
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
