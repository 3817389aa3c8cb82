package main

import (
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

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
// proportion past it. After every collection the percentage is set anew from the live heap. It
// returns in, the client's input, wrapped so that the garbage of what the client asked for is
// collected once the client has been quiet for a while (idleCollector). A GOGC set in the
// environment is left alone, and in is then returned as it is; so is a GOMEMLIMIT, otherwise
// the soft limit is memoryLimit.
func keepHeapFloor(floor uint64, in io.Reader) io.Reader {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
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
// reuses, already mapped in. The quiet is the input's, not the server's: a request still being
// served 15 ms after its last byte (a large edit) is collected alongside, which costs it the
// collector's share of the CPU for that one cycle, as a collection the heap goal triggers
// would. A quiet server sets no timer.
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
