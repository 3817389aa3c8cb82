package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// TestLifecycleErrors checks the standard answers of section 1 through the wire.
func TestLifecycleErrors(t *testing.T) {
	t.Parallel()
	t.Run("before initialize", func(t *testing.T) {
		c := newTestClient(t, profileVSCode, withoutInitialize())
		c.notify("assistant/parse", map[string]any{"stream": "early", "delta": "x"})
		err := c.request("assistant/parse", map[string]any{"stream": "s", "delta": "x"}, nil)
		assert.Equal(t, jsonrpc2.ServerNotInitialized, rpcCode(err))
		err = c.request("shutdown", nil, nil)
		assert.Equal(t, jsonrpc2.ServerNotInitialized, rpcCode(err))
		require.NoError(t, c.request("initialize", c.initializeParams(nil), nil))
		var res ext.ParseResult
		require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "early", "delta": "y"}, &res))
		require.Len(t, res.Blocks, 1)
		assert.Equal(t, "y", *res.Blocks[0].Content, "the notification before initialize must have been ignored")
	})

	tests := []struct {
		name   string
		method string
		params any
		want   jsonrpc2.Code
	}{
		{"unknown request", "textDocument/hover", map[string]any{}, jsonrpc2.MethodNotFound},
		{"unknown $ request", "$/unknown", map[string]any{}, jsonrpc2.MethodNotFound},
		{"initialize twice", "initialize", map[string]any{"capabilities": map[string]any{}}, jsonrpc2.InvalidRequest},
		{"stream of the wrong type", "assistant/parse", map[string]any{"stream": 5, "delta": "x"}, jsonrpc2.InvalidParams},
		{"delta of the wrong type", "assistant/parse", map[string]any{"stream": "s", "delta": []int{1}}, jsonrpc2.InvalidParams},
		{"params as an array", "assistant/parse", []string{"s"}, jsonrpc2.InvalidParams},
		{"params missing", "assistant/parse", nil, jsonrpc2.InvalidParams},
		{"empty stream name", "assistant/parse", map[string]any{"stream": "", "delta": "x"}, jsonrpc2.InvalidParams},
		{"delta and text", "assistant/parse", map[string]any{"stream": "s", "delta": "x", "text": "x"}, jsonrpc2.InvalidParams},
		{"unknown command", "workspace/executeCommand", map[string]any{"command": "rm -rf"}, jsonrpc2.InvalidParams},
		{"didOpen sent as a request with bad params", "textDocument/didOpen", map[string]any{"textDocument": 3}, jsonrpc2.InvalidParams},
	}
	c := newTestClient(t, profileVSCode)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.request(tt.method, tt.params, nil)
			require.Error(t, err)
			assert.Equal(t, tt.want, rpcCode(err), "error: %v", err)
		})
	}
	t.Run("unknown and malformed notifications are ignored", func(t *testing.T) {
		c.notify("custom/unknown", map[string]any{"x": 1})
		c.notify("textDocument/didOpen", map[string]any{"textDocument": "nope"})
		c.notify("assistant/parse", map[string]any{"stream": 5})
		c.notify("$/cancelRequest", map[string]any{"id": 12345})
		var res ext.ParseResult
		require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "alive", "text": "ok"}, &res))
		assert.Equal(t, "alive", res.Stream)
	})
	t.Run("after shutdown only exit is served", func(t *testing.T) {
		require.NoError(t, c.request("shutdown", nil, nil))
		err := c.request("assistant/parse", map[string]any{"stream": "s", "delta": "x"}, nil)
		assert.Equal(t, jsonrpc2.InvalidRequest, rpcCode(err))
		assert.Equal(t, 0, c.exit(false).code)
	})
}

