package lsp

import (
	"context"
	"fmt"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
)

// This file serves the client's requests to apply or resolve an edit (assistant/apply,
// assistant/resolveEdit, assistant.apply, assistant.applyAll), with Go values: the handlers
// decode the params and look the blocks up.

// badRequest is a request the pipeline cannot serve as asked; the handlers answer it with
// InvalidParams. The message says what to send instead.
type badRequest struct{ msg string }

// Error returns the message.
func (e *badRequest) Error() string { return e.msg }

// badRequestf returns a *badRequest.
func badRequestf(format string, args ...any) error {
	return &badRequest{msg: fmt.Sprintf(format, args...)}
}

// applyBlock computes (and with send, sends) the edit of sb, the complete block key, against
// the current content. A block whose edit is already in place is skipped: it answers applied
// with an empty edit, so nothing is ever applied twice. With send, the block's EditState
// follows the outcome; without (resolveEdit), the block's record is left as it was.
func (e *editor) applyBlock(ctx context.Context, key editKey, sb streamBlock, send bool) (ext.ApplyResult, error) {
	tool := sb.Tool
	if tool == nil {
		return ext.ApplyResult{}, badRequestf("block %d of stream %q is not a file-editing tool use", key.index, key.stream)
	}
	if sb.Block.Partial {
		return ext.ApplyResult{}, badRequestf("block %d of stream %q is still streaming: apply it once the tool use is complete", key.index, key.stream)
	}
	s := e.deps.Settings()
	be, sb := e.ensureBlock(key, tool, sb, s, send)
	req, reqErr := blockRequest(tool, sb, s)
	e.mu.Lock()
	withNamedLocked(be, &req)
	e.mu.Unlock()
	if reqErr != nil {
		st := ext.EditState{URI: firstURI(req), Status: requestStatus(reqErr), Error: reqErr.Error()}
		st.ToolResult = toolResult(req, st, nil, nil)
		if send {
			e.logOutcome(key, tool.name, st)
			e.setState(key, be, st)
		}
		return ext.ApplyResult{Status: st.Status, Error: st.Error, URI: st.URI}, nil
	}
	return e.applyRequest(ctx, key.stream, send, s, job{key: key, be: be, req: req, skipApplied: true})
}

// ensureBlock returns the record of a complete block and the version of the block to apply:
// the record's own when it holds this tool use already (with the cwd and modelId it completed
// with), else a new record of sb, which replaces the block's record only when store is set; a
// record created here schedules nothing, the caller takes charge.
func (e *editor) ensureBlock(key editKey, tool *editTool, sb streamBlock, s settings, store bool) (*blockEdit, streamBlock) {
	fp := fingerprintOf(tool, sb)
	e.mu.Lock()
	defer e.mu.Unlock()
	blocks := e.streamLocked(key.stream)
	be := blocks[key.index]
	if sameCompleteLocked(be, fp) {
		return be, be.sb
	}
	fresh := e.newBlockLocked(tool, s)
	fresh.sb, fresh.complete, fresh.fp = sb, true, fp
	if !store {
		fresh.cancel() // a record of no block runs no work of its own
		return fresh, sb
	}
	if be != nil {
		be.cancel()
	}
	blocks[key.index] = fresh
	return fresh, sb
}

// applyRequest runs j, an edit asked for by a request, in its documents' turn: with send it is
// sent (or, when j.opts says so, held for review), gets progress and its outcome is recorded;
// without, it is only computed. The error, when ctx ended first, names what and carries ctx's
// cause. The job runs on its own goroutine, so that a cancelled request is answered at once
// while an applyEdit already sent is still followed to its outcome (see send).
func (e *editor) applyRequest(ctx context.Context, what string, send bool, s settings, j job) (ext.ApplyResult, error) {
	e.mu.Lock()
	j.prog = e.newProgressLocked(send && s.Caps.WorkDoneProgress)
	e.mu.Unlock()
	j.record = send
	if j.opts == nil {
		j.opts = func(settings) runOpts { return runOpts{send: send, warn: send} }
	}
	type result struct {
		out outcome
		ok  bool
	}
	done := make(chan result, 1)
	t := e.queue.enqueue(j.req.uris())
	e.sup.goSafe("apply request", func() { done <- result{} }, func() {
		out, ok := e.runJob(ctx, t, j)
		done <- result{out, ok}
	})
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
	}
	if !r.ok {
		return ext.ApplyResult{}, fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	return ext.ApplyResult{Status: r.out.state.Status, Error: r.out.state.Error, URI: firstURI(j.req), Edit: r.out.edit}, nil
}

// applyDirect serves the {uri, diff} and {uri, content} forms: the edit of tool with params
// is computed for the file at path, under the same path rules as a tool use, and is not tied
// to any block.
func (e *editor) applyDirect(ctx context.Context, tool *editTool, params map[string]string, modelID string, send bool) (ext.ApplyResult, error) {
	s := e.deps.Settings()
	req, err := newRequest(tool, params, "", modelID, s)
	if err != nil {
		return ext.ApplyResult{Status: requestStatus(err), Error: err.Error(), URI: firstURI(req)}, nil
	}
	return e.applyRequest(ctx, req.what(), send, s, job{req: req})
}

// applyAll applies every complete file-editing block of a stream, blocks in order, skipping
// those already applied.
func (e *editor) applyAll(ctx context.Context, stream string, blocks []streamBlock) (ext.ApplyAllResult, error) {
	var todo []int
	for i, sb := range blocks {
		if sb.Tool != nil && !sb.Block.Partial {
			todo = append(todo, i)
		}
	}
	return applyEach(ctx, todo, func(i int) (ext.ApplyResult, error) {
		return e.applyBlock(ctx, editKey{stream, i}, blocks[i], true)
	})
}

// applyEach applies the blocks of indexes in order with apply, and sums up their outcomes as
// assistant.applyAll answers: an error of one block is its failure, and the others go on,
// unless the request itself was cancelled.
func applyEach(ctx context.Context, indexes []int, apply func(i int) (ext.ApplyResult, error)) (ext.ApplyAllResult, error) {
	res := ext.ApplyAllResult{Results: []ext.ApplyAllItem{}}
	for _, i := range indexes {
		r, err := apply(i)
		if err != nil {
			if ctx.Err() != nil {
				return ext.ApplyAllResult{}, err
			}
			r = ext.ApplyResult{Status: ext.StatusFailed, Error: err.Error()}
		}
		res.Results = append(res.Results, ext.ApplyAllItem{Index: i, Status: r.Status, Error: r.Error, URI: r.URI})
		if r.Status == ext.StatusApplied {
			res.Applied++
		} else {
			res.Failed++
		}
	}
	return res, nil
}
