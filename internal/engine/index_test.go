package engine

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The index finds what a map would, through any sequence of adds and
// removes: growing, filling with tombstones, and shrinking back.
func TestIndexFollowsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := newIndex[blob]()
	model := map[string]*slot[blob]{}
	keys := make([]string, 5000)
	for i := range keys {
		keys[i] = fmt.Sprintf("https://h%d.example", i)
	}
	check := func(step int) {
		for _, k := range keys {
			got := x.load(k)
			if want := model[k]; got != want {
				require.Failf(t, "index differs from the map", "step %d, key %s: got %p, want %p", step, k, got, want)
			}
		}
		live := 0
		for i := range x.parts {
			p := &x.parts[i]
			live += p.live
			if tab := p.t.Load(); tab != nil {
				assert.LessOrEqual(t, 4*(p.live+p.dead), 3*len(*tab), "step %d: an empty pointer ends every probe", step)
			} else {
				assert.Zero(t, p.live+p.dead)
			}
		}
		assert.Equal(t, len(model), live, "step %d", step)
	}
	for step := range 40_000 {
		k := keys[rng.IntN(len(keys))]
		// Phases: mostly adds, then mostly removes, then mixed, so the
		// table grows, fills with tombstones and shrinks.
		addBias := [...]int{9, 1, 5}[step/10_000%3]
		if s, ok := model[k]; ok && rng.IntN(10) >= addBias {
			require.True(t, x.remove(s))
			assert.False(t, x.remove(s), "removed already")
			delete(model, k)
		} else if !ok {
			s := &slot[blob]{key: k}
			x.add(s)
			model[k] = s
		}
		if step%997 == 0 {
			check(step)
		}
	}
	check(-1)
	for k, s := range model {
		require.True(t, x.remove(s), k)
		delete(model, k)
	}
	check(-2)
	for i := range x.parts {
		if tab := x.parts[i].t.Load(); tab != nil {
			assert.Equal(t, minTable, len(*tab), "empty, it gives its memory back")
		}
	}

	// A slot that is not the key's is not removed in its place.
	a := &slot[blob]{key: "https://a.example"}
	x.add(a)
	assert.False(t, x.remove(&slot[blob]{key: "https://a.example"}))
	assert.Same(t, a, x.load("https://a.example"))
	assert.Nil(t, x.load(""), "the tombstone is no key's")
}

// Readers run with no lock while the writer adds, removes and rebuilds:
// a key that is held throughout is always found, and a key never added is
// never found (the race detector checks the rest).
func TestIndexConcurrentReads(t *testing.T) {
	x := newIndex[blob]()
	var mu sync.Mutex // the tier's
	stable := make([]*slot[blob], 100)
	for i := range stable {
		stable[i] = &slot[blob]{key: fmt.Sprintf("https://stable%d.example", i)}
		x.add(stable[i])
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				s := stable[(i+r)%len(stable)]
				if x.load(s.key) != s {
					t.Errorf("%s not found while held", s.key)
					return
				}
				if x.load("https://never.example") != nil {
					t.Error("a key never added was found")
					return
				}
			}
		}()
	}
	churn := make([]*slot[blob], 0, 3000)
	for round := range 6 {
		for i := range 3000 {
			s := &slot[blob]{key: fmt.Sprintf("https://churn%d-%d.example", round, i)}
			mu.Lock()
			x.add(s)
			mu.Unlock()
			churn = append(churn, s)
		}
		for _, s := range churn {
			mu.Lock()
			x.remove(s)
			mu.Unlock()
		}
		churn = churn[:0]
	}
	close(stop)
	wg.Wait()
}

func BenchmarkIndexLoad(b *testing.B) {
	x := newIndex[blob]()
	keys := make([]string, 50_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("https://www.host-%d.example", i)
		x.add(&slot[blob]{key: keys[i]})
	}
	var m sync.Map
	for _, k := range keys {
		m.Store(k, &slot[blob]{key: k})
	}
	b.Run("index", func(b *testing.B) {
		i := 0
		for b.Loop() {
			x.load(keys[i%len(keys)])
			i++
		}
	})
	b.Run("sync.Map", func(b *testing.B) {
		i := 0
		for b.Loop() {
			m.Load(keys[i%len(keys)])
			i++
		}
	})
}
