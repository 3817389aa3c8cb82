package lsp

// This file is the in-process test client every wire test is built on: a thin wrapper of
// internal/lspclient (the one fake editor of the module, also the demo's) that runs Serve over a
// net.Pipe and turns the client's errors into test failures:
//
//   - newTestClient(t, profile, opts...) starts a server, sends initialize with the profile's
//     capabilities and a t.TempDir() workspace folder (symlinks resolved; c.root is its path),
//     then initialized. withoutInitialize() skips both; withInitOptions(v) sets
//     initializationOptions; withServerOptions(o) sets the server's Options (its Logger is
//     always the client's log observer, c.logs); withServeContext(ctx) gives Serve a context
//     the test can cancel. At the end of the test the client sends shutdown and exit, waits
//     for Serve to return and reports the protocol violations it saw (a push whose from skips
//     blocks, a wrong id or index, a non-final push after a final one, an edit position that
//     needs clamping). c.cl is the lspclient.Client, for what the helpers do not cover.
//   - c.request(method, params, &result) sends a request and decodes its result with
//     encoding/json; the error is the server's *jsonrpc2.Error (use rpcCode(err)).
//     c.notify(method, params) sends a notification. c.writeRaw(bytes) writes raw bytes
//     (garbage frames; frame(body) adds a header); error responses with a null id are recorded
//     in c.orphans(). c.rawRequest(id, method, params) sends a request with a string id (to
//     cancel it, say) whose response c.rawResponse(id) returns.
//   - Documents: c.didOpen(rel, text) writes the file under c.root, opens it (version 1) and
//     returns its URI; c.didChange(u, text) sends a full-content change; c.buffer(u) and
//     c.version(u) return the client's copy; c.uri(rel) and c.path(rel) name files.
//   - workspace/applyEdit is answered like an editor (lspclient.ApplyEdit): documentChanges
//     (TextDocumentEdit with a version check, CreateFile, RenameFile, DeleteFile) or changes are
//     applied to the client's buffers in the negotiated encoding with the client's own position
//     conversion (a document not open yet is opened first, from disk or empty), a full-content
//     didChange with the next version is sent, and {applied: true} answered. Neovim 0.7
//     answers first and sends didChange 50 ms later, as the real one does. c.setApplyPolicy(f) overrides the answer per request: see
//     applyDecision (reject, claim applied without applying, or wait on a channel first).
//   - Recorded: c.pushes(stream), c.blocks(stream) (the blocks rebuilt from the pushes:
//     each push replaces the blocks from its from on), c.final(stream), c.messages()
//     (window/showMessage), c.progress() ($/progress), c.progressCreates(),
//     c.previews() (assistant/preview), c.applyRequests() (workspace/applyEdit params).
//   - c.waitFor(what, cond) waits until cond() (which may call the accessors above) holds,
//     re-checking whenever the client records something, and fails the test after
//     waitTimeout (minutes: the server hangs). The server's verifyTimeout and staleWait are
//     testVerifyTimeout unless withVerifyTimeout(d) sets them.
//
// The profiles are lspclient's: see lspclient.Profile for what each advertises.

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/internal/lspclient"
	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// clientProfile selects the capabilities and habits of the test client.
type clientProfile = lspclient.Profile

// The three client profiles.
const (
	profileVSCode   = lspclient.VSCode
	profileHelix    = lspclient.Helix
	profileNeovim07 = lspclient.Neovim07
)

// allProfiles lists the profiles for table tests.
var allProfiles = lspclient.Profiles

// waitTimeout bounds every wait of the harness. Every wait is for an event; the bound is a last
// resort, reached only when the server hangs, so it is minutes: a busy machine under -race may
// take tens of seconds for what takes milliseconds alone.
const waitTimeout = 5 * time.Minute

