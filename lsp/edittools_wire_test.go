package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sendCall streams one native tool call with args as its JSON arguments, in fragments of 7
// bytes, then ends the stream.
func sendCall(t *testing.T, c *testClient, stream, name string, args any) {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	c.notify(ext.MethodParse, map[string]any{"stream": stream, "toolCall": map[string]any{"id": "call-1", "name": name}})
	for s := string(raw); s != ""; {
		n := min(7, len(s))
		c.notify(ext.MethodParse, map[string]any{"stream": stream, "toolCall": map[string]any{"id": "call-1", "arguments": s[:n]}})
		s = s[n:]
	}
	c.notify(ext.MethodParse, map[string]any{"stream": stream, "toolCall": map[string]any{"id": "call-1", "done": true}, "final": true})
}

// TestWireEditTools runs every edit tool of contract section 4b, as a native tool call, for
// every client profile: each lands exactly as its reference tool would edit the file, or fails
// with the reference tool's words.
func TestWireEditTools(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	tests := []struct {
		name     string
		settings map[string]any
		tool     string
		args     map[string]any
		file     string // the file edited; "a.go" (open, holding src) unless set
		want     string // the file afterwards; "" when the edit fails
		status   ext.EditStatus
		errHas   string
	}{
		{
			name: "Cline SDK editor replace", tool: "editor",
			args: map[string]any{"path": "a.go", "old_text": "func A() int {\n\treturn 1", "new_text": "func A() int {\n\treturn 10"},
			want: strings.Replace(src, "return 1", "return 10", 1), status: ext.StatusApplied,
		},
		{
			name: "Cline SDK editor creates a missing file", tool: "editor", file: "new/b.go",
			args: map[string]any{"path": "new/b.go", "new_text": "package b\n"},
			want: "package b\n", status: ext.StatusApplied,
		},
		{
			name: "text editor str_replace", tool: "str_replace_based_edit_tool",
			args: map[string]any{"command": "str_replace", "path": "a.go", "old_str": "func B() int {\n\treturn 1", "new_str": "func B() int {\n\treturn 2"},
			want: strings.Replace(src, "B() int {\n\treturn 1", "B() int {\n\treturn 2", 1), status: ext.StatusApplied,
		},
		{
			name: "text editor str_replace that is not unique", tool: "str_replace_editor",
			args:   map[string]any{"command": "str_replace", "path": "a.go", "old_str": "\treturn 1\n", "new_str": "\treturn 3\n"},
			status: ext.StatusFailed, errHas: "Multiple occurrences of old_str",
		},
		{
			name: "text editor insert", tool: "str_replace_based_edit_tool",
			args: map[string]any{"command": "insert", "path": "a.go", "insert_line": 1, "new_str": "// Package a."},
			want: "package a\n// Package a.\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n", status: ext.StatusApplied,
		},
		{
			name: "Claude Code Edit replace_all", tool: "Edit",
			args: map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 7", "replace_all": true},
			want: strings.ReplaceAll(src, "return 1", "return 7"), status: ext.StatusApplied,
		},
		{
			name: "Claude Code Edit not found", tool: "Edit",
			args:   map[string]any{"file_path": "a.go", "old_string": "return 99", "new_string": "return 7"},
			status: ext.StatusFailed, errHas: "String to replace not found in file.",
		},
		{
			name: "Claude Code MultiEdit, all or nothing", tool: "MultiEdit",
			args: map[string]any{"file_path": "a.go", "edits": []any{
				map[string]any{"old_string": "func A", "new_string": "func AA"},
				map[string]any{"old_string": "func B", "new_string": "func BB"},
			}},
			want: strings.NewReplacer("func A", "func AA", "func B", "func BB").Replace(src), status: ext.StatusApplied,
		},
		{
			name: "Claude Code Write", tool: "Write",
			args: map[string]any{"file_path": "a.go", "content": "package a\n"},
			want: "package a\n", status: ext.StatusApplied,
		},
		{
			name: "a plugin's own tool through editTools", tool: "edit_file",
			settings: map[string]any{"editTools": []any{map[string]any{
				"name": "edit_file", "kind": "MultiEdit",
				"keys": map[string]any{"filepath": "file_path", "edits.oldText": "old_string", "edits.newText": "new_string"},
			}}},
			args: map[string]any{"filepath": "a.go", "edits": []any{map[string]any{"oldText": "func A", "newText": "func Alpha"}}},
			want: strings.Replace(src, "func A", "func Alpha", 1), status: ext.StatusApplied,
		},
	}
	for _, tt := range tests {
		for _, p := range allProfiles {
			t.Run(tt.name+"/"+string(p), func(t *testing.T) {
				var opts []clientOption
				if tt.settings != nil {
					opts = append(opts, withInitOptions(tt.settings))
				}
				c := newTestClient(t, p, opts...)
				c.didOpen("a.go", src)
				sendCall(t, c, "s", tt.tool, tt.args)
				st := waitSettled(c, "s", 0)
				require.Equal(t, tt.status, st.Status, st.Error)
				if tt.errHas != "" {
					assert.Contains(t, st.Error, tt.errHas)
					assert.Equal(t, src, c.buffer(c.uri("a.go")))
					return
				}
				file := tt.file
				if file == "" {
					file = "a.go"
				}
				got := c.buffer(c.uri(file))
				if got == "" {
					got = readFile(t, c.path(file))
				}
				assert.Equal(t, tt.want, got)
				assert.NotEmpty(t, st.ToolResult)
			})
		}
	}
}

