//go:build poisonbodies

package robots_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots/fetch"
)

func TestReleasedBodiesPoisoned(t *testing.T) {
	TestReleasedBodiesAnswerRight(t)
	assert.Positive(t, fetch.PoisonedBuffers.Load())
	t.Log("poisoned buffers:", fetch.PoisonedBuffers.Load())
}

// Observe releases what it reads: the buffers of its bodies are poisoned.
func TestReleasedBodiesObservedPoisoned(t *testing.T) {
	before := fetch.PoisonedBuffers.Load()
	TestReleasedBodiesObserved(t)
	assert.GreaterOrEqual(t, fetch.PoisonedBuffers.Load()-before, int64(6), "the six bodies of two rounds of three")
}
