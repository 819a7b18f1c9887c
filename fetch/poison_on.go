//go:build poisonbodies

package fetch

import "sync/atomic"

// poisonGiven: a buffer given back is filled with 0xAA and never lent again.
const poisonGiven = true

// PoisonedBuffers counts the buffers given back (review builds only).
var PoisonedBuffers atomic.Int64

func countPoisoned() { PoisonedBuffers.Add(1) }