// TestWireEditToolAsXML: an edit tool's name works as an XML tool use too, params and all.
func TestWireEditToolAsXML(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	u := c.didOpen("a.go", "package a\n\nconst x = 1\n")
	msg := "Changing x.\n<str_replace_based_edit_tool>\n<command>str_replace</command>\n<path>a.go</path>\n" +
		"<old_str>const x = 1</old_str>\n<new_str>const x = 2</new_str>\n</str_replace_based_edit_tool>\n"
	streamMessage(c, "s", msg, 16)
	st := waitSettled(c, "s", 1)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, "package a\n\nconst x = 2\n", c.buffer(u))
}

// readFile returns the content of a file on disk, "" when it does not exist.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(data)
}

// TestWireToolCallWrongTypes: a native tool call whose field holds a JSON value of the wrong
// type (a number, null, a boolean, an object where a string belongs) fails, naming the field,
// and nothing is created or sent: the field's compact JSON text is never taken for a path or a
// content.
func TestWireToolCallWrongTypes(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nconst x = 1\n"
	diff := "------- SEARCH\nconst x = 1\n=======\nconst x = 2\n+++++++ REPLACE\n"
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		field string
	}{
		{"write path number", toolWrite, map[string]any{"path": 123, "content": "x\n"}, "path"},
		{"write path null", toolWrite, map[string]any{"path": nil, "content": "x\n"}, "path"},
		{"write path true", toolWrite, map[string]any{"path": true, "content": "x\n"}, "path"},
		{"write path object", toolWrite, map[string]any{"path": map[string]any{"p": "a.txt"}, "content": "x\n"}, "path"},
		{"write content number", toolWrite, map[string]any{"path": "n.txt", "content": 42}, "content"},
		{"replace diff object", toolReplace, map[string]any{"path": "a.go", "diff": map[string]any{"x": 1}}, "diff"},
		{"replace path number", toolReplace, map[string]any{"path": 1, "diff": diff}, "path"},
		{"patch input number", toolPatch, map[string]any{"input": 7}, "input"},
		{"patch operation path", toolPatch, map[string]any{"type": "create_file", "path": 5, "diff": "+x\n"}, "path"},
		{"Write file_path number", "Write", map[string]any{"file_path": 9, "content": "x\n"}, "file_path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, profileVSCode)
			u := c.didOpen("a.go", src)
			sendCall(t, c, "s", tt.tool, tt.args)
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusFailed, st.Status, st.Error)
			assert.Contains(t, st.Error, "`"+tt.field+"` must be a string")
			assert.Empty(t, c.applyRequests())
			assert.Equal(t, src, c.buffer(u))
			entries, err := os.ReadDir(c.root)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			assert.Equal(t, []string{"a.go"}, names, "nothing created")
		})
	}
}

