// Package lsp is the assistant-ls language server: it owns documents, streams and configuration,
// and translates between the LSP wire and the pure parse and apply packages.
package lsp

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/lsp/internal/transport"
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

// defaultStopGrace is how long the end of a session waits, for the messages read before exit
// or the end of input to be served and for its goroutines to stop, before it returns without
// them.
const defaultStopGrace = 5 * time.Second

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
	// MaxMessageBytes bounds the body of one incoming message; a larger message is skipped
	// unread and reported with window/showMessage. 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MaxTotalStreamBytes bounds the memory all live streams hold together, estimated as twice
	// their text plus 960 bytes per block; a delta that would pass it evicts the least recently
	// used other streams first, as MaxStreams does. A stream whose text alone would pass it is
	// refused like one past MaxStreamBytes. 0 means DefaultMaxTotalStreamBytes.
	MaxTotalStreamBytes int

	// Fault, when set, is called as each handler starts, with the method's name, and as each
	// of the server's goroutines and callbacks starts, with its name ("apply request",
	// "publish diagnostics", inputEndedHook, …), on its goroutine. It is for tests that make
	// one panic or block, or wait for the point; nil in use.
	Fault func(method string)

	// pushInterval replaces the push throttle window, so that tests can make it long enough to
	// observe throttling without depending on timing; 0 means defaultPushInterval.
	pushInterval time.Duration
	// stopGrace bounds how long the end of a session waits for the work still running (see
	// Serve); 0 means defaultStopGrace.
	stopGrace time.Duration
	// diagnosticsDelay replaces the debounce of review diagnostics; 0 means
	// defaultDiagnosticsDelay, a negative value publishes at once (tests).
	diagnosticsDelay time.Duration
	// verifyTimeout and staleWait replace the pipeline's waits for a client's didChange, and
	// progressTimeout its wait for the answer to window/workDoneProgress/create (see the
	// constants), so that tests wait for the event instead of a window a busy machine may miss,
	// and one that expects the window to pass need not wait it out; 0 means the default.
	verifyTimeout, staleWait, progressTimeout time.Duration
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
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxTotalStreamBytes <= 0 {
		o.MaxTotalStreamBytes = DefaultMaxTotalStreamBytes
	}
	if o.stopGrace <= 0 {
		o.stopGrace = defaultStopGrace
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
	rv      *review    // held edits and response documents (section 7)
	hints   *tierHints // how applied sections were located (section 4b)

	mu       sync.Mutex
	state    lifecycle
	cfg      config
	caps     clientCaps
	ws       *paths.Workspace
	exited   bool
	exitc    chan struct{}                      // closed by exit
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
		exitc:    make(chan struct{}),
	}
	stream := transport.NewStream(rwc, transport.Options{MaxBody: opts.MaxMessageBytes, Logger: s.log, Rejected: s.frameRejected})
	s.conn = stream
	conn := jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(stream.Codec()))
	p := transport.NewPeer(conn)
	s.peer = p
	s.streams = newStreams(streamLimits{maxText: opts.MaxStreamBytes, maxTotal: opts.MaxTotalStreamBytes, maxStreams: opts.MaxStreams, pushInterval: opts.pushInterval},
		s.cfg, p, s.log)
	s.editor = newEditor(editorDeps{
		Peer:     p,
		Docs:     s.docs,
		Settings: s.settings,
		Changed:  s.blockChanged,
		Held:     s.held,
		Located:  s.located,
		Log:      s.log,
	})
	if opts.verifyTimeout > 0 {
		s.editor.verifyTimeout = opts.verifyTimeout
	}
	if opts.staleWait > 0 {
		s.editor.staleWait = opts.staleWait
	}
	if opts.progressTimeout > 0 {
		s.editor.progressTimeout = opts.progressTimeout
	}
	s.streams.ed = s.editor
	s.editor.sup.fault = opts.Fault
	s.startReview()
	s.hints = newTierHints(s.editor, s.rv.diags.schedule)
	s.rv.diags.sources = append(s.rv.diags.sources, s.hints.diagnostics)

	var pusher sync.WaitGroup
	pusher.Go(func() { s.streams.run(ctx) })
	conn.Go(ctx, s.handle)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	case <-s.exitc:
	case <-stream.InputEnded():
	}
	// From here the end is known, and it is waited for only so long: whatever state a handler
	// or a goroutine was left in (a bug), exit, the end of input and the end of ctx end the
	// session. The deadline bounds the end, never the order of what is served before it.
	grace, cancelGrace := context.WithTimeout(context.Background(), opts.stopGrace)
	defer cancelGrace()
	drained := s.ended(ctx, conn) || s.drain(ctx, grace, stream, conn)
	stopped := ctx.Err() != nil
	// The exit code is taken now: a shutdown the reader serves as the session ends (one that
	// waited behind a handler that never returned) was never answered.
	s.mu.Lock()
	exitCode = 1
	if s.state == stateShutdown {
		exitCode = 0
	}
	s.mu.Unlock()
	// After exit or a stop nothing more is done: cancelling ends the handlers still running
	// (one waiting for the client, say) before their work is waited for, and closing the
	// stream ends reading at once, so no frame after exit is ever served.
	cancel()
	_ = stream.Close()
	// The work still running is waited for, until the same deadline.
	stoppedAll := make(chan struct{})
	go func() {
		defer close(stoppedAll)
		<-conn.Done()
		pusher.Wait()
		s.streams.stop()
		s.rv.diags.stop()
		s.editor.shutdown()
	}()
	clean := true
	select {
	case <-stoppedAll:
	case <-grace.Done():
		clean = false
		s.log.Error("the session's work did not stop in time; ending without it", zap.Duration("waited", opts.stopGrace))
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exited && !stopped && clean && drained {
		err = conn.Err()
	}
	s.log.Info("session ended", zap.Int("exitCode", exitCode), zap.Bool("exitReceived", s.exited))
	return exitCode, err
}

