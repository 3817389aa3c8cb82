package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/internal/lspclient"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/turn"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// sentMessage is one request or notification the pipeline sent to the fake client.
type sentMessage struct {
	Method string
	Params any
}

// fakeClient plays the editor for unit tests of the edit pipeline: it keeps the open buffers in
// the server's documents store (as if each of its changes came back as a whole-document
// didChange), applies workspace/applyEdit like a strict client (a stale version is refused)
// unless answer overrides it, and records everything it receives.
type fakeClient struct {
	t    *testing.T
	docs *docs.Store

	mu         sync.Mutex
	sent       []sentMessage
	answer     func(n int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult
	applies    int
	block      bool // never answer workspace/applyEdit (until ctx ends)
	progress   bool // accept window/workDoneProgress/create
	hangCreate bool // never answer window/workDoneProgress/create (until ctx ends)
}

// call records a request and answers it.
func (c *fakeClient) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.sent = append(c.sent, sentMessage{method, params})
	c.mu.Unlock()
	switch method {
	case "window/workDoneProgress/create":
		c.mu.Lock()
		hang := c.hangCreate
		c.mu.Unlock()
		if hang {
			<-ctx.Done()
			return ctx.Err()
		}
		if !c.progress {
			return errors.New("progress not supported")
		}
		return nil
	case "workspace/applyEdit":
		p, ok := params.(protocol.ApplyWorkspaceEditParams)
		if !ok {
			return fmt.Errorf("applyEdit params of type %T", params)
		}
		c.mu.Lock()
		c.applies++
		n, answer, block := c.applies, c.answer, c.block
		c.mu.Unlock()
		if block {
			<-ctx.Done()
			return ctx.Err()
		}
		var res protocol.ApplyWorkspaceEditResult
		if answer != nil {
			res = answer(n, p)
		} else {
			res = c.apply(p.Edit)
		}
		raw, err := json.Marshal(res)
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, result)
	default:
		return fmt.Errorf("unexpected request %s", method)
	}
}

// notify records a notification.
func (c *fakeClient) Notify(_ context.Context, method string, params any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, sentMessage{method, params})
	return nil
}

// messages returns what was sent with method.
func (c *fakeClient) messages(method string) []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []any
	for _, m := range c.sent {
		if m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// methods returns the methods of everything sent, in order.
func (c *fakeClient) methods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.sent))
	for i, m := range c.sent {
		out[i] = m.Method
	}
	return out
}

// apply applies a workspace edit as a strict editor does, with lspclient's applier: all or
// nothing, refusing a TextDocumentEdit whose version is not the buffer's. An open document's
// result goes to the server's store (as if the editor's didChange came back), any other file's
// to disk.
func (c *fakeClient) apply(we protocol.WorkspaceEdit) protocol.ApplyWorkspaceEditResult {
	res, err := lspclient.ApplyEdit(we, protocol.PositionEncodingKindUTF16, lspclient.Source{Buffer: c.docs.Get})
	if errors.Is(err, lspclient.ErrVersion) {
		reason := "stale version"
		return protocol.ApplyWorkspaceEditResult{FailureReason: &reason}
	}
	require.NoError(c.t, err, "the edit does not apply")
	require.NoError(c.t, lspclient.ApplyFileOps(res.Ops))
	for _, ch := range res.Docs {
		switch {
		case ch.Removed:
		case ch.Open:
			require.NoError(c.t, changeErr(c.docs.Change(ch.URI, ch.Version+1, []docs.Change{{Text: ch.After}}, protocol.PositionEncodingKindUTF16)))
		default:
			require.NoError(c.t, os.WriteFile(ch.URI.FsPath(), []byte(ch.After), 0o644))
		}
	}
	return protocol.ApplyWorkspaceEditResult{Applied: true}
}

// fakeBlocks is a blockLookup backed by a map.
type fakeBlocks struct {
	mu     sync.Mutex
	blocks map[editKey]streamBlock
}

// block implements blockLookup.
func (f *fakeBlocks) block(stream string, index int) (streamBlock, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sb, ok := f.blocks[editKey{stream, index}]
	return sb, ok
}

// fileBlocks implements blockLookup.
func (f *fakeBlocks) fileBlocks(stream string) ([]streamBlock, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []streamBlock
	for i := 0; ; i++ {
		sb, ok := f.blocks[editKey{stream, i}]
		if !ok {
			return out, len(out) > 0
		}
		out = append(out, sb)
	}
}

// handleApply serves assistant/apply (send) or assistant/resolveEdit as the server does.
func (f *editorFixture) handleApply(raw json.RawMessage, send bool) (any, error) {
	return applyOrResolve(context.Background(), f.ed, f.blocks, "assistant/apply", raw, send)
}

// executeCommand serves workspace/executeCommand as the server does.
func (f *editorFixture) executeCommand(command string, args []json.RawMessage) (any, error) {
	return runCommand(context.Background(), f.ed, f.blocks, command, args)
}

// set stores a block.
func (f *fakeBlocks) set(stream string, index int, sb streamBlock) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blocks[editKey{stream, index}] = sb
}

// editorFixture is an editor wired to fakes over a temporary workspace folder.
type editorFixture struct {
	t      *testing.T
	dir    string
	docs   *docs.Store
	client *fakeClient
	blocks *fakeBlocks
	ed     *editor

	mu            sync.Mutex
	set           settings
	changes       map[editKey]int
	settingsReads int // calls of the editor's Settings
}

// vscodeCaps are the capabilities of a VS Code-like client.
func vscodeCaps() clientCaps {
	return clientCaps{ApplyEdit: true, DocumentChanges: true, CreateFile: true, Annotations: true, WorkDoneProgress: true, Encoding: protocol.PositionEncodingKindUTF16}
}

