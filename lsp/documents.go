package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// documents owns the content and version of every document the client has open. It is safe for
// concurrent use.
type documents struct{}

// newDocuments returns an empty store.
func newDocuments() *documents { return &documents{} }

// open records a didOpen.
func (d *documents) open(u uri.URI, languageID string, version int32, text string) {}

// change applies a didChange's content changes in order, ranges in enc.
func (d *documents) change(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent, enc protocol.PositionEncodingKind) error {
	return nil
}

// close records a didClose.
func (d *documents) close(u uri.URI) {}

// get returns the content and version of an open document.
func (d *documents) get(u uri.URI) (content string, version int32, ok bool) { return "", 0, false }

// waitFor blocks until cond holds for the document's content and version, or ctx ends.
func (d *documents) waitFor(ctx context.Context, u uri.URI, cond func(content string, version int32, open bool) bool) bool {
	return false
}