// testVerifyTimeout is the server's verifyTimeout and staleWait in wire tests that set neither:
// the didChange a client sends is then waited for however slow the machine is. A test that
// expects the window to pass without a didChange sets a short one (withVerifyTimeout). It is
// also the server's progressTimeout: the client always answers window/workDoneProgress/create.
const testVerifyTimeout = time.Minute

// clientMessage is a window/showMessage notification.
type clientMessage = lspclient.Message

// applyDecision is how the client answers one workspace/applyEdit (see lspclient).
type applyDecision = lspclient.ApplyDecision

// clientOptions are set by the clientOption functions.
type clientOptions struct {
	initOptions any
	server      Options
	skipInit    bool
	serveCtx    context.Context
	linkedRoot  bool
	record      bool          // keep a transcript (c.cl.Transcript)
	verify      time.Duration // the server's verifyTimeout and staleWait; 0 means testVerifyTimeout
}

// clientOption configures newTestClient.
type clientOption func(*clientOptions)

// withInitOptions sets initializationOptions.
func withInitOptions(v any) clientOption { return func(o *clientOptions) { o.initOptions = v } }

// withServerOptions sets the server's Options.
func withServerOptions(s Options) clientOption { return func(o *clientOptions) { o.server = s } }

// withVerifyTimeout sets the server's verifyTimeout and staleWait, for a test in which the
// client never sends the didChange waited for, so that the test does not wait out the window.
func withVerifyTimeout(d time.Duration) clientOption {
	return func(o *clientOptions) { o.verify = d }
}

// withServeContext runs Serve with ctx instead of a context that never ends.
func withServeContext(ctx context.Context) clientOption {
	return func(o *clientOptions) { o.serveCtx = ctx }
}

// withLinkedRoot names the workspace folder through a symbolic link to it, as macOS does for
// every folder under /tmp: documents are opened and edited under the link's name.
func withLinkedRoot() clientOption { return func(o *clientOptions) { o.linkedRoot = true } }

// withoutInitialize skips initialize and initialized.
func withoutInitialize() clientOption { return func(o *clientOptions) { o.skipInit = true } }

// serveResult is what Serve returned.
type serveResult struct {
	code int
	err  error
}

// testClient is an editor connected to an in-process server. See the file comment.
type testClient struct {
	t       testing.TB
	profile clientProfile
	root    string
	cl      *lspclient.Client
	conn    jsonrpc2.Conn
	pipe    net.Conn
	logs    *observer.ObservedLogs
	served  chan serveResult
	ctx     context.Context
	cancel  context.CancelFunc
	result  chan serveResult // holds Serve's result once received
}

// newTestClient starts a server and a client of the given profile connected to it.
func newTestClient(t testing.TB, profile clientProfile, opts ...clientOption) *testClient {
	t.Helper()
	o := clientOptions{serveCtx: context.Background()}
	for _, f := range opts {
		f(&o)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	if o.linkedRoot {
		link := filepath.Join(t.TempDir(), "linked-workspace")
		require.NoError(t, os.Symlink(root, link))
		root = link
	}
	return startTestClient(t, profile, root, o)
}

// startTestClient starts a server and a client of profile on the workspace folder root.
func startTestClient(t testing.TB, profile clientProfile, root string, o clientOptions) *testClient {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	o.server.Logger = zap.New(core)
	if o.verify == 0 {
		o.verify = testVerifyTimeout
	}
	o.server.verifyTimeout, o.server.staleWait = o.verify, o.verify
	if o.server.progressTimeout == 0 {
		o.server.progressTimeout = testVerifyTimeout
	}

	serverEnd, clientEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &testClient{
		t: t, profile: profile, root: root, logs: logs, pipe: clientEnd,
		served: make(chan serveResult, 1), ctx: ctx, cancel: cancel, result: make(chan serveResult, 1),
	}
	go func() {
		code, err := Serve(o.serveCtx, serverEnd, o.server)
		c.served <- serveResult{code: code, err: err}
	}()
	c.cl = lspclient.New(ctx, clientEnd, lspclient.Options{Profile: profile, Record: o.record})
	c.conn = c.cl.Conn()
	t.Cleanup(c.finish)

	if !o.skipInit {
		ctx, cancel := context.WithTimeout(c.ctx, waitTimeout)
		defer cancel()
		require.NoError(t, c.cl.Initialize(ctx, c.initializeParams(o.initOptions), nil))
	}
	return c
}

// initializeParams returns the profile's initialize params.
func (c *testClient) initializeParams(initOptions any) map[string]any {
	return c.profile.InitializeParams(c.root, initOptions)
}

// finish ends the session and reports what the client saw go wrong.
func (c *testClient) finish() {
	if !c.exited() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		_ = c.cl.Shutdown(ctx)
		cancel()
	}
	if _, ok := c.serveResult(); !ok {
		c.t.Errorf("Serve did not return within %v of exit: the server hangs", waitTimeout)
	}
	c.cancel()
	_ = c.cl.Close()
	for _, v := range c.cl.Violations() {
		c.t.Errorf("protocol violation: %s", v)
	}
}

