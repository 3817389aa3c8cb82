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
type Codec struct{}

// Marshal implements jsonrpc2.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	if raw, ok := v.(jsonrpc2.RawMessage); ok {
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
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