// TestExitCodes checks the exit code of Serve for every way a session ends.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		shutdown bool
		exit     bool
		want     int
	}{
		{"shutdown then exit", true, true, 0},
		{"exit without shutdown", false, true, 1},
		{"connection dropped after shutdown", true, false, 0},
		{"connection dropped without shutdown", false, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, profileHelix)
			if tt.exit {
				r := c.exit(tt.shutdown)
				assert.Equal(t, tt.want, r.code)
				assert.NoError(t, r.err)
				return
			}
			if tt.shutdown {
				require.NoError(t, c.request("shutdown", nil, nil))
			}
			require.NoError(t, c.pipe.Close())
			r, ok := c.serveResult()
			require.True(t, ok)
			assert.Equal(t, tt.want, r.code)
		})
	}
}

// TestServeContextEnds checks that Serve returns when its context ends, with the exit code of
// the session so far and no error.
func TestServeContextEnds(t *testing.T) {
	t.Parallel()
	for _, shutdown := range []bool{true, false} {
		t.Run(map[bool]string{true: "after shutdown", false: "without shutdown"}[shutdown], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			c := newTestClient(t, profileVSCode, withServeContext(ctx))
			if shutdown {
				require.NoError(t, c.request("shutdown", nil, nil))
			}
			cancel()
			r, ok := c.serveResult()
			require.True(t, ok)
			assert.Equal(t, map[bool]int{true: 0, false: 1}[shutdown], r.code)
			assert.NoError(t, r.err)
		})
	}
}

// initializeResult is the part of the initialize answer the tests look at.
type initializeResult struct {
	Capabilities struct {
		PositionEncoding string `json:"positionEncoding"`
		TextDocumentSync struct {
			OpenClose bool `json:"openClose"`
			Change    int  `json:"change"`
		} `json:"textDocumentSync"`
		ExecuteCommandProvider struct {
			Commands []string `json:"commands"`
		} `json:"executeCommandProvider"`
		Experimental          map[string]map[string]int `json:"experimental"`
		CodeActionProvider    any                       `json:"codeActionProvider"`
		CodeLensProvider      any                       `json:"codeLensProvider"`
		DocumentSymbolProvide any                       `json:"documentSymbolProvider"`
	} `json:"capabilities"`
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

// TestInitializeCapabilities checks the initialize answer for each client profile.
func TestInitializeCapabilities(t *testing.T) {
	t.Parallel()
	want := map[clientProfile]string{profileVSCode: "utf-16", profileHelix: "utf-8", profileNeovim07: "utf-16"}
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile, withoutInitialize(), withServerOptions(Options{Version: "1.2.3"}))
			var res initializeResult
			require.NoError(t, c.request("initialize", c.initializeParams(nil), &res))
			caps := res.Capabilities
			assert.Equal(t, want[profile], caps.PositionEncoding)
			assert.True(t, caps.TextDocumentSync.OpenClose)
			assert.Equal(t, int(protocol.TextDocumentSyncKindIncremental), caps.TextDocumentSync.Change)
			assert.Equal(t, ext.Commands, caps.ExecuteCommandProvider.Commands)
			assert.Equal(t, 1, caps.Experimental["assistant"]["version"])
			assert.Equal(t, map[string]any{"codeActionKinds": []any{"quickfix"}, "resolveProvider": true}, caps.CodeActionProvider,
				"every profile resolves code actions")
			assert.Equal(t, map[string]any{}, caps.CodeLensProvider)
			assert.Equal(t, true, caps.DocumentSymbolProvide)
			assert.Equal(t, "assistant-ls", res.ServerInfo.Name)
			assert.Equal(t, "1.2.3", res.ServerInfo.Version)
		})
	}
}

