package lsp

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/jsonstream"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/provider"
	"github.com/assistant-ls/assistant-ls/turn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// providerDeltas decodes a JSONL file of provider stream events into assistant/parse params of
// stream, as an agent plugin sends them.
func providerDeltas(t *testing.T, file, stream string) []map[string]any {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var dec provider.Decoder
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		deltas, err := dec.Decode(sc.Bytes())
		require.NoError(t, err)
		for _, d := range deltas {
			out = append(out, parseParams(stream, d))
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// parseParams is the assistant/parse params of one turn.Delta.
func parseParams(stream string, d turn.Delta) map[string]any {
	p := map[string]any{"stream": stream}
	if d.Text != "" {
		p["delta"] = d.Text
	}
	if tc := d.ToolCall; tc != nil {
		call := map[string]any{"id": tc.ID}
		if tc.Name != "" {
			call["name"] = tc.Name
		}
		if tc.Arguments != "" {
			call["arguments"] = tc.Arguments
		}
		if tc.Done {
			call["done"] = true
		}
		p["toolCall"] = call
	}
	if d.Final {
		p["final"] = true
	}
	return p
}

const greetSrc = "package greet\n\nimport \"fmt\"\n\nfunc Greet() {\n\tfmt.Println(\"Hello\")\n}\n"

// TestWireToolCalls streams a message that mixes text and a native tool call, as OpenAI's chat
// completions and Anthropic's messages API send them (arguments split inside escapes and
// surrogate pairs), to every client profile: the blocks carry the call's id, its decoded
// params and its input, and the edit lands.
func TestWireToolCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, tool, callID string
		want                     string
	}{
		{
			name: "openai", file: "../testdata/examples/toolcalls_openai.jsonl", tool: toolReplace, callID: "call_q7PLw2aVHb1cXu8e",
			want: strings.Replace(greetSrc, `"Hello"`, `"Hello, 🚀 world"`, 1),
		},
		{
			name: "anthropic", file: "../testdata/examples/toolcalls_anthropic.jsonl", tool: toolWrite, callID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
			want: "package greet\n\nimport \"fmt\"\n\n// Greet says hello — with a rocket 🚀.\nfunc Greet(name string) {\n\tfmt.Printf(\"Hello, %s \\U0001F680\\n\", name)\n}\n",
		},
	}
	for _, tt := range tests {
		for _, p := range allProfiles {
			t.Run(tt.name+"/"+string(p), func(t *testing.T) {
				c := newTestClient(t, p)
				u := c.didOpen("greet/greet.go", greetSrc)
				deltas := providerDeltas(t, tt.file, "s")
				for _, d := range deltas {
					c.notify(ext.MethodParse, d)
				}
				c.notify(ext.MethodParse, map[string]any{"stream": "s", "final": true})
				st := waitSettled(c, "s", 1)
				require.Equal(t, ext.StatusApplied, st.Status, st.Error)
				blocks := c.blocks("s")
				require.Len(t, blocks, 2)
				assert.Equal(t, ext.BlockText, blocks[0].Type)
				call := blocks[1]
				assert.Equal(t, tt.tool, call.Name)
				assert.Equal(t, tt.callID, call.CallID)
				assert.False(t, call.Partial)
				assert.Equal(t, "greet/greet.go", call.Params["path"])
				assert.Equal(t, call.Params["path"], call.Input["path"])
				assert.Equal(t, tt.want, c.buffer(u))
			})
		}
	}
}

// TestWireToolCallPushesArePrefixes: while a call's arguments stream in small fragments (cut
// inside escapes and surrogate pairs), every push shows the decoded content of a prefix of the
// arguments, growing, and the final input is json.Unmarshal of the whole.
func TestWireToolCallPushesArePrefixes(t *testing.T) {
	t.Parallel()
	content := "line \"one\" \\ 😀 \u00e9\n\ttab\u2028end\n"
	args, err := json.Marshal(map[string]any{"path": "out.txt", "content": content, "n": 3})
	require.NoError(t, err)
	// Escape every non-ASCII rune as \uXXXX, so fragments can split surrogate pairs.
	var ascii strings.Builder
	for _, r := range string(args) {
		switch {
		case r < 0x80:
			ascii.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			ascii.WriteString(jsonEscape(0xD800 + (r >> 10)))
			ascii.WriteString(jsonEscape(0xDC00 + (r & 0x3FF)))
		default:
			ascii.WriteString(jsonEscape(r))
		}
	}
	raw := ascii.String()
	c := newTestClient(t, profileHelix, withServerOptions(Options{pushInterval: 1}))
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "c1", "name": toolWrite}})
	for i := 0; i < len(raw); i += 3 {
		c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "c1", "arguments": raw[i:min(i+3, len(raw))]}})
	}
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "c1", "done": true}, "final": true})
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)

	last := ""
	for _, push := range c.pushes("s") {
		for _, b := range push.Blocks {
			got, ok := b.Params["content"]
			if !ok {
				continue
			}
			require.True(t, strings.HasPrefix(content, got), "pushed content %q is not a prefix of the content", got)
			require.GreaterOrEqual(t, len(got), len(last), "pushed content shrank")
			last = got
		}
	}
	assert.Equal(t, content, last)
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &want))
	assert.Equal(t, want, c.blocks("s")[0].Input)
}

