package lsp

import (
	"context"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
)

// This file serves the streams: assistant/parse and assistant/close (section 3).

// parse serves assistant/parse, as a notification or a request.
func (s *server) parse(_ context.Context, p *ext.ParseParams, isCall bool) (any, error) {
	handle := s.streams.handleParse
	if p.Event != nil || p.Provider != "" {
		handle = s.streams.handleEvent
	}
	res, err := handle(*p, isCall)
	if err != nil || !isCall {
		return nil, err
	}
	return res, nil
}

// closeStream serves assistant/close.
func (s *server) closeStream(_ context.Context, p *ext.CloseParams, _ bool) (any, error) {
	s.streams.close(p.Stream)
	return nil, nil
}
