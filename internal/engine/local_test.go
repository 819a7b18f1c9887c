package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/internal/sharedtest"
	"github.com/crawlkit/robots/status"
)

// blob is a value of a given size.
type blob []byte

func (b blob) Size() int64 { return int64(cap(b)) + 24 }

func entryOf(key string, n int) *Entry[blob] {
	return &Entry[blob]{Held: cache.Hold(&cache.Record{Authority: key, Class: status.Empty}), Value: make(blob, n)}
}

func TestLocalPutGetDelete(t *testing.T) {
	l := newLocal[blob](1 << 20)
	_, ok := l.get("https://a.example")
	assert.False(t, ok)
	e := entryOf("https://a.example", 10)
	require.True(t, l.put("https://a.example", e, nil))
	got, ok := l.get("https://a.example")
	require.True(t, ok)
	assert.Same(t, e, got)
	_, ok = l.get("http://a.example")
	assert.False(t, ok, "keys are compared exactly")
	assert.Equal(t, sizeOf("https://a.example", e), l.bytes.Load())

	second := entryOf("https://a.example", 1000)
	l.put("https://a.example", second, nil)
	got, _ = l.get("https://a.example")
	assert.Same(t, second, got)
	assert.Equal(t, 1, l.len())
	assert.Equal(t, sizeOf("https://a.example", second), l.bytes.Load(), "a replaced entry counts once, at its new size")

	l.delete("https://a.example")
	l.delete("https://never.example")
	_, ok = l.get("https://a.example")
	assert.False(t, ok)
	assert.Zero(t, l.bytes.Load())
	assert.Zero(t, l.evicted.Load(), "a deletion is not an eviction")
}

// The tier holds what fits in its budget, least recently used out first,
// counting bytes, not entries.
func TestLocalEvictsByBytes(t *testing.T) {
	one := sizeOf("k0", entryOf("k0", 1000))
	l := newLocal[blob](3*one + one/2)
	for i := range 3 {
		l.put(fmt.Sprint("k", i), entryOf(fmt.Sprint("k", i), 1000), nil)
	}
	_, ok := l.get("k0") // k0 is now the most recently used
	require.True(t, ok)
	l.put("k3", entryOf("k3", 1000), nil) // evicts k1
	_, ok = l.get("k1")
	assert.False(t, ok, "k1 was the least recently used")
	for _, k := range []string{"k0", "k2", "k3"} {
		_, ok := l.get(k)
		assert.True(t, ok, k)
	}
	assert.Equal(t, uint64(1), l.evicted.Load())

	// One large entry makes room for itself, however many small ones go.
	l.put("big", entryOf("big", 4000), nil)
	assert.LessOrEqual(t, l.bytes.Load(), l.budget)
	_, ok = l.get("big")
	assert.True(t, ok)
	assert.Equal(t, 1, l.len())

	// An entry larger than the whole budget is not kept, and removes the
	// entry it was to replace.
	assert.False(t, l.put("big", entryOf("big", 10_000), nil))
	_, ok = l.get("big")
	assert.False(t, ok)
	assert.LessOrEqual(t, l.bytes.Load(), l.budget)
}

