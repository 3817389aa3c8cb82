package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGCPercentFor checks that the heap goal, the larger of live*(1+p/100) and 4 MiB*p/100,
// is the floor for a live heap below two thirds of it, and one and a half times the live heap
// above.
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
		{40 << 20, 60},
		{43 << 20, 50},
		{1 << 30, 50},
		{0, 1600},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gcPercentFor(tt.live, floor), "live %d", tt.live)
	}
}
