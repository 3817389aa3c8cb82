package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// applyParams are the params of assistant/apply and assistant/resolveEdit, and the argument of
// the assistant.apply and assistant.applyAll commands. Exactly one form is valid per use:
// {stream, index}, {uri, diff} or {uri, content} (with an optional modelId for content fixes);
// {uri, index} and {uri} name response documents, and {stream} a whole stream for applyAll.
type applyParams struct {
	Stream  *string `json:"stream"`
	Index   *int    `json:"index"`
	URI     *string `json:"uri"`
	Diff    *string `json:"diff"`
	Content *string `json:"content"`
	ModelID string  `json:"modelId"`
}

// applyResult is the result of assistant/apply and assistant/resolveEdit.
type applyResult struct {
	Status EditStatus             `json:"status"`
	Error  string                 `json:"error,omitempty"`
	URI    uri.URI                `json:"uri"`
	Edit   protocol.WorkspaceEdit `json:"edit"`
}

// commandResult is the result of the assistant.apply command.
type commandResult struct {
	Status EditStatus `json:"status"`
	Error  string     `json:"error,omitempty"`
	URI    uri.URI    `json:"uri"`
}

// applyAllItem is one block's entry in the result of assistant.applyAll.
type applyAllItem struct {
	Index  int        `json:"index"`
	Status EditStatus `json:"status"`
	Error  string     `json:"error,omitempty"`
	URI    uri.URI    `json:"uri"`
}

// applyAllResult is the result of assistant.applyAll. Failed counts every block that did not
// end applied.
type applyAllResult struct {
	Applied int            `json:"applied"`
	Failed  int            `json:"failed"`
	Results []applyAllItem `json:"results"`
}

// invalidParams is the JSON-RPC InvalidParams error (-32602) with a message saying what to send.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}

// decodeApplyParams decodes the params of method, answering InvalidParams for anything that is
// not a JSON object of the right field types.
func decodeApplyParams(method string, raw json.RawMessage) (applyParams, error) {
	var p applyParams
	if len(raw) == 0 || string(raw) == "null" {
		return p, invalidParams("%s needs params {stream, index}, {uri, diff} or {uri, content}", method)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, invalidParams("%s params: %v; send {stream, index}, {uri, diff} or {uri, content}", method, err)
	}
	return p, nil
}

// handleApply serves assistant/apply (send true) and assistant/resolveEdit (send false).
func (e *editor) handleApply(ctx context.Context, params json.RawMessage, send bool) (any, error) {
	method := "assistant/resolveEdit"
	if send {
		method = "assistant/apply"
	}
	p, err := decodeApplyParams(method, params)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Stream != nil && p.Index != nil && p.URI == nil && p.Diff == nil && p.Content == nil:
		return e.applyBlock(ctx, *p.Stream, *p.Index, send)
	case p.URI != nil && p.Stream == nil && p.Index == nil && (p.Diff == nil) != (p.Content == nil):
		return e.applyDirect(ctx, p, send)
	case p.URI != nil && p.Index != nil && p.Stream == nil:
		return nil, invalidParams("%s: response documents ({uri, index}) are not supported yet; pass {stream, index}", method)
	default:
		return nil, invalidParams("%s needs exactly one of {stream, index}, {uri, diff} or {uri, content}", method)
	}
}

// applyBlock computes (and with send, sends) the edit of a complete file-editing block against
// the current content. A block whose edit this server already applied is skipped: it answers
// applied with an empty edit, so nothing is ever applied twice. With send, the block's EditState
// follows the outcome.
func (e *editor) applyBlock(ctx context.Context, stream string, index int, send bool) (applyResult, error) {
	sb, ok := e.deps.Blocks.block(stream, index)
	if !ok {
		return applyResult{}, invalidParams("stream %q has no block %d: the stream is unknown, was closed, or has fewer blocks", stream, index)
	}
	if !isFileTool(sb.Block) {
		return applyResult{}, invalidParams("block %d of stream %q is not a replace_in_file or write_to_file tool use", index, stream)
	}
	if sb.Block.Partial {
		return applyResult{}, invalidParams("block %d of stream %q is still streaming: apply it once the tool use is complete", index, stream)
	}
	s := e.deps.Settings()
	key := editKey{stream, index}
	req, status, reqErr := blockRequest(sb, s)
	be := e.ensureBlock(key, sb, s)
	if reqErr != nil {
		st := EditState{URI: req.URI, Status: status, Error: reqErr.Error()}
		if send {
			e.logOutcome(key, req, st)
			e.setState(key, be, st)
		}
		return applyResult{Status: st.Status, Error: st.Error, URI: st.URI}, nil
	}
	return e.applyRequest(ctx, stream, send, s, job{key: key, be: be, req: req, skipApplied: true})
}