// entryOverhead is what an entry costs beyond its record, value and key:
// the heap says the same, within a quarter.
func TestLocalOverheadFollowsTheHeap(t *testing.T) {
	const n = 20_000
	keys := make([]string, n)
	entries := make([]*Entry[blob], n)
	for i := range keys {
		keys[i] = fmt.Sprintf("https://host-%d.example", i)
		entries[i] = entryOf(keys[i], 100)
	}
	l := newLocal[blob](1 << 40)
	_, kept := sharedtest.Memory(func() {
		for i := range keys {
			l.put(keys[i], entries[i], nil)
		}
	})
	// The entries, with their records, values and keys, were allocated
	// before: the heap grew by the tier's own bookkeeping.
	var own int64
	for i := range keys {
		require.Equal(t, keys[i], entries[i].Record().Authority, "the key is the record's, counted with it")
		own += sizeOf(keys[i], entries[i]) - entries[i].Record().Size() - entries[i].Value.Size() - int64(unsafe.Sizeof(*entries[i]))
	}
	if unsafe.Sizeof(uintptr(0)) == 8 {
		assert.Equal(t, uintptr(48), unsafe.Sizeof(slot[blob]{}), "a size class of the allocator")
		// An entry whose value is a pointer, as a Client's is, with the
		// record's fields (cache.Held), is a size class too; the index's
		// share is about 24 B.
		assert.Equal(t, uintptr(96), unsafe.Sizeof(Entry[*growing]{}), "a size class of the allocator")
		assert.Equal(t, int64(unsafe.Sizeof(Entry[*growing]{})+unsafe.Sizeof(slot[blob]{})+24), int64(entryOverhead))
	}
	heap := float64(kept)
	t.Logf("the tier: heap %.0f B/entry, counted %d", heap/n, own/n)
	assert.InDelta(t, heap, float64(own), heap/4, "the tier's bookkeeping: heap %.0f B/entry, counted %d", heap/n, own/n)
	runtime.KeepAlive(entries)
	runtime.KeepAlive(l)
}

func TestLocalHitDoesNotAllocate(t *testing.T) {
	l := newLocal[blob](1 << 20)
	l.put("https://a.example", entryOf("https://a.example", 10), nil)
	allocs := testing.AllocsPerRun(1000, func() {
		l.get("https://a.example")
	})
	assert.Zero(t, allocs)
}

func TestLocalConcurrentUse(t *testing.T) {
	const keys, workers, ops = 64, 8, 3000
	one := sizeOf("https://host00.example", entryOf("https://host00.example", 100))
	l := newLocal[blob](32 * one)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 1))
			for range ops {
				k := fmt.Sprintf("https://host%02d.example", rng.IntN(keys))
				switch r := rng.IntN(10); {
				case r < 6:
					if e, ok := l.get(k); ok {
						assert.Equal(t, k, e.Record().Authority, "every entry read is one put for its key")
					}
				case r < 9:
					l.put(k, entryOf(k, 100), nil)
				default:
					l.delete(k)
				}
			}
		}(uint64(w))
	}
	wg.Wait()
	assert.LessOrEqual(t, l.bytes.Load(), l.budget)
	var sum int64
	keysHeld, entries := l.snapshot()
	for i := range keysHeld {
		sum += sizeOf(keysHeld[i], entries[i])
	}
	assert.Equal(t, sum, l.bytes.Load(), "the count of bytes is exact after any interleaving")
}

// BenchmarkGetParallel compares a hit in the local tier with a hit in
// golang-lru alone, whose Get takes an exclusive lock, both from all
// goroutines on a few hot keys. Run with -cpu 1,2,4,...: the local tier's
// time per op must not grow.
func BenchmarkGetParallel(b *testing.B) {
	keys := []string{"https://a.example", "https://b.example", "https://c.example", "https://d.example"}
	b.Run("store=local", func(b *testing.B) {
		l := newLocal[blob](1 << 20)
		for _, k := range keys {
			l.put(k, entryOf(k, 10), nil)
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				l.get(keys[i&3])
				i++
			}
		})
	})
	b.Run("store=golang-lru", func(b *testing.B) {
		l, _ := lru.New[string, *Entry[blob]](100)
		for _, k := range keys {
			l.Add(k, entryOf(k, 10))
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				l.Get(keys[i&3])
				i++
			}
		})
	})
}

// growing is a value whose size changes after it is stored, as compiled
// rules that fill a cache of their own do.
type growing struct{ n atomic.Int64 }

func (g *growing) Size() int64 { return 24 + g.n.Load() }

func grownEntry(key string, g *growing) *Entry[*growing] {
	return &Entry[*growing]{Held: cache.Hold(&cache.Record{Authority: key, Class: status.Empty}), Value: g}
}

