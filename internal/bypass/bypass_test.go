package bypass_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/crawlkit/robots/internal/bypass"
)

type other struct{}

func TestWith(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, ctx := range map[string]context.Context{
		"background": context.Background(),
		"todo":       context.TODO(),
		"value":      context.WithValue(context.Background(), other{}, 1),
		"canceled":   canceled,
	} {
		assert.False(t, bypass.Is(ctx), name)
		marked := bypass.With(ctx)
		assert.True(t, bypass.Is(marked), name)
		assert.Equal(t, ctx.Err(), marked.Err(), name)
		assert.Equal(t, ctx.Value(other{}), marked.Value(other{}), name)
	}
	assert.False(t, bypass.Is(context.Background()), "the background itself is not marked")
	assert.Zero(t, testing.AllocsPerRun(10, func() { bypass.With(context.Background()) }), "marked once")
}
