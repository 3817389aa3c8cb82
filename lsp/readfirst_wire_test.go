package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolCall is one native tool call of a stream.
type toolCall struct {
	name string
	args map[string]any
}

// sendCalls streams calls as the blocks of one message, each call's arguments whole, then ends
// the stream.
func sendCalls(t *testing.T, c *testClient, stream string, calls ...toolCall) {
	t.Helper()
	for i, call := range calls {
		raw, err := json.Marshal(call.args)
		require.NoError(t, err)
		id := fmt.Sprintf("call-%d", i)
		c.notify(ext.MethodParse, map[string]any{"stream": stream, "toolCall": map[string]any{"id": id, "name": call.name, "arguments": string(raw)}})
		c.notify(ext.MethodParse, map[string]any{"stream": stream, "toolCall": map[string]any{"id": id, "done": true}})
	}
	c.notify(ext.MethodParse, map[string]any{"stream": stream, "final": true})
}

// TestWireRequireRead: with requireRead, an edit of an existing file lands only when a tool use
// before it in its stream read (or edited) the file, as Claude Code requires; otherwise it
// fails with Claude Code's words and the file is unchanged. Creating a file needs no read, and
// without the setting nothing is required.
func TestWireRequireRead(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nconst x = 1\n"
	edit := toolCall{"Edit", map[string]any{"file_path": "a.go", "old_string": "x = 1", "new_string": "x = 2"}}
	edited := strings.Replace(src, "x = 1", "x = 2", 1)
	tests := []struct {
		name    string
		require bool
		calls   []toolCall // the last one is checked
		want    string     // a.go afterwards
		status  ext.EditStatus
		earlier ext.EditStatus // of the earlier edits; applied when empty
	}{
		{name: "not read", require: true, calls: []toolCall{edit}, want: src, status: ext.StatusFailed},
		{name: "off by default", calls: []toolCall{edit}, want: edited, status: ext.StatusApplied},
		{name: "Read first", require: true, calls: []toolCall{{"Read", map[string]any{"file_path": "a.go"}}, edit}, want: edited, status: ext.StatusApplied},
		{name: "read_file first", require: true, calls: []toolCall{{"read_file", map[string]any{"path": "./a.go"}}, edit}, want: edited, status: ext.StatusApplied},
		{name: "view first", require: true, calls: []toolCall{{"str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.go"}}, edit}, want: edited, status: ext.StatusApplied},
		{name: "another file read", require: true, calls: []toolCall{{"Read", map[string]any{"file_path": "b.go"}}, edit}, want: src, status: ext.StatusFailed},
		{
			name: "edited before", require: true,
			calls: []toolCall{
				{"Read", map[string]any{"file_path": "a.go"}},
				{"Edit", map[string]any{"file_path": "a.go", "old_string": "package a", "new_string": "package b"}},
				{"Edit", map[string]any{"file_path": "a.go", "old_string": "x = 1", "new_string": "x = 2"}},
			},
			want: "package b\n\nconst x = 2\n", status: ext.StatusApplied,
		},
		// A refused edit reads nothing: sending it again is refused again, as in Claude Code,
		// which marks a file read only once an edit of it succeeded.
		{name: "retried", require: true, calls: []toolCall{edit, edit}, want: src, status: ext.StatusFailed, earlier: ext.StatusFailed},
		{
			name: "failed edit before", require: true,
			calls: []toolCall{
				{"Edit", map[string]any{"file_path": "a.go", "old_string": "no such text", "new_string": "y"}},
				edit,
			},
			want: src, status: ext.StatusFailed, earlier: ext.StatusFailed,
		},
		{
			name: "written before", require: true,
			calls: []toolCall{
				{"Write", map[string]any{"file_path": "a.go", "content": src}},
				edit,
			},
			want: src, status: ext.StatusFailed, earlier: ext.StatusFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"requireRead": tt.require}))
			u := c.didOpen("a.go", src)
			sendCalls(t, c, "s", tt.calls...)
			for i := range len(tt.calls) - 1 {
				if tt.calls[i].name != "Read" && tt.calls[i].name != "read_file" {
					want := tt.earlier
					if want == "" || tt.calls[i].name == "str_replace_based_edit_tool" {
						// The text editor's view is never refused for want of a read.
						want = ext.StatusApplied
					}
					require.Equal(t, want, waitSettled(c, "s", i).Status, waitSettled(c, "s", i).Error)
				}
			}
			st := waitSettled(c, "s", len(tt.calls)-1)
			require.Equal(t, tt.status, st.Status, st.Error)
			if tt.status == ext.StatusFailed {
				assert.Equal(t, "File has not been read yet. Read it first before writing to it.", st.Error)
				assert.Contains(t, st.ToolResult, st.Error)
			}
			assert.Equal(t, tt.want, c.buffer(u))
		})
	}
}

// TestWireRequireReadCreate: creating a file needs no read.
func TestWireRequireReadCreate(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"requireRead": true}))
	sendCalls(t, c, "s", toolCall{"Write", map[string]any{"file_path": "new.go", "content": "package n\n"}})
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	got := c.buffer(c.uri("new.go"))
	if got == "" {
		got = readFile(t, c.path("new.go"))
	}
	assert.Equal(t, "package n\n", got)
}

// TestWireRequireReadCreatedBefore: a file the stream created (a Write that applied) counts as
// read, so the stream's next edit of it lands.
func TestWireRequireReadCreatedBefore(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"requireRead": true}))
	sendCalls(t, c, "s",
		toolCall{"Write", map[string]any{"file_path": "new.go", "content": "package n\n\nconst x = 1\n"}},
		toolCall{"Edit", map[string]any{"file_path": "new.go", "old_string": "x = 1", "new_string": "x = 2"}},
	)
	require.Equal(t, ext.StatusApplied, waitSettled(c, "s", 0).Status)
	st := waitSettled(c, "s", 1)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	got := c.buffer(c.uri("new.go"))
	if got == "" {
		got = readFile(t, c.path("new.go"))
	}
	assert.Equal(t, "package n\n\nconst x = 2\n", got)
}
