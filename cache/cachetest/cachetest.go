// Package cachetest checks that a cache.Store keeps the contract the robots
// client relies on. A Store implementation runs it from its own tests:
//
//	func TestMyStore(t *testing.T) {
//		cachetest.Run(t, func(capacity int) cache.Store { return NewMyStore(capacity) })
//	}
//
// Non-goals: checking an eviction policy (any bounded one will do) or
// performance; benchmark a Store's Get under b.RunParallel for that.
package cachetest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
)

// Run checks the Store contract on stores made by newStore, which returns an
// empty store holding at most capacity entries.
func Run(t *testing.T, newStore func(capacity int) cache.Store) {
	t.Run("missing", func(t *testing.T) {
		s := newStore(10)
		e, ok := s.Get("https://example.com")
		assert.False(t, ok)
		assert.Nil(t, e)
		assert.Zero(t, s.Len())
	})
	t.Run("put then get returns the same entry", func(t *testing.T) {
		s := newStore(10)
		e := &cache.Entry{ETag: "a"}
		s.Put("https://example.com", e)
		got, ok := s.Get("https://example.com")
		require.True(t, ok)
		assert.Same(t, e, got)
		assert.Equal(t, 1, s.Len())
		_, ok = s.Get("http://example.com")
		assert.False(t, ok, "keys are compared exactly")
	})
	t.Run("put replaces", func(t *testing.T) {
		s := newStore(10)
		s.Put("k", &cache.Entry{ETag: "1"})
		second := &cache.Entry{ETag: "2"}
		s.Put("k", second)
		got, ok := s.Get("k")
		require.True(t, ok)
		assert.Same(t, second, got)
		assert.Equal(t, 1, s.Len())
	})
	t.Run("delete", func(t *testing.T) {
		s := newStore(10)
		s.Put("k", &cache.Entry{})
		s.Put("other", &cache.Entry{})
		s.Delete("k")
		s.Delete("never-there")
		_, ok := s.Get("k")
		assert.False(t, ok)
		_, ok = s.Get("other")
		assert.True(t, ok)
		assert.Equal(t, 1, s.Len())
	})
	t.Run("bounded", func(t *testing.T) {
		const capacity = 16
		s := newStore(capacity)
		var last *cache.Entry
		for i := 0; i < 10*capacity; i++ {
			last = &cache.Entry{ETag: fmt.Sprint(i)}
			s.Put(key(i), last)
			require.LessOrEqual(t, s.Len(), capacity)
		}
		got, ok := s.Get(key(10*capacity - 1))
		require.True(t, ok, "the entry put last is held")
		assert.Same(t, last, got)
		assert.Positive(t, s.Len())
	})
	t.Run("concurrent use", func(t *testing.T) {
		const capacity, keys, workers, ops = 32, 64, 8, 2000
		s := newStore(capacity)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(seed uint64) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(seed, 1))
				for i := 0; i < ops; i++ {
					k := rng.IntN(keys)
					switch r := rng.IntN(10); {
					case r < 6:
						if e, ok := s.Get(key(k)); ok {
							// Every entry read back is one put for that key.
							assert.Equal(t, key(k), e.ETag)
						}
					case r < 9:
						s.Put(key(k), &cache.Entry{ETag: key(k)})
					default:
						s.Delete(key(k))
					}
				}
			}(uint64(w))
		}
		wg.Wait()
		assert.LessOrEqual(t, s.Len(), capacity)
	})
}

func key(i int) string { return fmt.Sprintf("https://host%d.example", i) }
