package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// This file serves textDocument/codeAction and codeAction/resolve (section 7): accepting or
// rejecting held hunks, and applying the edits of response documents. Every action carries the
// command that applies it; a client that previews code actions (one with change annotations,
// as VS Code) also gets the WorkspaceEdit, inline or through codeAction/resolve, for display.

// reviewAction is one code action before it is put on the wire.
type reviewAction struct {
	title   string
	command string
	arg     any
	// previewable actions have an edit to show: accepting hunks of hunkOf (nil: every pending
	// one), or applying a response document's block.
	hunkOf *heldEdit
	hunks  []int
	apply  *ext.ApplyParams
}

// actionData is the data of a code action the client resolves: its command, to compute the
// edit from.
type actionData struct {
	Command string          `json:"command"`
	Arg     json.RawMessage `json:"arg"`
}

// codeAction serves textDocument/codeAction.
func (s *server) codeAction(_ context.Context, p *protocol.CodeActionParams, _ bool) (any, error) {
	st := s.settings()
	enc := st.Caps.Encoding
	u := p.TextDocument.URI
	acts := s.rv.held.hunkActions(u, p.Range, enc)
	acts = append(acts, s.rv.resp.actions(u, p.Range, enc)...)
	out := make([]*protocol.CodeAction, 0, len(acts))
	for _, a := range acts {
		out = append(out, s.wireAction(a, st))
	}
	return out, nil
}

// wireAction is a's code action for the client of st.
func (s *server) wireAction(a reviewAction, st settings) *protocol.CodeAction {
	kind := protocol.CodeActionKindQuickFix
	arg := mustJSON(a.arg)
	ca := &protocol.CodeAction{
		Title:   a.title,
		Kind:    &kind,
		Command: protocol.Command{Title: a.title, Command: a.command, Arguments: []protocol.LSPAny{protocol.LSPAny(arg)}},
	}
	previewable := a.hunkOf != nil || a.apply != nil
	if !previewable || !st.Caps.Annotations {
		return ca
	}
	if st.Caps.ResolveCodeActionEdit {
		ca.Data = protocol.LSPAny(mustJSON(actionData{Command: a.command, Arg: arg}))
		return ca
	}
	ca.Edit = s.actionEdit(a, st)
	return ca
}

// actionEdit is the edit a previewable action would make, or nil.
func (s *server) actionEdit(a reviewAction, st settings) *protocol.WorkspaceEdit {
	switch {
	case a.hunkOf != nil:
		return s.rv.held.hunkPreview(a.hunkOf, a.hunks, st)
	case a.apply != nil:
		return s.rv.resp.preview(*a.apply, st)
	}
	return nil
}

// resolveCodeAction serves codeAction/resolve: the edit of an action that carries data.
func (s *server) resolveCodeAction(_ context.Context, p *protocol.CodeAction, _ bool) (any, error) {
	if len(p.Data) == 0 || p.Edit != nil {
		return p, nil
	}
	var d actionData
	if err := json.Unmarshal(p.Data, &d); err != nil {
		return nil, invalidParams("codeAction/resolve: the action's data is not one of assistant-ls's: %v", err)
	}
	st := s.settings()
	a, err := s.rebuildAction(d)
	if err != nil {
		return nil, err
	}
	p.Edit = s.actionEdit(a, st)
	return p, nil
}

// rebuildAction turns a resolved action's data back into the action.
func (s *server) rebuildAction(d actionData) (reviewAction, error) {
	a := reviewAction{command: d.Command}
	switch d.Command {
	case ext.CommandAcceptHunk, ext.CommandAcceptAll:
		var hp ext.HunkParams
		if err := json.Unmarshal(d.Arg, &hp); err != nil {
			return a, invalidParams("codeAction/resolve: %v", err)
		}
		key, err := hunkKey(hp)
		if err != nil {
			return a, err
		}
		h, ok := s.rv.held.lookup(key)
		if !ok {
			return a, nil
		}
		a.hunkOf = h
		if hp.Hunk != nil {
			a.hunks = []int{*hp.Hunk}
		}
	case ext.CommandApply:
		var ap ext.ApplyParams
		if err := json.Unmarshal(d.Arg, &ap); err != nil {
			return a, invalidParams("codeAction/resolve: %v", err)
		}
		a.apply = &ap
	}
	return a, nil
}

