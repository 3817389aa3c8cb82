package lsp

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// progress reports the work-done progress of one file-editing tool use (protocol section 6):
// begin "Editing <path>", reports as SEARCH sections match, end with the outcome. Its methods
// are safe for concurrent use and keep the LSP order: the token is created (a request) before
// the begin notification, and nothing follows the end. With a nil *progress every method does
// nothing, so callers need not check the client's capability.
type progress struct {
	peer  peer
	log   *zap.Logger
	token protocol.String

	mu      sync.Mutex
	begun   bool
	ended   bool
	failed  bool   // the client refused the token: stay silent
	lastMsg string // the last report, so that repeats are not sent
}

// newProgress returns a reporter for token, or nil when the client does not take progress.
func newProgress(p peer, log *zap.Logger, token string, enabled bool) *progress {
	if !enabled {
		return nil
	}
	return &progress{peer: p, log: log, token: protocol.String(token)}
}

// begin creates the token and sends the begin notification once; later calls do nothing.
func (p *progress) begin(ctx context.Context, title string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.beginLocked(ctx, title)
}

// beginLocked is begin with p.mu held. Holding it across the create round trip is what keeps a
// report from overtaking the begin; only this tool use's goroutines wait on it.
func (p *progress) beginLocked(ctx context.Context, title string) {
	if p.begun || p.ended || p.failed {
		return
	}
	err := p.peer.call(ctx, "window/workDoneProgress/create", protocol.WorkDoneProgressCreateParams{Token: p.token}, nil)
	if err != nil {
		p.failed = true
		p.log.Debug("the client refused a progress token", zap.String("token", string(p.token)), zap.Error(err))
		return
	}
	p.begun = true
	p.send(ctx, protocol.WorkDoneProgressBegin{Kind: "begin", Title: title})
}

// report sends msg as a report if the progress has begun, has not ended and msg is new.
func (p *progress) report(ctx context.Context, msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.begun || p.ended || msg == p.lastMsg {
		return
	}
	p.lastMsg = msg
	p.send(ctx, protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
}

// end begins the progress if it has not begun yet (a tool use that arrived complete), then ends
// it with msg. Only the first end counts.
func (p *progress) end(ctx context.Context, title, msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.beginLocked(ctx, title)
	p.ended = true
	if p.begun {
		p.send(ctx, protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
	}
}

// send writes one $/progress notification; a client that went away only costs a debug line.
func (p *progress) send(ctx context.Context, value any) {
	raw, err := json.Marshal(value)
	if err != nil {
		p.log.Debug("encode progress", zap.Error(err))
		return
	}
	if err := p.peer.notify(ctx, "$/progress", protocol.ProgressParams{Token: p.token, Value: raw}); err != nil {
		p.log.Debug("send progress", zap.String("token", string(p.token)), zap.Error(err))
	}
}