// exited reports whether Serve has returned.
func (c *testClient) exited() bool {
	select {
	case r := <-c.result:
		c.result <- r
		return true
	default:
		return false
	}
}

// serveResult waits for Serve to return and returns its result.
func (c *testClient) serveResult() (serveResult, bool) {
	select {
	case r := <-c.result:
		c.result <- r
		return r, true
	default:
	}
	select {
	case r := <-c.served:
		c.result <- r
		return r, true
	case <-time.After(waitTimeout):
		return serveResult{}, false
	}
}

// exit sends exit (after shutdown when withShutdown) and returns Serve's result.
func (c *testClient) exit(withShutdown bool) serveResult {
	c.t.Helper()
	if withShutdown {
		require.NoError(c.t, c.request("shutdown", nil, nil))
	}
	c.notify("exit", nil)
	r, ok := c.serveResult()
	require.True(c.t, ok, "Serve did not return after exit")
	return r
}

// request sends a request and decodes its result into result (when not nil).
func (c *testClient) request(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(c.ctx, waitTimeout)
	defer cancel()
	return c.cl.Request(ctx, method, params, result)
}

// notify sends a notification; the write must succeed.
func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	require.NoError(c.t, c.cl.Notify(c.ctx, method, params))
}

// writeRaw writes bytes to the server as they are, between whole frames of the client.
func (c *testClient) writeRaw(b []byte) {
	c.t.Helper()
	require.NoError(c.t, c.cl.WriteRaw(b))
}

// rawRequest sends a request with a string id of the test's choosing, written as a raw
// frame, so that the test can cancel it or send it malformed; its response is recorded for
// rawResponse.
func (c *testClient) rawRequest(id, method string, params any) {
	c.t.Helper()
	require.NoError(c.t, c.cl.RawRequest(id, method, params))
}

// rawResponse returns the response to a rawRequest (or to any request with a string id).
func (c *testClient) rawResponse(id string) (json.RawMessage, bool) { return c.cl.RawResponse(id) }

// frame wraps a body in a Content-Length header.
func frame(body []byte) []byte { return lspclient.Framed(body) }

// rpcCode returns the JSON-RPC error code of err, or 0 when err is not an error response.
func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// path returns the file path of rel under the workspace folder.
func (c *testClient) path(rel string) string { return filepath.Join(c.root, filepath.FromSlash(rel)) }

// uri returns the URI of rel under the workspace folder.
func (c *testClient) uri(rel string) uri.URI { return uri.File(c.path(rel)) }

