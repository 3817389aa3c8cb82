package lsp

import (
	"os"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
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
