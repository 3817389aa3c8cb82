package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/assistant-ls/assistant-ls/lsp"
)

// heapFloor is the heap size the collector lets the server reach before it runs. The live heap
// of a language server is small (its open documents) while one edit of a large document
// allocates megabytes, so with Go's 4 MiB minimum the collector ran once or twice for every
// edit, on the path from the final assistant/parse delta to workspace/applyEdit.
const heapFloor = 64 << 20

// abovePercent is the GOGC percentage past the floor. A large heap is that of long streams:
// their text, and the one copy of it a push or an edit is encoded into. At Go's default of 100
// the heap grew to twice all that between collections, so that a process held 7 to 10 bytes per
// byte of a 32 MiB stream; growing by half costs the collector twice the cycles, only while the
// heap is that large (issue 16, item 14).
const abovePercent = 50

// memoryLimit is the soft limit of the process's memory: what all streams may hold together
// (lsp.DefaultMaxTotalStreamBytes) and as much again for the rest (frames waiting to be
// written, documents, an edit being encoded). Up to it the percentage rules; near it the
// collector runs as often as it must, and the runtime returns freed memory to the system at
// once, so that many large streams do not make the process hold twice their bound.
const memoryLimit = 2 * lsp.DefaultMaxTotalStreamBytes

// keepHeapFloor makes the heap goal at least floor, and puts GOGC at abovePercent once the
// live heap is large enough for that goal to pass the floor, so memory still grows in
// proportion past it. After every collection the percentage is set anew from the live heap. A
// GOGC set in the environment is left alone, and so is a GOMEMLIMIT; otherwise the soft limit
// is memoryLimit.
func keepHeapFloor(floor uint64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
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
// live bytes, and never less than abovePercent. The goal is the larger of live*(1+p/100) and
// goHeapMinimum*p/100, so p is bounded by the second term as well.
func gcPercentFor(live, floor uint64) int {
	if live*(100+abovePercent) >= floor*100 {
		return abovePercent
	}
	p := floor / goHeapMinimum * 100
	if live > 0 {
		p = min(p, floor*100/live-100)
	}
	return int(p)
}
