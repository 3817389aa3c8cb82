package main

import (
	"io"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestIdleCollector: input that arrives and then stops is followed by a collection when the
// heap holds garbage, so that the next request reuses that memory instead of fresh pages.
func TestIdleCollector(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(1600)) // a 64 MiB goal, as the floor sets it
	cycles := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(cycles)
	before := cycles[0].Value.Uint64()
	garbage = make([]byte, 4*idleGarbage) // what a request leaves behind
	garbage = nil
	collected := make(chan struct{}, 1)
	c := newIdleCollector(strings.NewReader("Content-Length: 2\r\n\r\n{}"), time.Millisecond, func() {
		select {
		case collected <- struct{}{}:
		default:
		}
	})
	data, err := io.ReadAll(c)
	require.NoError(t, err)
	assert.Equal(t, "Content-Length: 2\r\n\r\n{}", string(data), "the input is read through unchanged")
	select {
	case <-collected:
	case <-time.After(2 * time.Minute): // a last resort: the collection is the event awaited
		t.Fatal("no collection followed the input")
	}
	metrics.Read(cycles)
	assert.Greater(t, cycles[0].Value.Uint64(), before)
}

// garbage is memory made unreachable on purpose.
var garbage []byte

func TestShouldCollect(t *testing.T) {
	tests := []struct {
		objects, live uint64
		want          bool
	}{
		{8 << 20, 2 << 20, true},
		{3 << 20, 2 << 20, true},
		{2<<20 + 1000, 2 << 20, false},
		{1 << 20, 2 << 20, false}, // objects freed since: nothing to collect
		{0, 0, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, shouldCollect(tt.objects, tt.live), "objects %d live %d", tt.objects, tt.live)
	}
}
