package lsp

import (
	"github.com/assistant-ls/assistant-ls/apply"
	"go.lsp.dev/protocol"
)

// byteEdit replaces original[Start:End] with NewText.
type byteEdit struct {
	Start, End int
	NewText    string
}

// replacementEdits turns the applier's final-mode replacements into sorted, non-overlapping,
// minimal edits of original.
func replacementEdits(original string, reps []apply.Replacement) []byteEdit { return nil }

// contentEdits returns minimal line-level edits that turn old into new.
func contentEdits(old, new string) []byteEdit { return nil }

// applyEdits applies sorted, non-overlapping edits to s.
func applyEdits(s string, edits []byteEdit) string { return s }

// textEdits converts edits of m's content to LSP text edits in enc.
func (m *mapper) textEdits(edits []byteEdit, enc protocol.PositionEncodingKind) ([]protocol.TextEdit, error) {
	return nil, nil
}
