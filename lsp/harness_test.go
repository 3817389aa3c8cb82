package lsp

// This file is the in-process test client every wire test is built on. It runs Serve over a
// net.Pipe and speaks real Content-Length framed JSON-RPC to it through jsonrpc2, behaving like
// an editor:
//
//   - newTestClient(t, profile, opts...) starts a server, sends initialize with the profile's
//     capabilities and a t.TempDir() workspace folder (symlinks resolved; c.root is its path),
//     then initialized. withoutInitialize() skips both; withInitOptions(v) sets
//     initializationOptions; withServerOptions(o) sets the server's Options (its Logger is
//     always the client's log observer, c.logs); withServeContext(ctx) gives Serve a context
//     the test can cancel. At the end of the test the client sends
//     shutdown and exit, waits for Serve to return and reports protocol violations it saw
//     (a push whose from skips blocks, a wrong id or index, a non-final push after a final one).
//   - c.request(method, params, &result) sends a request and decodes its result with
//     encoding/json; the error is the server's *jsonrpc2.Error (use rpcCode(err)).
//     c.notify(method, params) sends a notification. c.writeRaw(bytes) writes raw bytes
//     (garbage frames; frame(body) adds a header); error responses with a null id are recorded
//     in c.orphans(). c.rawRequest(id, method, params) sends a request with a string id (to
//     cancel it, say) whose response c.rawResponse(id) returns.
//   - Documents: c.didOpen(rel, text) writes the file under c.root, opens it (version 1) and
//     returns its URI; c.didChange(u, text) sends a full-content change; c.buffer(u) and
//     c.version(u) return the client's copy; c.uri(rel) and c.path(rel) name files.
//   - workspace/applyEdit is answered like an editor: documentChanges (TextDocumentEdit with a
//     version check, CreateFile) or changes are applied to the client's buffers in the
//     negotiated encoding with the client's own position conversion (a document not open yet
//     is opened first, from disk or empty), a full-content didChange with the next version is
//     sent, and {applied: true} answered. Neovim 0.7 answers first and sends didChange 50 ms
//     later, as the real one does. c.setApplyPolicy(f) overrides the answer per request: see
//     applyDecision (reject, claim applied without applying, or wait on a channel first).
//   - Recorded: c.pushes(stream), c.blocks(stream) (the blocks rebuilt from the pushes:
//     each push replaces the blocks from its from on), c.final(stream), c.messages()
//     (window/showMessage), c.progress() ($/progress), c.progressCreates(),
//     c.previews() (assistant/preview), c.applyRequests() (workspace/applyEdit params).
//   - c.waitFor(what, cond) waits until cond() (which may call the accessors above) holds,
//     re-checking whenever the client records something, and fails the test after 10 s.
//
// Profiles differ in what they advertise: VS Code offers utf-16 only, documentChanges with the
// create/rename/delete resource operations, change annotations and work done progress; Helix
// offers utf-8 first, documentChanges and resource operations but no annotations; Neovim 0.7
// offers utf-16 only and applyEdit without documentChanges, and gives its folder as rootUri
// and rootPath instead of workspaceFolders.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// clientProfile selects the capabilities and habits of the test client.
type clientProfile string

// The three client profiles.
const (
	profileVSCode   clientProfile = "vscode"
	profileHelix    clientProfile = "helix"
	profileNeovim07 clientProfile = "neovim-0.7"
)

// allProfiles lists the profiles for table tests.
var allProfiles = []clientProfile{profileVSCode, profileHelix, profileNeovim07}

// waitTimeout bounds every wait of the harness; it only matters when a test fails.
const waitTimeout = 30 * time.Second