// held returns the bytes the entries held weigh now, measured afresh.
func held[V Sizer](l *local[V]) int64 {
	var sum int64
	keys, entries := l.snapshot()
	for i := range keys {
		sum += sizeOf(keys[i], entries[i])
	}
	return sum
}

// A value that grows is counted at its new size once resized; growth makes
// room by evicting the least recently used others, never the grown entry,
// and an entry grown past the whole budget goes.
func TestLocalResize(t *testing.T) {
	one := sizeOf("k0", grownEntry("k0", &growing{}))
	l := newLocal[*growing](4 * one)
	vals := make([]*growing, 4)
	for i := range vals {
		vals[i] = &growing{}
		require.True(t, l.put(fmt.Sprint("k", i), grownEntry(fmt.Sprint("k", i), vals[i]), nil))
	}
	require.Equal(t, 4*one, l.bytes.Load())

	assert.False(t, l.resize("absent"), "nothing held: nothing to resize")
	assert.Equal(t, 4*one, l.bytes.Load())

	vals[0].n.Add(10)
	assert.Equal(t, 4*one, l.bytes.Load(), "growth counts only once reported")
	require.True(t, l.resize("k0"))
	// k0, the least recently used, grew: k1 makes room, not k0.
	_, ok := l.get("k0")
	assert.True(t, ok, "the grown entry is the most recently used")
	_, ok = l.get("k1")
	assert.False(t, ok, "the least recently used other made room")
	assert.Equal(t, uint64(1), l.evicted.Load())
	assert.Equal(t, 3*one+10, l.bytes.Load())
	assert.Equal(t, held(l), l.bytes.Load())

	vals[0].n.Add(-10) // a value may shrink too
	require.True(t, l.resize("k0"))
	assert.Equal(t, 3*one, l.bytes.Load())

	vals[2].n.Add(4 * one) // past the whole budget
	assert.False(t, l.resize("k2"), "an entry past the budget is not kept")
	_, ok = l.get("k2")
	assert.False(t, ok)
	assert.Equal(t, held(l), l.bytes.Load())
	assert.Equal(t, uint64(1), l.evicted.Load(), "a removal is not an eviction")
}

// A value derived again is often the value of the entry it replaces. Growth
// reported through either entry, in any interleaving with puts, evictions
// and deletions, leaves the count exact: the bytes counted are the bytes
// the entries held weigh, and within the budget.
func TestLocalResizeAccountingExact(t *testing.T) {
	const keys, workers, ops = 16, 8, 4000
	one := sizeOf("https://host00.example", grownEntry("https://host00.example", &growing{}))
	l := newLocal[*growing](keys * one * 3 / 2)
	var mu sync.Mutex
	vals := map[string]*growing{} // the value each key's entries share
	value := func(k string, fresh bool) *growing {
		mu.Lock()
		defer mu.Unlock()
		if vals[k] == nil || fresh {
			vals[k] = &growing{}
		}
		return vals[k]
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 2))
			for range ops {
				k := fmt.Sprintf("https://host%02d.example", rng.IntN(keys))
				switch r := rng.IntN(20); {
				case r < 8: // grow the value held, or one just replaced
					g := value(k, false)
					g.n.Add(int64(rng.IntN(int(one))))
					l.resize(k)
				case r < 9: // shrink
					g := value(k, false)
					g.n.Store(0)
					l.resize(k)
				case r < 15: // a new entry sharing the value (a 304, an outage)
					l.put(k, grownEntry(k, value(k, false)), nil)
				case r < 19: // a new entry, a new value (a new body)
					l.put(k, grownEntry(k, value(k, true)), nil)
				default:
					l.delete(k)
				}
			}
		}(uint64(w))
	}
	wg.Wait()
	assert.LessOrEqual(t, l.bytes.Load(), l.budget)
	assert.Equal(t, held(l), l.bytes.Load(), "the count of bytes is exact after any interleaving")
	assert.Positive(t, l.evicted.Load(), "growth evicted")
}

