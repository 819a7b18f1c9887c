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
