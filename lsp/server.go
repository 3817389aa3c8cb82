// Package lsp is the assistant-ls language server: it owns documents, streams and configuration,
// and translates between the LSP wire and the pure parse and apply packages.
package lsp

import (
	"context"
	"io"

	"go.uber.org/zap"
)

// Options configure a server.
type Options struct {
	// Logger receives the server's logs; nil means no logs.
	Logger *zap.Logger
}

// Serve runs one server session over rwc until the client exits or the connection closes.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) (exitCode int, err error) {
	return 0, nil
}