// didOpen writes rel with text to disk, opens it at version 1 and returns its URI.
func (c *testClient) didOpen(rel, text string) uri.URI {
	c.t.Helper()
	p := c.path(rel)
	require.NoError(c.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(c.t, os.WriteFile(p, []byte(text), 0o644))
	u := c.uri(rel)
	require.NoError(c.t, c.cl.Open(c.ctx, u, text))
	return u
}

// didChange replaces the whole content of an open document.
func (c *testClient) didChange(u uri.URI, text string) {
	c.t.Helper()
	require.NoError(c.t, c.cl.Change(c.ctx, u, text))
}

// changeRange replaces rng of an open document with text, sent as an incremental didChange.
func (c *testClient) changeRange(u uri.URI, rng protocol.Range, text string) {
	c.t.Helper()
	require.NoError(c.t, c.cl.ChangeRange(c.ctx, u, rng, text))
}

// sendChange sends a full-content didChange without changing the client's buffer.
func (c *testClient) sendChange(u uri.URI, text string, version int32) {
	_ = c.cl.SendChange(c.ctx, u, text, version)
}

// buffer returns the client's content of an open document ("" when not open).
func (c *testClient) buffer(u uri.URI) string { return c.cl.Buffer(u) }

// version returns the client's version of an open document (0 when not open).
func (c *testClient) version(u uri.URI) int32 { return c.cl.Version(u) }

// encoding returns the negotiated position encoding.
func (c *testClient) encoding() string { return string(c.cl.Encoding()) }

// setApplyPolicy decides how each later workspace/applyEdit is answered; n counts the
// applyEdit requests of the session from 1.
func (c *testClient) setApplyPolicy(f func(n int, params json.RawMessage) applyDecision) {
	c.cl.SetApplyPolicy(f)
}

// pushes returns the assistant/blocks pushes of a stream, in order.
func (c *testClient) pushes(stream string) []ext.BlocksParams { return c.cl.Pushes(stream) }

// blocks returns the client's reconstruction of a stream's blocks.
func (c *testClient) blocks(stream string) []ext.Block { return c.cl.Blocks(stream) }

// final reports whether a final push of the stream arrived.
func (c *testClient) final(stream string) bool { return c.cl.Final(stream) }

// messages returns the window/showMessage notifications.
func (c *testClient) messages() []clientMessage { return c.cl.Messages() }

// progress returns the $/progress params.
func (c *testClient) progress() []json.RawMessage { return c.cl.Progress() }

// progressCreates counts window/workDoneProgress/create requests.
func (c *testClient) progressCreates() int { return c.cl.ProgressCreates() }

// previews returns the assistant/preview params.
func (c *testClient) previews() []json.RawMessage { return c.cl.Previews() }

// applyRequests returns the workspace/applyEdit params received.
func (c *testClient) applyRequests() []json.RawMessage { return c.cl.ApplyRequests() }

// orphans returns the error responses with a null id (answers to malformed frames).
func (c *testClient) orphans() []jsonrpc2.Error { return c.cl.Orphans() }

// waitFor waits until cond holds, failing the test after waitTimeout.
func (c *testClient) waitFor(what string, cond func() bool) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, waitTimeout)
	defer cancel()
	if err := c.cl.Wait(ctx, cond); err != nil {
		c.t.Fatalf("no %s after %v: the server hangs", what, waitTimeout)
	}
}

// TestHarnessRoundTrip is the harness's own smoke test: initialize, didOpen and an
// assistant/parse round trip for every profile.
func TestHarnessRoundTrip(t *testing.T) {
	t.Parallel()
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile)
			u := c.didOpen("a.txt", "hello\n")
			require.Equal(t, "hello\n", c.buffer(u))
			var res ext.ParseResult
			require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "s", "text": "Hi there", "final": true}, &res))
			require.Equal(t, "s", res.Stream)
			require.True(t, res.Final)
			require.Len(t, res.Blocks, 1)
			require.Equal(t, "s#0", res.Blocks[0].ID)
			c.notify("assistant/parse", map[string]any{"stream": "n", "delta": "Hello"})
			c.waitFor("a push of stream n", func() bool { return len(c.blocks("n")) == 1 })
			require.Equal(t, "Hello", *c.blocks("n")[0].Content)
		})
	}
}
