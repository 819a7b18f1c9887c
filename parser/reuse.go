package parser

import (
	"sync"
	"unsafe"
)

// ParseFunc parses body as Parse does and calls fn with the Robots, whose
// memory later calls reuse once fn has returned: fn must keep nothing of
// it, no slice and no string, and copy what it keeps. Unlike Parse's, its
// strings are body's memory: body must not change until fn returns. It
// spares a caller that only reads each file, such as a compiler of its
// rules, the allocations and copies of a parse. It is safe for concurrent
// use.
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
	last     tally // what the last file stored in the arrays
}

var stores = sync.Pool{New: func() any { return new(store) }}

// maxStore is the most bytes a store keeps between files: more than the
// store of the corpus's largest file (21,000 rules; 0.7 MB at the default
// cap of a fetch, 0.85 MB grown with headroom), so that a crawler meeting
// large files one after another makes no garbage of their parses. A store
// is kept only while files keep being parsed: a pool lets it go after two
// collections without use.
const maxStore = 2 << 20

// headroom is the size of an array of a store made in place of one of
// capacity had, too small for the n elements of a file: a quarter more
// than n, so that files of growing size (the versions of one file, say) do
// not each make it anew, unless there was none.
func headroom(had, n int) int {
	if had == 0 {
		return n
	}
	return n + n/4
}

// init readies b to store what n counted of body in st.
func (st *store) init(b *builder, body []byte, n *tally) {
	st.r = Robots{}
	b.r, b.body = &st.r, body
	last := &st.last
	b.r.Groups = reuse(&st.groups, n.groups, last.groups)
	b.agents = reuse(&st.agents, n.agents, last.agents)
	b.rules = reuse(&st.rules, n.rules, last.rules)
	b.usages = reuse(&st.usages, n.usages, last.usages)
	b.r.ContentSignals = reuse(&st.signals, n.signals, last.signals)
	b.r.Other = reuse(&st.other, n.other, last.other)
	b.r.Sitemaps = reuse(&st.sitemaps, n.sitemaps, last.sitemaps)
	st.last = *n // the counts are exact: the file fills that much of each array
}

// reuse returns the array of *a emptied, with room for n, or nil for none,
// as Parse leaves a slice of nothing. The last file stored last elements
// in it; those the new file does not overwrite are cleared, so that a
// store points only into the memory of the file it holds (and keeps no
// text it let go for larger alive).
func reuse[T any](a *[]T, n, last int) []T {
	if cap(*a) < n {
		*a = make([]T, 0, headroom(cap(*a), n)) // the old array goes, with what it held
	} else if last > n {
		clear((*a)[n:last])
	}
	if n == 0 {
		return nil
	}
	return (*a)[:0]
}

// keep returns v, which is not empty and is the body's memory, as a
// string that the Robots keeps: not a copy (see ParseFunc).
func (st *store) keep(v []byte) string {
	return unsafe.String(unsafe.SliceData(v), len(v))
}

// free returns st to the pool, less the arrays of a large file, and with
// no pointer into the file it held: the strings that point into its body
// are cleared.
func (st *store) free() {
	st.r = Robots{}
	last := &st.last
	clear(st.agents[:last.agents])
	clear(st.rules[:last.rules])
	clear(st.usages[:last.usages])
	clear(st.signals[:last.signals])
	clear(st.other[:last.other])
	clear(st.sitemaps[:last.sitemaps])
	st.last = tally{} // nothing left to clear
	size := cap(st.groups)*int(unsafe.Sizeof(Group{})) + cap(st.agents)*int(unsafe.Sizeof(Agent{})) +
		cap(st.rules)*int(unsafe.Sizeof(Rule{})) + cap(st.usages)*int(unsafe.Sizeof(ContentUsage{})) +
		cap(st.signals)*int(unsafe.Sizeof(ContentSignal{})) + cap(st.other)*int(unsafe.Sizeof(Record{})) +
		cap(st.sitemaps)*int(unsafe.Sizeof(""))
	if size > maxStore {
		*st = store{}
	}
	stores.Put(st)
}