// TestReadClientCaps checks what the server takes from each profile's capabilities.
func TestReadClientCaps(t *testing.T) {
	t.Parallel()
	want := map[clientProfile]clientCaps{
		profileVSCode:   {ApplyEdit: true, DocumentChanges: true, CreateFile: true, RenameFile: true, DeleteFile: true, Annotations: true, WorkDoneProgress: true, ResolveCodeAction: true, ResolveCodeActionEdit: true, Encoding: "utf-16"},
		profileHelix:    {ApplyEdit: true, DocumentChanges: true, CreateFile: true, RenameFile: true, DeleteFile: true, WorkDoneProgress: true, ResolveCodeAction: true, ResolveCodeActionEdit: true, Encoding: "utf-8"},
		profileNeovim07: {ApplyEdit: true, CreateFile: true, RenameFile: true, DeleteFile: true, WorkDoneProgress: true, ResolveCodeAction: true, ResolveCodeActionEdit: true, Encoding: "utf-16"},
	}
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := &testClient{profile: profile, root: t.TempDir()}
			raw, err := json.Marshal(c.initializeParams(nil))
			require.NoError(t, err)
			var p protocol.InitializeParams
			require.NoError(t, protocol.Unmarshal(raw, &p))
			assert.Equal(t, want[profile], readClientCaps(p.Capabilities))
			assert.Equal(t, []string{c.root}, mustWorkspace(t, workspaceFolders(&p)...).Folders())
		})
	}
}

// retryFile is the file add_retry.txt edits, as it is before the edit.
const retryFile = "package httpx\n\nimport \"net/http\"\n\n" +
	"func (c *Client) Do(req *http.Request) (*http.Response, error) {\n\treturn c.hc.Do(req)\n}\n"

// readExample returns a file of testdata/examples.
func readExample(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "examples", name))
	require.NoError(t, err)
	return string(data)
}

// chunks splits s into pieces of at most n bytes.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// TestEndToEnd plays the exchange of docs/protocol.md for every profile: a message streamed in
// deltas edits an open file and creates a new one, and the final push carries the statuses.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	msg := readExample(t, "add_retry.txt")
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile)
			u := c.didOpen("internal/httpx/client.go", retryFile)
			for _, d := range chunks(msg, 37) {
				c.notify("assistant/parse", map[string]any{"stream": "turn-1", "delta": d, "modelId": "claude-sonnet"})
			}
			c.notify("assistant/parse", map[string]any{"stream": "turn-1", "final": true})
			c.waitFor("both edits applied", func() bool {
				n := 0
				for _, b := range c.blocks("turn-1") {
					if b.Edit != nil && b.Edit.Status == ext.StatusApplied {
						n++
					}
				}
				return n == 2 && c.final("turn-1")
			})
			assert.Contains(t, c.buffer(u), "for attempt := 0; attempt < 3; attempt++")
			assert.Equal(t, int32(2), c.version(u), "one edit, one didChange")
			assert.Contains(t, c.buffer(c.uri("internal/httpx/client_test.go")), "func TestDoRetries503")
			blocks := c.blocks("turn-1")
			var res ext.ParseResult
			require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "turn-1"}, &res))
			require.Len(t, res.Blocks, len(blocks))
			for i, b := range blocks {
				assert.False(t, b.Partial)
				assert.Equal(t, res.Blocks[i].ID, b.ID)
			}
		})
	}
}

