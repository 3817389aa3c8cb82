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
// After every collection the percentage is set anew from the live heap. It also warms the
// floor's memory in the background (warmHeap), so that the heap grows to the floor through
// memory already mapped in. A GOGC set in the environment is left alone.
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
	go warmHeap(int(floor))
}

// warmHeap has the OS map in size bytes of heap memory, then frees them, so that the
// allocations that follow reuse pages already mapped instead of taking a page fault for every
// 4 KiB of fresh memory. An edit of a large document allocates its new content (hundreds of
// kilobytes) on every call: an idle server growing its heap towards the floor met fresh memory
// on each, and its page faults cost several times the edit itself (a v1 final on file_10k.go:
// about 70 faults). The heap goal the floor keeps holds the freed memory back from the
// scavenger, which returns only what lies past it.
func warmHeap(size int) {
	b := make([]byte, size)
	for i := 0; i < len(b); i += os.Getpagesize() {
		b[i] = 1
	}
	runtime.KeepAlive(b)
	runtime.GC() // b is garbage now: free its pages, still mapped
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
