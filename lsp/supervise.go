package lsp

import (
	"context"
	"runtime/debug"
	"sync"

	"go.uber.org/zap"
)

// supervisor runs the server's goroutines and callbacks: a panic in one, a bug perhaps
// triggered by unusual model output, is logged with its stack instead of ending the whole
// server, and stop waits for the goroutines. It is safe for concurrent use.
type supervisor struct {
	log    *zap.Logger
	ctx    context.Context // ends at stop
	cancel context.CancelFunc
	// fault, when set, is called with the name of each goroutine and callback as it starts
	// (Options.Fault): tests make one panic.
	fault func(name string)

	mu sync.Mutex // orders go's check and Add with stop's cancel and Wait
	wg sync.WaitGroup
}

// newSupervisor returns a supervisor logging to log.
func newSupervisor(log *zap.Logger) *supervisor {
	ctx, cancel := context.WithCancel(context.Background())
	return &supervisor{log: log, ctx: ctx, cancel: cancel}
}

// goSafe runs f on a new goroutine. After a panic in f, onPanic (when not nil) leaves a
// consistent state behind. Until stop has begun the goroutine counts, so stop waits for it;
// started later it still runs, untracked, because some work (freeing a queue turn) must happen
// even then.
func (s *supervisor) goSafe(name string, onPanic func(), f func()) {
	s.mu.Lock()
	tracked := s.ctx.Err() == nil
	if tracked {
		s.wg.Add(1)
	}
	s.mu.Unlock()
	go func() {
		if tracked {
			defer s.wg.Done()
		}
		s.run(name, onPanic, f)
	}()
}

// callback returns f as a callback for a goroutine the supervisor does not start (a timer's,
// a context's AfterFunc): a panic in it is logged as in goSafe, and the server goes on.
func (s *supervisor) callback(name string, f func()) func() {
	return func() { s.run(name, nil, f) }
}

// run runs f on the caller's goroutine, recovering from its panic as goSafe does.
func (s *supervisor) run(name string, onPanic func(), f func()) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		s.log.Error("server goroutine panicked", zap.String("goroutine", name), zap.Any("panic", r),
			zap.ByteString("stack", debug.Stack()))
		if onPanic != nil {
			onPanic()
		}
	}()
	if s.fault != nil {
		s.fault(name)
	}
	f()
}

// stopped reports whether stop has begun.
func (s *supervisor) stopped() bool { return s.ctx.Err() != nil }

// stop cancels the supervisor's context and waits for the tracked goroutines to end.
func (s *supervisor) stop() {
	s.mu.Lock()
	s.cancel()
	s.mu.Unlock()
	s.wg.Wait()
}
