// Package lspclient is an LSP editor in a Go value: it speaks Content-Length framed JSON-RPC to a
// language server over a connection and behaves like VS Code, Helix or Neovim 0.7 (Profile):
// it keeps buffers, answers workspace/applyEdit by applying the edit to them (ApplyEdit, its one
// WorkspaceEdit applier) and reporting the result with didOpen/didChange, and records what the
// server sends. The wire tests of assistant-ls and the demo are built on it.
//
// It checks the assistant/blocks pushes it receives against the protocol (Violations) and
// rebuilds each stream's blocks from them (Blocks). Nothing here depends on testing: every
// failure is an error for the caller.
package lspclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Message is a window/showMessage notification.
type Message struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// ApplyDecision is how the client answers one workspace/applyEdit. The zero value applies the
// edit normally.
type ApplyDecision struct {
	Reject string          // answer applied: false with this failureReason, change nothing
	Err    *jsonrpc2.Error // answer with this JSON-RPC error, change nothing (eglot's refusals)
	Lie    bool            // answer applied: true without applying (Neovim 0.7 on a stale version)
	Wait   <-chan struct{} // hold the answer until this channel is closed
	// Typing, when set, is the user typing in the same moment: it turns each changed
	// document's text after the edit, and the didChange brings both at once.
	Typing func(text string) string
}

// Frame is one JSON-RPC message on the wire, as recorded with Options.Record.
type Frame struct {
	Sent bool            // client to server
	Body json.RawMessage // the message
}

// Options configure New.
type Options struct {
	// Profile selects the editor's habits (and, through Profile.InitializeParams, its
	// capabilities).
	Profile Profile
	// Observe, when set, sees every request and notification of the server before the client
	// handles it, on the connection's reading goroutine.
	Observe func(method string, params json.RawMessage)
	// Record keeps every frame in both directions for Transcript.
	Record bool
}

// docState is one document the client has open.
type docState struct {
	text    string
	version int32
}

// Client is an editor connected to a language server. Its methods are safe for concurrent use.
type Client struct {
	opts Options
	ctx  context.Context // the connection's
	conn jsonrpc2.Conn
	raw  *lockedConn

	mu         sync.Mutex
	changed    chan struct{}
	enc        protocol.PositionEncodingKind
	docs       map[uri.URI]*docState
	allPushes  []ext.BlocksParams
	rebuilt    map[string][]ext.Block
	finals     map[string]bool
	msgs       []Message
	progs      []json.RawMessage
	creates    int
	previews   []json.RawMessage
	diags      map[uri.URI][]json.RawMessage // publishDiagnostics params per document, in order
	applies    []json.RawMessage
	orphanErrs []jsonrpc2.Error
	rawResps   map[string]json.RawMessage
	violations []string
	policy     func(n int, params json.RawMessage) ApplyDecision
	frames     []Frame
}

// New starts a client on conn, the client's end of a connection to a server. It sends nothing:
// call Initialize (or Request "initialize" to send odd params). ctx bounds the connection.
func New(ctx context.Context, conn net.Conn, opts Options) *Client {
	c := &Client{
		opts: opts, ctx: ctx, raw: &lockedConn{Conn: conn},
		changed: make(chan struct{}), enc: protocol.PositionEncodingKindUTF16,
		docs: map[uri.URI]*docState{}, rebuilt: map[string][]ext.Block{}, finals: map[string]bool{},
		rawResps: map[string]json.RawMessage{},
	}
	if opts.Record {
		c.raw.record = func(body []byte) {
			c.mu.Lock()
			c.frames = append(c.frames, Frame{Sent: true, Body: slices.Clone(body)})
			c.mu.Unlock()
		}
	}
	c.conn = jsonrpc2.NewConn(&recordingStream{Stream: jsonrpc2.NewStream(c.raw), c: c})
	c.conn.Go(ctx, c.handle)
	return c
}

// Conn is the client's JSON-RPC connection, to send messages the other methods do not.
func (c *Client) Conn() jsonrpc2.Conn { return c.conn }

// Close closes the connection and waits for the client's reader to stop.
func (c *Client) Close() error {
	err := c.raw.Close()
	<-c.conn.Done()
	return err
}