// newFixture returns an editor over a fresh workspace, with the default configuration and caps.
func newFixture(t *testing.T, caps clientCaps, mutate func(*config)) *editorFixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	cfg := defaultConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	f := &editorFixture{
		t:       t,
		dir:     dir,
		docs:    docs.New(),
		blocks:  &fakeBlocks{blocks: map[editKey]streamBlock{}},
		set:     settings{Config: cfg, Caps: caps, Workspace: mustWorkspace(t, dir)},
		changes: map[editKey]int{},
	}
	f.client = &fakeClient{t: t, docs: f.docs, progress: true}
	f.ed = newEditor(editorDeps{
		Peer: f.client,
		Docs: f.docs,
		Settings: func() settings {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.settingsReads++
			return f.set
		},
		Changed: func(stream string, index int) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.changes[editKey{stream, index}]++
		},
	})
	// The fake client changes its documents before it answers, and answers progress creates at
	// once: the windows matter only to a test that expects them to pass, which shortens them;
	// others wait however slow the machine.
	f.ed.verifyTimeout, f.ed.staleWait, f.ed.progressTimeout = testVerifyTimeout, testVerifyTimeout, testVerifyTimeout
	t.Cleanup(f.ed.shutdown)
	return f
}

// path returns the absolute path of a workspace file.
func (f *editorFixture) path(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

// uri returns the URI of a workspace file.
func (f *editorFixture) uri(rel string) uri.URI { return uri.File(f.path(rel)) }

// writeFile puts a file on disk.
func (f *editorFixture) writeFile(rel, content string) {
	require.NoError(f.t, os.MkdirAll(filepath.Dir(f.path(rel)), 0o755))
	require.NoError(f.t, os.WriteFile(f.path(rel), []byte(content), 0o644))
}

// readFile reads a file from disk.
func (f *editorFixture) readFile(rel string) string {
	data, err := os.ReadFile(f.path(rel))
	require.NoError(f.t, err)
	return string(data)
}

// open opens a document in the fake client.
func (f *editorFixture) open(rel, content string, version int32) {
	f.docs.Open(f.uri(rel), version, content)
}

// content is the buffer of an open document.
func (f *editorFixture) content(rel string) string {
	c, _, ok := f.docs.Get(f.uri(rel))
	require.True(f.t, ok, "%s is not open", rel)
	return c
}

// toolBlock is a file-editing tool use.
func toolBlock(tool, path, payload string, partial bool) streamBlock {
	pl := editTools[tool].payload
	b := parse.Block{
		Type:    parse.ToolUse,
		Name:    tool,
		Params:  map[string]string{"path": path, pl: payload},
		Partial: partial,
	}
	if partial {
		// As parse gives it: the path closed, the payload still arriving up to the end.
		b.Span = parse.Span{Start: 0, End: 2}
		b.ParamSpans = map[string]parse.Span{"path": {Start: 0, End: 1}, pl: {Start: 1, End: 2}}
	}
	return streamBlock{Block: turn.Block{Block: b}, Tool: editTools[tool]}
}

// growingPath is a streaming tool use whose path is still arriving, as parse gives it.
func growingPath(tool, path string) streamBlock {
	sb := toolBlock(tool, path, "", true)
	pl := editTools[tool].payload
	delete(sb.Block.Params, pl)
	delete(sb.Block.ParamSpans, pl)
	sb.Block.ParamSpans["path"] = parse.Span{Start: 0, End: 2}
	return sb
}

// push stores a block and tells the editor, as the server does.
func (f *editorFixture) push(stream string, index int, sb streamBlock) {
	f.blocks.set(stream, index, sb)
	f.ed.update(stream, index, sb)
}

// waitStatus waits until the block's status is want and returns its state. It fails the test
// if the status settles on something else: it waits while the status is streaming or applying.
func (f *editorFixture) waitStatus(stream string, index int, want ext.EditStatus) ext.EditState {
	f.t.Helper()
	var st *ext.EditState
	require.Eventually(f.t, func() bool {
		st = f.ed.state(stream, index)
		return st != nil && st.Status != ext.StatusStreaming && st.Status != ext.StatusApplying
	}, waitTimeout, 5*time.Millisecond, "the edit never left streaming/applying: the pipeline hangs")
	require.Equal(f.t, want, st.Status, "error: %s", st.Error)
	return *st
}

// applyEdits returns the applyEdit params sent so far.
func (f *editorFixture) applyEdits() []protocol.ApplyWorkspaceEditParams {
	var out []protocol.ApplyWorkspaceEditParams
	for _, p := range f.client.messages("workspace/applyEdit") {
		out = append(out, p.(protocol.ApplyWorkspaceEditParams))
	}
	return out
}

// diff builds a SEARCH/REPLACE diff of one or more sections.
func diff(pairs ...string) string {
	var out string
	for i := 0; i+1 < len(pairs); i += 2 {
		out += "------- SEARCH\n" + pairs[i] + "=======\n" + pairs[i+1] + "+++++++ REPLACE\n"
	}
	return out
}

// textBlock is a complete text block.
func textBlock(content string) turn.Block {
	return turn.Block{Block: parse.Block{Type: parse.Text, Content: content}}
}

// mustWorkspace is the workspace of folders, which must all be valid.
func mustWorkspace(t testing.TB, folders ...string) *paths.Workspace {
	t.Helper()
	ws, warnings := paths.NewWorkspace(folders)
	require.Empty(t, warnings)
	return ws
}

// changeErr is the error of a Store.Change, whose edits the caller does not need.
func changeErr(_ []text.Edit, err error) error { return err }
