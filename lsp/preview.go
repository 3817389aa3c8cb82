package lsp

import (
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"go.uber.org/zap"
)

// This file shows what a streaming file-editing tool use would do so far: assistant/preview
// (with the preview setting) and work-done progress (section 6).

// streamWorker recomputes the preview and progress of a streaming tool use at most once per
// previewInterval, always handling the latest version (a trailing one included), until the tool
// use completes or is dropped. A dropped block ends its progress as cancelled; a completed one
// leaves the progress to its edit's job.
func (e *editor) streamWorker(key editKey, be *blockEdit) {
	for {
		select {
		case <-be.ctx.Done():
			be.prog.abort(e.sup.ctx, cancelledMessage)
			return
		case <-be.kick:
		}
		e.mu.Lock()
		sb, complete := be.sb, be.complete
		e.mu.Unlock()
		if complete {
			return
		}
		e.streamStep(key, be, sb)
		t := time.NewTimer(previewInterval)
		select {
		case <-be.ctx.Done():
			t.Stop()
			be.prog.abort(e.sup.ctx, cancelledMessage)
			return
		case <-t.C:
		}
	}
}

// streamStep computes what a partial tool use would do so far (its tool's preview) and reports
// it as preview and progress. It needs the paths, which Cline's tools send first; until the
// payload param has started, a path may itself be incomplete, so nothing is shown.
func (e *editor) streamStep(key editKey, be *blockEdit, sb streamBlock) {
	s := e.deps.Settings()
	if !s.Config.Preview && be.prog == nil {
		return
	}
	req, ok := streamingTarget(be.tool, sb, s)
	if !ok {
		return
	}
	t := req.Targets[0]
	base, err := e.snapshot(t)
	if err != nil {
		return
	}
	p, ok := be.tool.preview(req, base, s.Config, &be.previewState)
	if !ok {
		return
	}
	e.mu.Lock()
	current := e.isCurrentLocked(key, be) && !be.complete
	uriChanged := current && be.state.URI != t.URI
	if uriChanged {
		be.state.URI = t.URI
	}
	e.mu.Unlock()
	if !current {
		return
	}
	if uriChanged {
		e.deps.Changed(key.stream, key.index)
	}
	be.prog.begin(be.ctx, "Editing "+t.Rel)
	if p.report != "" {
		be.prog.report(be.ctx, p.report)
	}
	if !s.Config.Preview {
		return
	}
	f := &fileEdit{Target: t, Base: base, MatchOffsets: p.offsets}
	e.sendPreview(key, be, ext.PreviewParams{
		Stream:         key.stream,
		Index:          key.index,
		URI:            t.URI,
		NewContent:     p.newContent,
		MatchPositions: f.matchPositions(s.Caps.Encoding),
	})
}

// sendPreview sends params unless the block completed, was dropped or has its edit under way
// since the preview was computed. The check and the send happen under be.previewMu, which the
// block's edit takes before it is computed, so a preview never follows the block's applyEdit.
func (e *editor) sendPreview(key editKey, be *blockEdit, params ext.PreviewParams) {
	be.previewMu.Lock()
	defer be.previewMu.Unlock()
	e.mu.Lock()
	current := e.isCurrentLocked(key, be) && !be.complete
	e.mu.Unlock()
	if !current {
		return
	}
	if err := e.deps.Peer.Notify(be.ctx, ext.MethodPreview, params); err != nil {
		e.deps.Log.Debug("send assistant/preview", zap.String("stream", key.stream), zap.Int("index", key.index), zap.Error(err))
	}
}
