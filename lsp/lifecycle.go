package lsp

import (
	"context"
	"encoding/json"

	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/lsp/internal/transport"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// This file serves the lifecycle: initialize, shutdown, exit and $/cancelRequest.

// initialize records the client's capabilities, folders and initializationOptions.
func (s *server) initialize(_ context.Context, p *protocol.InitializeParams, _ bool) (any, error) {
	caps := readClientCaps(p.Capabilities)
	ws, folderWarnings := paths.NewWorkspace(workspaceFolders(p))
	cfg, warnings, unknown := defaultConfig(), []configWarning(nil), []string(nil)
	if section := initOptionsSection(p.InitializationOptions); section != nil {
		cfg, warnings, unknown = applySettings(cfg, section)
	}

	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already sent in this session")
	}
	s.state, s.caps, s.ws, s.cfg = stateInitialized, caps, ws, cfg
	s.mu.Unlock()

	s.streams.configure(cfg)
	s.reportSettings(warnings, unknown)
	for _, w := range folderWarnings {
		s.log.Warn("workspace folder ignored", zap.String("folder", w.Folder), zap.String("reason", w.Reason))
		s.warn(w.String())
	}
	s.log.Info("initialized", zap.String("client", p.ClientInfo.Name), zap.String("positionEncoding", string(caps.Encoding)),
		zap.Strings("folders", ws.Folders()), zap.Bool("documentChanges", caps.DocumentChanges))
	return &protocol.InitializeResult{
		Capabilities: serverCapabilities(caps),
		ServerInfo:   protocol.ServerInfo{Name: "assistant-ls", Version: protocol.NewOptional(s.opts.Version)},
	}, nil
}

// initOptionsSection returns the settings object of initializationOptions: its "assistant"
// member when that is an object (the shape of workspace settings), else the whole object.
func initOptionsSection(opts protocol.LSPAny) json.RawMessage {
	if len(opts) == 0 || string(opts) == "null" {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(opts, &obj); err == nil {
		if inner, ok := obj["assistant"]; ok && len(inner) > 0 && inner[0] == '{' {
			return inner
		}
	}
	return json.RawMessage(opts)
}

// reportSettings shows a warning per bad setting and logs unknown ones.
func (s *server) reportSettings(warnings []configWarning, unknown []string) {
	for _, w := range warnings {
		s.log.Warn("bad setting", zap.String("key", w.Key), zap.String("reason", w.Reason))
		s.warn(w.String())
	}
	if len(unknown) > 0 {
		s.log.Warn("ignored unknown settings", zap.Strings("keys", unknown))
	}
}

// shutdown moves the session to its last state: only exit is served after it.
func (s *server) shutdown(context.Context, jsonrpc2.RawMessage, bool) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.log.Info("shutdown requested")
	return nil, nil
}

// exit ends the session: closing the connection flushes what is queued and stops reading, so
// no later frame is served, and Serve returns without waiting for the client to close stdin.
// It runs on the connection's reader, so it runs once.
func (s *server) exit() {
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
	if err := s.conn.Close(); err != nil {
		s.log.Debug("closing the connection at exit", zap.Error(err))
	}
	close(s.exitc)
}

// cancelParams are the params of $/cancelRequest; the id is a number or a string.
type cancelParams struct {
	ID protocol.LSPAny `json:"id"`
}

// cancelRequest cancels the context of a request still being served.
func (s *server) cancelRequest(_ context.Context, p *cancelParams, _ bool) (any, error) {
	id := transport.ParseID(p.ID)
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil, nil
}
