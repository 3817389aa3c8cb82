// Package lsp is the assistant-ls language server: it owns documents, streams and configuration,
// and translates between the LSP wire and the pure parse and apply packages.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/parse"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Defaults of the Options limits.
const (
	DefaultMaxStreams      = 64
	DefaultMaxStreamBytes  = 32 << 20
	DefaultMaxMessageBytes = 64 << 20
)

// DefaultMaxTotalStreamBytes is the default bound of the memory all streams hold together, as
// estimated by the stream store: room for four streams at the per-stream text limit.
const DefaultMaxTotalStreamBytes = 256 << 20

// Options configure a server.
type Options struct {
	// Logger receives the server's logs; nil means no logs. The server never writes to
	// stdout itself: the connection is the only output.
	Logger *zap.Logger
	// Version is reported as serverInfo.version; "" reports "dev".
	Version string
	// MaxStreams bounds the live assistant/parse streams; past it the least recently used
	// stream is evicted (its blocks and edits are forgotten). 0 means DefaultMaxStreams.
	MaxStreams int
	// MaxStreamBytes bounds the text of one stream; a delta or text past it is InvalidParams
	// and leaves the stream as it was. 0 means DefaultMaxStreamBytes.
	MaxStreamBytes int
	// MaxTotalStreamBytes bounds the memory all live streams hold together, estimated as twice
	// their text plus 768 bytes per block; a delta that would pass it evicts the least recently
	// used other streams first, as MaxStreams does. A stream whose text alone would pass it is
	// refused like one past MaxStreamBytes. 0 means DefaultMaxTotalStreamBytes.
	MaxTotalStreamBytes int
	// MaxMessageBytes bounds the body of one incoming message; a larger message is skipped
	// unread and reported with window/showMessage. 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int

	// pushInterval replaces the push throttle window, so that tests can make it long enough to
	// observe throttling without depending on timing; 0 means defaultPushInterval.
	pushInterval time.Duration
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxStreamBytes <= 0 {
		o.MaxStreamBytes = DefaultMaxStreamBytes
	}
	if o.MaxTotalStreamBytes <= 0 {
		o.MaxTotalStreamBytes = DefaultMaxTotalStreamBytes
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.pushInterval <= 0 {
		o.pushInterval = defaultPushInterval
	}
	return o
}

// lifecycle is where a session is in the initialize/shutdown/exit sequence.
type lifecycle int

// The lifecycle states: before initialize, serving, after shutdown.
const (
	stateNew lifecycle = iota
	stateInitialized
	stateShutdown
)

// server is one session. The connection's reader runs the handlers of notifications and of
// quick requests in wire order, so documents and streams change in the order the client sent
// them; handlers that may wait for the client run on their own goroutine (see methods).
type server struct {
	opts    Options
	log     *zap.Logger
	conn    io.Closer // the transport; closing it ends the session
	docs    *docs.Store
	peer    peer
	streams *streams
	editor  *editor

	mu       sync.Mutex
	state    lifecycle
	cfg      config
	caps     clientCaps
	folders  []string
	exited   bool
	inflight map[jsonrpc2.ID]context.CancelFunc // requests $/cancelRequest can cancel
}

// Serve runs one server session over rwc until the client exits, the connection closes or
// ctx ends. The exit code is 0 when the client sent shutdown before leaving (by exit or by
// closing the connection) and 1 otherwise, as the LSP specification asks of exit. err
// reports a broken connection, not a clean close.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) (exitCode int, err error) {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	s := &server{
		opts:     opts,
		log:      opts.Logger,
		docs:     docs.New(),
		cfg:      defaultConfig(),
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
	}
	stream := newFrameStream(rwc, opts.MaxMessageBytes, s.log, s.frameRejected)
	s.conn = stream
	conn := jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(lspCodec{}))
	p := connPeer{conn: conn}
	s.peer = p
	s.streams = newStreams(streamLimits{maxText: opts.MaxStreamBytes, maxTotal: opts.MaxTotalStreamBytes, maxStreams: opts.MaxStreams, pushInterval: opts.pushInterval},
		parse.New(s.cfg.parseConfig()), p, s.log)
	s.editor = newEditor(editorDeps{
		Peer:     p,
		Docs:     s.docs,
		Blocks:   s.streams,
		Settings: s.settings,
		Changed:  s.streams.changed,
		Log:      s.log,
	})
	s.streams.ed = s.editor

	var pusher sync.WaitGroup
	pusher.Go(func() { s.streams.run(ctx) })
	conn.Go(ctx, s.handle)
	select {
	case <-conn.Done():
	case <-ctx.Done():
		_ = stream.Close()
		<-conn.Done()
	}
	stopped := ctx.Err() != nil
	_ = stream.Close()
	cancel()
	pusher.Wait()
	s.streams.stop()
	s.editor.shutdown()

	s.mu.Lock()
	defer s.mu.Unlock()
	exitCode = 1
	if s.state == stateShutdown {
		exitCode = 0
	}
	if !s.exited && !stopped {
		err = conn.Err()
	}
	s.log.Info("session ended", zap.Int("exitCode", exitCode), zap.Bool("exitReceived", s.exited))
	return exitCode, err
}

