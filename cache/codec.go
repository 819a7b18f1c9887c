package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"time"

	"github.com/crawlkit/robots/fetch"
	"github.com/crawlkit/robots/status"
)

// The encoding of a Record, version 1:
//
//	"rrec" 0x01                      magic and version
//	string Authority, URL, FinalURL  (a string is a uvarint length and bytes)
//	uvarint n, n × {string URL, uvarint StatusCode, string Location}
//	uvarint StatusCode, byte Class, string Outcome
//	uvarint n, n × {string name, string value}      the kept headers
//	string Body
//	byte flags                       1 Truncated, 2 a good copy follows
//	byte times                       which of the three times follow
//	varint FetchedAt, FreshUntil, UnreachableSince (Unix nanoseconds)
//	uvarint Failures
//	string Good                      the good copy, encoded alone, if flagged
//	uint32 CRC-32C of all the above, little-endian
//
// Decoding trusts nothing: every length is checked against the bytes that
// remain before anything is allocated, every count and size against the
// limits below, every value against the invariants of a Record.

const (
	recordMagic   = "rrec"
	recordVersion = 1
)

// Limits of a Record's encoding. MarshalBinary refuses a record that
// exceeds one, and UnmarshalBinary such bytes; the records a robots.Client
// makes keep within them (a longer string is cut, a longer list clipped), so
// that every record it holds can be exported and shared.
const (
	// MaxBodyBytes is the largest Body: the fetch package's largest cap.
	MaxBodyBytes = fetch.MaxMaxBytes
	// MaxStringBytes bounds every other string: a URL, a Location, a header
	// value, an Outcome.
	MaxStringBytes = 64 << 10
	// MaxRedirects bounds Redirects, and MaxHeaderValues the values of
	// Header, all names together.
	MaxRedirects    = 64
	MaxHeaderValues = 64
	// MaxFailures bounds Failures; backoff stops growing long before.
	MaxFailures = 1 << 20
)

// ErrMalformedRecord is wrapped by every error of UnmarshalBinary and of
// reading an export stream: the bytes are not a well-formed Record.
var ErrMalformedRecord = errors.New("malformed cache record")

// ErrNewerRecord is wrapped, beside ErrMalformedRecord, by the error of
// UnmarshalBinary for the encoding of a newer version of this package: well
// formed, maybe, but not readable here. A shared store leaves such a record
// to the processes that can read it.
var ErrNewerRecord = errors.New("a record of a newer encoding")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes r. It fails only for a record that would not decode:
// one that breaks the limits or invariants UnmarshalBinary checks.
func (r *Record) MarshalBinary() ([]byte, error) {
	return r.AppendBinary(make([]byte, 0, 256+r.BodyLen()+r.Good.BodyLen()))
}

// AppendBinary appends the encoding of r to b, as MarshalBinary makes it;
// on failure it returns b unchanged.
func (r *Record) AppendBinary(b []byte) ([]byte, error) {
	r = r.Expand()
	if err := r.validate(true); err != nil {
		return b, err
	}
	return r.appendBinary(b), nil
}