// TestConfiguration checks settings from initializationOptions and didChangeConfiguration.
func TestConfiguration(t *testing.T) {
	t.Parallel()
	const custom = "<ask_model><question>why?</question></ask_model>"
	toolOf := func(t *testing.T, c *testClient, stream string) string {
		t.Helper()
		var res ext.ParseResult
		require.NoError(t, c.request("assistant/parse", map[string]any{"stream": stream, "text": custom}, &res))
		require.NotEmpty(t, res.Blocks)
		return string(res.Blocks[0].Type) + ":" + res.Blocks[0].Name
	}

	t.Run("initializationOptions", func(t *testing.T) {
		c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{
			"toolNames": []string{"ask_model"}, "paramNames": []string{"question"}, "diffVersion": "v3",
		}))
		assert.Equal(t, "tool_use:ask_model", toolOf(t, c, "a"))
		c.waitFor("a warning naming diffVersion", func() bool {
			return hasMessage(c.messages(), `"diffVersion"`)
		})
	})
	t.Run("nested under assistant", func(t *testing.T) {
		c := newTestClient(t, profileHelix, withInitOptions(map[string]any{
			"assistant": map[string]any{"toolNames": []string{"ask_model"}, "paramNames": []string{"question"}},
		}))
		assert.Equal(t, "tool_use:ask_model", toolOf(t, c, "a"))
	})

	tests := []struct {
		key   string
		value any
	}{
		{"toolNames", "ask_model"},
		{"toolNames", []string{"has space"}},
		{"paramNames", []any{1}},
		{"diffVersion", "v9"},
		{"contentFixes", "sometimes"},
		{"autoApply", "yes"},
		{"confirm", 1},
		{"preview", []bool{true}},
		{"allowOutsideWorkspace", "true"},
		{"allowGitDir", "yes"},
		{"requireRead", "yes"},
		{"review", "yes"},
		{"responseDocuments", "*.md"},
		{"responseDocuments", []string{"[unclosed"}},
	}
	for _, tt := range tests {
		t.Run("bad "+tt.key, func(t *testing.T) {
			c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{
				"toolNames": []string{"ask_model"}, "paramNames": []string{"question"},
			}))
			c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"assistant": map[string]any{tt.key: tt.value}}})
			c.waitFor("a warning naming "+tt.key, func() bool { return hasMessage(c.messages(), `"`+tt.key+`"`) })
			assert.Equal(t, "tool_use:ask_model", toolOf(t, c, "after"), "the previous tool names must stay")
		})
	}

	t.Run("new names apply to streams started afterwards", func(t *testing.T) {
		c := newTestClient(t, profileNeovim07)
		c.notify("assistant/parse", map[string]any{"stream": "old", "delta": "<ask_model>"})
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"assistant": map[string]any{
			"toolNames": []string{"ask_model"}, "paramNames": []string{"question"},
		}}})
		var res ext.ParseResult
		require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "old", "delta": "<question>why?</question></ask_model>"}, &res))
		assert.Equal(t, "text:", string(res.Blocks[0].Type)+":"+res.Blocks[0].Name, "a running stream keeps its parser")
		assert.Equal(t, "tool_use:ask_model", toolOf(t, c, "new"))
		require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "old", "text": "<ask_model><question>how?</question></ask_model>"}, &res))
		assert.Equal(t, "tool_use:ask_model", string(res.Blocks[0].Type)+":"+res.Blocks[0].Name, "a restarted stream takes the new parser")

		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"assistant": map[string]any{"toolNames": nil}}})
		assert.Equal(t, "text:", toolOf(t, c, "reset"), "null restores the default")
	})
	t.Run("settings without an assistant section change nothing", func(t *testing.T) {
		c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"toolNames": []string{"ask_model"}, "paramNames": []string{"question"}}))
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"other": map[string]any{"toolNames": []string{}}}})
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
		assert.Equal(t, "tool_use:ask_model", toolOf(t, c, "a"))
		assert.Empty(t, c.messages())
	})
}

// hasMessage reports whether a showMessage contains substr.
func hasMessage(msgs []clientMessage, substr string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Message, substr) {
			return true
		}
	}
	return false
}

// TestApplySettings checks the merge rules of settings: absent keys stay, null resets, bad
// values keep the previous value with a warning, unknown keys are reported separately.
func TestApplySettings(t *testing.T) {
	t.Parallel()
	cur := defaultConfig()
	cur.AutoApply = false
	cur.ToolNames = []string{"x"}
	next, warnings, unknown := applySettings(cur, json.RawMessage(`{"autoApply":null,"confirm":false,"preview":"no","extra":1}`))
	assert.True(t, next.AutoApply, "null restores the default")
	assert.False(t, next.Confirm)
	assert.False(t, next.Preview)
	assert.Equal(t, []string{"x"}, next.ToolNames, "absent keys keep their value")
	assert.Equal(t, []configWarning{{Key: "preview", Reason: "want true or false"}}, warnings)
	assert.Equal(t, []string{"extra"}, unknown)

	_, warnings, _ = applySettings(cur, json.RawMessage(`[1]`))
	assert.Len(t, warnings, 1)
}