// method describes how one LSP method is served.
type method struct {
	// async releases the connection's reader before the handler runs, for handlers that may
	// wait for the client (an applyEdit round trip): a reader blocked in such a handler could
	// never read the answer it waits for, nor the didChange that comes with it.
	async bool
	serve func(s *server, ctx context.Context, params jsonrpc2.RawMessage, isCall bool) (any, error)
}

// methods are the methods the server knows. Unknown requests get MethodNotFound and unknown
// notifications are ignored.
var methods = map[string]method{
	"initialize":                       {serve: (*server).initialize},
	"initialized":                      {serve: nothing},
	"shutdown":                         {serve: (*server).shutdown},
	"$/cancelRequest":                  {serve: (*server).cancelRequest},
	"$/setTrace":                       {serve: nothing},
	"textDocument/didOpen":             {serve: (*server).didOpen},
	"textDocument/didChange":           {serve: (*server).didChange},
	"textDocument/didClose":            {serve: (*server).didClose},
	"textDocument/didSave":             {serve: nothing},
	"workspace/didChangeConfiguration": {serve: (*server).didChangeConfiguration},
	"workspace/executeCommand":         {async: true, serve: (*server).executeCommand},
	"assistant/parse":                  {serve: (*server).parse},
	"assistant/close":                  {serve: (*server).closeStream},
	"assistant/apply":                  {async: true, serve: (*server).apply},
	"assistant/resolveEdit":            {async: true, serve: (*server).resolveEdit},
}

// nothing serves methods the server accepts but has no use for.
func nothing(*server, context.Context, jsonrpc2.RawMessage, bool) (any, error) { return nil, nil }

// handle is the connection's handler. It enforces the lifecycle, turns every failure of a
// request into a JSON-RPC error (a panic included: it is logged and answered with
// InternalError, and the session goes on) and never fails a notification, which jsonrpc2
// would treat as fatal to the connection.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	name, isCall, id := req.Method(), req.IsCall(), req.ID()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", zap.String("method", name), zap.Any("panic", r),
				zap.ByteString("stack", debug.Stack()))
			result, err = nil, nil
			if isCall {
				err = jsonrpc2.Errorf(jsonrpc2.InternalError,
					"internal error while serving %s: %v; the server keeps running, please report this", name, r)
			}
		}
	}()

	if name == "exit" {
		s.exit()
		return nil, nil
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case state == stateNew && name != "initialize":
		if isCall {
			return nil, errNotInitialized
		}
		return nil, nil
	case state == stateShutdown:
		if isCall {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down: only exit is accepted now")
		}
		return nil, nil
	}

	m, ok := methods[name]
	if !ok {
		if isCall {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method %q is not served by assistant-ls", name)
		}
		s.log.Debug("ignored unknown notification", zap.String("method", name))
		return nil, nil
	}
	if m.async {
		jsonrpc2.Async(ctx)
	}
	// Read only now: Async replaces the params, which borrowed the reader's buffer, by a copy.
	params := req.Params()
	if isCall {
		// The request context of jsonrpc2 is recycled when the handler returns, and a
		// context derived from it may still be consulted by the context package after that;
		// deriving from the connection's context is safe, and $/cancelRequest uses this
		// cancel instead.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(jsonrpc2.DetachContext(ctx))
		s.mu.Lock()
		s.inflight[id] = cancel
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, id)
			s.mu.Unlock()
			cancel()
		}()
	}
	result, err = m.serve(s, ctx, params, isCall)
	if err == nil {
		return result, nil
	}
	if !isCall {
		s.log.Warn("notification failed", zap.String("method", name), zap.Error(err))
		return nil, nil
	}
	s.log.Debug("request failed", zap.String("method", name), zap.Error(err))
	return nil, toRPCError(ctx, err)
}

// toRPCError gives err the JSON-RPC code the client can act on.
func toRPCError(ctx context.Context, err error) error {
	var rpc *jsonrpc2.Error
	var se *streamError
	switch {
	case errors.As(err, &rpc):
		return err
	case errors.As(err, &se):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, se.msg)
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return jsonrpc2.NewError(protocol.CodeRequestCancelled, "the request was cancelled")
	default:
		return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
}