// hunkKey is the held edit a HunkParams names.
func hunkKey(p ext.HunkParams) (editKey, error) {
	switch {
	case p.Index == nil:
		return editKey{}, invalidParams("the hunk commands take {stream, index, hunk} or {uri, index, hunk}; index is missing")
	case p.Stream != nil && p.URI == nil:
		return editKey{*p.Stream, *p.Index}, nil
	case p.URI != nil && p.Stream == nil && p.Section != nil:
		return editKey{sectionKey(uri.URI(*p.URI), *p.Section), *p.Index}, nil
	case p.URI != nil && p.Stream == nil:
		return editKey{responseKey(uri.URI(*p.URI)), *p.Index}, nil
	}
	return editKey{}, invalidParams("the hunk commands take exactly one of stream and uri")
}

// actions are the code actions of response document u on rg: apply the block, apply the section,
// apply all.
func (rs *responses) actions(u uri.URI, rg protocol.Range, enc protocol.PositionEncodingKind) []reviewAction {
	pr, folder, ok := rs.get(u, false)
	if !ok {
		return nil
	}
	m := text.NewMapper(pr.text)
	s := rs.ed.deps.Settings()
	var out []reviewAction
	for _, de := range pr.edits {
		if de == nil {
			continue
		}
		br, _ := m.Range(de.block.Span.Start, de.block.Span.End, enc)
		if !meets(br, rg) {
			continue
		}
		out = append(out, blockAction(u, de, folder, s))
		for _, sec := range de.sections {
			sr, _ := m.Range(sec.span.Start, sec.span.End, enc)
			if meets(sr, rg) {
				out = append(out, sectionAction(u, de, sec))
			}
		}
	}
	if n := pr.editCount(); n > 0 {
		out = append(out, applyAllAction(u, n))
	}
	return out
}

// blockAction applies one block of a response document.
func blockAction(u uri.URI, de *docEdit, folder string, s settings) reviewAction {
	su, index := string(u), de.index
	p := &ext.ApplyParams{URI: &su, Index: &index}
	return reviewAction{title: fmt.Sprintf("Apply %s to %s", de.tool.name, shownPath(de, folder, s)), command: ext.CommandApply, arg: p, apply: p}
}

// sectionAction applies one SEARCH section of a block alone.
func sectionAction(u uri.URI, de *docEdit, sec docSection) reviewAction {
	su, index, n := string(u), de.index, sec.n
	p := &ext.ApplyParams{URI: &su, Index: &index, Section: &n}
	return reviewAction{title: "Apply this section", command: ext.CommandApply, arg: p, apply: p}
}

// applyAllAction applies every edit of a response document.
func applyAllAction(u uri.URI, n int) reviewAction {
	su := string(u)
	title := fmt.Sprintf("Apply all %d edits in this response", n)
	if n == 1 {
		title = "Apply all 1 edit in this response"
	}
	return reviewAction{title: title, command: ext.CommandApplyAll, arg: &ext.ApplyParams{URI: &su}}
}

// shownPath is the path of an edit as users see it: relative to its workspace folder.
func shownPath(de *docEdit, folder string, s settings) string {
	req, _ := newRequest(de.tool, de.block.Params, folder, "", s)
	if len(req.Targets) > 0 {
		return req.Targets[0].Rel
	}
	if ps := de.tool.paths(de.block.Params); len(ps) > 0 {
		return ps[0]
	}
	return "?"
}
