package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The body buffer starts at firstBuffer bytes, larger than 99% of real
// robots.txt files (the corpus's p99 is 42 KB), and grows by a factor of
// growth, so that at the default cap it grows once, straight to the cap.
const (
	firstBuffer = 32 << 10
	growth      = 16
)

// readBody reads the body of resp, gzip-decoded when the server says it is,
// up to max bytes after decoding. When the body is longer, it returns the
// first max bytes less the line the cap cuts in half, and truncated.
//
// Memory stays bounded whatever the server sends: the buffer starts at the
// announced length (plain bodies, for which net/http enforces
// Content-Length; at most firstBuffer*growth, so that a length alone cannot
// make it allocate) or, when the length is not known, at a scratch buffer of
// firstBuffer bytes that a body which fits leaves for one of its own size;
// it grows by a factor of growth up to max+1 bytes. At the peak a fetch
// holds max+1 bytes of body and the buffer before, at most 1/growth of that
// (32 KiB at the default cap), plus the decoder's fixed state.
//
// A body of a pooled size (see pooledMin) is read into, or copied to, a
// buffer lent from a pool, to give back once it is no longer read (the
// returned lent, zero when none is). The slice has the capacity a buffer
// made for it would have had; the buffer lent may be larger, by at most a
// quarter of the body's size.
func readBody(resp *http.Response, max int64) (body []byte, lent loan, truncated bool, err error) {
	var r io.Reader = resp.Body
	size := int64(firstBuffer)
	if gzipped(resp.Header) {
		g := getDecoder(resp.Body)
		defer putDecoder(g)
		// A body labeled gzip that is not is read as it is: undecodable
		// bodies are parsed anyway (they yield warnings, not rules).
		if magic, err := g.br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
			if err := g.zr.Reset(g.br); err != nil {
				return nil, loan{}, false, err
			}
			g.zr.Multistream(false)
			r = g
		} else {
			r = g.br
		}
	} else if resp.ContentLength >= 0 {
		size = min(resp.ContentLength+1, firstBuffer*growth) // +1 to see the end without growing
	}
	limit := max + 1 // one byte more than the cap tells a longer body apart
	var buf []byte
	var scratch *[firstBuffer]byte // buf's array while the length is unknown and it fits
	if size == firstBuffer && limit >= firstBuffer {
		scratch = scratchPool.Get().(*[firstBuffer]byte)
		defer scratchPool.Put(scratch)
		buf = scratch[:0]
	} else if n := min(size, limit); pooled(n) {
		lent = lend(n)
		buf = lent.buf.b[:0:n] // no more than it would have made: it grows as it would
	} else {
		buf = make([]byte, 0, n)
	}
	// own returns b, a part of buf, in memory of its own, of its size.
	own := func(b []byte) []byte {
		if scratch == nil {
			return b
		}
		if pooled(int64(len(b))) {
			lent = lend(int64(len(b)))
			out := lent.buf.b[:len(b):len(b)]
			copy(out, b)
			return out
		}
		out := make([]byte, len(b))
		copy(out, b)
		return out
	}
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) == limit {
				break
			}
			grown := make([]byte, len(buf), min(int64(cap(buf))*growth, limit))
			copy(grown, buf)
			buf, scratch = grown, nil
			// A body longer than it said (a RoundTripper of the caller's):
			// the buffer lent, if any, holds nothing of it now.
			lent.give()
			lent = loan{}
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			body = own(buf)
			return body, lent, false, nil
		}
		if err != nil {
			body = own(buf)
			return body, lent, false, err
		}
	}
	body = own(dropCutLine(buf[:max], buf[max]))
	return body, lent, true, nil
}

// Bodies of pooledMin to pooledMax bytes (with the byte that tells their
// end) are read into buffers lent from bodyPools, of a few sizes, which
// Result.Release gives back for the bodies of later fetches: a crawler
// that copies what it keeps of a body (as a cache compresses it) makes no
// garbage of bodies. A smaller body is cheap to allocate; a larger one, up
// to the cap, is rare. A body lent is held in a buffer at most a quarter
// larger than it: the size classes are 4, 5, 6 and 7 times each power of
// two from 128 B to 64 KiB, and 512 KiB, above the default cap.
const (
	pooledMin = 512
	pooledMax = 512 << 10
)

// bodyClasses are the sizes of the buffers lent, ascending.
var bodyClasses = func() []int {
	var sizes []int
	for p := pooledMin / 4; p < pooledMax/4; p <<= 1 {
		for _, k := range []int{4, 5, 6, 7} {
			sizes = append(sizes, k*p)
		}
	}
	return append(sizes, pooledMax)
}()

