package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// heapFloor is the heap size the collector lets the server reach before it runs. The live heap
// of a language server is small (its open documents) while one edit of a large document
// allocates megabytes, so with Go's 4 MiB minimum the collector ran once or twice for every
// edit, on the path from the final assistant/parse delta to workspace/applyEdit.
const heapFloor = 64 << 20

// keepHeapFloor makes the heap goal at least floor, and leaves GOGC's default of 100 in force
// once the live heap is above half of it, so memory still grows in proportion past the floor.
// After every collection the percentage is set anew from the live heap. A GOGC set in the
// environment is left alone.
func keepHeapFloor(floor uint64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var tune func()
	tune = func() {
		metrics.Read(live)
		debug.SetGCPercent(gcPercentFor(live[0].Value.Uint64(), floor))
		// A finalizer runs once its object is found unreachable, that is after the next
		// collection; it re-arms itself for the one after.
		runtime.SetFinalizer(&gcCycle{}, func(*gcCycle) { tune() })
	}
	tune()
}

// gcCycle is the object whose finalizer marks a collection. It holds a pointer so that it is
// not a tiny allocation, which may share its memory block with others and never be finalized.
type gcCycle struct{ _ *byte }

// goHeapMinimum is the runtime's minimum heap goal at GOGC=100; it scales with the percentage.
const goHeapMinimum = 4 << 20

// gcPercentFor returns the GOGC percentage that puts the heap goal at floor for a live heap of
// live bytes, and never less than Go's default of 100. The goal is the larger of
// live*(1+p/100) and goHeapMinimum*p/100, so p is bounded by the second term as well.
func gcPercentFor(live, floor uint64) int {
	if live*2 >= floor {
		return 100
	}
	p := uint64(floor / goHeapMinimum * 100)
	if live > 0 {
		p = min(p, floor/live*100-100)
	}
	return int(p)
}
