package robots

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots/internal/engine"
)

// The documented default of MaxOutages is the engine's, which a zero
// Options.MaxOutages leaves it to apply.
func TestDefaultMaxOutages(t *testing.T) {
	assert.Equal(t, engine.DefaultOutages, DefaultMaxOutages)
}