// bodyPools holds, for each size class, the buffers given back.
var bodyPools = func() []sync.Pool {
	pools := make([]sync.Pool, len(bodyClasses))
	for i, n := range bodyClasses {
		pools[i].New = func() any { return &bodyBuffer{b: make([]byte, n), class: i} }
	}
	return pools
}()

// bodyBuffer is a buffer of bodyPools: while lent, the memory of one
// Result's Body.
type bodyBuffer struct {
	b     []byte
	class int
	// lease counts the times the buffer was lent and given back: it is odd
	// while the buffer is lent.
	lease atomic.Uint64
}

// loan is a buffer lent, and the lease it was lent under: it gives the
// buffer back only if that lease is the current one, so that giving back
// twice (or from two copies of a Result), even once the buffer is lent
// again, gives it back once.
type loan struct {
	buf   *bodyBuffer // nil: none
	lease uint64
}

// pooled reports whether a buffer of n bytes is lent rather than made.
func pooled(n int64) bool { return n >= pooledMin && n <= pooledMax }

// lend lends a buffer of at least n bytes, n pooled.
func lend(n int64) loan {
	i, _ := slices.BinarySearch(bodyClasses, int(n))
	lb := bodyPools[i].Get().(*bodyBuffer)
	return loan{buf: lb, lease: lb.lease.Add(1)}
}

// give gives the buffer back, unless there is none or it was given back
// under this lease already.
func (l loan) give() {
	if l.buf != nil && l.buf.lease.CompareAndSwap(l.lease, l.lease+1) {
		if poisonGiven {
			countPoisoned()
			for i := range l.buf.b {
				l.buf.b[i] = 0xAA
			}
			return // never lent again: what reads it later reads 0xAA
		}
		bodyPools[l.buf.class].Put(l.buf)
	}
}

// scratchPool holds the scratch buffers of bodies of unknown length, each
// of firstBuffer bytes.
var scratchPool = sync.Pool{New: func() any { return new([firstBuffer]byte) }}

// dropCutLine returns b, the body up to the cap, without its last line if
// the cap cut it in half; next is the first byte past the cap. A line ends at
// LF or CR, as robots.txt lines do.
func dropCutLine(b []byte, next byte) []byte {
	if next == '\n' || next == '\r' {
		return b // the line ends right at the cap
	}
	return b[:bytes.LastIndexAny(b, "\r\n")+1]
}

// gzipped reports whether the Content-Encoding of h is gzip, the only
// encoding requested.
func gzipped(h http.Header) bool {
	ce := strings.TrimSpace(h.Get("Content-Encoding"))
	return strings.EqualFold(ce, "gzip") || strings.EqualFold(ce, "x-gzip")
}

// gzipMembers reads the members of a gzip stream one after the other, as
// gzip.Reader's multistream mode does, but ends the stream, as browsers do,
// at anything after a complete member that is not another member: some
// servers pad their gzip bodies. A failure of the connection is still one.
//
// Its decoder state (some 45 KiB, the window mostly) is kept for the next
// body in decoderPool.
type gzipMembers struct {
	src sourceErr
	br  *bufio.Reader // reads src
	zr  gzip.Reader   // reads br
}

// decoderPool holds the gzipMembers of bodies read.
var decoderPool = sync.Pool{New: func() any {
	g := new(gzipMembers)
	g.br = bufio.NewReader(&g.src)
	return g
}}

// getDecoder returns a gzipMembers reading body, its gzip.Reader not yet
// reset.
func getDecoder(body io.Reader) *gzipMembers {
	g := decoderPool.Get().(*gzipMembers)
	g.src = sourceErr{r: body}
	g.br.Reset(&g.src)
	return g
}

// putDecoder keeps g for another body, holding nothing of this one's source.
func putDecoder(g *gzipMembers) {
	g.src = sourceErr{}
	g.br.Reset(&g.src)
	decoderPool.Put(g)
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		if n > 0 {
			return n, nil // the end of the member is seen again next time
		}
		if err := g.zr.Reset(g.br); err != nil {
			if g.src.err != nil {
				return 0, g.src.err
			}
			return 0, io.EOF // no more data, or data that is not a member
		}
		g.zr.Multistream(false)
	}
}

// sourceErr remembers the first error other than io.EOF of the reader it
// wraps: what the connection, not the decoder, said.
type sourceErr struct {
	r   io.Reader
	err error
}

func (s *sourceErr) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}