// Initialize sends initialize with params and decodes its result into result (when not nil),
// takes the position encoding the server chose, and sends initialized.
func (c *Client) Initialize(ctx context.Context, params, result any) error {
	var raw json.RawMessage
	if err := c.Request(ctx, "initialize", params, &raw); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var res struct {
		Capabilities struct {
			PositionEncoding protocol.PositionEncodingKind `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("initialize: undecodable result: %w", err)
	}
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
	}
	c.mu.Lock()
	if res.Capabilities.PositionEncoding != "" {
		c.enc = res.Capabilities.PositionEncoding
	}
	c.mu.Unlock()
	return c.Notify(ctx, "initialized", map[string]any{})
}

// Shutdown sends shutdown and then exit, also when shutdown fails (a second shutdown is an
// error, and the server must still be told to exit).
func (c *Client) Shutdown(ctx context.Context) error {
	var err error
	if e := c.Request(ctx, "shutdown", nil, nil); e != nil {
		err = fmt.Errorf("shutdown: %w", e)
	}
	if e := c.Notify(ctx, "exit", nil); e != nil {
		err = errors.Join(err, fmt.Errorf("exit: %w", e))
	}
	return err
}

// Request sends a request and decodes its result into result (when not nil) with
// encoding/json. An error response is a *jsonrpc2.Error.
func (c *Client) Request(ctx context.Context, method string, params, result any) error {
	var raw jsonrpc2.RawMessage
	if _, err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// WriteRaw writes bytes to the server as they are, between whole frames of the client.
func (c *Client) WriteRaw(b []byte) error {
	_, err := c.raw.writeRaw(b)
	return err
}

// RawRequest sends a request with a string id of the caller's choosing as a raw frame (to
// cancel it, say); RawResponse returns its response.
func (c *Client) RawRequest(id, method string, params any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	return c.WriteRaw(Framed(body))
}

// Framed wraps a message body in a Content-Length header.
func Framed(body []byte) []byte {
	return append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(body)), body...)
}

// RawResponse returns the response to a RawRequest (or to any request with a string id).
func (c *Client) RawResponse(id string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.rawResps[id]
	return r, ok
}

// Open opens a document at version 1 with text, as the editor does once it read the file.
func (c *Client) Open(ctx context.Context, u uri.URI, text string) error {
	c.mu.Lock()
	c.docs[u] = &docState{text: text, version: 1}
	c.mu.Unlock()
	return c.sendOpen(ctx, u, text, 1)
}

// Change replaces the whole content of an open document, sending didChange with the next
// version.
func (c *Client) Change(ctx context.Context, u uri.URI, text string) error {
	c.mu.Lock()
	d, ok := c.docs[u]
	if !ok {
		c.mu.Unlock()
		return fmt.Errorf("didChange of a document the client did not open: %s", u)
	}
	d.text = text
	d.version++
	v := d.version
	c.mu.Unlock()
	err := c.SendChange(ctx, u, text, v)
	c.signal()
	return err
}

// ChangeRange replaces rng (in the negotiated encoding) of an open document with text, as a
// user typing does, and sends it as an incremental didChange with the next version.
func (c *Client) ChangeRange(ctx context.Context, u uri.URI, rng protocol.Range, text string) error {
	c.mu.Lock()
	d, ok := c.docs[u]
	if !ok {
		c.mu.Unlock()
		return fmt.Errorf("didChange of a document the client did not open: %s", u)
	}
	next, err := ApplyTextEdits(d.text, []protocol.TextEdit{{Range: rng, NewText: text}}, c.enc)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	d.text = next
	d.version++
	v := d.version
	c.mu.Unlock()
	err = c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": v},
		"contentChanges": []map[string]any{{"range": rng, "text": text}},
	})
	c.signal()
	return err
}

// TypeLocally changes an open document in the client's buffer without telling the server, as
// an editor does until it sends its next didChange, and returns the new text and version.
func (c *Client) TypeLocally(u uri.URI, edit func(string) string) (string, int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[u]
	if !ok {
		return "", 0, fmt.Errorf("%s is not open", u)
	}
	d.text = edit(d.text)
	d.version++
	return d.text, d.version, nil
}

// sendOpen sends didOpen.
func (c *Client) sendOpen(ctx context.Context, u uri.URI, text string, version int32) error {
	return c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": u, "languageId": languageOf(string(u)), "version": version, "text": text},
	})
}

// SendChange sends a full-content didChange without changing the client's buffer.
func (c *Client) SendChange(ctx context.Context, u uri.URI, text string, version int32) error {
	return c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// sendClose sends didClose.
func (c *Client) sendClose(ctx context.Context, u uri.URI) error {
	return c.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
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

// Buffer returns the client's content of an open document ("" when not open).
func (c *Client) Buffer(u uri.URI) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.docs[u]; ok {
		return d.text
	}
	return ""
}

// Version returns the client's version of an open document (0 when not open).
func (c *Client) Version(u uri.URI) int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.docs[u]; ok {
		return d.version
	}
	return 0
}

// Documents returns the URIs of the open documents, sorted.
func (c *Client) Documents() []uri.URI {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]uri.URI, 0, len(c.docs))
	for u := range c.docs {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// Encoding returns the negotiated position encoding (utf-16 until Initialize learns another).
func (c *Client) Encoding() protocol.PositionEncodingKind {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc
}

// SetApplyPolicy decides how each later workspace/applyEdit is answered; n counts the
// applyEdit requests of the session from 1.
func (c *Client) SetApplyPolicy(f func(n int, params json.RawMessage) ApplyDecision) {
	c.mu.Lock()
	c.policy = f
	c.mu.Unlock()
}

// Pushes returns the assistant/blocks pushes of a stream, in order.
func (c *Client) Pushes(stream string) []ext.BlocksParams {
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

// Blocks returns the stream's blocks as the pushes so far built them: each push replaces the
// blocks from its from on.
func (c *Client) Blocks(stream string) []ext.Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.rebuilt[stream])
}

// Final reports whether a final push of the stream arrived.
func (c *Client) Final(stream string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.finals[stream]
}

// Messages returns the window/showMessage notifications.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs)
}

// Progress returns the $/progress params.
func (c *Client) Progress() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.progs)
}

// ProgressCreates counts window/workDoneProgress/create requests.
func (c *Client) ProgressCreates() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.creates
}

// Previews returns the assistant/preview params.
func (c *Client) Previews() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.previews)
}

// ApplyRequests returns the workspace/applyEdit params received.
func (c *Client) ApplyRequests() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.applies)
}

// Orphans returns the error responses with a null id (answers to malformed frames).
func (c *Client) Orphans() []jsonrpc2.Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.orphanErrs)
}

// Violations returns what the client saw the server do against the protocol: a push whose from
// skips blocks, a block with a wrong index or id, a non-final push after a final one, an edit
// position that needed clamping.
func (c *Client) Violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.violations)
}

// Diagnostics returns the publishDiagnostics params received for u, in order.
func (c *Client) Diagnostics(u uri.URI) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.diags[u])
}

// Transcript returns every frame sent and received, in order (with Options.Record only).
func (c *Client) Transcript() []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.frames)
}

// Wait waits until cond holds, re-checking whenever the client records something. cond may call
// the client's accessors. It returns ctx's error, wrapped, when ctx ends first.
func (c *Client) Wait(ctx context.Context, cond func() bool) error {
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting: %w", ctx.Err())
		}
	}
}

// signal wakes Wait.
func (c *Client) signal() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// handle serves the server's requests and notifications.
func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(slices.Clone([]byte(req.Params())))
	if c.opts.Observe != nil {
		c.opts.Observe(req.Method(), params)
	}
	defer c.signal()
	switch req.Method() {
	case ext.MethodBlocks:
		c.recordPush(params)
	case "window/showMessage":
		var m Message
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
	case ext.MethodPreview:
		c.mu.Lock()
		c.previews = append(c.previews, params)
		c.mu.Unlock()
	case "textDocument/publishDiagnostics":
		var p struct {
			URI uri.URI `json:"uri"`
		}
		_ = json.Unmarshal(params, &p)
		c.mu.Lock()
		if c.diags == nil {
			c.diags = map[uri.URI][]json.RawMessage{}
		}
		c.diags[p.URI] = append(c.diags[p.URI], params)
		c.mu.Unlock()
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
func (c *Client) recordPush(params json.RawMessage) {
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

// applied and refused are the answers to workspace/applyEdit.
func applied() map[string]any { return map[string]any{"applied": true} }

func refused(reason string) map[string]any {
	return map[string]any{"applied": false, "failureReason": reason}
}

// applyEdit answers one workspace/applyEdit according to the policy: it applies the edit to the
// buffers, carries out its file operations, and reports each document with didOpen (a document
// not open yet, as it was) and a full-content didChange.
func (c *Client) applyEdit(ctx context.Context, params json.RawMessage) any {
	c.mu.Lock()
	c.applies = append(c.applies, params)
	n := len(c.applies)
	policy := c.policy
	c.mu.Unlock()
	c.signal()

	var d ApplyDecision
	if policy != nil {
		d = policy(n, params)
	}
	if d.Wait != nil {
		select {
		case <-d.Wait:
		case <-ctx.Done():
			return refused("the client shut down")
		}
	}
	switch {
	case d.Err != nil:
		return d.Err
	case d.Reject != "":
		return refused(d.Reject)
	case d.Lie:
		return applied()
	}
	var p protocol.ApplyWorkspaceEditParams
	if err := protocol.Unmarshal(params, &p); err != nil {
		return refused("undecodable edit: " + err.Error())
	}
	changes, err := c.commit(p.Edit, d.Typing)
	if err != nil {
		return refused(err.Error())
	}
	// The notifications may go out after the answer: they use the connection's context. One
	// that cannot be sent means the server is gone, which the caller sees elsewhere.
	openFirst := c.opts.Profile.answersBeforeChange()
	opened := func(ch DocChange) bool { return !ch.Open && !ch.Removed }
	if openFirst {
		for _, ch := range changes {
			if opened(ch) {
				_ = c.sendOpen(c.ctx, ch.URI, ch.Before, 1)
			}
		}
	}
	send := func() {
		for _, ch := range changes {
			switch {
			case ch.Removed && ch.Open:
				_ = c.sendClose(c.ctx, ch.URI)
			case ch.Removed:
			default:
				if opened(ch) && !openFirst {
					_ = c.sendOpen(c.ctx, ch.URI, ch.Before, 1)
				}
				_ = c.SendChange(c.ctx, ch.URI, ch.After, ch.Version)
			}
		}
		c.signal()
	}
	switch {
	case c.opts.Profile.answersBeforeChange():
		time.AfterFunc(50*time.Millisecond, send)
	default:
		send()
	}
	return applied()
}

// commit applies a WorkspaceEdit to the buffers and the disk, all or nothing, and returns the
// changes with Version set to each document's new version. typing, when set, turns each
// changed text after the edit.
func (c *Client) commit(we protocol.WorkspaceEdit, typing func(string) string) ([]DocChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	res, err := ApplyEdit(we, c.enc, Source{Buffer: func(u uri.URI) (string, int32, bool) {
		if d, ok := c.docs[u]; ok {
			return d.text, d.version, true
		}
		return "", 0, false
	}})
	if err != nil {
		return nil, err
	}
	for _, cp := range res.Clamped {
		c.violations = append(c.violations, fmt.Sprintf("workspace/applyEdit position %d:%d of %s names no character boundary of its line (in %s)",
			cp.Position.Line, cp.Position.Character, cp.URI, c.enc))
	}
	if err := ApplyFileOps(res.Ops); err != nil {
		return nil, err
	}
	for i := range res.Docs {
		ch := &res.Docs[i]
		if ch.Removed {
			delete(c.docs, ch.URI)
			continue
		}
		if typing != nil {
			ch.After = typing(ch.After)
		}
		d, ok := c.docs[ch.URI]
		if !ok {
			d = &docState{text: ch.Before, version: 1}
			c.docs[ch.URI] = d
		}
		d.text = ch.After
		d.version++
		ch.Version = d.version
	}
	return res.Docs, nil
}

// lockedConn serialises writes, so raw writes never interleave with frames, and records the
// frames the stream writes.
type lockedConn struct {
	net.Conn
	mu     sync.Mutex
	record func(body []byte) // nil: record nothing
}

// Write writes one frame of the stream as one unit.
func (l *lockedConn) Write(b []byte) (int, error) {
	if l.record != nil {
		if _, body, ok := bytes.Cut(b, []byte("\r\n\r\n")); ok {
			l.record(body)
		}
	}
	return l.writeRaw(b)
}

// writeRaw writes b as one unit without recording it.
func (l *lockedConn) writeRaw(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Conn.Write(b)
}

// recordingStream records error responses with a null id (which jsonrpc2 would drop),
// responses to requests with string ids, and with Options.Record every frame it reads, before
// passing each frame on.
type recordingStream struct {
	jsonrpc2.Stream
	c *Client
}

// frameStream is the frame-level interface of jsonrpc2's streams.
type frameStream interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// ReadFrame reads a frame and records it.
func (s *recordingStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	body, n, err := s.Stream.(frameStream).ReadFrame(ctx)
	if err != nil {
		return body, n, err
	}
	if s.c.opts.Record {
		s.c.mu.Lock()
		s.c.frames = append(s.c.frames, Frame{Body: slices.Clone(body)})
		s.c.mu.Unlock()
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
		s.c.rawResps[strID] = slices.Clone(json.RawMessage(body))
		s.c.mu.Unlock()
		s.c.signal()
	}
	return body, n, nil
}

// WriteFrame writes one encoded message. jsonrpc2 reads through ReadFrame only from a stream
// that has both.
func (s *recordingStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return s.Stream.(frameStream).WriteFrame(ctx, data)
}