// TestWireReplaceWithoutSections: a replace_in_file whose diff is empty or holds no
// SEARCH/REPLACE block changed nothing; it fails saying what a diff looks like, never reports
// applied, as a tool use in the text and as a native call.
func TestWireReplaceWithoutSections(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nconst x = 1\n"
	for _, tt := range []struct {
		name, diff, errHas string
	}{
		{"empty", "", "the diff is empty"},
		{"prose", "change x to 2\nconst x = 2\n", "holds no SEARCH/REPLACE block"},
		{"unified diff", "@@ -3 +3 @@\n-const x = 1\n+const x = 2\n", "holds no SEARCH/REPLACE block"},
	} {
		for _, native := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/native=%v", tt.name, native), func(t *testing.T) {
				t.Parallel()
				c := newTestClient(t, profileVSCode)
				u := c.didOpen("a.go", src)
				if native {
					sendCall(t, c, "s", toolReplace, map[string]any{"path": "a.go", "diff": tt.diff})
				} else {
					streamMessage(c, "s", "<replace_in_file>\n<path>a.go</path>\n<diff>\n"+tt.diff+"</diff>\n</replace_in_file>\n", 16)
					c.notify(ext.MethodParse, map[string]any{"stream": "s", "final": true})
				}
				st := waitSettled(c, "s", 0)
				require.Equal(t, ext.StatusFailed, st.Status, st.Error)
				assert.Contains(t, st.Error, tt.errHas)
				assert.Contains(t, st.Error, "------- SEARCH")
				assert.Contains(t, st.Error, "+++++++ REPLACE")
				assert.Empty(t, c.applyRequests())
				assert.Equal(t, src, c.buffer(u))
			})
		}
	}
}

// TestWireEditToolLineBreaks: every edit tool edits an open document whatever its line breaks
// (LF, CRLF, lone CR, mixed), as replace_in_file does: the text the model writes with "\n"
// matches, untouched lines keep their breaks, and the written ones take the document's style.
func TestWireEditToolLineBreaks(t *testing.T) {
	t.Parallel()
	styles := map[string][3]string{
		"LF":                      {"\n", "\n", "\n"},
		"CRLF":                    {"\r\n", "\r\n", "\r\n"},
		"CR":                      {"\r", "\r", "\r"},
		"mixed":                   {"\r\n", "\n", "\r"},
		"mixed, a lone CR inside": {"\r\n", "\r", "\n"},
	}
	calls := []struct {
		name string
		tool string
		args map[string]any
		last bool // the call's text takes the last line's break too: it is written anew
	}{
		{"Edit", "Edit", map[string]any{"file_path": "a.txt", "old_string": "two\nthree", "new_string": "2\n2.5\n3"}, false},
		{"str_replace", "str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "two\nthree", "new_str": "2\n2.5\n3"}, false},
		{"editor", "editor", map[string]any{"path": "a.txt", "old_text": "two\nthree", "new_text": "2\n2.5\n3"}, false},
		{"MultiEdit", "MultiEdit", map[string]any{"file_path": "a.txt", "edits": []any{map[string]any{"old_string": "two\nthree", "new_string": "2\n2.5\n3"}}}, false},
		{"replace_in_file", toolReplace, map[string]any{"path": "a.txt", "diff": "------- SEARCH\ntwo\nthree\n=======\n2\n2.5\n3\n+++++++ REPLACE\n"}, true},
	}
	for name, b := range styles {
		for _, call := range calls {
			t.Run(name+"/"+call.name, func(t *testing.T) {
				t.Parallel()
				c := newTestClient(t, profileVSCode)
				u := c.didOpen("a.txt", "one"+b[0]+"two"+b[1]+"three"+b[2])
				sendCall(t, c, "s", call.tool, call.args)
				st := waitSettled(c, "s", 0)
				require.Equal(t, ext.StatusApplied, st.Status, st.Error)
				last := b[2]
				if call.last {
					last = b[0]
				}
				assert.Equal(t, "one"+b[0]+"2"+b[0]+"2.5"+b[0]+"3"+last, c.buffer(u))
			})
		}
	}
}
