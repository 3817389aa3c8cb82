package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/parse"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// This file serves the workspace methods: configuration changes and executeCommand.

// didChangeConfiguration applies settings.assistant. Keys it holds replace the current values
// (null restores the default); keys it lacks keep theirs. New tool or param names take effect
// for streams started (or restarted) afterwards.
func (s *server) didChangeConfiguration(_ context.Context, p *protocol.DidChangeConfigurationParams, _ bool) (any, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(p.Settings, &all); err != nil {
		s.log.Debug("didChangeConfiguration without a settings object; nothing to apply")
		return nil, nil
	}
	section, ok := all["assistant"]
	if !ok {
		return nil, nil
	}
	s.mu.Lock()
	old := s.cfg
	cfg, warnings, unknown := applySettings(old, section)
	s.cfg = cfg
	s.mu.Unlock()
	if !slices.Equal(old.ToolNames, cfg.ToolNames) || !slices.Equal(old.ParamNames, cfg.ParamNames) || old.tools != cfg.tools ||
		!slices.Equal(old.TextFormats, cfg.TextFormats) {
		s.streams.configure(cfg)
		s.rv.resp.setParser(parse.New(cfg.parseConfig()))
	}
	if !slices.Equal(old.ResponseDocuments, cfg.ResponseDocuments) {
		s.rv.resp.reconsider(func(u uri.URI) (string, bool) {
			text, _, ok := s.docs.Get(u)
			return text, ok
		})
	}
	s.reportSettings(warnings, unknown)
	s.log.Debug("configuration changed", zap.Any("config", cfg))
	return nil, nil
}

// executeCommand runs assistant.apply and assistant.applyAll.
func (s *server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams, _ bool) (any, error) {
	args := make([]json.RawMessage, len(p.Arguments))
	for i, a := range p.Arguments {
		args[i] = json.RawMessage(a)
	}
	if res, handled, err := s.reviewCommand(ctx, p.Command, args); handled {
		return res, err
	}
	return runCommand(ctx, s.editor, s.streams, p.Command, args)
}

// runCommand runs assistant.apply or assistant.applyAll with args.
func runCommand(ctx context.Context, ed *editor, blocks blockLookup, command string, args []json.RawMessage) (any, error) {
	if command != ext.CommandApply && command != ext.CommandApplyAll {
		return nil, invalidParams("unknown command %q: the server provides %s and %s", command, ext.CommandApply, ext.CommandApplyAll)
	}
	if len(args) != 1 {
		return nil, invalidParams("%s takes exactly one argument, got %d", command, len(args))
	}
	a, err := decodeApplyParams(command, args[0])
	if err != nil {
		return nil, err
	}
	if command == ext.CommandApply {
		switch {
		case a.Stream != nil && a.Index != nil && a.URI == nil:
			res, err := applyStreamBlock(ctx, ed, blocks, *a.Stream, *a.Index, true)
			if err != nil {
				return nil, err
			}
			return ext.CommandResult{Status: res.Status, Error: res.Error, URI: res.URI}, nil
		case a.URI != nil && a.Index != nil && a.Stream == nil:
			return nil, invalidParams("%s: response documents are not supported yet; pass {stream, index}", command)
		default:
			return nil, invalidParams("%s takes {stream, index}", command)
		}
	}
	switch {
	case a.Stream != nil && a.URI == nil && a.Index == nil:
		all, ok := blocks.fileBlocks(*a.Stream)
		if !ok {
			return nil, invalidParams("stream %q has no blocks: it is unknown, was closed, or is empty", *a.Stream)
		}
		return ed.applyAll(ctx, *a.Stream, all)
	case a.URI != nil && a.Stream == nil:
		return nil, invalidParams("%s: response documents are not supported yet; pass {stream}", command)
	default:
		return nil, invalidParams("%s takes {stream}", command)
	}
}
