package transport

import (
	"bytes"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is the jsonrpc2 payload codec of the server. It encodes and decodes with the protocol
// package, which knows the LSP union types and replaces invalid UTF-8 in strings with U+FFFD
// instead of failing the message. A jsonrpc2.RawMessage passes through as it is, and is
// decoded into as an owned copy.
//
// What Marshal returns is the server's own until it is written: a long payload is written from
// that buffer, not copied into the frame (see Stream.Write).
type Codec struct{}

// JSONAppender is a payload that encodes itself, in the bytes the protocol package would give
// for it (maps in any order), appending to dst. The long pushes of a stream implement it, so
// that they are encoded in one buffer of their size.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// Marshal implements jsonrpc2.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	switch v := v.(type) {
	case jsonrpc2.RawMessage:
		if v == nil {
			return []byte("null"), nil
		}
		if len(v) > splitAbove {
			// The caller may reuse its buffer once the message is queued.
			return bytes.Clone(v), nil
		}
		return v, nil
	case JSONAppender:
		return v.AppendJSON(nil)
	case protocol.ApplyWorkspaceEditParams:
		// The protocol package encodes a pointer to its types with its generated encoders,
		// straight into one buffer; a value goes through reflection and two more copies.
		return protocol.Marshal(&v)
	}
	return protocol.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	if raw, ok := v.(*jsonrpc2.RawMessage); ok {
		*raw = bytes.Clone(data)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
