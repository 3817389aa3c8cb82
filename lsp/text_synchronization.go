package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// This file serves text synchronization: the documents the client has open (didOpen,
// didChange, didClose), which the edit pipeline builds its edits on.

// didOpen records a document the client opened.
func (s *server) didOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams, _ bool) (any, error) {
	td := p.TextDocument
	s.docs.open(td.URI, string(td.LanguageID), td.Version, td.Text)
	s.reviewOpened(td.URI, string(td.LanguageID), td.Text)
	return nil, nil
}

// didChange applies the client's changes, ranges in the negotiated encoding.
func (s *server) didChange(_ context.Context, p *protocol.DidChangeTextDocumentParams, _ bool) (any, error) {
	if err := s.docs.change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges, s.encoding()); err != nil {
		return nil, fmt.Errorf("applying didChange to %s: %w", p.TextDocument.URI, err)
	}
	s.reviewChanged(p.TextDocument.URI)
	return nil, nil
}

// didClose forgets a document the client closed.
func (s *server) didClose(_ context.Context, p *protocol.DidCloseTextDocumentParams, _ bool) (any, error) {
	s.docs.close(p.TextDocument.URI)
	s.reviewClosed(p.TextDocument.URI)
	return nil, nil
}
