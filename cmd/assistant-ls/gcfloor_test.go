package main

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGCPercentFor checks that the heap goal, the larger of live*(1+p/100) and 4 MiB*p/100,
// is the floor for a live heap below half of it, and twice the live heap above.
func TestGCPercentFor(t *testing.T) {
	const floor = 64 << 20
	tests := []struct {
		live uint64
		want int
	}{
		{1 << 20, 1600},
		{4 << 20, 1500},
		{16 << 20, 300},
		{32 << 20, 100},
		{1 << 30, 100},
		{0, 1600},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gcPercentFor(tt.live, floor), "live %d", tt.live)
	}
}

// TestWarmHeap: once warmed, the heap holds size bytes of free memory the OS has mapped in, which
// the next allocations reuse without a page fault each, and which a heap goal above it keeps
// from the scavenger.
func TestWarmHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(1600)) // a 64 MiB goal, as the floor sets it
	const size = 32 << 20
	free := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(free)
	if free[0].Value.Uint64() >= size {
		// An in-process serve (TestServeStdio) warmed this process's heap already.
		t.Skip("the heap holds that much free memory already, so a warming would not show")
	}
	warmHeap(size)
	metrics.Read(free)
	assert.GreaterOrEqual(t, free[0].Value.Uint64(), uint64(size))
}
