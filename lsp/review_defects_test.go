package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// These tests pin the review defects of issue 16, each through the wire.

// executeCommand runs workspace/executeCommand with one argument and returns its error.
func executeCommand(c *testClient, name string, arg any, result any) error {
	return c.request("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, result)
}

// TestWireResponseCommandsRefuseOtherDocuments (issue 16, item 11): the response-document forms
// of assistant.apply and assistant.applyAll act on response documents only; an ordinary file
// whose text holds an edit, open or not, and a file outside the workspace are InvalidParams, and
// nothing is applied. Bad indexes and sections are InvalidParams too.
func TestWireResponseCommandsRefuseOtherDocuments(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: -1}))
	target := c.didOpen("t.txt", "safe\n")
	payload := replaceUse("t.txt", "------- SEARCH\nsafe\n=======\nPWNED\n+++++++ REPLACE\n")
	open := c.didOpen("a.txt", payload)
	closed := c.uri("b.txt")
	require.NoError(t, os.WriteFile(c.path("b.txt"), []byte(payload), 0o644))
	doc := c.didOpen("r.assistant.md", payload)

	for _, u := range []uri.URI{open, closed, uri.File("/etc/passwd")} {
		var res ext.CommandResult
		err := executeCommand(c, ext.CommandApply, map[string]any{"uri": u, "index": 0}, &res)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "apply on %s: %v", u, res)
		var all ext.ApplyAllResult
		err = executeCommand(c, ext.CommandApplyAll, map[string]any{"uri": u}, &all)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "applyAll on %s: %v", u, all)
		err = c.request(ext.MethodApply, map[string]any{"uri": u, "index": 0}, &res)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "assistant/apply on %s", u)
	}
	for _, arg := range []map[string]any{
		{"uri": doc, "index": -1}, {"uri": doc, "index": 1}, {"uri": doc, "index": 0, "section": 0},
		{"uri": doc, "index": 0, "section": -1}, {"uri": doc, "index": 0, "section": 2},
	} {
		err := executeCommand(c, ext.CommandApply, arg, nil)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "%v", arg)
	}
	assert.Empty(t, c.applyRequests())
	assert.Equal(t, "safe\n", c.buffer(target))

	var res ext.CommandResult
	require.NoError(t, executeCommand(c, ext.CommandApply, map[string]any{"uri": doc, "index": 0}, &res))
	assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, "PWNED\n", c.buffer(target))
}

// heldReview opens h.go, streams heldDiff to stream s under review and waits for its three
// pending hunks.
func heldReview(t *testing.T, opts ...clientOption) (*testClient, uri.URI) {
	c := newTestClient(t, profileHelix, append([]clientOption{withInitOptions(map[string]any{"review": true}),
		withServerOptions(Options{diagnosticsDelay: -1})}, opts...)...)
	u := c.didOpen("h.go", heldSrc)
	streamMessage(c, "s", replaceUse("h.go", heldDiff), 40)
	waitHunks(c, "s", 0, ext.HunkPending, ext.HunkPending, ext.HunkPending)
	return c, u
}

