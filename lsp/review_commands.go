package lsp

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/turn"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// This file serves the review commands (section 7): accepting and rejecting held hunks, and the
// response-document forms of assistant.apply ({uri, index[, section]}) and assistant.applyAll
// ({uri}), and of the assistant/apply and assistant/resolveEdit requests.

// reviewCommand runs the commands of section 7; handled is false for every other command or
// form, which runCommand serves.
func (s *server) reviewCommand(ctx context.Context, command string, args []json.RawMessage) (res any, handled bool, err error) {
	switch command {
	case ext.CommandAcceptHunk, ext.CommandRejectHunk, ext.CommandAcceptAll, ext.CommandRejectAll:
		if len(args) != 1 {
			return nil, true, invalidParams("%s takes exactly one argument, got %d", command, len(args))
		}
		res, err := s.hunkCommand(ctx, command, args[0])
		return res, true, err
	case ext.CommandApply, ext.CommandApplyAll:
		if len(args) != 1 {
			return nil, false, nil
		}
		var p ext.ApplyParams
		if json.Unmarshal(args[0], &p) != nil || p.URI == nil || p.Stream != nil {
			return nil, false, nil
		}
		u := uri.URI(*p.URI)
		if command == ext.CommandApplyAll {
			if p.Index != nil {
				return nil, true, invalidParams("%s takes {uri} of a response document, without index", command)
			}
			res, err := s.rv.resp.applyAll(ctx, u)
			return res, true, err
		}
		if p.Index == nil || p.Diff != nil || p.Content != nil {
			return nil, false, nil
		}
		r, err := s.rv.resp.applyBlock(ctx, u, *p.Index, p.Section, true)
		if err != nil {
			return nil, true, err
		}
		return ext.CommandResult{Status: r.Status, Error: r.Error, URI: r.URI}, true, nil
	}
	return nil, false, nil
}

// hunkCommand runs one of the hunk commands with its argument.
func (s *server) hunkCommand(ctx context.Context, command string, raw json.RawMessage) (any, error) {
	var p ext.HunkParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("%s: %v; send {stream, index, hunk} or {uri, index, hunk}", command, err)
	}
	key, err := hunkKey(p)
	if err != nil {
		return nil, err
	}
	var hunks []int
	switch command {
	case ext.CommandAcceptHunk, ext.CommandRejectHunk:
		if p.Hunk == nil {
			return nil, invalidParams("%s needs hunk, the index of the hunk in the edit's hunks", command)
		}
		hunks = []int{*p.Hunk}
	default:
		if p.Hunk != nil {
			return nil, invalidParams("%s decides every pending hunk: leave hunk out, or use the single-hunk command", command)
		}
	}
	if command == ext.CommandAcceptHunk || command == ext.CommandAcceptAll {
		return s.rv.held.accept(ctx, key, hunks)
	}
	return s.rv.held.reject(ctx, key, hunks)
}

// applyResponseRequest serves the {uri, index[, section]} form of assistant/apply (send) and
// assistant/resolveEdit; handled is false for the other forms.
func (s *server) applyResponseRequest(ctx context.Context, raw json.RawMessage, send bool) (any, bool, error) {
	var p ext.ApplyParams
	if json.Unmarshal(raw, &p) != nil || p.URI == nil || p.Index == nil || p.Stream != nil || p.Diff != nil || p.Content != nil {
		return nil, false, nil
	}
	res, err := s.rv.resp.applyBlock(ctx, uri.URI(*p.URI), *p.Index, p.Section, send)
	return res, true, err
}

// docBlock finds the file edit of block index of response document u.
func (rs *responses) docBlock(u uri.URI, index int) (*docEdit, *parsedResponse, string, error) {
	pr, folder, ok := rs.get(u, true)
	if !ok {
		return nil, nil, "", notResponse(u)
	}
	if index < 0 || index >= len(pr.blocks) {
		return nil, nil, "", invalidParams("the response document %s has %d blocks; block %d does not exist", u, len(pr.blocks), index)
	}
	de := pr.edits[index]
	if de == nil {
		return nil, nil, "", invalidParams("block %d of %s is not a file edit", index, u)
	}
	return de, pr, folder, nil
}

