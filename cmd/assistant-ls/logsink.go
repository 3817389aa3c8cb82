package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Bounds of a logSink.
const (
	// sinkMaxQueued bounds the log bytes waiting for the writer; past it entries are dropped.
	sinkMaxQueued = 1 << 20
	// sinkSyncTimeout bounds how long Sync waits for the writer, so that a client that never
	// reads standard error cannot delay the exit the contract wants within 100 ms.
	sinkSyncTimeout = 20 * time.Millisecond
)

// logSink is the log output on standard error. Logging must never make serving wait: a client
// that pipes standard error and never reads it fills the pipe after 64 KiB, and every write to
// it would then block the goroutine that logs. So Write only queues the entry, up to
// sinkMaxQueued bytes, and one goroutine writes the queue out; entries past the bound are
// dropped and counted, and a line saying how many were lost is written once the writer takes
// entries again. After a failed write (the client closed standard error) entries are dropped.
type logSink struct {
	w    io.Writer
	wake chan struct{} // has an element when the queue may hold something

	mu      sync.Mutex
	queue   []byte
	dropped int
	failed  bool
	busy    bool            // the writer holds entries it has not written yet
	synced  []chan struct{} // closed once the queue is empty and the writer idle
}

// newLogSink starts the goroutine that writes to w.
func newLogSink(w io.Writer) *logSink {
	s := &logSink{w: w, wake: make(chan struct{}, 1)}
	go s.run()
	return s
}

// Write queues a copy of p and never blocks on the writer. It never fails: an entry that does
// not fit is counted as dropped.
func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	if s.failed || len(s.queue)+len(p) > sinkMaxQueued {
		s.dropped++
	} else {
		s.queue = append(s.queue, p...)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// Sync waits until what was queued is written, at most sinkSyncTimeout.
func (s *logSink) Sync() error {
	done := make(chan struct{})
	s.mu.Lock()
	if len(s.queue) == 0 && !s.busy {
		s.mu.Unlock()
		return nil
	}
	s.synced = append(s.synced, done)
	s.mu.Unlock()
	t := time.NewTimer(sinkSyncTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	return nil
}

// run writes the queue out whenever it is woken.
func (s *logSink) run() {
	var buf []byte
	for range s.wake {
		for {
			s.mu.Lock()
			if s.failed {
				s.queue = s.queue[:0]
			}
			if s.dropped > 0 && !s.failed {
				s.queue = fmt.Appendf(s.queue, "assistant-ls: %d log entries were dropped: standard error was not read\n", s.dropped)
				s.dropped = 0
			}
			if len(s.queue) == 0 {
				s.busy = false
				for _, ch := range s.synced {
					close(ch)
				}
				s.synced = nil
				s.mu.Unlock()
				break
			}
			buf, s.queue = s.queue, buf[:0]
			s.busy = true
			s.mu.Unlock()
			if _, err := s.w.Write(buf); err != nil {
				s.mu.Lock()
				s.failed = true
				s.mu.Unlock()
			}
		}
	}
}