// clientMessage is a window/showMessage notification.
type clientMessage struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// applyDecision is how the client answers one workspace/applyEdit. The zero value applies
// the edit normally.
type applyDecision struct {
	Reject string          // answer applied: false with this failureReason, change nothing
	Err    *jsonrpc2.Error // answer with this JSON-RPC error, change nothing (eglot's refusals)
	Lie    bool            // answer applied: true without applying (Neovim 0.7 on a stale version)
	Wait   <-chan struct{} // hold the answer until this channel is closed
	// Typing, when set, is the user typing in the same moment: it turns each changed
	// document's text after the edit, and the didChange brings both at once.
	Typing func(text string) string
	// ChangeDelay sends the didChange that long after the answer (eglot waits for the user
	// to pause typing).
	ChangeDelay time.Duration
}

// clientDoc is one document the client has open.
type clientDoc struct {
	text    string
	version int32
}

// clientOptions are set by the clientOption functions.
type clientOptions struct {
	initOptions any
	server      Options
	skipInit    bool
	serveCtx    context.Context
	linkedRoot  bool
}

// clientOption configures newTestClient.
type clientOption func(*clientOptions)

// withInitOptions sets initializationOptions.
func withInitOptions(v any) clientOption { return func(o *clientOptions) { o.initOptions = v } }

// withServerOptions sets the server's Options.
func withServerOptions(s Options) clientOption { return func(o *clientOptions) { o.server = s } }

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
	conn    jsonrpc2.Conn
	pipe    *lockedConn
	logs    *observer.ObservedLogs
	served  chan serveResult
	ctx     context.Context
	cancel  context.CancelFunc

	mu         sync.Mutex
	changed    chan struct{}
	enc        string
	docs       map[uri.URI]*clientDoc
	allPushes  []ext.BlocksParams
	rebuilt    map[string][]ext.Block
	finals     map[string]bool
	msgs       []clientMessage
	progs      []json.RawMessage
	creates    int
	previewsR  []json.RawMessage
	applies    []json.RawMessage
	orphanErrs []jsonrpc2.Error
	rawResps   map[string]json.RawMessage
	violations []string
	policy     func(n int, params json.RawMessage) applyDecision
	diags      map[uri.URI][]json.RawMessage // publishDiagnostics params per document, in order
	exited     bool
	result     *serveResult
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
	core, logs := observer.New(zap.DebugLevel)
	o.server.Logger = zap.New(core)

	serverEnd, clientEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &testClient{
		t: t, profile: profile, root: root, logs: logs,
		served: make(chan serveResult, 1), ctx: ctx, cancel: cancel,
		changed: make(chan struct{}), enc: "utf-16",
		docs: map[uri.URI]*clientDoc{}, rebuilt: map[string][]ext.Block{}, finals: map[string]bool{},
		rawResps: map[string]json.RawMessage{},
	}
	go func() {
		code, err := Serve(o.serveCtx, serverEnd, o.server)
		c.served <- serveResult{code: code, err: err}
	}()
	c.pipe = &lockedConn{Conn: clientEnd}
	c.conn = jsonrpc2.NewConn(&orphanStream{Stream: jsonrpc2.NewStream(c.pipe), c: c})
	c.conn.Go(ctx, c.handle)
	t.Cleanup(c.finish)

	if !o.skipInit {
		var res struct {
			Capabilities struct {
				PositionEncoding string `json:"positionEncoding"`
			} `json:"capabilities"`
		}
		require.NoError(t, c.request("initialize", c.initializeParams(o.initOptions), &res))
		c.mu.Lock()
		if res.Capabilities.PositionEncoding != "" {
			c.enc = res.Capabilities.PositionEncoding
		}
		c.mu.Unlock()
		c.notify("initialized", map[string]any{})
	}
	return c
}

