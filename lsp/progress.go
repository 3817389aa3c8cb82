package lsp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// createTimeout is the usual bound of window/workDoneProgress/create. A client that does not
// answer in that time is treated as one that refused the token: the edit goes on without
// progress rather than waiting for an answer that may never come.
const createTimeout = 5 * time.Second

// progressPhase is where a progress stands in the LSP sequence create → begin → end.
type progressPhase int

// Progress phases.
const (
	phaseIdle     progressPhase = iota // nothing sent yet
	phaseCreating                      // the create request is out, unanswered
	phaseBegun                         // the begin notification was sent
	phaseRefused                       // the client refused or did not answer the create: stay silent
)

// progress reports the work-done progress of one file-editing tool use (protocol section 6):
// begin "Editing <path>", reports as SEARCH sections match, end with the outcome. Its methods
// are safe for concurrent use and keep the LSP order: the token is created (a request) before
// the begin notification, and nothing follows the end. With a nil *progress every method does
// nothing, so callers need not check the client's capability.
//
// The create round trip runs without p.mu held: a begin meanwhile waits for it (bounded by the
// timeout) so that the caller's reports follow the begin, a report meanwhile is dropped, and an
// abort is handed to the creating goroutine, which sends it right after the begin.
type progress struct {
	peer    peer
	log     *zap.Logger
	token   protocol.String
	timeout time.Duration // bounds the create round trip
	created chan struct{} // closed once the create round trip is over

	mu         sync.Mutex
	phase      progressPhase
	ended      bool    // end or abort was called: nothing more is sent
	pendingEnd *string // the end message that arrived while the create was out
	lastMsg    string  // the last report, so that repeats are not sent
}

// newProgress returns a reporter for token whose create round trip gives up after timeout.
func newProgress(p peer, log *zap.Logger, token string, timeout time.Duration) *progress {
	return &progress{peer: p, log: log, token: protocol.String(token), timeout: timeout, created: make(chan struct{})}
}

// begin creates the token and sends the begin notification once; later calls, and calls after
// the end, do nothing. It returns once the create round trip is over (or ctx ended), also when
// another goroutine started it.
func (p *progress) begin(ctx context.Context, title string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.phase == phaseCreating {
		p.mu.Unlock()
		select {
		case <-p.created:
		case <-ctx.Done():
		}
		return
	}
	if p.phase != phaseIdle || p.ended {
		p.mu.Unlock()
		return
	}
	p.phase = phaseCreating
	p.mu.Unlock()

	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	err := p.peer.Call(cctx, "window/workDoneProgress/create", protocol.WorkDoneProgressCreateParams{Token: p.token}, nil)
	cancel()

	p.mu.Lock()
	defer p.mu.Unlock()
	defer close(p.created)
	if err != nil {
		p.phase = phaseRefused
		p.log.Debug("the client refused a progress token or did not answer", zap.String("token", string(p.token)), zap.Error(err))
		return
	}
	p.phase = phaseBegun
	p.send(ctx, protocol.WorkDoneProgressBegin{Kind: "begin", Title: title})
	if p.pendingEnd != nil {
		p.send(ctx, protocol.WorkDoneProgressEnd{Kind: "end", Message: p.pendingEnd})
	}
}

// report sends msg as a report if the progress has begun, has not ended and msg is new.
func (p *progress) report(ctx context.Context, msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.phase != phaseBegun || p.ended || msg == p.lastMsg {
		return
	}
	p.lastMsg = msg
	p.send(ctx, protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
}

// end begins the progress if it has not begun yet (a tool use that arrived complete), then ends
// it with msg. Only the first end or abort counts.
func (p *progress) end(ctx context.Context, title, msg string) {
	if p == nil {
		return
	}
	p.begin(ctx, title)
	p.abort(ctx, msg)
}

// abort ends the progress with msg if it has begun or is beginning, and otherwise makes sure it
// never begins: a cancelled edit must not leave the editor's spinner running, nor start one.
// Only the first end or abort counts.
func (p *progress) abort(ctx context.Context, msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	switch p.phase {
	case phaseBegun:
		p.send(ctx, protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
	case phaseCreating:
		p.pendingEnd = &msg
	}
}

// send writes one $/progress notification (p.mu held, which keeps the notifications in order);
// a client that went away only costs a debug line. It ignores ctx's cancellation: once the
// progress has begun, its remaining notifications must reach the client even when the edit they
// report on was cancelled, or the editor's spinner would stay.
func (p *progress) send(ctx context.Context, value any) {
	raw, err := json.Marshal(value)
	if err != nil {
		p.log.Debug("encode progress", zap.Error(err))
		return
	}
	if err := p.peer.Notify(context.WithoutCancel(ctx), "$/progress", protocol.ProgressParams{Token: p.token, Value: raw}); err != nil {
		p.log.Debug("send progress", zap.String("token", string(p.token)), zap.Error(err))
	}
}