// TestPanicInHandler checks that a panic is answered with InternalError and the session goes
// on.
func TestPanicInHandler(t *testing.T) {
	methods["test/panic"] = method{serve: func(*server, context.Context, jsonrpc2.RawMessage, bool) (any, error) {
		panic("boom")
	}}
	t.Cleanup(func() { delete(methods, "test/panic") })
	c := newTestClient(t, profileVSCode)
	err := c.request("test/panic", map[string]any{}, nil)
	assert.Equal(t, jsonrpc2.InternalError, rpcCode(err))
	c.notify("test/panic", map[string]any{})
	var res ext.ParseResult
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "s", "text": "still here"}, &res))
	assert.Equal(t, "still here", *res.Blocks[0].Content)
	assert.Equal(t, 0, c.exit(true).code)
}

// TestCancelRequest cancels an assistant/apply whose applyEdit the client holds.
func TestCancelRequest(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	hold := make(chan struct{})
	defer close(hold)
	c.setApplyPolicy(func(int, json.RawMessage) applyDecision { return applyDecision{Wait: hold} })
	u := c.didOpen("a.txt", "one\n")
	c.rawRequest("apply-1", "assistant/apply", map[string]any{"uri": u, "content": "two\n"})
	c.waitFor("the applyEdit", func() bool { return len(c.applyRequests()) == 1 })
	c.notify("$/cancelRequest", map[string]any{"id": "apply-1"})
	c.waitFor("the cancelled answer", func() bool { _, ok := c.rawResponse("apply-1"); return ok })
	raw, _ := c.rawResponse("apply-1")
	var resp struct {
		Error *jsonrpc2.Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal(raw, &resp))
	require.NotNil(t, resp.Error, "response: %s", raw)
	assert.Equal(t, protocol.CodeRequestCancelled, resp.Error.Code)
}

// TestNoDeadlockWhileApplyEditPending holds the client's answer to workspace/applyEdit while
// the client sends didChange and requests: they must all be served, and the edit completes
// once the answer comes.
func TestNoDeadlockWhileApplyEditPending(t *testing.T) {
	t.Parallel()
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile)
			release := make(chan struct{})
			c.setApplyPolicy(func(n int, _ json.RawMessage) applyDecision {
				if n == 1 {
					return applyDecision{Wait: release}
				}
				return applyDecision{}
			})
			target := c.didOpen("internal/httpx/client.go", retryFile)
			other := c.didOpen("notes.txt", "draft\n")
			msg := readExample(t, "add_retry.txt")
			end := strings.Index(msg, "</replace_in_file>") + len("</replace_in_file>")
			c.notify("assistant/parse", map[string]any{"stream": "s", "delta": msg[:end]})
			c.waitFor("the held applyEdit", func() bool { return len(c.applyRequests()) == 1 })

			c.didChange(other, "final draft\n")
			var res ext.ParseResult
			require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "s", "delta": msg[end:]}, &res))
			assert.NotEmpty(t, res.Blocks)
			var resolved struct {
				Status ext.EditStatus `json:"status"`
			}
			require.NoError(t, c.request("assistant/resolveEdit", map[string]any{"uri": other, "content": "final draft\n"}, &resolved))
			assert.Equal(t, ext.StatusApplied, resolved.Status, "the didChange sent while applyEdit was pending must have been applied")
			err := c.request("textDocument/hover", map[string]any{}, nil)
			assert.Equal(t, jsonrpc2.MethodNotFound, rpcCode(err))

			close(release)
			c.notify("assistant/parse", map[string]any{"stream": "s", "final": true})
			c.waitFor("the held edit applied", func() bool {
				b := c.blocks("s")
				return len(b) > 3 && b[3].Edit != nil && b[3].Edit.Status == ext.StatusApplied
			})
			assert.Contains(t, c.buffer(target), "attempt < 3")
		})
	}
}

