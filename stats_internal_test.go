package robots

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// deep calls f from frames below depth KiB of stack, so that the calling
// goroutine's stack has grown to hold them.
//
//go:noinline
func deep(depth int, f func()) {
	var pad [1024]byte
	if depth > 0 {
		deep(depth-1, f)
	} else {
		f()
	}
	pad[depth%len(pad)]++
}

// Goroutines spread their hits over the stripes, those with grown stacks
// too: a grown stack is aligned to its size, so the address bits just above
// the 2 KiB of the smallest stack are alike in all of them.
func TestStripesSpread(t *testing.T) {
	for _, depth := range []int{0, 8, 64} {
		var s striped
		const goroutines = 64
		var added, done sync.WaitGroup
		release := make(chan struct{})
		for range goroutines {
			added.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				deep(depth, func() {
					s.add()
					added.Done()
					<-release // every stack stays in use until all have added
				})
			}()
		}
		added.Wait()
		close(release)
		done.Wait()
		used := 0
		for i := range s.stripes {
			if s.stripes[i].n.Load() > 0 {
				used++
			}
		}
		assert.Equal(t, uint64(goroutines), s.load())
		assert.GreaterOrEqual(t, used, 6, "%d goroutines with %d KiB of frames used %d of the 8 stripes", goroutines, depth, used)
	}
}

// BenchmarkHits measures the hit counter from every goroutine at once,
// against a single atomic counter, from shallow stacks and from stacks
// grown to 16 KiB. Run with -cpu 1,2,…: the striped counter's time per op
// must not grow, at either depth.
func BenchmarkHits(b *testing.B) {
	var s striped
	var one atomic.Uint64
	for _, depth := range []int{0, 16} {
		for _, c := range []struct {
			name string
			add  func()
		}{{"striped", s.add}, {"single", func() { one.Add(1) }}} {
			b.Run(fmt.Sprintf("%s/stack=%dKiB", c.name, depth), func(b *testing.B) {
				b.RunParallel(func(pb *testing.PB) {
					deep(depth, func() {
						for pb.Next() {
							c.add()
						}
					})
				})
			})
		}
	}
}