// initializeParams returns the profile's initialize params.
func (c *testClient) initializeParams(initOptions any) map[string]any {
	rootURI := string(uri.File(c.root))
	folders := []map[string]any{{"uri": rootURI, "name": filepath.Base(c.root)}}
	p := map[string]any{"processId": os.Getpid(), "rootUri": rootURI}
	if initOptions != nil {
		p["initializationOptions"] = initOptions
	}
	switch c.profile {
	case profileVSCode:
		p["clientInfo"] = map[string]any{"name": "Visual Studio Code", "version": "1.95.0"}
		p["workspaceFolders"] = folders
		p["capabilities"] = map[string]any{
			"workspace": map[string]any{
				"applyEdit": true,
				"workspaceEdit": map[string]any{
					"documentChanges":         true,
					"resourceOperations":      []string{"create", "rename", "delete"},
					"failureHandling":         "textOnlyTransactional",
					"normalizesLineEndings":   true,
					"changeAnnotationSupport": map[string]any{"groupsOnLabel": true},
				},
				"configuration":    true,
				"workspaceFolders": true,
			},
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"textDocument": map[string]any{
				"codeAction": map[string]any{
					"dataSupport": true, "isPreferredSupport": true, "disabledSupport": true, "honorsChangeAnnotations": true,
					"resolveSupport": map[string]any{"properties": []string{"edit"}},
				},
				"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": false},
			},
		}
	case profileHelix:
		p["clientInfo"] = map[string]any{"name": "helix", "version": "24.7"}
		p["workspaceFolders"] = folders
		p["capabilities"] = map[string]any{
			"workspace": map[string]any{
				"applyEdit": true,
				"workspaceEdit": map[string]any{
					"documentChanges":    true,
					"resourceOperations": []string{"create", "rename", "delete"},
					"failureHandling":    "abort",
				},
				"workspaceFolders": true,
			},
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-32", "utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"textDocument": map[string]any{
				"codeAction": map[string]any{
					"dataSupport": true, "isPreferredSupport": true, "disabledSupport": true,
					"resolveSupport": map[string]any{"properties": []string{"edit", "command"}},
				},
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
		}
	case profileNeovim07:
		p["clientInfo"] = map[string]any{"name": "Neovim", "version": "0.7.2"}
		p["rootPath"] = c.root
		p["workspaceFolders"] = nil
		p["capabilities"] = map[string]any{
			"workspace": map[string]any{
				"applyEdit":     true,
				"workspaceEdit": map[string]any{"resourceOperations": []string{"rename", "create", "delete"}},
				"configuration": true,
			},
			"window": map[string]any{"workDoneProgress": true},
			"textDocument": map[string]any{
				"codeAction": map[string]any{"dataSupport": true, "resolveSupport": map[string]any{"properties": []string{"edit"}}},
			},
		}
	}
	return p
}

// finish ends the session and reports what the client saw go wrong.
func (c *testClient) finish() {
	c.mu.Lock()
	exited := c.exited
	violations := c.violations
	c.mu.Unlock()
	if !exited {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		_, _ = c.conn.Call(ctx, "shutdown", nil, nil)
		cancel()
		_ = c.conn.Notify(context.Background(), "exit", nil)
	}
	if _, ok := c.serveResult(); !ok {
		c.t.Errorf("Serve did not return within %v of exit", waitTimeout)
	}
	c.cancel()
	_ = c.pipe.Close()
	<-c.conn.Done()
	for _, v := range violations {
		c.t.Errorf("protocol violation: %s", v)
	}
}

