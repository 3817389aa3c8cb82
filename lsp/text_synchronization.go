package lsp

import (
	"context"
	"fmt"

	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"go.lsp.dev/protocol"
)

// This file serves text synchronization: the documents the client has open (didOpen,
// didChange, didClose), which the edit pipeline builds its edits on.

// didOpen records a document the client opened.
func (s *server) didOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams, _ bool) (any, error) {
	td := p.TextDocument
	s.docs.Open(td.URI, td.Version, td.Text)
	s.reviewOpened(td.URI, string(td.LanguageID), td.Text)
	return nil, nil
}

// didChange applies the client's changes, ranges in the negotiated encoding. The params are
// decoded by docs.ChangeParams, which tells a range that is absent (the whole document) from
// one that is malformed (refused, the document left as it was).
func (s *server) didChange(_ context.Context, p *docs.ChangeParams, _ bool) (any, error) {
	edits, err := s.docs.Change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges, s.encoding())
	if err != nil {
		return nil, fmt.Errorf("applying didChange to %s: %w", p.TextDocument.URI, err)
	}
	s.reviewChanged(p.TextDocument.URI, edits)
	s.hints.changed(p.TextDocument.URI, edits)
	return nil, nil
}

// didClose forgets a document the client closed.
func (s *server) didClose(_ context.Context, p *protocol.DidCloseTextDocumentParams, _ bool) (any, error) {
	s.docs.Close(p.TextDocument.URI)
	s.reviewClosed(p.TextDocument.URI)
	return nil, nil
}
