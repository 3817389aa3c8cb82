package lsp

import (
	"context"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/parse"
	"go.lsp.dev/protocol"
)

// This file serves textDocument/codeLens (section 7): above each pending hunk of a held edit,
// its accept and reject commands; above each file edit of a response document, the command that
// applies it and one per SEARCH section; above the first, the command that applies them all.

// codeLens serves textDocument/codeLens.
func (s *server) codeLens(_ context.Context, p *protocol.CodeLensParams, _ bool) (any, error) {
	u := p.TextDocument.URI
	out := []protocol.CodeLens{}
	st := s.settings()
	s.rv.held.forPending(u, st.Caps.Encoding, func(h *heldEdit, i int, _ *hunk, rg protocol.Range) {
		at := protocol.Range{Start: rg.Start, End: rg.Start}
		for _, a := range []struct{ title, command string }{
			{"Accept this change", ext.CommandAcceptHunk}, {"Reject this change", ext.CommandRejectHunk},
		} {
			out = append(out, protocol.CodeLens{Range: at, Command: protocol.Command{
				Title: a.title, Command: a.command, Arguments: []protocol.LSPAny{protocol.LSPAny(mustJSON(hunkArg(h.key, &i)))},
			}})
		}
	})
	pr, folder, ok := s.rv.resp.get(u, false)
	if !ok {
		return out, nil
	}
	m := text.NewMapper(pr.text)
	lens := func(sp parse.Span, a reviewAction) {
		rg, _ := m.Range(sp.Start, sp.Start, st.Caps.Encoding)
		out = append(out, protocol.CodeLens{Range: rg, Command: protocol.Command{
			Title: a.title, Command: a.command, Arguments: []protocol.LSPAny{protocol.LSPAny(mustJSON(a.arg))},
		}})
	}
	first := true
	for _, de := range pr.edits {
		if de == nil {
			continue
		}
		head := firstLine(pr.text, de.block)
		if first {
			lens(head, applyAllAction(u, pr.editCount()))
			first = false
		}
		lens(head, blockAction(u, de, folder, st))
		for _, sec := range de.sections {
			lens(sec.span, sectionAction(u, de, sec))
		}
	}
	return out, nil
}
