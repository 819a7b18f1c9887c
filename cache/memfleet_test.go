package cache_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/crawlkit/robots/cache"
	"github.com/crawlkit/robots/cache/fleettest"
)

// MemoryFleet keeps the Fleet contract.
func TestMemoryFleet(t *testing.T) {
	fleettest.Run(t, func(t *testing.T) cache.Fleet { return cache.NewMemoryFleet() })
}

// A MemoryFleet is bounded by the bytes of its records.
func TestMemoryFleetBound(t *testing.T) {
	f := &cache.MemoryFleet{MaxBytes: 4 << 10}
	for i := range 50 {
		key := fmt.Sprintf("https://host-%d.example", i)
		g, err := f.Acquire(context.Background(), key, now, time.Minute)
		require.NoError(t, err)
		require.NoError(t, f.Publish(context.Background(), *g.Lease, fleettest.Sample(key, now), now))
	}
	assert.Less(t, f.Len(), 50)
	assert.Positive(t, f.Len())
	rec, err := f.Get(context.Background(), "https://host-49.example")
	require.NoError(t, err)
	assert.NotNil(t, rec, "the last published is held")
}