// serveResult waits for Serve to return and returns its result.
func (c *testClient) serveResult() (serveResult, bool) {
	c.mu.Lock()
	if c.result != nil {
		r := *c.result
		c.mu.Unlock()
		return r, true
	}
	c.mu.Unlock()
	select {
	case r := <-c.served:
		c.mu.Lock()
		c.result = &r
		c.exited = true
		c.mu.Unlock()
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
	var raw jsonrpc2.RawMessage
	if _, err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// notify sends a notification; the write must succeed.
func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	require.NoError(c.t, c.conn.Notify(c.ctx, method, params))
}

// writeRaw writes bytes to the server as they are, between whole frames of the client.
func (c *testClient) writeRaw(b []byte) {
	c.t.Helper()
	_, err := c.pipe.Write(b)
	require.NoError(c.t, err)
}

// rawRequest sends a request with a string id of the test's choosing, written as a raw
// frame, so that the test can cancel it or send it malformed; its response is recorded for
// rawResponse.
func (c *testClient) rawRequest(id, method string, params any) {
	c.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	require.NoError(c.t, err)
	c.writeRaw(frame(body))
}

// rawResponse returns the response to a rawRequest (or to any request with a string id).
func (c *testClient) rawResponse(id string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.rawResps[id]
	return r, ok
}

// frame wraps a body in a Content-Length header.
func frame(body []byte) []byte {
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

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
	c.mu.Lock()
	c.docs[u] = &clientDoc{text: text, version: 1}
	c.mu.Unlock()
	c.sendOpen(u, text, 1)
	return u
}

// sendOpen sends didOpen.
func (c *testClient) sendOpen(u uri.URI, text string, version int32) {
	_ = c.conn.Notify(c.ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": u, "languageId": languageOf(string(u)), "version": version, "text": text},
	})
}

// didChange replaces the whole content of an open document.
func (c *testClient) didChange(u uri.URI, text string) {
	c.t.Helper()
	c.mu.Lock()
	d, ok := c.docs[u]
	require.True(c.t, ok, "didChange of a document the client did not open: %s", u)
	d.text = text
	d.version++
	v := d.version
	c.mu.Unlock()
	c.sendChange(u, text, v)
	c.signal()
}

// sendChange sends a full-content didChange.
func (c *testClient) sendChange(u uri.URI, text string, version int32) {
	_ = c.conn.Notify(c.ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// languageOf guesses a languageId from a file name, as editors do.
func languageOf(name string) string {
	switch filepath.Ext(name) {
	case ".go":
		return "go"
	case ".md":
		return "markdown"
	default:
		return "plaintext"
	}
}

// buffer returns the client's content of an open document ("" when not open).
func (c *testClient) buffer(u uri.URI) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.docs[u]; ok {
		return d.text
	}
	return ""
}

// version returns the client's version of an open document (0 when not open).
func (c *testClient) version(u uri.URI) int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.docs[u]; ok {
		return d.version
	}
	return 0
}

// encoding returns the negotiated position encoding.
func (c *testClient) encoding() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc
}

// setApplyPolicy decides how each later workspace/applyEdit is answered; n counts the
// applyEdit requests of the session from 1.
func (c *testClient) setApplyPolicy(f func(n int, params json.RawMessage) applyDecision) {
	c.mu.Lock()
	c.policy = f
	c.mu.Unlock()
}

// pushes returns the assistant/blocks pushes of a stream, in order.
func (c *testClient) pushes(stream string) []ext.BlocksParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []ext.BlocksParams
	for _, p := range c.allPushes {
		if p.Stream == stream {
			out = append(out, p)
		}
	}
	return out
}

// blocks returns the client's reconstruction of a stream's blocks.
func (c *testClient) blocks(stream string) []ext.Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ext.Block(nil), c.rebuilt[stream]...)
}

// final reports whether a final push of the stream arrived.
func (c *testClient) final(stream string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.finals[stream]
}

// messages returns the window/showMessage notifications.
func (c *testClient) messages() []clientMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]clientMessage(nil), c.msgs...)
}

// progress returns the $/progress params.
func (c *testClient) progress() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.progs...)
}

// progressCreates counts window/workDoneProgress/create requests.
func (c *testClient) progressCreates() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.creates
}

// previews returns the assistant/preview params.
func (c *testClient) previews() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.previewsR...)
}

// applyRequests returns the workspace/applyEdit params received.
func (c *testClient) applyRequests() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.applies...)
}

// orphans returns the error responses with a null id (answers to malformed frames).
func (c *testClient) orphans() []jsonrpc2.Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]jsonrpc2.Error(nil), c.orphanErrs...)
}

