package engine

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var flightSink *flight[blob]

// A flight's first begin keeps its time in the flight: making and beginning
// one is one allocation. A later begin, after waiting for a slot, takes
// memory of its own, so that the time a reader loaded before stays as it
// was.
func TestFlightBegin(t *testing.T) {
	t0, t1 := time.Unix(1000, 0), time.Unix(2000, 0)
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		fl := new(flight[blob])
		fl.begin(t0)
		flightSink = fl
	}), "the flight alone")

	fl := new(flight[blob])
	assert.True(t, fl.inGrace(t0.Add(time.Hour), time.Minute), "queued: in grace")
	fl.begin(t0)
	first := fl.started.Load()
	require.NotNil(t, first)
	assert.Equal(t, t0, *first)
	assert.True(t, fl.inGrace(t0.Add(time.Second), time.Minute))
	assert.False(t, fl.inGrace(t0.Add(time.Hour), time.Minute))

	fl.started.Store(nil) // parked for a slot, as park does
	fl.begin(t1)
	again := fl.started.Load()
	assert.NotSame(t, first, again, "a time of its own")
	assert.Equal(t, t0, *first, "what a reader loaded before is unchanged")
	assert.Equal(t, t1, *again)
	assert.True(t, fl.inGrace(t1.Add(time.Second), time.Minute))
}

// The fields of a flight are ordered to take 128 bytes on 64-bit
// platforms, a size class, rather than the 144 of the next one.
func TestFlightSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("64-bit platforms only")
	}
	assert.LessOrEqual(t, unsafe.Sizeof(flight[blob]{}), uintptr(128))
}
