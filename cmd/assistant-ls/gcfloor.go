package main

import (
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// heapFloor is the heap size the collector lets the server reach before it runs. The live heap
// of a language server is small (its open documents) while one edit of a large document
// allocates megabytes, so with Go's 4 MiB minimum the collector ran once or twice for every
// edit, on the path from the final assistant/parse delta to workspace/applyEdit.
const heapFloor = 64 << 20

// keepHeapFloor makes the heap goal at least floor, and leaves GOGC's default of 100 in force
// once the live heap is above half of it, so memory still grows in proportion past the floor.
// After every collection the percentage is set anew from the live heap. It returns in, the
// client's input, wrapped so that the garbage of what the client asked for is collected once
// the client has been quiet for a while (idleCollector). A GOGC set in the environment is left
// alone, and in is then returned as it is.
func keepHeapFloor(floor uint64, in io.Reader) io.Reader {
	if os.Getenv("GOGC") != "" {
		return in
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
	return newIdleCollector(in, idleAfter, nil)
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

// idleAfter is how long the client's input must be quiet before idleCollector collects: short
// enough to come before an editor's next request after a pause (a user's or a model's), long
// enough that a stream of deltas a few milliseconds apart is not interrupted.
const idleAfter = 15 * time.Millisecond

// idleGarbage is the least garbage worth an idle collection.
const idleGarbage = 1 << 20

// idleCollector is the client's input, read through, that runs a collection once the input has
// been quiet for a while after some arrived, when there is garbage worth it (shouldCollect).
//
// Why: under the floor the heap grows to 64 MiB before the collector runs, through memory the
// server has never used, and an edit of a large document makes its new content (hundreds of
// kilobytes) in it: a page fault for every 4 KiB, which cost an idle server several times the
// edit itself (a v1 final on file_10k.go: about 70 faults, 0.4 ms where the call takes 0.15 ms).
// Collected while the client is quiet, the garbage of one request is the memory the next one
// reuses, already mapped in, and off the path of any request. A quiet server sets no timer.
type idleCollector struct {
	r     io.Reader
	after time.Duration
	timer *time.Timer
	done  func() // called after each idle collection (tests); nil for none

	mu   sync.Mutex // one collection at a time; guards heap
	heap []metrics.Sample
}

func newIdleCollector(r io.Reader, after time.Duration, done func()) *idleCollector {
	c := &idleCollector{r: r, after: after, done: done, heap: []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"},
	}}
	c.timer = time.AfterFunc(time.Hour, c.fire)
	c.timer.Stop()
	return c
}

// Read reads the input, and restarts the wait for quiet when something arrived.
func (c *idleCollector) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.timer.Reset(c.after)
	}
	return n, err
}

// fire collects when there is garbage worth it.
func (c *idleCollector) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	metrics.Read(c.heap)
	if !shouldCollect(c.heap[0].Value.Uint64(), c.heap[1].Value.Uint64()) {
		return
	}
	runtime.GC()
	if c.done != nil {
		c.done()
	}
}

// shouldCollect reports whether a heap holding objects bytes in objects (live and not yet
// collected), of which live were live at the last collection, holds garbage worth collecting.
func shouldCollect(objects, live uint64) bool {
	return objects > live && objects-live >= idleGarbage
}
