package parser

import (
	"sync"
	"unsafe"
)

// ParseFunc parses body as Parse does and calls fn with the Robots, whose
// memory later calls reuse once fn has returned: fn must keep nothing of
// it, no slice and no string, and copy what it keeps. It spares a caller
// that only reads each file, such as a compiler of its rules, the
// allocations of a parse. It is safe for concurrent use.
func ParseFunc(body []byte, fn func(*Robots)) {
	st := stores.Get().(*store)
	rec := newRecording()
	r := parse(body, rec, st)
	rec.free()
	fn(r)
	// Not deferred: the store of a fn that panics is not reused, as fn
	// may have kept some of it where the panic was recovered.
	st.free()
}

// store is the memory of a Robots that ParseFunc reuses from one file to
// the next.
type store struct {
	r        Robots
	groups   []Group
	agents   []Agent
	rules    []Rule
	usages   []ContentUsage
	signals  []ContentSignal
	other    []Record
	sitemaps []string
	text     []byte // the values kept, back to back
}

var stores = sync.Pool{New: func() any { return new(store) }}

// maxStore is the most bytes a store keeps between files: enough for a
// file of several hundred rules. A larger file's arrays are let go.
const maxStore = 64 << 10

// init readies b to store what n counted of body in st.
func (st *store) init(b *builder, body []byte, n *tally) {
	st.r = Robots{}
	b.r, b.body = &st.r, body
	b.r.Groups = reuse(&st.groups, n.groups)
	b.agents = reuse(&st.agents, n.agents)
	b.rules = reuse(&st.rules, n.rules)
	b.usages = reuse(&st.usages, n.usages)
	b.r.ContentSignals = reuse(&st.signals, n.signals)
	b.r.Other = reuse(&st.other, n.other)
	b.r.Sitemaps = reuse(&st.sitemaps, n.sitemaps)
	if cap(st.text) < n.bytes {
		st.text = make([]byte, 0, n.bytes)
	}
	st.text = st.text[:0]
}

// reuse returns the array of *a emptied, with room for n, or nil for none,
// as Parse leaves a slice of nothing. What it held past the new file's
// elements is not cleared: it points into the store's arrays, or into ones
// it let go for larger, which it keeps alive for as long as they are not
// overwritten (a store is at most maxStore bytes).
func reuse[T any](a *[]T, n int) []T {
	if n == 0 {
		return nil
	}
	if cap(*a) < n {
		*a = make([]T, 0, n)
	}
	return (*a)[:0]
}

// keep returns v, which is not empty, as a string that the Robots keeps.
func (st *store) keep(v []byte) string {
	// The text was grown to hold every value, so it does not move until
	// the next file.
	n := len(st.text)
	st.text = append(st.text, v...)
	return unsafe.String(&st.text[n], len(v))
}

// free returns st to the pool, less the arrays of a large file, and with
// no pointer into the file it held.
func (st *store) free() {
	st.r = Robots{}
	size := cap(st.text) +
		cap(st.groups)*int(unsafe.Sizeof(Group{})) + cap(st.agents)*int(unsafe.Sizeof(Agent{})) +
		cap(st.rules)*int(unsafe.Sizeof(Rule{})) + cap(st.usages)*int(unsafe.Sizeof(ContentUsage{})) +
		cap(st.signals)*int(unsafe.Sizeof(ContentSignal{})) + cap(st.other)*int(unsafe.Sizeof(Record{})) +
		cap(st.sitemaps)*int(unsafe.Sizeof(""))
	if size > maxStore {
		*st = store{}
	}
	stores.Put(st)
}
