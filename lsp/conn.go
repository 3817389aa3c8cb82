package lsp

import (
	"context"

	"github.com/assistant-ls/assistant-ls/lsp/internal/transport"
)

// connPeer is the peer the edit pipeline talks to the client through: the transport's, under
// the method names of the peer interface.
type connPeer struct{ p transport.Peer }

// call sends a request to the client and decodes its result into result (which may be nil).
func (c connPeer) call(ctx context.Context, method string, params, result any) error {
	return c.p.Call(ctx, method, params, result)
}

// notify sends a notification to the client.
func (c connPeer) notify(ctx context.Context, method string, params any) error {
	return c.p.Notify(ctx, method, params)
}
