package parser

import (
	"sync"
	"sync/atomic"
)

// Parse reads a body in two passes and scans it once. The counting pass
// scans and classifies every line, and each line that matters to the Robots
// (one that builds something or warns) becomes a record, which the builder
// reads in both passes: counting, it counts it and keeps it in a recording;
// storing, it walks the recording, and never looks at the lines between
// the records again. Blank lines and comments cost the scan alone.
//
// A recording is bounded: a file with more lines that matter than
// maxRecords is recorded up to the bound, and the storing pass scans the
// rest of it again, from the first line not recorded, as the counting pass
// did. Recordings are reused (see spare): once one has served a body as
// large, a Parse allocates nothing for its records.

// maxRecords bounds the records of one Parse, and so what a recording
// keeps: 4,096 records of 24 bytes, 96 KiB, at most a fifth of a 500 KiB
// body even for a Parse that grows them from nothing. They hold every line
// that matters of 85% of the bytes of the real corpus (the largest file has
// 21,052); the lines of a larger file past them are scanned again, at no
// more memory.
const maxRecords = 1 << 12

// minRecords is the least room a recording grows to: 6 KiB, every line
// that matters of 94% of the files of the real corpus.
const minRecords = 256

// record is a line that matters, as the builder reads it: the key, the
// value and the flags that the scanner found, in 24 bytes. The key is
// placed from the value back, and the lengths, in 16 bits, because a line
// is cut at MaxLineLength. It holds no pointer.
type record struct {
	num        int
	valueStart int
	valueLen   uint16
	keyBack    uint16 // valueStart - keyStart
	keyLen     uint16
	key        key
	flags      lineFlags
}

// set makes r the record of l, field by field: r is in a recording, and
// a record built aside and copied there costs a third of the scan.
func (r *record) set(l *line) {
	r.num = l.num
	r.valueStart = l.valueStart
	r.valueLen = uint16(l.valueEnd - l.valueStart)
	r.keyBack = uint16(l.valueStart - l.keyStart)
	r.keyLen = uint16(l.keyEnd - l.keyStart)
	r.key = l.key
	r.flags = l.flags
}

func (r *record) has(f lineFlags) bool { return r.flags&f != 0 }

// recording holds the records of one Parse, and the table of dedupe that
// the last Parse left.
type recording struct {
	records []record
	set     []int32 // at most maxSpareSet
	limit   int     // on len(records); maxRecords but in tests
	// full reports that lines past the last record matter too; rest reads
	// them, from the first.
	full  bool
	rest  scanner
	aside record // the record of a line past the last recorded
}

// A recording comes from spare when it is free, else from the pool. The
// pool drops what two garbage collections found unused, and misses what a
// goroutine put back while it ran on another processor, as it does when a
// collection takes its processor: each miss costs a buffer grown anew.
// spare keeps one recording for the life of the process, so that a
// goroutine parsing one body after another never reallocates: at most
// maxRecords records and a table of maxSpareSet slots, 160 KiB.
var (
	spare      atomic.Pointer[recording]
	recordings = sync.Pool{New: func() any { return new(recording) }}
)

// newRecording returns an empty recording, spare or from the pool.
func newRecording() *recording {
	rec := spare.Swap(nil)
	if rec == nil {
		rec = recordings.Get().(*recording)
	}
	rec.limit = maxRecords
	return rec
}

// free makes rec spare, or returns it to the pool. Its buffer holds at most
// maxRecords, and it keeps nothing of the body.
func (rec *recording) free() {
	rec.records, rec.full, rec.rest = rec.records[:0], false, scanner{}
	if !spare.CompareAndSwap(nil, rec) {
		recordings.Put(rec)
	}
}

// next returns the record to set for l, a line that matters, read by sc:
// the next of rec, or rec.aside once rec is full. Then it leaves l and the
// lines after it to be scanned again.
func (rec *recording) next(l *line, sc *scanner) *record {
	if r := rec.records; len(r) < cap(r) {
		rec.records = r[:len(r)+1]
		return &rec.records[len(r)]
	}
	return rec.nextSlow(l, sc)
}

func (rec *recording) nextSlow(l *line, sc *scanner) *record {
	if rec.full {
		return &rec.aside
	}
	if !rec.grow(l.start, len(sc.s)) {
		rec.full, rec.rest = true, sc.from(l)
		return &rec.aside
	}
	n := len(rec.records)
	rec.records = rec.records[:n+1]
	return &rec.records[n]
}

// grow makes room for more records, having read read bytes of a body of
// size, and reports whether it could. Up to rec.limit, the room doubles, or
// becomes what the lines read so far project for the whole body when that
// is more: a Parse grows a recording once or twice, and one that was used
// for a body as large, never.
func (rec *recording) grow(read, size int) bool {
	n := len(rec.records)
	if n >= rec.limit {
		return false
	}
	c := max(2*n, minRecords)
	if n > 0 {
		c = max(c, size/(read/n+1)+1)
	}
	rec.records = append(make([]record, 0, min(c, rec.limit)), rec.records...)
	return true
}