// inputEndedHook names the point where the server learns, from the transport's reading ahead,
// that exit or the end of input was read (Options.Fault).
const inputEndedHook = "input ended"

// ended reports whether the session is over for the reader, exit or ctx: what remains is to
// tear it down.
func (s *server) ended(ctx context.Context, conn jsonrpc2.Conn) bool {
	select {
	case <-conn.Done():
	case <-ctx.Done():
	case <-s.exitc:
	default:
		return false
	}
	return true
}

// drain lets the reader serve the messages sent before the exit or the end of input the
// transport read ahead, in wire order, so that a client that sends shutdown and exit without
// waiting still gets its answer; until grace ends, for a handler that never returns (a bug)
// would hold them for ever. Past grace the session ends without them, and without the exit
// being served; it counts as received. drain reports whether the reader got to the end.
func (s *server) drain(ctx, grace context.Context, stream *transport.Stream, conn jsonrpc2.Conn) bool {
	exit := stream.ExitRead()
	s.editor.sup.run(inputEndedHook, nil, func() {
		s.log.Debug("exit or the end of input read ahead; serving the messages before it first", zap.Bool("exit", exit))
	})
	select {
	case <-conn.Done():
	case <-ctx.Done():
	case <-s.exitc:
	case <-grace.Done():
		s.log.Error("the messages before exit or the end of input were not served in time (a handler does not return); ending without them",
			zap.Bool("exit", exit), zap.Duration("waited", s.opts.stopGrace))
		if exit {
			s.mu.Lock()
			s.exited = true
			s.mu.Unlock()
		}
		return false
	}
	return true
}

// settings is the snapshot the edit pipeline adapts to.
func (s *server) settings() settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return settings{Config: s.cfg, Caps: s.caps, Workspace: s.ws}
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
	if err := s.peer.Notify(context.Background(), "window/showMessage", params); err != nil {
		s.log.Debug("could not show a warning", zap.Error(err))
	}
}

// frameRejected reports a frame the transport skipped.
func (s *server) frameRejected(reason string) {
	s.warn("assistant-ls ignored a malformed message: " + reason)
}
