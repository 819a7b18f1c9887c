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
	idle     int   // files in a row, while larger than keptStore, that needed less than a quarter of it
}

var stores = sync.Pool{New: func() any { return new(store) }}

// maxStore is the most bytes a store keeps between files: more than the
// store of the corpus's largest file (21,000 rules; 0.7 MB at the default
// cap of a fetch, 0.85 MB grown with headroom), so that a crawler meeting
// large files one after another makes no garbage of their parses.
//
// A store larger than keptStore is let go after maxIdle files in a row
// that need less than a quarter of it, so that a goroutine that met one
// large file does not hold its memory for the rest of a crawl; and a pool
// lets any store go after two collections without a parse. A process
// holds at most one store per parse running at once (about one per CPU).
const (
	maxStore  = 2 << 20
	keptStore = 64 << 10
	maxIdle   = 256
)

// headroom is the size of an array of a store made in place of one of
// capacity had, too small for the n elements of a file: a quarter more
// than n, so that files of growing size (the versions of one file, say) do
// not each make it anew; but n when there was none, or when spare says
// that a quarter more would take the store past maxStore, which free would
// let go.
func headroom(had, n int, spare bool) int {
	if had == 0 || !spare {
		return n
	}
	return n + n/4
}

// init readies b to store what n counted of body in st, which holds
// nothing (see free).
func (st *store) init(b *builder, body []byte, n *tally) {
	st.r = Robots{}
	b.r, b.body = &st.r, body
	spare := 5*sizeOf(n)/4 <= maxStore
	b.r.Groups = reuse(&st.groups, n.groups, spare)
	b.agents = reuse(&st.agents, n.agents, spare)
	b.rules = reuse(&st.rules, n.rules, spare)
	b.usages = reuse(&st.usages, n.usages, spare)
	b.r.ContentSignals = reuse(&st.signals, n.signals, spare)
	b.r.Other = reuse(&st.other, n.other, spare)
	b.r.Sitemaps = reuse(&st.sitemaps, n.sitemaps, spare)
	st.last = *n // the counts are exact: the file fills that much of each array
}

// reuse returns the array of *a emptied, with room for n, or nil for none,
// as Parse leaves a slice of nothing.
func reuse[T any](a *[]T, n int, spare bool) []T {
	if cap(*a) < n {
		*a = make([]T, 0, headroom(cap(*a), n, spare))
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

// free returns st to the pool, less the arrays of a large file (or of one
// met maxIdle files ago), and with no pointer into the file it held: the
// strings that point into its body are cleared, and the groups, which
// point into arrays it may have let go for larger.
func (st *store) free() {
	st.r = Robots{}
	keeps := st.keeps()
	last := &st.last
	clear(st.groups[:last.groups])
	clear(st.agents[:last.agents])
	clear(st.rules[:last.rules])
	clear(st.usages[:last.usages])
	clear(st.signals[:last.signals])
	clear(st.other[:last.other])
	clear(st.sitemaps[:last.sitemaps])
	st.last = tally{} // nothing left to clear
	if !keeps {
		*st = store{}
	}
	stores.Put(st)
}

// keeps reports whether st keeps its arrays for the next file, and counts
// the files that did not need them.
func (st *store) keeps() bool {
	size := st.size()
	switch {
	case size > maxStore:
		return false
	case size <= keptStore || 4*sizeOf(&st.last) >= size:
		st.idle = 0
		return true
	}
	st.idle++
	return st.idle <= maxIdle
}

// size returns the bytes of st's arrays.
func (st *store) size() int {
	return sizeOf(&tally{groups: cap(st.groups), agents: cap(st.agents), rules: cap(st.rules),
		usages: cap(st.usages), signals: cap(st.signals), other: cap(st.other), sitemaps: cap(st.sitemaps)})
}

// sizeOf returns the bytes of the arrays of a store that n fills.
func sizeOf(n *tally) int {
	return n.groups*int(unsafe.Sizeof(Group{})) + n.agents*int(unsafe.Sizeof(Agent{})) +
		n.rules*int(unsafe.Sizeof(Rule{})) + n.usages*int(unsafe.Sizeof(ContentUsage{})) +
		n.signals*int(unsafe.Sizeof(ContentSignal{})) + n.other*int(unsafe.Sizeof(Record{})) +
		n.sitemaps*int(unsafe.Sizeof(""))
}
