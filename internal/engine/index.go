package engine

import (
	"hash/maphash"
	"sync/atomic"
)

// index finds the local tier's slots by key. Reads take no lock and
// allocate nothing; changes are serialized by the tier's mutex. It spends
// 16 to 32 bytes per key (24 typically) where a sync.Map spent about 119 (a
// node, the key boxed in an interface, a share of the trie's inner nodes),
// for a tier that may hold millions of authorities.
//
// Keys are spread by their hash over 256 parts, each a table of slot
// pointers with linear probing, replaced whole when it fills or empties, so
// that replacing one, under the tier's mutex, moves a 256th of the keys: a
// few milliseconds for a tier of millions, not a pause that grows with it.
// A removed key leaves a tombstone (gone) so that the probes of the keys
// after it still reach them; a rebuild drops them. A reader on a table just
// replaced sees it as it was before the change that replaced it, as it
// would have had it read a moment earlier.
type index[V Sizer] struct {
	seed  maphash.Seed // the index's own: a hostile host name cannot aim at a run
	gone  *slot[V]     // the tombstone
	parts [1 << partBits]part[V]
}

// part is one table of the index: nil until it holds a key.
type part[V Sizer] struct {
	t atomic.Pointer[[]atomic.Pointer[slot[V]]]
	// live and dead count the slots and the tombstones of t; under the
	// tier's mutex.
	live, dead int
}

const (
	partBits = 8
	// minTable is the smallest table: 8 pointers.
	minTable = 8
)

func newIndex[V Sizer]() *index[V] {
	x := new(index[V])
	x.init()
	return x
}

// init makes x an empty index.
func (x *index[V]) init() { x.seed, x.gone = maphash.MakeSeed(), new(slot[V]) }

// load returns key's slot, nil when there is none.
func (x *index[V]) load(key string) *slot[V] {
	h := maphash.String(x.seed, key)
	p := &x.parts[h>>(64-partBits)]
	t := p.t.Load()
	if t == nil {
		return nil
	}
	slots := *t
	mask := uint64(len(slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := slots[i].Load()
		if s == nil {
			return nil // a table always has an empty pointer: see add
		}
		if s.key == key && s != x.gone {
			return s
		}
	}
}

// add makes s the slot of its key, which has none; the caller holds the
// tier's mutex.
func (x *index[V]) add(s *slot[V]) {
	h := maphash.String(x.seed, s.key)
	p := &x.parts[h>>(64-partBits)]
	t := p.t.Load()
	if t == nil || 4*(p.live+p.dead+1) > 3*len(*t) {
		t = x.rebuild(p, t, p.live+1)
	}
	slots := *t
	mask := uint64(len(slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch q := slots[i].Load(); q {
		case x.gone:
			p.dead--
			fallthrough
		case nil:
			slots[i].Store(s)
			p.live++
			return
		}
	}
}

// remove takes s out if it is its key's slot, and reports whether it was;
// the caller holds the tier's mutex.
func (x *index[V]) remove(s *slot[V]) bool {
	h := maphash.String(x.seed, s.key)
	p := &x.parts[h>>(64-partBits)]
	t := p.t.Load()
	if t == nil {
		return false
	}
	slots := *t
	mask := uint64(len(slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch q := slots[i].Load(); q {
		case nil:
			return false
		case s:
			slots[i].Store(x.gone)
			p.live--
			p.dead++
			if len(slots) > minTable && 8*p.live < len(slots) {
				x.rebuild(p, t, p.live) // mostly empty: give the memory back
			}
			return true
		}
	}
}

// rebuild replaces p's table t (nil for none) by a table of its live slots
// sized for n keys, at most half full, and returns it.
func (x *index[V]) rebuild(p *part[V], t *[]atomic.Pointer[slot[V]], n int) *[]atomic.Pointer[slot[V]] {
	size := minTable
	for size < 2*n {
		size *= 2
	}
	slots := make([]atomic.Pointer[slot[V]], size)
	mask := uint64(size - 1)
	if t != nil {
		for j := range *t {
			s := (*t)[j].Load()
			if s == nil || s == x.gone {
				continue
			}
			i := maphash.String(x.seed, s.key) & mask
			for slots[i].Load() != nil {
				i = (i + 1) & mask
			}
			slots[i].Store(s)
		}
	}
	p.t.Store(&slots)
	p.dead = 0
	return &slots
}
