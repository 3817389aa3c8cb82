package transport

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// Peer is the client as the server's code talks to it. A Call runs on the caller's goroutine
// and waits for the answer, which the connection's reader delivers; the caller must therefore
// never be the reader itself (a handler calls jsonrpc2.Async before it may call the client).
type Peer struct{ conn jsonrpc2.Conn }

// NewPeer returns the peer that calls and notifies through conn.
func NewPeer(conn jsonrpc2.Conn) Peer { return Peer{conn: conn} }

// Call sends a request to the client and decodes its result into result (which may be nil).
// Its error names the method; an error answer of the client is a *jsonrpc2.Error in the chain.
func (p Peer) Call(ctx context.Context, method string, params, result any) error {
	if _, err := p.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// Notify sends a notification to the client. Writes are queued by the Stream, so it never
// waits for the client to read.
func (p Peer) Notify(ctx context.Context, method string, params any) error {
	if err := p.conn.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}