// target is the block and registry key that apply block index (section n alone, when set), and
// inPlace when the registry shows that edit applied under another key, so that nothing is to
// be sent. A block and its sections are applied under keys of their own, and none of them is
// applied twice whatever the order (section 4): sections applied alone are left out of their
// block, which then stands for its other sections only; a section applied with its block is
// in place.
func (rs *responses) target(u uri.URI, index int, section *int) (key editKey, sb streamBlock, inPlace bool, err error) {
	de, _, folder, err := rs.docBlock(u, index)
	if err != nil {
		return editKey{}, streamBlock{}, false, err
	}
	blockKey := editKey{responseKey(u), index}
	whole := streamBlock{Block: turn.Block{Block: de.block}, Tool: de.tool, Cwd: folder}
	sectionBlock := func(sec docSection) streamBlock {
		b, tool := de.applyAlone(sec)
		return streamBlock{Block: turn.Block{Block: b}, Tool: tool, Cwd: folder}
	}
	var rest []docSection // the sections not applied alone
	var alone []string
	for _, sec := range de.sections {
		if sb := sectionBlock(sec); rs.ed.holdsSent(editKey{sectionKey(u, sec.n), index}, sb.Tool, sb) {
			alone = append(alone, strconv.Itoa(sec.n))
			continue
		}
		rest = append(rest, sec)
	}
	// The block as it is applied now: without the sections applied alone.
	block := whole
	switch {
	case len(alone) == 0:
	case len(rest) == 0:
		if section == nil {
			return blockKey, whole, true, nil
		}
	case de.tool.name == toolReplace:
		diffs := make([]string, len(rest))
		for i, sec := range rest {
			diffs[i] = sec.diff
		}
		b := parse.Block{Type: parse.ToolUse, Name: toolReplace, Params: map[string]string{"path": de.block.Params["path"], "diff": strings.Join(diffs, "")}}
		block = streamBlock{Block: turn.Block{Block: b}, Tool: de.tool, Cwd: folder}
	case section == nil:
		return editKey{}, streamBlock{}, false, invalidParams("SEARCH section %s of block %d of %s was applied alone; apply its other sections one by one",
			strings.Join(alone, ", "), index, u)
	}
	if section == nil {
		return blockKey, block, false, nil
	}
	for _, sec := range de.sections {
		if sec.n == *section {
			withBlock := !slices.Contains(alone, strconv.Itoa(sec.n)) && rs.ed.holdsSent(blockKey, block.Tool, block)
			return editKey{sectionKey(u, sec.n), index}, sectionBlock(sec), withBlock, nil
		}
	}
	return editKey{}, streamBlock{}, false, invalidParams("block %d of %s has %d SEARCH sections; section %d (counted from 1) does not exist",
		index, u, len(de.sections), *section)
}

// applyBlock applies (send) or resolves block index of response document u, or its section
// alone, through the block registry: an edit in place is never applied again. With review on,
// applying holds the edit for review in its target instead (section 7a).
func (rs *responses) applyBlock(ctx context.Context, u uri.URI, index int, section *int, send bool) (ext.ApplyResult, error) {
	key, sb, inPlace, err := rs.target(u, index, section)
	if err != nil {
		return ext.ApplyResult{}, err
	}
	if inPlace {
		s := rs.ed.deps.Settings()
		req, _ := newRequest(sb.Tool, sb.Block.Params, sb.Cwd, "", s)
		return ext.ApplyResult{Status: ext.StatusApplied, URI: firstURI(req)}, nil
	}
	if send && rs.ed.deps.Settings().Config.Review {
		return rs.ed.reviewBlock(ctx, key, sb)
	}
	return rs.ed.applyBlock(ctx, key, sb, send)
}

// reviewBlock computes the edit of sb, the complete block key, and holds it for review instead
// of sending it; an edit already in place answers applied.
func (e *editor) reviewBlock(ctx context.Context, key editKey, sb streamBlock) (ext.ApplyResult, error) {
	tool := sb.Tool
	s := e.deps.Settings()
	req, reqErr := newRequest(tool, sb.Block.Params, sb.Cwd, sb.ModelID, s)
	be, sb := e.ensureBlock(key, tool, sb, s, true)
	if reqErr != nil {
		st := ext.EditState{URI: firstURI(req), Status: requestStatus(reqErr), Error: reqErr.Error()}
		e.setState(key, be, st)
		return ext.ApplyResult{Status: st.Status, Error: st.Error, URI: st.URI}, nil
	}
	hold := func(settings) runOpts { return runOpts{hold: true, warn: true} }
	return e.applyRequest(ctx, key.stream, true, s, job{key: key, be: be, req: req, skipApplied: true, opts: hold})
}

// applyAll applies every file edit of response document u, in order, as applyBlock does each.
func (rs *responses) applyAll(ctx context.Context, u uri.URI) (ext.ApplyAllResult, error) {
	pr, _, ok := rs.get(u, true)
	if !ok {
		return ext.ApplyAllResult{}, notResponse(u)
	}
	var todo []int
	for i, de := range pr.edits {
		if de != nil {
			todo = append(todo, i)
		}
	}
	return applyEach(ctx, todo, func(i int) (ext.ApplyResult, error) {
		return rs.applyBlock(ctx, u, i, nil, true)
	})
}

// preview is the WorkspaceEdit that applying p would send now, for clients that show it; nil
// when there is none. Such a client applies the edit itself and then runs the action's command,
// so the edit is recorded as the block's edit sent: the command finds it in place (isApplied)
// instead of applying it a second time, even when its REPLACE text keeps its SEARCH text.
func (rs *responses) preview(p ext.ApplyParams, s settings) *protocol.WorkspaceEdit {
	if p.URI == nil || p.Index == nil {
		return nil
	}
	key, sb, inPlace, err := rs.target(uri.URI(*p.URI), *p.Index, p.Section)
	if err != nil || inPlace {
		return nil
	}
	tool := sb.Tool
	req, err := newRequest(tool, sb.Block.Params, sb.Cwd, "", s)
	if err != nil {
		return nil
	}
	plan, err := rs.ed.plan(req, s)
	if err != nil || plan.inPlace() {
		return nil
	}
	we, err := buildEdit(plan, s.Caps, false)
	if err != nil {
		return nil
	}
	be, _ := rs.ed.ensureBlock(key, tool, sb, s, true)
	rs.ed.mu.Lock()
	if be.state.Status != ext.StatusApplied {
		be.sent = plan
	}
	rs.ed.mu.Unlock()
	return &we
}