// waitFor waits until cond holds, failing the test after waitTimeout.
func (c *testClient) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// signal wakes waitFor.
func (c *testClient) signal() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// handle serves the server's requests and notifications.
func (c *testClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	defer c.signal()
	switch req.Method() {
	case "assistant/blocks":
		c.recordPush(params)
	case "window/showMessage":
		var m clientMessage
		_ = json.Unmarshal(params, &m)
		c.mu.Lock()
		c.msgs = append(c.msgs, m)
		c.mu.Unlock()
	case "$/progress":
		c.mu.Lock()
		c.progs = append(c.progs, params)
		c.mu.Unlock()
	case "window/workDoneProgress/create":
		c.mu.Lock()
		c.creates++
		c.mu.Unlock()
		return nil, nil
	case "assistant/preview":
		c.mu.Lock()
		c.previewsR = append(c.previewsR, params)
		c.mu.Unlock()
	case "textDocument/publishDiagnostics":
		c.recordDiagnostics(params)
	case "window/logMessage", "telemetry/event":
	case "workspace/applyEdit":
		// The answer may wait and sends didChange: release the reader first, as an editor's
		// event loop would keep reading meanwhile.
		jsonrpc2.Async(ctx)
		res := c.applyEdit(ctx, params)
		if e, ok := res.(*jsonrpc2.Error); ok {
			return nil, e
		}
		return res, nil
	default:
		if req.IsCall() {
			return nil, jsonrpc2.ErrMethodNotFound
		}
	}
	return nil, nil
}

// recordPush checks a push against the protocol and rebuilds the stream's blocks from it.
func (c *testClient) recordPush(params json.RawMessage) {
	var p ext.BlocksParams
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := json.Unmarshal(params, &p); err != nil {
		c.violations = append(c.violations, fmt.Sprintf("undecodable assistant/blocks: %v", err))
		return
	}
	c.allPushes = append(c.allPushes, p)
	cur := c.rebuilt[p.Stream]
	if p.From < 0 || p.From > len(cur) {
		c.violations = append(c.violations, fmt.Sprintf("push of %s from %d but the client has %d blocks", p.Stream, p.From, len(cur)))
		return
	}
	if c.finals[p.Stream] && !p.Final {
		c.violations = append(c.violations, fmt.Sprintf("non-final push of %s after a final one", p.Stream))
	}
	for i, b := range p.Blocks {
		if b.Index != p.From+i || b.ID != fmt.Sprintf("%s#%d", p.Stream, b.Index) {
			c.violations = append(c.violations, fmt.Sprintf("push of %s from %d has block %d with index %d and id %q", p.Stream, p.From, i, b.Index, b.ID))
		}
	}
	c.rebuilt[p.Stream] = append(cur[:p.From:p.From], p.Blocks...)
	c.finals[p.Stream] = c.finals[p.Stream] || p.Final
}