// ensureBlock returns the record of a complete block, creating it when update has not seen this
// version of the block; a record created here schedules nothing, the caller takes charge.
func (e *editor) ensureBlock(key editKey, sb streamBlock, s settings) *blockEdit {
	fp := fingerprintOf(sb)
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.streamLocked(key.stream)
	be := st.blocks[key.index]
	if sameCompleteLocked(be, fp) {
		return be
	}
	if be != nil {
		be.cancel()
	}
	be = e.newBlockLocked(st, s)
	be.sb, be.complete, be.fp = sb, true, fp
	st.blocks[key.index] = be
	return be
}

// applyRequest runs j, an edit asked for by a request, in its document's turn: with send it is
// sent, gets progress and its outcome is recorded; without, it is only computed. The error, when
// ctx ended first, names what and carries ctx's cause.
func (e *editor) applyRequest(ctx context.Context, what string, send bool, s settings, j job) (applyResult, error) {
	e.mu.Lock()
	j.prog = e.newProgressLocked(send && s.Caps.WorkDoneProgress)
	e.mu.Unlock()
	j.record = send
	j.opts = func(settings) runOpts { return runOpts{send: send, warn: send} }
	out, ok := e.runJob(ctx, e.enqueue(j.req.URI), j)
	if !ok {
		return applyResult{}, fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	return applyResult{Status: out.state.Status, Error: out.state.Error, URI: j.req.URI, Edit: out.edit}, nil
}

// applyDirect serves the {uri, diff} and {uri, content} forms: the edit is computed for the
// document at uri, under the same path rules as a tool use, and is not tied to any block.
func (e *editor) applyDirect(ctx context.Context, p applyParams, send bool) (applyResult, error) {
	u, err := uri.Parse(*p.URI)
	if err != nil || u.Scheme() != "file" {
		return applyResult{}, invalidParams("uri %q is not a file URI: pass file:///path/to/file", *p.URI)
	}
	tool := toolWrite
	if p.Diff != nil {
		tool = toolReplace
	}
	s := e.deps.Settings()
	req, err := resolveRequest(tool, *p.URI, "", s)
	if err != nil {
		return applyResult{Status: pathErrorStatus(err), Error: err.Error(), URI: u}, nil
	}
	if p.Diff != nil {
		req.Diff = *p.Diff
	} else {
		req.Content = *p.Content
	}
	req.ModelID = p.ModelID
	return e.applyRequest(ctx, req.Rel, send, s, job{req: req})
}

// executeCommand serves workspace/executeCommand for assistant.apply and assistant.applyAll.
func (e *editor) executeCommand(ctx context.Context, command string, args []json.RawMessage) (any, error) {
	if command != commandApply && command != commandApplyAll {
		return nil, invalidParams("unknown command %q: the server provides %s and %s", command, commandApply, commandApplyAll)
	}
	if len(args) != 1 {
		return nil, invalidParams("%s takes exactly one argument, got %d", command, len(args))
	}
	p, err := decodeApplyParams(command, args[0])
	if err != nil {
		return nil, err
	}
	if command == commandApply {
		switch {
		case p.Stream != nil && p.Index != nil && p.URI == nil:
			res, err := e.applyBlock(ctx, *p.Stream, *p.Index, true)
			if err != nil {
				return nil, err
			}
			return commandResult{Status: res.Status, Error: res.Error, URI: res.URI}, nil
		case p.URI != nil && p.Index != nil && p.Stream == nil:
			return nil, invalidParams("%s: response documents are not supported yet; pass {stream, index}", command)
		default:
			return nil, invalidParams("%s takes {stream, index}", command)
		}
	}
	switch {
	case p.Stream != nil && p.URI == nil && p.Index == nil:
		return e.applyAll(ctx, *p.Stream)
	case p.URI != nil && p.Stream == nil:
		return nil, invalidParams("%s: response documents are not supported yet; pass {stream}", command)
	default:
		return nil, invalidParams("%s takes {stream}", command)
	}
}

// applyAll applies every complete file-editing block of a stream, in order, skipping those
// already applied.
func (e *editor) applyAll(ctx context.Context, stream string) (applyAllResult, error) {
	if _, ok := e.deps.Blocks.block(stream, 0); !ok {
		return applyAllResult{}, invalidParams("stream %q has no blocks: it is unknown, was closed, or is empty", stream)
	}
	res := applyAllResult{Results: []applyAllItem{}}
	for i := 0; ; i++ {
		sb, ok := e.deps.Blocks.block(stream, i)
		if !ok {
			break
		}
		if !isFileTool(sb.Block) || sb.Block.Partial {
			continue
		}
		r, err := e.applyBlock(ctx, stream, i, true)
		if err != nil {
			if ctx.Err() != nil {
				return applyAllResult{}, err
			}
			r = applyResult{Status: StatusFailed, Error: err.Error()}
		}
		res.Results = append(res.Results, applyAllItem{Index: i, Status: r.Status, Error: r.Error, URI: r.URI})
		if r.Status == StatusApplied {
			res.Applied++
		} else {
			res.Failed++
		}
	}
	return res, nil
}
