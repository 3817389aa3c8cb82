package lsp

// This file serves assistant/apply and assistant/resolveEdit (section 4), and the commands
// assistant.apply and assistant.applyAll, which take the same params: it decodes them, looks
// the blocks up in the streams, and hands Go values to the edit pipeline.

import (
	"context"
	"encoding/json"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// apply serves assistant/apply.
func (s *server) apply(ctx context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	if res, handled, err := s.applyResponseRequest(ctx, json.RawMessage(params), true); handled {
		return res, err
	}
	return applyOrResolve(ctx, s.editor, s.streams, ext.MethodApply, json.RawMessage(params), true)
}

// resolveEdit serves assistant/resolveEdit.
func (s *server) resolveEdit(ctx context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	if res, handled, err := s.applyResponseRequest(ctx, json.RawMessage(params), false); handled {
		return res, err
	}
	if res, ok := s.resolveHeld(json.RawMessage(params)); ok {
		return res, nil
	}
	return applyOrResolve(ctx, s.editor, s.streams, ext.MethodResolveEdit, json.RawMessage(params), false)
}

// resolveHeld answers assistant/resolveEdit {stream, index} for an edit held for review
// (section 7a) with its hunks still pending, in the documents as they are now: computed again
// from the tool use, a hunk already accepted would make its SEARCH match nothing. false when
// the params name no held edit.
func (s *server) resolveHeld(params json.RawMessage) (ext.ApplyResult, bool) {
	var p ext.ApplyParams
	if json.Unmarshal(params, &p) != nil || p.Stream == nil || p.Index == nil || p.URI != nil {
		return ext.ApplyResult{}, false
	}
	h, ok := s.rv.held.lookup(editKey{*p.Stream, *p.Index})
	if !ok {
		return ext.ApplyResult{}, false
	}
	res := s.rv.held.result(h, "")
	out := ext.ApplyResult{Status: res.Status, URI: res.URI}
	if we := s.rv.held.hunkPreview(h, nil, s.editor.deps.Settings()); we != nil {
		out.Edit = *we
	}
	return out, true
}

// blockLookup finds the blocks of live streams; the streams implement it.
type blockLookup interface {
	// block returns block index of a stream.
	block(stream string, index int) (streamBlock, bool)
	// fileBlocks returns every block of a stream; false for a stream unknown or empty.
	fileBlocks(stream string) ([]streamBlock, bool)
}

// applyOrResolve serves assistant/apply (send true) and assistant/resolveEdit (send false).
func applyOrResolve(ctx context.Context, ed *editor, blocks blockLookup, method string, params json.RawMessage, send bool) (any, error) {
	p, err := decodeApplyParams(method, params)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Stream != nil && p.Index != nil && p.URI == nil && p.Diff == nil && p.Content == nil:
		return applyStreamBlock(ctx, ed, blocks, *p.Stream, *p.Index, send)
	case p.URI != nil && p.Stream == nil && p.Index == nil && (p.Diff == nil) != (p.Content == nil):
		if err := checkFileURI(*p.URI); err != nil {
			return nil, err
		}
		// The path rules read the URI itself, so that a URI naming another host is failed
		// rather than read as a local path.
		tool, params := editTools[toolWrite], map[string]string{"path": *p.URI}
		if p.Diff != nil {
			tool = editTools[toolReplace]
			params["diff"] = *p.Diff
		} else {
			params["content"] = *p.Content
		}
		return ed.applyDirect(ctx, tool, params, p.ModelID, send)
	case p.URI != nil && p.Index != nil && p.Stream == nil:
		return nil, invalidParams("%s: response documents ({uri, index}) are not supported yet; pass {stream, index}", method)
	default:
		return nil, invalidParams("%s needs exactly one of {stream, index}, {uri, diff} or {uri, content}", method)
	}
}

// applyStreamBlock applies (with send) or resolves block index of a stream.
func applyStreamBlock(ctx context.Context, ed *editor, blocks blockLookup, stream string, index int, send bool) (ext.ApplyResult, error) {
	sb, ok := blocks.block(stream, index)
	if !ok {
		return ext.ApplyResult{}, invalidParams("stream %q has no block %d: the stream is unknown, was closed, or has fewer blocks", stream, index)
	}
	return ed.applyBlock(ctx, editKey{stream, index}, sb, send)
}

// checkFileURI answers InvalidParams for a uri that is not a file URI.
func checkFileURI(raw string) error {
	u, err := uri.Parse(raw)
	if err != nil || u.Scheme() != "file" {
		return invalidParams("uri %q is not a file URI: pass file:///path/to/file", raw)
	}
	return nil
}

// invalidParams is the JSON-RPC InvalidParams error (-32602) with a message saying what to send.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}

// decodeApplyParams decodes the params of method, answering InvalidParams for anything that is
// not a JSON object of the right field types.
func decodeApplyParams(method string, raw json.RawMessage) (ext.ApplyParams, error) {
	var p ext.ApplyParams
	if len(raw) == 0 || string(raw) == "null" {
		return p, invalidParams("%s needs params {stream, index}, {uri, diff} or {uri, content}", method)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, invalidParams("%s params: %v; send {stream, index}, {uri, diff} or {uri, content}", method, err)
	}
	return p, nil
}