// TestMalformedInput feeds the server frames it cannot use; each gets its answer or is
// skipped, and the session goes on.
func TestMalformedInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		raw      string
		wantCode jsonrpc2.Code // answer with a null id; 0 means none
		wantWarn string        // showMessage expected
	}{
		{"body is not JSON", string(frame([]byte(`{"jsonrpc":"2.0","method":`))), jsonrpc2.ParseError, ""},
		{"body is binary", string(frame([]byte{0xff, 0xfe, 0x00, 0x01})), jsonrpc2.ParseError, ""},
		{"JSON that is not an object", string(frame([]byte(`42`))), jsonrpc2.InvalidRequest, ""},
		{"batch", string(frame([]byte(`[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`))), jsonrpc2.InvalidRequest, ""},
		{"no jsonrpc member", string(frame([]byte(`{"id":null,"method":"initialized"}`))), jsonrpc2.InvalidRequest, ""},
		{"header without colon", "Garbage line\r\n\r\n{}", 0, "no colon"},
		{"header without Content-Length", "Content-Type: x\r\n\r\n", 0, "no Content-Length"},
		{"length is not a number", "Content-Length: ten\r\n\r\n", 0, "not a number"},
		{"message above the limit", "Content-Length: 4096\r\n\r\n" + strings.Repeat(" ", 4096), 0, "above the limit"},
		{"malformed response", string(frame([]byte(`{"jsonrpc":"2.0","id":99,"result":1,"error":{"code":1,"message":"x"}}`))), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, profileVSCode, withServerOptions(Options{MaxMessageBytes: 1024}))
			c.writeRaw([]byte(tt.raw))
			if tt.wantCode != 0 {
				c.waitFor("an error answer", func() bool { return len(c.orphans()) > 0 })
				assert.Equal(t, tt.wantCode, c.orphans()[0].Code)
			}
			if tt.wantWarn != "" {
				c.waitFor("a warning", func() bool { return hasMessage(c.messages(), tt.wantWarn) })
			}
			var res ext.ParseResult
			require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "s", "text": "alive"}, &res))
			assert.Equal(t, "alive", *res.Blocks[0].Content)
			assert.Equal(t, 0, c.exit(true).code)
		})
	}
}

// TestMalformedRequestKeepsID checks that a request that is not valid JSON-RPC but has an id is
// answered under that id.
func TestMalformedRequestKeepsID(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	c.writeRaw(frame([]byte(`{"jsonrpc":"1.0","id":"old-1","method":"shutdown"}`)))
	c.waitFor("the answer", func() bool { _, ok := c.rawResponse("old-1"); return ok })
	raw, _ := c.rawResponse("old-1")
	var resp struct {
		Error *jsonrpc2.Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal(raw, &resp))
	require.NotNil(t, resp.Error)
	assert.Equal(t, jsonrpc2.InvalidRequest, resp.Error.Code)
}

// TestInvalidUTF8 sends strings with invalid UTF-8: they are replaced by U+FFFD, never a crash.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	c.writeRaw(frame([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"assistant/parse\",\"params\":{\"stream\":\"bad\xff\",\"delta\":\"a\xc3(b\"}}")))
	var res ext.ParseResult
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "bad\uFFFD", "delta": "!"}, &res))
	require.Len(t, res.Blocks, 1)
	assert.Equal(t, "a\uFFFD(b!", *res.Blocks[0].Content)
	u := c.uri("x.txt")
	c.writeRaw(frame([]byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + string(u) +
		"\",\"languageId\":\"plaintext\",\"version\":1,\"text\":\"caf\xe9\\n\"}}}")))
	var resolved struct {
		Status ext.EditStatus `json:"status"`
	}
	require.NoError(t, c.request("assistant/resolveEdit", map[string]any{"uri": u, "content": "caf\uFFFD\n", "modelId": "claude"}, &resolved))
	assert.Equal(t, ext.StatusApplied, resolved.Status, "the document holds U+FFFD where the byte was invalid")
}

