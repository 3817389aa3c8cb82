package lsp

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"golang.org/x/tools/txtar"
)

// recordedEvents reads one recorded stream of provider/testdata: its events and the calls and
// text its source expects.
func recordedEvents(t *testing.T, shape, stream string) ([]json.RawMessage, string, []ext.Block) {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("..", "provider", "testdata", shape+".txtar"))
	require.NoError(t, err)
	var events []json.RawMessage
	var want struct {
		Text  string `json:"text"`
		Calls []struct {
			ID    string         `json:"id"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		} `json:"calls"`
	}
	for _, f := range a.Files {
		switch f.Name {
		case stream + ".jsonl":
			for _, line := range bytes.Split(bytes.TrimSpace(f.Data), []byte("\n")) {
				events = append(events, json.RawMessage(line))
			}
		case stream + ".want.json":
			require.NoError(t, json.Unmarshal(f.Data, &want))
		}
	}
	require.NotEmpty(t, events, "%s has a stream %s", shape, stream)
	var calls []ext.Block
	for _, c := range want.Calls {
		calls = append(calls, ext.Block{Name: c.Name, CallID: c.ID, Input: c.Input})
	}
	return events, want.Text, calls
}

// TestWireProviderEvents forwards recorded streams of every shape as the provider sent them, in
// assistant/parse's event param (as objects, and every other one as a string), the shape named
// or recognised: the blocks carry the text and the tool calls the stream's source expects.
func TestWireProviderEvents(t *testing.T) {
	t.Parallel()
	tests := []struct{ shape, stream string }{
		{"openai-chat", "openai-text"},
		{"openai-responses", "openai-reasoning-encrypted-content.1"},
		{"openai-responses", "openai-custom-tool.1"},
		{"anthropic", "two-messages"},
		{"gemini", "google-stream-tool-call-arguments"},
		{"bedrock", "amazon-bedrock-json-tool-text-then-weather-then-json.1"},
		{"cohere", "cohere-tool-call"},
	}
	for _, tt := range tests {
		for _, named := range []bool{false, true} {
			name := tt.shape + "/" + tt.stream
			if named {
				name += "/named"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				events, text, calls := recordedEvents(t, tt.shape, tt.stream)
				c := newTestClient(t, profileHelix)
				for i, ev := range events {
					p := map[string]any{"stream": "s", "event": ev}
					if i%2 == 1 {
						p["event"] = string(ev)
					}
					if named {
						p["provider"] = tt.shape
					}
					c.notify(ext.MethodParse, p)
				}
				var res ext.ParseResult
				require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "s", "final": true}, &res))
				require.True(t, res.Final)
				var gotText strings.Builder
				var gotCalls []ext.Block
				for _, b := range res.Blocks {
					assert.False(t, b.Partial)
					if b.CallID == "" {
						gotText.WriteString(*b.Content)
						continue
					}
					gotCalls = append(gotCalls, ext.Block{Name: b.Name, CallID: b.CallID, Input: b.Input})
				}
				assert.Equal(t, strings.TrimSpace(text), strings.TrimSpace(gotText.String()))
				assert.Equal(t, calls, gotCalls)
			})
		}
	}
}

// TestWireProviderEventApplies: a Responses API apply_patch_call, forwarded event by event,
// creates its file as the apply_patch tool does.
func TestWireProviderEventApplies(t *testing.T) {
	t.Parallel()
	events, _, calls := recordedEvents(t, "openai-responses", "openai-apply-patch-tool.1")
	c := newTestClient(t, profileVSCode)
	for _, ev := range events {
		c.notify(ext.MethodParse, map[string]any{"stream": "s", "event": ev})
	}
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "final": true})
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, c.uri("shopping-checklist.md"), st.URI)
	diff := calls[0].Input["diff"].(string)
	var want strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		want.WriteString(strings.TrimPrefix(line, "+"))
	}
	assert.Equal(t, want.String(), c.buffer(st.URI))
}

// TestWireProviderEventErrors: an event of no known shape, one out of order, a shape other than
// the stream's, a wrong provider name and event with delta are InvalidParams naming what was
// wrong. Params of the wrong form change nothing; an event refused for what it holds carried a
// part of the message, so its running stream refuses every later delta, as after any refused
// delta (issue 16 item 1). A ping is no refusal.
func TestWireProviderEventErrors(t *testing.T) {
	t.Parallel()
	start := `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hi"}}`
	delta := `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}}`
	for _, tt := range []struct {
		params map[string]any
		want   string
		poison bool // the stream refuses what follows
	}{
		{map[string]any{"event": map[string]any{"what": 1}}, `Anthropic Messages event {"what":1}: type "" is not a Messages stream event`, true},
		{map[string]any{"event": `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}`}, "index 3, which no content_block_start", true},
		{map[string]any{"event": `{"choices":[{"index":0,"delta":{"content":"x"}}]}`}, "but this stream's events are Anthropic Messages events", true},
		{map[string]any{"event": `{"type":"ping"}`, "provider": "gemini"}, "carries anthropic events, not gemini", true},
		{map[string]any{"event": 7}, "is not a JSON object", true},
		{map[string]any{"event": `{"type":"ping"}`, "delta": "x"}, `"event" goes alone`, false},
		{map[string]any{"provider": "anthropic"}, `"event", which is missing`, false},
	} {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, profileHelix)
			require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "s", "event": json.RawMessage(start)}, nil))
			require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "s", "event": `{"type":"ping"}`}, nil))
			tt.params["stream"] = "s"
			err := c.request(ext.MethodParse, tt.params, nil)
			require.Error(t, err, tt.params)
			assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), tt.params)
			assert.Contains(t, err.Error(), tt.want)
			var res ext.ParseResult
			err = c.request(ext.MethodParse, map[string]any{"stream": "s", "event": delta, "final": true}, &res)
			if tt.poison {
				require.Error(t, err)
				assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
				assert.Contains(t, err.Error(), `stream "s" refused an earlier delta (`)
				return
			}
			require.NoError(t, err)
			require.Len(t, res.Blocks, 1)
			assert.Equal(t, "Hi there", *res.Blocks[0].Content)
		})
	}
	for _, tt := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"stream": "u", "event": map[string]any{"what": 1}}, `event {"what":1} is of no known shape`},
		{map[string]any{"stream": "t", "event": `{}`, "provider": "mistral"}, `unknown provider "mistral"`},
		{map[string]any{"stream": "t", "event": `{"type":"response.created","response":{"id":"r"}}`, "provider": "gemini"},
			`"provider": "gemini" does not match this event (openai-responses): leave "provider" out or name the right one`},
	} {
		// The first event of a stream, refused, leaves no stream.
		c := newTestClient(t, profileHelix)
		err := c.request(ext.MethodParse, tt.params, nil)
		require.Error(t, err, tt.params)
		assert.Contains(t, err.Error(), tt.want)
		require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": tt.params["stream"], "event": json.RawMessage(start)}, nil))
	}
}

// TestWireProviderEventRefusedPoisons: a write_to_file streamed as Anthropic events, one of whose
// input_json_delta fragments is refused (partial_json not a string), never applies what its
// other fragments spell: the edit fails, and the fragment after the refused one is refused too
// (issue 16 item 1, through event).
func TestWireProviderEventRefusedPoisons(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	fragment := func(partial any) map[string]any {
		return map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": partial}}
	}
	events := []map[string]any{
		{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": "write_to_file", "input": map[string]any{}}},
		fragment(`{"path": "w.txt", "content": "HEAD `),
	}
	for _, ev := range events {
		require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "s", "event": ev}, nil))
	}
	err := c.request(ext.MethodParse, map[string]any{"stream": "s", "event": fragment(5)}, nil)
	require.Error(t, err)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	err = c.request(ext.MethodParse, map[string]any{"stream": "s", "event": fragment(`TAIL"}`)}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refused an earlier delta")
	st := waitSettled(c, "s", 0)
	assert.Equal(t, ext.StatusFailed, st.Status)
	assert.Contains(t, st.Error, "part of this tool use was refused")
	assert.NoFileExists(t, c.path("w.txt"))
	assert.Empty(t, c.buffer(c.uri("w.txt")))
}
