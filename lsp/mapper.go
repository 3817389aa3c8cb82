package lsp

import "go.lsp.dev/protocol"

// mapper converts between byte offsets into one document content and LSP positions in the
// utf-8, utf-16 and utf-32 encodings, with LSP line breaks (\n, \r\n, \r). It is the only place
// in the server that knows about position encodings.
type mapper struct{ content string }

// newMapper indexes content.
func newMapper(content string) *mapper { return &mapper{content: content} }

// position returns the position of byte offset off.
func (m *mapper) position(off int, enc protocol.PositionEncodingKind) (protocol.Position, error) {
	return protocol.Position{}, nil
}

// offset returns the byte offset of p.
func (m *mapper) offset(p protocol.Position, enc protocol.PositionEncodingKind) (int, error) {
	return 0, nil
}

// rangeOf returns the range of bytes [start, end).
func (m *mapper) rangeOf(start, end int, enc protocol.PositionEncodingKind) (protocol.Range, error) {
	return protocol.Range{}, nil
}