// jsonEscape is the \uXXXX escape of a UTF-16 code unit.
func jsonEscape(u rune) string {
	const hex = "0123456789abcdef"
	return `\u` + string([]byte{hex[u>>12&0xF], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF]})
}

// TestWireToolCallInvalidJSON: arguments that are not valid JSON give a complete block whose
// edit failed with the parse error; the stream goes on.
func TestWireToolCallInvalidJSON(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "c1", "name": toolWrite, "arguments": `{"path": "a.txt", "content": "x"`}})
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "c1", "arguments": `,,}`, "done": true}})
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "delta": "After the call.", "final": true})
	st := waitSettled(c, "s", 0)
	assert.Equal(t, ext.StatusFailed, st.Status)
	assert.Contains(t, st.Error, "not a valid JSON object")
	c.waitFor("the final push", func() bool { return c.final("s") && len(c.blocks("s")) == 2 })
	blocks := c.blocks("s")
	require.Len(t, blocks, 2)
	assert.Equal(t, "After the call.", *blocks[1].Content)
	_, err := os.Stat(c.path("a.txt"))
	assert.True(t, os.IsNotExist(err))
}

// TestWireToolCallPathInAnyKeyOrder streams tool calls whose path comes after other keys, in
// fragments of 3 bytes, those around the path awaited in the client's blocks: no block ever
// names a file while its path is still arriving ("p", "pkg/a.g"), and once the path is whole
// the file is named while the call still streams.
func TestWireToolCallPathInAnyKeyOrder(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n"
	long := strings.Repeat("\t// a comment that keeps the call streaming after its path\n", 4)
	tests := []struct{ name, tool, args string }{
		{"text editor, command first", "str_replace_based_edit_tool",
			`{"command":"str_replace","path":"pkg/a.go","old_str":"\treturn 1\n","new_str":` + jsonString(long+"\treturn 2\n") + `}`},
		{"replace_in_file, path before the diff", toolReplace,
			`{"path":"pkg/a.go","diff":` + jsonString("------- SEARCH\n\treturn 1\n=======\n"+long+"\treturn 2\n+++++++ REPLACE\n") + `}`},
		{"text editor, path last", "str_replace_based_edit_tool",
			`{"command":"str_replace","old_str":"\treturn 1\n","new_str":` + jsonString(long+"\treturn 2\n") + `,"path":"pkg/a.go"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, profileVSCode)
			u := c.didOpen("pkg/a.go", src)
			c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "call-1", "name": tt.tool}})
			// Only the fragments around the path are awaited, which is where a wrong name shows.
			from := strings.Index(tt.args, `"path"`) - 3
			to := from + len(`"path":"pkg/a.go"`) + 9
			var args jsonstream.Parser
			for at := 0; at < len(tt.args); at += 3 {
				frag := tt.args[at:min(at+3, len(tt.args))]
				c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "call-1", "arguments": frag}})
				args.Append(frag)
				if at < from || at > to {
					continue
				}
				want := maps.Clone(args.Params())
				c.waitFor("the fragment's block", func() bool {
					b := c.blocks("s")
					return len(b) == 1 && (len(want) == 0 || maps.Equal(want, b[0].Params))
				})
				if edit := c.blocks("s")[0].Edit; edit != nil && edit.URI != "" {
					require.Equal(t, u, edit.URI, "a block names a file from a path still arriving, at %q", tt.args[:at+len(frag)])
				}
			}
			if !strings.HasSuffix(tt.args, `"path":"pkg/a.go"}`) {
				c.waitFor("the file named while the call streams", func() bool {
					b := c.blocks("s")
					return len(b) == 1 && b[0].Partial && b[0].Edit != nil && b[0].Edit.URI == u
				})
			}
			c.notify(ext.MethodParse, map[string]any{"stream": "s", "toolCall": map[string]any{"id": "call-1", "done": true}, "final": true})
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, u, st.URI)
			assert.Equal(t, strings.Replace(src, "\treturn 1\n", long+"\treturn 2\n", 1), c.buffer(u))
		})
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