// applyEdit answers one workspace/applyEdit according to the policy.
func (c *testClient) applyEdit(ctx context.Context, params json.RawMessage) any {
	c.mu.Lock()
	c.applies = append(c.applies, params)
	n := len(c.applies)
	policy := c.policy
	c.mu.Unlock()
	c.signal()

	var d applyDecision
	if policy != nil {
		d = policy(n, params)
	}
	if d.Wait != nil {
		select {
		case <-d.Wait:
		case <-ctx.Done():
			return map[string]any{"applied": false, "failureReason": "the client shut down"}
		}
	}
	switch {
	case d.Err != nil:
		return d.Err
	case d.Reject != "":
		return map[string]any{"applied": false, "failureReason": d.Reject}
	case d.Lie:
		return map[string]any{"applied": true}
	}
	var p struct {
		Edit wireWorkspaceEdit `json:"edit"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return map[string]any{"applied": false, "failureReason": "undecodable edit: " + err.Error()}
	}
	changes, err := c.computeEdit(p.Edit)
	if err != nil {
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	if d.Typing != nil {
		c.mu.Lock()
		for i := range changes {
			changes[i].after = d.Typing(changes[i].after)
			if doc, ok := c.docs[changes[i].uri]; ok {
				doc.text = changes[i].after
			}
		}
		c.mu.Unlock()
	}
	send := func() {
		for _, ch := range changes {
			if ch.open {
				c.sendOpen(ch.uri, ch.before, 1)
			}
			c.sendChange(ch.uri, ch.after, ch.version)
		}
		c.signal()
	}
	switch {
	case d.ChangeDelay > 0:
		time.AfterFunc(d.ChangeDelay, send)
	case c.profile == profileNeovim07:
		// Neovim 0.7 answers first and sends its didChange on a timer.
		time.AfterFunc(50*time.Millisecond, send)
	default:
		send()
	}
	return map[string]any{"applied": true}
}

// wireWorkspaceEdit is a WorkspaceEdit as the client decodes it.
type wireWorkspaceEdit struct {
	Changes         map[uri.URI][]wireTextEdit `json:"changes"`
	DocumentChanges []json.RawMessage          `json:"documentChanges"`
}

// wireTextEdit is a TextEdit or AnnotatedTextEdit.
type wireTextEdit struct {
	Range struct {
		Start wirePos `json:"start"`
		End   wirePos `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

// wirePos is a Position.
type wirePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// docChange is the effect of an applied edit on one document.
type docChange struct {
	uri           uri.URI
	before, after string
	version       int32
	open          bool // the client opened the document to apply the edit
}

// computeEdit applies a WorkspaceEdit to the client's buffers, all or nothing.
func (c *testClient) computeEdit(we wireWorkspaceEdit) ([]docChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	enc := c.enc
	work := map[uri.URI]*docChange{}
	var order []uri.URI
	get := func(u uri.URI, create bool) *docChange {
		if ch, ok := work[u]; ok {
			return ch
		}
		ch := &docChange{uri: u}
		if d, ok := c.docs[u]; ok {
			ch.before, ch.version = d.text, d.version
		} else {
			data, err := os.ReadFile(u.FsPath())
			if err != nil && !create {
				return nil
			}
			ch.before, ch.version, ch.open = string(data), 1, true
		}
		ch.after = ch.before
		work[u] = ch
		order = append(order, u)
		return ch
	}
	apply := func(u uri.URI, edits []wireTextEdit) error {
		ch := get(u, false)
		if ch == nil {
			return fmt.Errorf("%s does not exist", u)
		}
		out, err := applyWireEdits(ch.after, edits, enc)
		if err != nil {
			return err
		}
		ch.after = out
		return nil
	}
	for _, raw := range we.DocumentChanges {
		var probe struct {
			Kind         string  `json:"kind"`
			URI          uri.URI `json:"uri"`
			TextDocument struct {
				URI     uri.URI `json:"uri"`
				Version *int32  `json:"version"`
			} `json:"textDocument"`
			Edits []wireTextEdit `json:"edits"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, err
		}
		switch probe.Kind {
		case "create":
			if _, err := os.Stat(probe.URI.FsPath()); err != nil {
				if err := os.WriteFile(probe.URI.FsPath(), nil, 0o644); err != nil {
					return nil, err
				}
			}
			get(probe.URI, true)
		case "":
			u := probe.TextDocument.URI
			if v := probe.TextDocument.Version; v != nil {
				d, ok := c.docs[u]
				if !ok || d.version != *v {
					return nil, fmt.Errorf("version %d of %s is not the current one", *v, u)
				}
			}
			if err := apply(u, probe.Edits); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("resource operation %q is not expected from assistant-ls", probe.Kind)
		}
	}
	uris := make([]uri.URI, 0, len(we.Changes))
	for u := range we.Changes {
		uris = append(uris, u)
	}
	sort.Slice(uris, func(i, j int) bool { return uris[i] < uris[j] })
	for _, u := range uris {
		if err := apply(u, we.Changes[u]); err != nil {
			return nil, err
		}
	}
	out := make([]docChange, 0, len(order))
	for _, u := range order {
		ch := work[u]
		d, ok := c.docs[u]
		if !ok {
			d = &clientDoc{text: ch.before, version: 1}
			c.docs[u] = d
		}
		d.text = ch.after
		d.version++
		ch.version = d.version
		out = append(out, *ch)
	}
	return out, nil
}

// applyWireEdits applies non-overlapping text edits, positions in enc, to text.
func applyWireEdits(text string, edits []wireTextEdit, enc string) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, e2 := wireOffset(text, e.Range.Start, enc), wireOffset(text, e.Range.End, enc)
		if e2 < s {
			return "", fmt.Errorf("edit range ends before it starts")
		}
		spans = append(spans, span{s, e2, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.start < at {
			return "", fmt.Errorf("overlapping edits")
		}
		b.WriteString(text[at:s.start])
		b.WriteString(s.text)
		at = s.end
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// wireOffset converts a position in enc to a byte offset of text: the client's own
// conversion, written independently of the server's mapper. A character past its line's end
// clamps to the end, a line past the last to the end of the text.
func wireOffset(text string, p wirePos, enc string) int {
	off := 0
	for line := 0; line < p.Line; line++ {
		i := strings.IndexAny(text[off:], "\r\n")
		if i < 0 {
			return len(text)
		}
		off += i
		if strings.HasPrefix(text[off:], "\r\n") {
			off += 2
		} else {
			off++
		}
	}
	units := 0
	for off < len(text) && units < p.Character {
		if text[off] == '\n' || text[off] == '\r' {
			break
		}
		r, size := utf8.DecodeRuneInString(text[off:])
		switch {
		case enc == "utf-8":
			units += size
		case enc == "utf-32" || r == utf8.RuneError && size == 1:
			units++
		case r >= 0x10000:
			units += 2
		default:
			units++
		}
		off += size
	}
	return off
}

// lockedConn serialises writes, so raw writes of a test never interleave with frames.
type lockedConn struct {
	net.Conn
	mu sync.Mutex
}

// Write writes b as one unit.
func (l *lockedConn) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Conn.Write(b)
}

// orphanStream records error responses with a null id, which jsonrpc2 would drop, before
// passing every frame on.
type orphanStream struct {
	jsonrpc2.Stream
	c *testClient
}

// ReadFrame reads a frame and records it when it is an error response with a null id.
func (s *orphanStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	fs := s.Stream.(interface {
		ReadFrame(ctx context.Context) ([]byte, int64, error)
	})
	body, n, err := fs.ReadFrame(ctx)
	if err != nil {
		return body, n, err
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Error  *jsonrpc2.Error `json:"error"`
	}
	if json.Unmarshal(body, &probe) != nil || probe.Method != nil {
		return body, n, nil
	}
	var strID string
	switch {
	case probe.Error != nil && (probe.ID == nil || string(probe.ID) == "null"):
		s.c.mu.Lock()
		s.c.orphanErrs = append(s.c.orphanErrs, *probe.Error)
		s.c.mu.Unlock()
		s.c.signal()
	case json.Unmarshal(probe.ID, &strID) == nil:
		s.c.mu.Lock()
		s.c.rawResps[strID] = append(json.RawMessage(nil), body...)
		s.c.mu.Unlock()
		s.c.signal()
	}
	return body, n, nil
}

// WriteFrame writes one encoded message.
func (s *orphanStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return s.Stream.(interface {
		WriteFrame(ctx context.Context, data []byte) (int64, error)
	}).WriteFrame(ctx, data)
}

// TestHarnessRoundTrip is the harness's own smoke test: initialize, didOpen and an
// assistant/parse round trip for every profile.
func TestHarnessRoundTrip(t *testing.T) {
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
