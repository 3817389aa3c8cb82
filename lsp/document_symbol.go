package lsp

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/parse"
	"go.lsp.dev/protocol"
)

// This file serves textDocument/documentSymbol (section 7b): one symbol per block of a response
// document, text blocks included, so that an editor's outline lists the answer's steps.

// symbolNameMax bounds a text block's symbol name, which is its first line.
const symbolNameMax = 60

// documentSymbol serves textDocument/documentSymbol.
func (s *server) documentSymbol(_ context.Context, p *protocol.DocumentSymbolParams, _ bool) (any, error) {
	out := []protocol.DocumentSymbol{}
	pr, folder, ok := s.rv.resp.get(p.TextDocument.URI, false)
	if !ok {
		return out, nil
	}
	st := s.settings()
	m := text.NewMapper(pr.text)
	for i, b := range pr.blocks {
		rg, _ := m.Range(b.Span.Start, b.Span.End, st.Caps.Encoding)
		head := firstLine(pr.text, b)
		sel, _ := m.Range(head.Start, head.End, st.Caps.Encoding)
		sym := protocol.DocumentSymbol{Name: blockSymbolName(b, pr.edits[i], folder, st), Range: rg, SelectionRange: sel}
		if b.Type == parse.Text {
			sym.Kind = protocol.SymbolKindString
		} else {
			sym.Kind = protocol.SymbolKindFunction
		}
		out = append(out, sym)
	}
	return out, nil
}

// blockSymbolName names a block: a file edit by its tool and path ("replace_in_file src/x.go"),
// another tool use by its name, a text block by its first line.
func blockSymbolName(b parse.Block, de *docEdit, folder string, s settings) string {
	if de != nil {
		return de.tool.name + " " + shownPath(de, folder, s)
	}
	if b.Type == parse.ToolUse {
		return b.Name
	}
	name := strings.TrimSpace(firstLineOf(b.Content))
	if len(name) > symbolNameMax {
		cut := symbolNameMax
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "…"
	}
	if name == "" {
		return "text"
	}
	return name
}