// TestWireHunkCommandsCheckTheirArguments (issue 16, item 7): a hunk number out of range, -1
// included, is InvalidParams for every hunk command, on a stream's held edit and on a response
// document's, and the server goes on answering: code actions, lenses, a didChange of the
// reviewed document, the commands themselves.
func TestWireHunkCommandsCheckTheirArguments(t *testing.T) {
	t.Parallel()
	c, u := heldReview(t)
	doc := c.didOpen("r.assistant.md", replaceUse("h.go", "------- SEARCH\nfunc C() int {\n=======\nfunc C() int64 {\n+++++++ REPLACE\n"))
	var res ext.CommandResult
	command(c, ext.CommandApply, map[string]any{"uri": doc, "index": 0}, &res)
	assert.Equal(t, ext.StatusReady, res.Status, res.Error)
	for _, cmd := range []string{ext.CommandAcceptHunk, ext.CommandRejectHunk} {
		for _, arg := range []map[string]any{
			{"stream": "s", "index": 0, "hunk": -1}, {"stream": "s", "index": 0, "hunk": 3},
			{"stream": "s", "index": -1, "hunk": 0}, {"uri": doc, "index": 0, "hunk": -1},
			{"uri": doc, "index": 0, "hunk": 1}, {"uri": doc, "index": -1, "hunk": 0},
		} {
			err := executeCommand(c, cmd, arg, nil)
			assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "%s %v: %v", cmd, arg, err)
		}
	}
	assert.NotEmpty(t, codeActions(c, u, rng(3, 0, 3, 0)))
	var lenses []any
	docRequest(c, "textDocument/codeLens", u, nil, &lenses)
	assert.NotEmpty(t, lenses)
	c.didChange(u, "// typed\n"+c.buffer(u))
	c.waitFor("the hunks to follow the typing", func() bool {
		ds := c.diagnostics(u)
		return len(ds) == 4 && ds[0].Range.Start.Line == 11 && ds[1].Range.Start.Line == 4
	})
	command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 0}, &res)
	assert.Equal(t, ext.StatusPartial, res.Status, res.Error)
	command(c, ext.CommandRejectHunk, map[string]any{"uri": doc, "index": 0, "hunk": 0}, &res)
	assert.Equal(t, ext.StatusRejected, res.Status, res.Error)
}

// TestResponseAnalysisConcurrent (issue 16, item 9): the analysis of one response document's
// edits, cache included, may run on several goroutines at once (the publisher's timer and a
// request); under -race this fails when the cache is unguarded.
func TestResponseAnalysisConcurrent(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte(reviewTarget), 0o644))
	ws, _ := paths.NewWorkspace([]string{dir})
	s := settings{Config: defaultConfig(), Caps: clientCaps{Encoding: protocol.PositionEncodingKindUTF16}, Workspace: ws}
	ed := newEditor(editorDeps{Docs: docs.New(), Settings: func() settings { return s }})
	defer ed.shutdown()
	pr := parseResponse(parse.New(s.Config.parseConfig()), strings.ReplaceAll(reviewAnswer, "src/a.go", "a.go"))
	u := uri.File(filepath.Join(dir, "r.assistant.md"))
	want, _ := analyseResponse(ed, u, pr, dir, s, protocol.PositionEncodingKindUTF16)
	var wg sync.WaitGroup
	for i := range 4 {
		// Each goroutine analyses with other settings, so that each call replaces the cache.
		si := s
		si.Config.DiffVersion = []apply.Version{apply.V1, apply.V2}[i%2]
		enc := []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16, protocol.PositionEncodingKindUTF8}[i/2]
		wg.Go(func() {
			for range 20 {
				got, _ := analyseResponse(ed, u, pr, dir, si, enc)
				assert.Len(t, got, len(want))
			}
		})
	}
	wg.Wait()
}

// TestWireResponseCodeActionsWhileTyping (issue 16, item 9) runs the real debounce: code
// actions and lenses on a response document are asked for while its target and the document
// itself change, so that analyses on the timers' goroutines and on the requests' overlap
// (under -race). The diagnostics end as the last contents say.
func TestWireResponseCodeActionsWhileTyping(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: time.Millisecond}))
	target := c.didOpen("src/a.go", reviewTarget)
	doc := c.didOpen("answer.assistant.md", reviewAnswer)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 30 {
			assert.NotEmpty(t, codeActions(c, doc, rng(32, 0, 32, 0)), "round %d", i)
			var lenses []any
			docRequest(c, "textDocument/codeLens", doc, nil, &lenses)
		}
	})
	for i := range 30 {
		c.didChange(target, reviewTarget+strings.Repeat("// more\n", i))
		if i%5 == 0 {
			c.didChange(doc, reviewAnswer+strings.Repeat("\nmore text", i))
		}
	}
	wg.Wait()
	c.didChange(target, reviewTarget)
	c.didChange(doc, reviewAnswer)
	c.waitFor("the diagnostics of the last contents", func() bool { return len(c.diagnostics(doc)) == 3 })
}