// get, which takes no lock, never finds a slot without its entry: put
// fills the slot before it shows it.
func TestLocalGetNeverNil(t *testing.T) {
	l := newLocal[blob](1 << 20)
	const key = "https://a.example"
	e := entryOf(key, 10)
	stop := make(chan struct{})
	var nils atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if got, ok := l.get(key); ok && got == nil {
					nils.Add(1)
				}
			}
		}()
	}
	for range 20_000 {
		l.put(key, e, nil)
		l.delete(key)
	}
	close(stop)
	wg.Wait()
	assert.Zero(t, nils.Load(), "a slot read before its entry was stored")
}

// The recency list against a model of it: after any sequence of puts, reads,
// deletes and resizes, the tier holds the entries the model holds, in the
// model's order, and counts their bytes exactly.
func TestLocalOrderFollowsAModel(t *testing.T) {
	one := sizeOf("k0", entryOf("k0", 100))
	type held struct {
		key  string
		size int64
		seen uint64 // the epoch of its last promotion
	}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		l := newLocal[blob](8 * one)
		var model []held // least recently used first
		var epoch uint64
		find := func(k string) int {
			for i, h := range model {
				if h.key == k {
					return i
				}
			}
			return -1
		}
		toFront := func(i int) {
			h := model[i]
			model = append(append(model[:i:i], model[i+1:]...), h)
		}
		total := func() int64 {
			var n int64
			for _, h := range model {
				n += h.size
			}
			return n
		}
		for step := range 400 {
			k := fmt.Sprint("k", rng.IntN(12))
			switch op := rng.IntN(10); {
			case op < 5: // put
				e := entryOf(k, 50+rng.IntN(300))
				size := sizeOf(k, e)
				epoch++
				if i := find(k); i >= 0 {
					model = append(model[:i:i], model[i+1:]...)
				}
				kept := l.put(k, e, nil)
				assert.True(t, kept, "every entry fits")
				model = append(model, held{k, size, epoch})
				for total() > l.budget {
					model = model[1:]
				}
			case op < 8: // read
				_, ok := l.get(k)
				i := find(k)
				require.Equal(t, i >= 0, ok, "seed %d step %d: %s held", seed, step, k)
				if ok && model[i].seen != epoch {
					model[i].seen = epoch
					toFront(i)
				}
			case op < 9:
				l.delete(k)
				if i := find(k); i >= 0 {
					model = append(model[:i:i], model[i+1:]...)
				}
			default: // resize: the entry held is measured again, and promoted
				ok := l.resize(k)
				i := find(k)
				require.Equal(t, i >= 0, ok)
				if ok {
					toFront(i)
				}
			}
			keys, _ := l.snapshot()
			want := make([]string, len(model))
			for i, h := range model {
				want[i] = h.key
			}
			require.Equal(t, want, keys, "seed %d step %d", seed, step)
			require.Equal(t, total(), l.bytes.Load())
			require.Equal(t, len(model), l.len())
		}
	}
}

// claims is a value that weighs what it says.
type claims int64

func (c claims) Size() int64 { return int64(c) }

// A slot counts an entry in 32 bits: one of 4 GiB or more is not kept,
// whatever the budget, rather than counted wrong.
func TestLocalRefusesWhatASlotCannotCount(t *testing.T) {
	l := newLocal[claims](1 << 40)
	const key = "https://a.example"
	huge := &Entry[claims]{Held: cache.Hold(&cache.Record{Authority: key}), Value: 5 << 30}
	assert.False(t, l.put(key, huge, nil))
	assert.Zero(t, l.bytes.Load())
	_, ok := l.get(key)
	assert.False(t, ok)

	big := &Entry[claims]{Held: cache.Hold(&cache.Record{Authority: key}), Value: 3 << 30}
	assert.True(t, l.put(key, big, nil), "3 GiB is counted exactly")
	assert.Equal(t, sizeOf(key, big), l.bytes.Load())
}
