package lsp

import (
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
)

// This file checks what a stream does once one of its deltas was refused (issue 16, item 1):
// the edit it was building fails and never applies, whatever arrives later.

// TestStreamRefusedToolCallFragment streams a write_to_file call whose content passes the
// stream's limit: the fragment past it is refused, and so is every later one, the closing `"}`
// and done included, so that the call cannot end as valid JSON with its middle missing.
func TestStreamRefusedToolCallFragment(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withServerOptions(Options{MaxStreamBytes: 4096}))
	call := func(args string, done bool) error {
		tc := map[string]any{"id": "c1", "name": toolWrite, "arguments": args}
		if done {
			tc["done"] = true
		}
		return c.request(ext.MethodParse, map[string]any{"stream": "s", "toolCall": tc}, nil)
	}
	require.NoError(t, call(`{"path": "a.txt", "content": "`, false))
	var refused int
	for range 6 {
		if err := call(strings.Repeat("x", 1000), false); err != nil {
			assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
			refused++
		}
	}
	require.Equal(t, 2, refused, "fragments 5 and 6 pass the limit")
	err := call(`"}`, true)
	require.Error(t, err, "the closing fragment of a stream with a gap is refused")
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	assert.Contains(t, err.Error(), "Send the message again under a new stream name")
	assert.NotContains(t, err.Error(), `"text"`, "a whole text would drop the stream's calls")
	err = c.request(ext.MethodParse, map[string]any{"stream": "s", "final": true}, nil)
	require.Error(t, err, "final on a stream with a gap is refused: it would complete the edit")

	st := waitSettled(c, "s", 0)
	assert.Equal(t, ext.StatusFailed, st.Status)
	assert.Contains(t, st.Error, "refused")
	_, statErr := os.Stat(c.path("a.txt"))
	assert.True(t, os.IsNotExist(statErr), "nothing is written")
	assert.Empty(t, c.applyRequests())
}

// TestStreamRefusedTextDelta streams a write_to_file in the text whose middle is refused: the
// text after it is refused too, and the edit fails instead of writing the two ends spliced.
// A `text` then starts the stream over, and its edit applies.
func TestStreamRefusedTextDelta(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withServerOptions(Options{MaxStreamBytes: 256}))
	parse := func(params map[string]any) error {
		params["stream"] = "s"
		return c.request(ext.MethodParse, params, nil)
	}
	require.NoError(t, parse(map[string]any{"delta": "<write_to_file>\n<path>a.txt</path>\n<content>\nbegin\n"}))
	err := parse(map[string]any{"delta": strings.Repeat("middle\n", 40)})
	require.Error(t, err)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	assert.Contains(t, err.Error(), "MaxStreamBytes")
	err = parse(map[string]any{"delta": "end\n</content>\n</write_to_file>\n", "final": true})
	require.Error(t, err, "the text after a refused delta is refused")
	assert.Contains(t, err.Error(), `"text"`, "the message says how to start over")

	st := waitSettled(c, "s", 0)
	assert.Equal(t, ext.StatusFailed, st.Status)
	_, statErr := os.Stat(c.path("a.txt"))
	assert.True(t, os.IsNotExist(statErr), "nothing is written")

	require.NoError(t, parse(map[string]any{"text": writeUse("a.txt", "whole\n"), "final": true}))
	c.waitFor("the restarted edit to apply", func() bool { return editStatus(c, "s", 0).Status == ext.StatusApplied })
	assert.Equal(t, "whole\n", c.buffer(c.uri("a.txt")))
}

// TestStreamRefusedFirstDelta checks that a first delta refused once parsed (a tool call
// without an id) leaves no stream behind: the next delta under the name starts one.
func TestStreamRefusedFirstDelta(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	err := c.request(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"name": toolWrite, "arguments": "{}"}}, nil)
	require.Error(t, err)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	var res ext.ParseResult
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "s", "delta": "hello"}, &res))
	require.Len(t, res.Blocks, 1)
	assert.Equal(t, "hello", *res.Blocks[0].Content)
}

// TestStreamTextOnToolCallStream: a whole `text` on a stream that holds native tool calls (and
// refused nothing) is InvalidParams; it neither starts the stream over nor drops its calls,
// whose edit still applies.
func TestStreamTextOnToolCallStream(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	u := c.didOpen("a.go", "package a\n")
	tc := map[string]any{"id": "c1", "name": "Edit", "arguments": `{"file_path": "a.go", "old_string": "package a", "new_string": "package b"}`, "done": true}
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "s", "toolCall": tc}, nil))
	err := c.request(ext.MethodParse, map[string]any{"stream": "s", "text": "", "final": true}, nil)
	require.Error(t, err)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	assert.Contains(t, err.Error(), "native tool calls")
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, "package b\n", c.buffer(u))
	require.Len(t, c.blocks("s"), 1, "the call's block stays")
}
