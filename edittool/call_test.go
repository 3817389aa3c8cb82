package edittool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assistant-ls/assistant-ls/apply"
)

func TestApply(t *testing.T) {
	r, err := New(Config{})
	require.NoError(t, err)
	const file = "one\ntwo\nthree\n"
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		missing bool   // the file does not exist
		content string // the file's content, when not file
		want    Result
		code    Code
		msg     string
	}{
		// Cline SDK editor.
		{name: "editor replace", tool: "editor", args: map[string]any{"path": "f", "old_text": "two", "new_text": "2"},
			want: Result{Content: "one\n2\nthree\n", Tiers: []apply.MatchTier{apply.TierExact}, Matches: []int{4}, Message: "Edited f"}},
		{name: "editor not found", tool: "editor", args: map[string]any{"path": "f", "old_text": "four", "new_text": "4"},
			code: ErrNoMatch, msg: "No replacement performed: text not found in f.\nNo similar text was found; read the file again before editing it."},
		{name: "editor ambiguous", tool: "editor", args: map[string]any{"path": "f", "old_text": "o", "new_text": "0"}, content: "o\nx\no\n",
			code: ErrAmbiguous, msg: "No replacement performed: multiple occurrences of text found in f.\nIt occurs 2 times, starting on lines 1, 3; include more of the surrounding text in old_text so that it matches once."},
		{name: "editor no old_text", tool: "editor", args: map[string]any{"path": "f", "new_text": "x"},
			code: ErrBadInput, msg: "Parameter `old_text` is required when editing an existing file without `insert_line`"},
		{name: "editor insert out of range", tool: "editor", args: map[string]any{"path": "f", "new_text": "x", "insert_line": 0.0},
			code: ErrBadInput, msg: "Invalid insert_line: 0. insert_line must be a positive one-based boundary line in the range 1-5. Use 5 to append at EOF."},
		{name: "editor insert missing file", tool: "editor", args: map[string]any{"path": "f", "new_text": "x", "insert_line": 1.0}, missing: true,
			code: ErrFileMissing, msg: "File not found: f"},
		{name: "editor insert at top", tool: "editor", args: map[string]any{"path": "f", "new_text": "zero", "insert_line": 1.0},
			want: Result{Content: "zero\none\ntwo\nthree\n", Matches: []int{0}, Message: "Inserted content at line 1 in f."}},
		{name: "editor creates", tool: "editor", args: map[string]any{"path": "f", "old_text": "x", "new_text": "new"}, missing: true,
			want: Result{Content: "new", Create: true, Whole: true, Message: "File created successfully at: f"}},

		// Anthropic text editor.
		{name: "text editor view", tool: "str_replace_based_edit_tool", args: map[string]any{"command": "view", "path": "f"},
			want: Result{Content: file, NoEdit: true}},
		{name: "text editor str_replace", tool: "str_replace_based_edit_tool", args: map[string]any{"command": "str_replace", "path": "f", "old_str": "three\n"},
			want: Result{Content: "one\ntwo\n", Tiers: []apply.MatchTier{apply.TierExact}, Matches: []int{8}, Message: "The file f has been edited."}},
		{name: "text editor create exists", tool: "str_replace_editor", args: map[string]any{"command": "create", "path": "f", "file_text": "x"},
			code: ErrFileExists, msg: "File already exists at: f. Cannot overwrite files using command `create`."},
		{name: "text editor create", tool: "str_replace_editor", args: map[string]any{"command": "create", "path": "f", "file_text": "x\n"}, missing: true,
			want: Result{Content: "x\n", Create: true, Whole: true, Message: "File created successfully at: f"}},
		{name: "text editor create without text", tool: "str_replace_editor", args: map[string]any{"command": "create", "path": "f"}, missing: true,
			code: ErrBadInput, msg: "Parameter `file_text` is required for command: create"},
		{name: "text editor missing path", tool: "str_replace_editor", args: map[string]any{"command": "str_replace", "path": "f", "old_str": "a"}, missing: true,
			code: ErrFileMissing, msg: "The path f does not exist. Please provide a valid path."},
		{name: "text editor insert range", tool: "str_replace_editor", args: map[string]any{"command": "insert", "path": "f", "insert_line": 9.0, "new_str": "x"},
			code: ErrBadInput, msg: "Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]"},
		{name: "text editor insert at top", tool: "str_replace_editor", args: map[string]any{"command": "insert", "path": "f", "insert_line": 0.0, "new_str": "zero"},
			want: Result{Content: "zero\none\ntwo\nthree\n", Matches: []int{0}, Message: "The file f has been edited."}},
		{name: "text editor insert with new_str and a different insert_text", tool: "str_replace_based_edit_tool",
			args: map[string]any{"command": "insert", "path": "f", "insert_line": 0.0, "new_str": "zero", "insert_text": "nil"},
			code: ErrBadInput, msg: "Parameters `new_str` and `insert_text` both give the text to insert, and they differ; send only one of them (`new_str`, the name the tool defines)."},
		{name: "text editor insert with the same text twice", tool: "str_replace_based_edit_tool",
			args: map[string]any{"command": "insert", "path": "f", "insert_line": 0.0, "new_str": "zero", "insert_text": "zero"},
			want: Result{Content: "zero\none\ntwo\nthree\n", Matches: []int{0}, Message: "The file f has been edited."}},
		{name: "text editor insert with insert_text", tool: "str_replace_based_edit_tool",
			args: map[string]any{"command": "insert", "path": "f", "insert_line": 0.0, "insert_text": "zero"},
			want: Result{Content: "zero\none\ntwo\nthree\n", Matches: []int{0}, Message: "The file f has been edited."}},
		{name: "text editor insert without new_str", tool: "str_replace_editor", args: map[string]any{"command": "insert", "path": "f", "insert_line": 0.0},
			code: ErrBadInput, msg: "Parameter `new_str` is required for command: insert"},
		{name: "text editor undo", tool: "str_replace_editor", args: map[string]any{"command": "undo_edit", "path": "f"},
			code: ErrUnsupported, msg: "No edit history found for f.\nThis editor keeps no undo history; make the reverse change with str_replace."},
		{name: "undo is not a command of the newer tool", tool: "str_replace_based_edit_tool", args: map[string]any{"command": "undo_edit", "path": "f"},
			code: ErrBadInput, msg: "Unrecognized command undo_edit. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert"},
		{name: "text editor empty old_str", tool: "str_replace_editor", args: map[string]any{"command": "str_replace", "path": "f", "old_str": ""},
			code: ErrBadInput, msg: "Parameter `old_str` must not be empty for command: str_replace; give the exact text to replace."},

		// Claude Code.
		{name: "Edit same strings", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "a", "new_string": "a"},
			code: ErrNoChange, msg: "No changes to make: old_string and new_string are exactly the same."},
		{name: "Edit missing file", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "a", "new_string": "b"}, missing: true,
			code: ErrFileMissing, msg: "File does not exist."},
		{name: "Edit creates", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "", "new_string": "b\n"}, missing: true,
			want: Result{Content: "b\n", Create: true, Whole: true, Tiers: []apply.MatchTier{apply.TierEmpty}, Message: "File created successfully at: f"}},
		{name: "Edit empty old_string on a file with content", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "", "new_string": "b"},
			code: ErrFileExists, msg: "Cannot create new file - file already exists."},
		{name: "Edit empty old_string on an empty file", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "", "new_string": "b"}, content: " \n",
			want: Result{Content: "b", Whole: true, Tiers: []apply.MatchTier{apply.TierEmpty}, Message: "The file f has been updated successfully."}},
		{name: "Edit replace_all", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "o", "new_string": "0", "replace_all": true}, content: "o\nxo\n",
			want: Result{Content: "0\nx0\n", Tiers: []apply.MatchTier{apply.TierExact, apply.TierExact}, Matches: []int{0, 3}, Message: "The file f has been updated successfully."}},
		{name: "Edit CRLF offsets", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "two", "new_string": "2"}, content: "one\r\ntwo\r\n",
			want: Result{Content: "one\r\n2\r\n", Tiers: []apply.MatchTier{apply.TierExact}, Matches: []int{5}, Message: "The file f has been updated successfully."}},
		{name: "MultiEdit empty", tool: "MultiEdit", args: map[string]any{"file_path": "f", "edits": []any{}},
			code: ErrBadInput, msg: "`edits` is empty; give at least one {old_string, new_string} edit."},
		{name: "MultiEdit old in previous new", tool: "MultiEdit", args: map[string]any{"file_path": "f", "edits": []any{
			map[string]any{"old_string": "one", "new_string": "uno"}, map[string]any{"old_string": "uno", "new_string": "eins"}}},
			code: ErrBadInput, msg: "Cannot edit file: old_string is a substring of a new_string from a previous edit.\nThis was edit 2 of 2; none of the edits was applied."},
		{name: "Edit that changes nothing", tool: "Edit", args: map[string]any{"file_path": "f", "old_string": "\"a\"", "new_string": "“a”"}, content: "“a”\n",
			code: ErrNoChange, msg: "Original and edited file match exactly. Failed to apply edit."},
		// Claude Code refuses this too: every later old_string lies in the created text.
		{name: "MultiEdit creates then edits", tool: "MultiEdit", args: map[string]any{"file_path": "f", "edits": []any{
			map[string]any{"old_string": "", "new_string": "a b\n"}, map[string]any{"old_string": "b", "new_string": "c"}}}, missing: true,
			code: ErrBadInput, msg: "Cannot edit file: old_string is a substring of a new_string from a previous edit.\nThis was edit 2 of 2; none of the edits was applied."},
		{name: "MultiEdit creates", tool: "MultiEdit", args: map[string]any{"file_path": "f", "edits": []any{
			map[string]any{"old_string": "", "new_string": "a\n"}}}, missing: true,
			want: Result{Content: "a\n", Create: true, Whole: true, Tiers: []apply.MatchTier{apply.TierEmpty}, Message: "File created successfully at: f"}},
		{name: "MultiEdit later empty old_string", tool: "MultiEdit", args: map[string]any{"file_path": "f", "edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"}, map[string]any{"old_string": "", "new_string": "x"}}},
			code: ErrBadInput, msg: "old_string is empty; only the first edit may have an empty old_string, to create a new file.\nThis was edit 2 of 2; none of the edits was applied."},
		{name: "MultiEdit ambiguous second edit", tool: "MultiEdit", args: map[string]any{"file_path": "f", "edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"}, map[string]any{"old_string": "t", "new_string": "T"}}},
			code: ErrAmbiguous, msg: "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: t\nThis was edit 2 of 2; none of the edits was applied."},
		{name: "Write creates", tool: "Write", args: map[string]any{"file_path": "f", "content": "x"}, missing: true,
			want: Result{Content: "x", Create: true, Whole: true, Message: "File created successfully at: f"}},
		{name: "Write replaces", tool: "Write", args: map[string]any{"file_path": "f", "content": "x"},
			want: Result{Content: "x", Whole: true, Message: "The file f has been updated successfully."}},

		// Cline.
		{name: "write_to_file", tool: "write_to_file", args: map[string]any{"path": "f", "content": "x"},
			want: Result{Content: "x", Whole: true}},
		{name: "replace_in_file no match", tool: "replace_in_file", args: map[string]any{"path": "f", "diff": "------- SEARCH\ntwo!\n=======\n2\n+++++++ REPLACE\n"},
			code: ErrNoMatch},
		{name: "replace_in_file malformed", tool: "replace_in_file", args: map[string]any{"path": "f", "diff": "=======\n+++++++ REPLACE\n"},
			code: ErrBadInput},
		{name: "replace_in_file without markers", tool: "replace_in_file", args: map[string]any{"path": "f", "diff": "two -> 2\n"},
			code: ErrBadInput, msg: "the diff holds no SEARCH/REPLACE block, so it changes nothing; a diff is one or more SEARCH/REPLACE blocks, each:\n------- SEARCH\n[the exact lines of the file to change]\n=======\n[the lines to put in their place]\n+++++++ REPLACE"},
		{name: "replace_in_file empty diff", tool: "replace_in_file", args: map[string]any{"path": "f", "diff": ""},
			code: ErrBadInput, msg: "the diff is empty, so it changes nothing; a diff is one or more SEARCH/REPLACE blocks, each:\n------- SEARCH\n[the exact lines of the file to change]\n=======\n[the lines to put in their place]\n+++++++ REPLACE"},
		{name: "replace_in_file creates", tool: "replace_in_file", args: map[string]any{"path": "f", "diff": "------- SEARCH\n=======\nnew\n+++++++ REPLACE\n"}, missing: true,
			want: Result{Content: "new\n", Create: true, Tiers: []apply.MatchTier{apply.TierEmpty}, Matches: []int{0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, ok := r.Lookup(tt.tool)
			require.True(t, ok)
			call, err := tool.FromJSON(tt.args)
			require.NoError(t, err)
			content := tt.content
			if content == "" {
				content = file
			}
			got, err := call.Apply(content, !tt.missing)
			if tt.code != "" {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, tt.code, e.Code)
				if tt.msg != "" {
					assert.Equal(t, tt.msg, err.Error())
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestErrorDetails(t *testing.T) {
	r, err := New(Config{})
	require.NoError(t, err)
	tool, _ := r.Lookup("Edit")
	call, err := tool.FromJSON(map[string]any{"file_path": "f", "old_string": "x", "new_string": "y"})
	require.NoError(t, err)
	_, err = call.Apply("x\na\nx\nx\n", true)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 3, e.Count)
	assert.Equal(t, []int{1, 3, 4}, e.Lines)

	// The hint's offsets are the CRLF original's.
	call, err = tool.FromJSON(map[string]any{"file_path": "f", "old_string": "b\nc", "new_string": "y"})
	require.NoError(t, err)
	_, err = call.Apply("a\r\n  b\r\n  c\r\n", true)
	require.ErrorAs(t, err, &e)
	require.NotNil(t, e.Nearest)
	assert.Equal(t, []int{2, 3, 3, 13}, []int{e.Nearest.StartLine, e.Nearest.EndLine, e.Nearest.Start, e.Nearest.End})

	rif, _ := r.Lookup("replace_in_file")
	call, err = rif.FromJSON(map[string]any{"path": "f", "diff": "------- SEARCH\nfunc b() {\n=======\n+++++++ REPLACE\n"})
	require.NoError(t, err)
	_, err = call.Apply("func a() {\n}\nfunc bb() {\n}\n", true)
	require.ErrorAs(t, err, &e)
	var ae *apply.Error
	require.ErrorAs(t, err, &ae)
	require.NotNil(t, e.Nearest)
	assert.Equal(t, 3, e.Nearest.StartLine)
}

func TestStringFields(t *testing.T) {
	for _, tt := range []struct {
		name string
		args map[string]any
		msg  string
	}{
		{"strings", map[string]any{"path": "a", "content": ""}, ""},
		{"absent", map[string]any{"path": "a"}, ""},
		{"number", map[string]any{"path": 123.0, "content": "x"}, "parameter `path` must be a string, not 123; the write_to_file tool takes path, content"},
		{"null", map[string]any{"path": nil}, "parameter `path` must be a string, not null; the write_to_file tool takes path, content"},
		{"boolean", map[string]any{"path": "a", "content": true}, "parameter `content` must be a string, not true; the write_to_file tool takes path, content"},
		{"object", map[string]any{"path": map[string]any{"p": "a"}}, "parameter `path` must be a string, not an object; the write_to_file tool takes path, content"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := StringFields("write_to_file", tt.args, "path", "content")
			if tt.msg == "" {
				assert.NoError(t, err)
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, ErrBadInput, e.Code)
			assert.Equal(t, tt.msg, e.Error())
		})
	}
}
