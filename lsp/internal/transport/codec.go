package transport

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/assistant-ls/assistant-ls/lsp/internal/jsonq"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is the jsonrpc2 payload codec of the server. It encodes and decodes with the protocol
// package, which knows the LSP union types and replaces invalid UTF-8 in strings with U+FFFD
// instead of failing the message. A jsonrpc2.RawMessage passes through as it is, and is
// decoded into as an owned copy.
//
// A long payload (a push of a whole partial block, an edit of a large file) is written from the
// one buffer it was encoded into: the Codec of a Stream (Stream.Codec) hands jsonrpc2 a short
// token in its place, and the Stream frames the payload around the envelope jsonrpc2 built
// around the token. The zero Codec returns every payload itself.
type Codec struct{ held *heldPayloads }

// JSONAppender is a payload that encodes itself, in the bytes the protocol package would give
// for it (maps in any order), appending to dst. The long pushes of a stream implement it, so
// that they are encoded in one buffer of their size.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// Marshal implements jsonrpc2.Codec.
func (c Codec) Marshal(v any) ([]byte, error) {
	var (
		b   []byte
		err error
	)
	switch v := v.(type) {
	case jsonrpc2.RawMessage:
		if v == nil {
			return []byte("null"), nil
		}
		if len(v) <= splitAbove || c.held == nil {
			return v, nil
		}
		// The caller may reuse its buffer once the message is queued.
		b = bytes.Clone(v)
	case JSONAppender:
		b, err = v.AppendJSON(nil)
	case protocol.ApplyWorkspaceEditParams:
		// The protocol package encodes a pointer to its types with its generated encoders,
		// straight into the buffer given; a value goes through reflection and two more copies.
		// The buffer is sized for the edits' text, so that it is not doubled while full.
		b, err = protocol.AppendMarshal(make([]byte, 0, editSize(v.Edit)), &v)
	default:
		b, err = protocol.Marshal(v)
	}
	if err != nil || len(b) <= splitAbove || c.held == nil {
		return b, err
	}
	return c.held.put(b), nil
}

// Unmarshal implements jsonrpc2.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	if raw, ok := v.(*jsonrpc2.RawMessage); ok {
		*raw = bytes.Clone(data)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// editSize is about the size of the JSON of we: its texts quoted, and room for the rest of each
// edit and resource operation.
func editSize(we protocol.WorkspaceEdit) int {
	const perEdit = 256 // range, URI, annotation and the punctuation around them
	n := 1024
	text := func(te protocol.TextEdit) { n += jsonq.QuotedLen(te.NewText) + perEdit }
	for _, tes := range we.Changes {
		for _, te := range tes {
			text(te)
		}
	}
	for _, dc := range we.DocumentChanges {
		n += perEdit
		tde, ok := dc.(*protocol.TextDocumentEdit)
		if !ok {
			continue
		}
		for _, e := range tde.Edits {
			switch e := e.(type) {
			case *protocol.TextEdit:
				text(*e)
			case *protocol.AnnotatedTextEdit:
				text(e.TextEdit)
			default:
				n += perEdit
			}
		}
	}
	return n
}

// splitAbove is the payload size from which a message is framed around its payload instead of
// copied into one buffer with its envelope.
const splitAbove = 64 << 10

// heldPayloads are the long payloads encoded and not yet written, each under its token.
type heldPayloads struct {
	mu   sync.Mutex
	next uint64
	byID map[uint64][]byte
}

// tokenMark starts every token. A NUL byte is never in an envelope jsonrpc2 writes around
// payloads (its strings escape it), so a token cannot be confused with the envelope's text.
const tokenMark = "\x00assistant-ls payload "

// tokenLen is the length of a token: the mark and the payload's number.
const tokenLen = len(tokenMark) + 8

// put holds b and returns its token.
func (h *heldPayloads) put(b []byte) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	if h.byID == nil {
		h.byID = map[uint64][]byte{}
	}
	h.byID[h.next] = b
	return binary.BigEndian.AppendUint64([]byte(tokenMark), h.next)
}

// take returns the payload of the token at the start of tok and forgets it.
func (h *heldPayloads) take(tok []byte) ([]byte, bool) {
	if len(tok) < tokenLen || string(tok[:len(tokenMark)]) != tokenMark {
		return nil, false
	}
	id := binary.BigEndian.Uint64(tok[len(tokenMark):tokenLen])
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.byID[id]
	delete(h.byID, id)
	return b, ok
}

// drop forgets every payload held: the stream is closing, and they will never be written.
func (h *heldPayloads) drop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.byID = nil
}
