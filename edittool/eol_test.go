package edittool

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineBreaks runs every edit tool on a document of each line-break style: LF, CRLF, lone CR
// (classic Mac), and mixed. Model text is written with "\n"; it matches whatever breaks the
// document has, the lines the edit does not touch keep their own breaks, and the lines it writes
// get the document's style (its first line break).
func TestLineBreaks(t *testing.T) {
	r, err := New(Config{})
	require.NoError(t, err)
	styles := []struct {
		name   string
		breaks [3]string // after "one", "two" and "three"
	}{
		{"LF", [3]string{"\n", "\n", "\n"}},
		{"CRLF", [3]string{"\r\n", "\r\n", "\r\n"}},
		{"CR", [3]string{"\r", "\r", "\r"}},
		{"mixed", [3]string{"\r\n", "\n", "\r"}},
	}
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string // "\n" for a break the edit writes, "{1}", "{2}", "{3}" for the document's own
	}{
		{"editor replace", "editor", map[string]any{"path": "f", "old_text": "two\nthree", "new_text": "2\n2.5\n3"}, "one{1}2\n2.5\n3{3}"},
		{"editor insert", "editor", map[string]any{"path": "f", "new_text": "x\ny", "insert_line": 2.0}, "one{1}x\ny\ntwo{2}three{3}"},
		{"text editor str_replace", "str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "f", "old_str": "two\nthree", "new_str": "2\n2.5\n3"}, "one{1}2\n2.5\n3{3}"},
		{"text editor insert", "str_replace_based_edit_tool", map[string]any{"command": "insert", "path": "f", "insert_line": 1.0, "new_str": "x\ny"}, "one{1}x\ny\ntwo{2}three{3}"},
		{"Edit", "Edit", map[string]any{"file_path": "f", "old_string": "two\nthree", "new_string": "2\n2.5\n3"}, "one{1}2\n2.5\n3{3}"},
		{"Edit deletes a line", "Edit", map[string]any{"file_path": "f", "old_string": "two", "new_string": ""}, "one{1}three{3}"},
		{"MultiEdit", "MultiEdit", map[string]any{"file_path": "f", "edits": []any{
			map[string]any{"old_string": "one", "new_string": "1\n1.5"},
			map[string]any{"old_string": "three", "new_string": "3"},
		}}, "1\n1.5{1}two{2}3{3}"},
		{"Write", "Write", map[string]any{"file_path": "f", "content": "a\nb\n"}, "a\nb\n"},
		{"write_to_file", "write_to_file", map[string]any{"path": "f", "content": "a\nb\n"}, "a\nb\n"},
		{"replace_in_file", "replace_in_file", map[string]any{"path": "f", "diff": "------- SEARCH\ntwo\nthree\n=======\n2\n2.5\n3\n+++++++ REPLACE\n"}, "one{1}2\n2.5\n3\n"},
	}
	for _, st := range styles {
		doc := "one" + st.breaks[0] + "two" + st.breaks[1] + "three" + st.breaks[2]
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				tool, ok := r.Lookup(tt.tool)
				require.True(t, ok)
				call, err := tool.FromJSON(tt.args)
				require.NoError(t, err)
				res, err := call.Apply(doc, true)
				require.NoError(t, err)
				want := strings.ReplaceAll(tt.want, "\n", st.breaks[0])
				for i, b := range st.breaks {
					want = strings.ReplaceAll(want, "{"+string(rune('1'+i))+"}", b)
				}
				assert.Equal(t, want, res.Content)
			})
		}
	}
}