func (r *Record) appendBinary(b []byte) []byte {
	start := len(b)
	b = append(b, recordMagic...)
	b = append(b, recordVersion)
	b = appendString(b, r.Authority)
	b = appendString(b, r.URL)
	b = appendString(b, r.FinalURL)
	b = binary.AppendUvarint(b, uint64(len(r.Redirects)))
	for _, h := range r.Redirects {
		b = appendString(b, h.URL)
		b = binary.AppendUvarint(b, uint64(h.StatusCode))
		b = appendString(b, h.Location)
	}
	b = binary.AppendUvarint(b, uint64(r.StatusCode))
	b = append(b, byte(r.Class))
	b = appendString(b, r.Outcome)
	var n int
	for _, vs := range r.Header {
		n += len(vs)
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, k := range KeptHeaders { // a fixed order: equal records encode equally
		for _, v := range r.Header[k] {
			b = appendString(b, k)
			b = appendString(b, v)
		}
	}
	b = appendString(b, string(r.Body))
	var flags byte
	if r.Truncated {
		flags |= 1
	}
	if r.Good != nil {
		flags |= 2
	}
	b = append(b, flags)
	var times byte
	for i, t := range [...]time.Time{r.FetchedAt, r.FreshUntil, r.UnreachableSince} {
		if !t.IsZero() {
			times |= 1 << i
		}
	}
	b = append(b, times)
	for _, t := range [...]time.Time{r.FetchedAt, r.FreshUntil, r.UnreachableSince} {
		if !t.IsZero() {
			b = binary.AppendVarint(b, t.UnixNano())
		}
	}
	b = binary.AppendUvarint(b, uint64(r.Failures))
	if r.Good != nil {
		good := r.Good.appendBinary(nil)
		b = binary.AppendUvarint(b, uint64(len(good)))
		b = append(b, good...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// UnmarshalBinary decodes data, as MarshalBinary encodes it, into r. Any
// departure from the encoding or from a Record's invariants is an error
// wrapping ErrMalformedRecord, and r is then left unchanged. Nothing is
// allocated beyond the sizes data holds; the record shares no memory with
// data.
func (r *Record) UnmarshalBinary(data []byte) error {
	dec, err := decodeRecord(data, true)
	if err != nil {
		return err
	}
	*r = *dec
	return nil
}

func decodeRecord(data []byte, outer bool) (*Record, error) {
	if len(data) < len(recordMagic)+1+4 {
		return nil, malformed("%d bytes: too short", len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if string(body[:len(recordMagic)]) != recordMagic {
		return nil, malformed("not a record")
	}
	if v := body[len(recordMagic)]; v > recordVersion {
		return nil, fmt.Errorf("%w: %w: version %d, this package reads %d", ErrMalformedRecord, ErrNewerRecord, v, recordVersion)
	} else if v != recordVersion {
		return nil, malformed("version %d, want %d", v, recordVersion)
	}
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, malformed("checksum mismatch")
	}
	d := decoder{b: body[len(recordMagic)+1:]}
	r := &Record{}
	r.Authority = d.string(MaxStringBytes)
	r.URL = d.string(MaxStringBytes)
	r.FinalURL = d.string(MaxStringBytes)
	if n := d.count(MaxRedirects, 3); n > 0 {
		r.Redirects = make([]fetch.Hop, n)
		for i := range r.Redirects {
			r.Redirects[i] = fetch.Hop{URL: d.string(MaxStringBytes), StatusCode: int(d.uvarint(999)), Location: d.string(MaxStringBytes)}
		}
	}
	r.StatusCode = int(d.uvarint(999))
	r.Class = status.Class(d.byte())
	r.Outcome = d.string(MaxStringBytes)
	if n := d.count(MaxHeaderValues, 2); n > 0 {
		r.Header = make(http.Header, min(n, len(KeptHeaders)))
		for range n {
			k, v := d.string(MaxStringBytes), d.string(MaxStringBytes)
			if d.err == nil && !kept(k) {
				d.fail("header %q is not one a record keeps", k)
			}
			r.Header[k] = append(r.Header[k], v)
		}
	}
	if body := d.bytes(MaxBodyBytes); len(body) > 0 {
		r.Body = body
	}
	flags, times := d.byte(), d.byte()
	if flags&^3 != 0 || times&^7 != 0 {
		d.fail("unknown flags %#x, %#x", flags, times)
	}
	r.Truncated = flags&1 != 0
	for i, t := range [...]*time.Time{&r.FetchedAt, &r.FreshUntil, &r.UnreachableSince} {
		if times&(1<<i) != 0 {
			*t = time.Unix(0, d.varint()).UTC()
		}
	}
	r.Failures = int(d.uvarint(MaxFailures))
	if flags&2 != 0 {
		if !outer {
			d.fail("a good copy inside a good copy")
		} else if good := d.view(len(d.b)); d.err == nil {
			r.Good, d.err = decodeRecord(good, false)
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes after the record", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	if err := r.validate(outer); err != nil {
		return nil, err
	}
	return r, nil
}

// validate checks the invariants of a Record: the limits of the encoding,
// a known class, a good copy only in an outage and of the same authority,
// failures exactly in an outage.
func (r *Record) validate(outer bool) error {
	switch {
	case r.Authority == "":
		return malformed("no authority")
	case len(r.Authority) > MaxStringBytes || len(r.URL) > MaxStringBytes || len(r.FinalURL) > MaxStringBytes || len(r.Outcome) > MaxStringBytes:
		return malformed("a string over %d bytes", MaxStringBytes)
	case len(r.Body) > MaxBodyBytes:
		return malformed("a body of %d bytes, over %d", len(r.Body), MaxBodyBytes)
	case len(r.Redirects) > MaxRedirects:
		return malformed("%d redirects, over %d", len(r.Redirects), MaxRedirects)
	case r.StatusCode < 0 || r.StatusCode > 999:
		return malformed("status %d", r.StatusCode)
	case r.Class < status.Success || r.Class > status.Unreachable:
		return malformed("class %d", r.Class)
	case r.Failures < 0 || r.Failures > MaxFailures:
		return malformed("%d failures", r.Failures)
	case r.Unreachable() != (r.Failures > 0):
		return malformed("class %v with %d failures", r.Class, r.Failures)
	case r.Unreachable() == r.UnreachableSince.IsZero():
		return malformed("class %v with outage start %v", r.Class, r.UnreachableSince)
	case r.Good != nil && (!outer || !r.Unreachable()):
		return malformed("a good copy outside an outage")
	case (len(r.Body) > 0) != (r.Class == status.Success):
		return malformed("class %v with a body of %d bytes", r.Class, len(r.Body))
	case r.Truncated && r.Class != status.Success:
		return malformed("class %v truncated", r.Class)
	}
	for _, t := range [...]time.Time{r.FetchedAt, r.FreshUntil, r.UnreachableSince} {
		if !t.IsZero() && !time.Unix(0, t.UnixNano()).Equal(t) {
			return malformed("time %v out of range", t)
		}
	}
	n := 0
	for k, vs := range r.Header {
		if !kept(k) {
			return malformed("header %q is not one a record keeps", k)
		}
		for _, v := range vs {
			if len(v) > MaxStringBytes {
				return malformed("a header value over %d bytes", MaxStringBytes)
			}
		}
		n += len(vs)
	}
	if n > MaxHeaderValues {
		return malformed("%d header values, over %d", n, MaxHeaderValues)
	}
	for _, h := range r.Redirects {
		if len(h.URL) > MaxStringBytes || len(h.Location) > MaxStringBytes || h.StatusCode < 0 || h.StatusCode > 999 {
			return malformed("a redirect out of bounds")
		}
	}
	if g := r.Good; g != nil {
		if g.Authority != r.Authority {
			return malformed("a good copy of %q in a record of %q", g.Authority, r.Authority)
		}
		if err := g.validate(false); err != nil {
			return err
		}
		if g.Unreachable() {
			return malformed("an unreachable good copy")
		}
	}
	return nil
}

func kept(name string) bool {
	for _, k := range KeptHeaders {
		if k == name {
			return true
		}
	}
	return false
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformedRecord, fmt.Sprintf(format, args...))
}

// decoder reads the fields of an encoding; its first error sticks, and
// every read after it returns a zero value.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = malformed(format, args...)
	}
}

func (d *decoder) uvarint(limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || !minimal(d.b[:n]) {
		d.fail("bad number")
		return 0
	}
	if v > limit {
		d.fail("%d, over %d", v, limit)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 || !minimal(d.b[:n]) {
		d.fail("bad number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// minimal reports whether a varint's n bytes are its shortest encoding:
// a longer one ends in a zero byte ("\x80\x00" for 0). Accepting those would
// let two encodings stand for one record, which encodes back to only one.
func minimal(b []byte) bool {
	return len(b) == 1 || b[len(b)-1] != 0
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("cut short")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// count reads the length of a list whose items take at least minBytes each:
// a count the remaining bytes cannot hold is refused before any allocation.
func (d *decoder) count(limit, minBytes int) int {
	n := int(d.uvarint(uint64(limit)))
	if n*minBytes > len(d.b) {
		d.fail("%d items in %d bytes", n, len(d.b))
		return 0
	}
	return n
}

// bytes reads a length-prefixed run of at most limit bytes, copied.
func (d *decoder) bytes(limit int) []byte {
	v := d.view(limit)
	if len(v) == 0 {
		return nil
	}
	return append([]byte(nil), v...)
}

// view reads a length-prefixed run of at most limit bytes, in place.
func (d *decoder) view(limit int) []byte {
	n := int(d.uvarint(uint64(limit)))
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail("%d bytes declared, %d left", n, len(d.b))
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) string(limit int) string { return string(d.view(limit)) }
