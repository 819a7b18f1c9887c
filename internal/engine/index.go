package engine

import (
	"hash/maphash"
	"sync/atomic"
)

// index finds the local tier's slots by key. Reads take no lock and
// allocate nothing; changes are serialized by the tier's mutex. It is a
// table of slot pointers with linear probing, replaced whole when it fills
// or empties: about 16 bytes per key, where a sync.Map spent about 95 (a
// node, the key boxed in an interface, a share of the trie's inner nodes),
// for a tier that may hold millions of authorities.
//
// A removed key leaves a tombstone (the table's gone slot) so that the
// probes of the keys after it still reach them; a rebuild drops them. A
// reader on a table just replaced sees it as it was before the change that
// replaced it, as it would have had it read a moment earlier.
type index[V Sizer] struct {
	t atomic.Pointer[table[V]]
	// live and dead count the slots and the tombstones of t; under the
	// tier's mutex.
	live, dead int
}

type table[V Sizer] struct {
	seed  maphash.Seed // a table's own: a hostile host name cannot aim at a run
	gone  *slot[V]     // the tombstone
	slots []atomic.Pointer[slot[V]]
}

// minTable is the smallest table: 64 pointers.
const minTable = 64

func newIndex[V Sizer]() *index[V] {
	x := new(index[V])
	x.t.Store(newTable[V](0))
	return x
}

// newTable returns an empty table for n keys: at most half full.
func newTable[V Sizer](n int) *table[V] {
	size := minTable
	for size < 2*n {
		size *= 2
	}
	return &table[V]{seed: maphash.MakeSeed(), gone: new(slot[V]), slots: make([]atomic.Pointer[slot[V]], size)}
}

// load returns key's slot, nil when there is none.
func (x *index[V]) load(key string) *slot[V] {
	t := x.t.Load()
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, key) & mask; ; i = (i + 1) & mask {
		s := t.slots[i].Load()
		if s == nil {
			return nil // a table always has an empty pointer: see add
		}
		if s.key == key && s != t.gone {
			return s
		}
	}
}

// add makes s the slot of its key, which has none; the caller holds the
// tier's mutex.
func (x *index[V]) add(s *slot[V]) {
	t := x.t.Load()
	if 4*(x.live+x.dead+1) > 3*len(t.slots) {
		t = x.rebuild(t, x.live+1)
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, s.key) & mask; ; i = (i + 1) & mask {
		switch p := t.slots[i].Load(); p {
		case t.gone:
			x.dead--
			fallthrough
		case nil:
			t.slots[i].Store(s)
			x.live++
			return
		}
	}
}

// remove takes s out if it is its key's slot, and reports whether it was;
// the caller holds the tier's mutex.
func (x *index[V]) remove(s *slot[V]) bool {
	t := x.t.Load()
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, s.key) & mask; ; i = (i + 1) & mask {
		switch p := t.slots[i].Load(); p {
		case nil:
			return false
		case s:
			t.slots[i].Store(t.gone)
			x.live--
			x.dead++
			if len(t.slots) > minTable && 8*x.live < len(t.slots) {
				x.rebuild(t, x.live) // mostly empty: give the memory back
			}
			return true
		}
	}
}

// rebuild replaces t by a table of its live slots, sized for n keys, and
// returns it.
func (x *index[V]) rebuild(t *table[V], n int) *table[V] {
	nt := newTable[V](n)
	mask := uint64(len(nt.slots) - 1)
	for j := range t.slots {
		s := t.slots[j].Load()
		if s == nil || s == t.gone {
			continue
		}
		i := maphash.String(nt.seed, s.key) & mask
		for nt.slots[i].Load() != nil {
			i = (i + 1) & mask
		}
		nt.slots[i].Store(s)
	}
	x.t.Store(nt)
	x.dead = 0
	return nt
}