// decode unmarshals params into v; a failure is InvalidParams naming what was wrong.
func decode(params jsonrpc2.RawMessage, v any) error {
	if len(params) == 0 {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "params are missing")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// settings is the snapshot the edit pipeline adapts to.
func (s *server) settings() settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return settings{Config: s.cfg, Caps: s.caps, Folders: s.folders}
}

// encoding returns the negotiated position encoding.
func (s *server) encoding() protocol.PositionEncodingKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.Encoding
}

// warn shows the user a warning. Writes are queued, so this never waits for the client.
func (s *server) warn(msg string) {
	params := &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg}
	if err := s.peer.notify(context.Background(), "window/showMessage", params); err != nil {
		s.log.Debug("could not show a warning", zap.Error(err))
	}
}

// frameRejected reports a frame the transport skipped.
func (s *server) frameRejected(reason string) {
	s.warn("assistant-ls ignored a malformed message: " + reason)
}

// initialize records the client's capabilities, folders and initializationOptions.
func (s *server) initialize(_ context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p protocol.InitializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	caps := readClientCaps(p.Capabilities)
	folders := workspaceFolders(&p)
	cfg, warnings, unknown := defaultConfig(), []configWarning(nil), []string(nil)
	if section := initOptionsSection(p.InitializationOptions); section != nil {
		cfg, warnings, unknown = applySettings(cfg, section)
	}

	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already sent in this session")
	}
	s.state, s.caps, s.folders, s.cfg = stateInitialized, caps, folders, cfg
	s.mu.Unlock()

	s.streams.setParser(parse.New(cfg.parseConfig()))
	s.reportSettings(warnings, unknown)
	s.log.Info("initialized", zap.String("client", p.ClientInfo.Name), zap.String("positionEncoding", string(caps.Encoding)),
		zap.Strings("folders", folders), zap.Bool("documentChanges", caps.DocumentChanges))
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

// exit ends the session by closing the connection; Serve then returns.
func (s *server) exit() {
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
	if err := s.conn.Close(); err != nil {
		s.log.Debug("closing the connection at exit", zap.Error(err))
	}
}

// cancelRequest cancels the context of a request still being served.
func (s *server) cancelRequest(_ context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p struct {
		ID protocol.LSPAny `json:"id"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	id := probeID(json.RawMessage(p.ID))
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil, nil
}

// didOpen records a document the client opened.
func (s *server) didOpen(_ context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	td := p.TextDocument
	s.docs.Open(td.URI, td.Version, td.Text)
	return nil, nil
}

// didChange applies the client's changes, ranges in the negotiated encoding.
func (s *server) didChange(_ context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p docs.ChangeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if err := s.docs.Change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges, s.encoding()); err != nil {
		return nil, fmt.Errorf("applying didChange to %s: %w", p.TextDocument.URI, err)
	}
	return nil, nil
}

// didClose forgets a document the client closed.
func (s *server) didClose(_ context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.docs.Close(p.TextDocument.URI)
	return nil, nil
}

// didChangeConfiguration applies settings.assistant. Keys it holds replace the current values
// (null restores the default); keys it lacks keep theirs. New tool or param names take effect
// for streams started (or restarted) afterwards.
func (s *server) didChangeConfiguration(_ context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p protocol.DidChangeConfigurationParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
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
	if !slices.Equal(old.ToolNames, cfg.ToolNames) || !slices.Equal(old.ParamNames, cfg.ParamNames) {
		s.streams.setParser(parse.New(cfg.parseConfig()))
	}
	s.reportSettings(warnings, unknown)
	s.log.Debug("configuration changed", zap.Any("config", cfg))
	return nil, nil
}

// executeCommand runs assistant.apply and assistant.applyAll.
func (s *server) executeCommand(ctx context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p protocol.ExecuteCommandParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	args := make([]json.RawMessage, len(p.Arguments))
	for i, a := range p.Arguments {
		args[i] = json.RawMessage(a)
	}
	return s.editor.executeCommand(ctx, p.Command, args)
}

// apply serves assistant/apply.
func (s *server) apply(ctx context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	return s.editor.handleApply(ctx, json.RawMessage(params), true)
}

// resolveEdit serves assistant/resolveEdit.
func (s *server) resolveEdit(ctx context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	return s.editor.handleApply(ctx, json.RawMessage(params), false)
}

// parse serves assistant/parse, as a notification or a request.
func (s *server) parse(_ context.Context, params jsonrpc2.RawMessage, isCall bool) (any, error) {
	var p streamParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	res, err := s.streams.handleParse(p, isCall)
	if err != nil || !isCall {
		return nil, err
	}
	return res, nil
}

// closeStream serves assistant/close.
func (s *server) closeStream(_ context.Context, params jsonrpc2.RawMessage, _ bool) (any, error) {
	var p closeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.streams.close(p.Stream)
	return nil, nil
}
