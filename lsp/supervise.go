package lsp

import (
	"context"
	"runtime/debug"
	"sync"

	"go.uber.org/zap"
)

// supervisor runs the edit pipeline's goroutines: a panic in one, a bug perhaps triggered by
// unusual model output, is logged with its stack instead of ending the whole server, and stop
// waits for them. It is safe for concurrent use.
type supervisor struct {
	log    *zap.Logger
	ctx    context.Context // ends at stop
	cancel context.CancelFunc

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
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			s.log.Error("edit pipeline goroutine panicked", zap.String("goroutine", name), zap.Any("panic", r),
				zap.ByteString("stack", debug.Stack()))
			if onPanic != nil {
				onPanic()
			}
		}()
		f()
	}()
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