// TestLargeDelta streams a 2 MB delta in one message: 32 times the transport's read buffer, and
// a push larger than a second of the push bandwidth. (It was 20 MB, which adds nothing but
// JSON encoding: a minute under -race on a busy machine.)
func TestLargeDelta(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	big := strings.Repeat("0123456789abcdef\n", 2<<20/17)
	var res ext.ParseResult
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "big", "delta": big, "final": true}, &res))
	require.Len(t, res.Blocks, 1)
	assert.Equal(t, strings.TrimSpace(big), *res.Blocks[0].Content)
	c.waitFor("the final push", func() bool { return c.final("big") })
}

// TestIncrementalChangeInNegotiatedEncoding sends an incremental didChange whose range is in
// each profile's negotiated encoding, past characters that take a different number of units
// in each, and checks the server's copy through assistant/resolveEdit.
func TestIncrementalChangeInNegotiatedEncoding(t *testing.T) {
	t.Parallel()
	const before, after = "héllo 😀 world\n", "héllo 😀 there\n"
	start := map[string]int{"utf-8": 12, "utf-16": 9, "utf-32": 8}
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile)
			u := c.didOpen("greeting.txt", before)
			col := start[c.encoding()]
			c.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": u, "version": c.version(u) + 1},
				"contentChanges": []map[string]any{{
					"range": map[string]any{"start": map[string]int{"line": 0, "character": col}, "end": map[string]int{"line": 0, "character": col + 5}},
					"text":  "there",
				}},
			})
			var res struct {
				Status ext.EditStatus `json:"status"`
			}
			require.NoError(t, c.request("assistant/resolveEdit", map[string]any{"uri": u, "content": after, "modelId": "claude"}, &res))
			assert.Equal(t, ext.StatusApplied, res.Status, "the server's copy must read %q", after)
		})
	}
}

// TestWireLinkedWorkspaceFolder names the workspace folder through a symbolic link, as macOS does
// for every folder under /tmp: the edit must reach the document under the name the editor opened
// it with, a new file in new folders must be created, and labels must use relative paths.
func TestWireLinkedWorkspaceFolder(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p, withLinkedRoot())
			u := c.didOpen("src/a.go", goSrc)
			streamMessage(c, "m", replaceUse("src/a.go", diff("\treturn 1\n", "\treturn 10\n"))+writeUse("new/dir/b.txt", "hello\n"), 17)
			first, second := waitSettled(c, "m", 0), waitSettled(c, "m", 1)
			require.Equal(t, ext.StatusApplied, first.Status, first.Error)
			require.Equal(t, ext.StatusApplied, second.Status, second.Error)
			assert.Equal(t, u, first.URI)
			assert.Equal(t, strings.Replace(goSrc, "return 1\n", "return 10\n", 1), c.buffer(u))
			assert.Equal(t, c.uri("new/dir/b.txt"), second.URI)
			assert.Equal(t, "hello\n", c.buffer(c.uri("new/dir/b.txt")))
			var labels []string
			for _, raw := range c.applyRequests() {
				var req struct{ Label string }
				require.NoError(t, json.Unmarshal(raw, &req))
				labels = append(labels, req.Label)
			}
			// Edits of different documents may arrive in either order.
			assert.ElementsMatch(t, []string{"replace_in_file src/a.go", "write_to_file new/dir/b.txt"}, labels)
		})
	}
}
