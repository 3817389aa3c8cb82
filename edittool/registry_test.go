package edittool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegistryNames(t *testing.T) {
	r, err := New(Config{Aliases: []Alias{{Name: "edit_file", Like: "Edit"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"Edit", "MultiEdit", "Write", "edit_file", "editor", "replace_in_file",
		"str_replace_based_edit_tool", "str_replace_editor", "write_to_file"}, r.Names())
	tool, ok := r.Lookup("edit_file")
	require.True(t, ok)
	assert.Equal(t, ClaudeEdit, tool.Kind)
	assert.Equal(t, "file_path", tool.PathKey())
	_, ok = r.Lookup("bash")
	assert.False(t, ok)
}

func TestAliasValidation(t *testing.T) {
	tests := []struct {
		name  string
		alias Alias
		msg   string
	}{
		{name: "empty name", alias: Alias{Like: "Edit"},
			msg: `editTools[0] (""): name is empty; give the tool's name as the model calls it`},
		{name: "built-in name", alias: Alias{Name: "Edit", Like: "Write"},
			msg: `editTools[0] ("Edit"): "Edit" is a built-in edit tool already; aliases need a name of their own`},
		{name: "neither", alias: Alias{Name: "x"},
			msg: `editTools[0] ("x"): give like (a built-in tool whose input it shares) or kind and keys; built-in tools: Edit, MultiEdit, Write, editor, replace_in_file, str_replace_based_edit_tool, str_replace_editor, write_to_file`},
		{name: "both", alias: Alias{Name: "x", Like: "Edit", Kind: "Edit"},
			msg: `editTools[0] ("x"): give either like (same input as a built-in tool) or kind with keys (another input), not both`},
		{name: "unknown kind", alias: Alias{Name: "x", Kind: "patch"},
			msg: `editTools[0] ("x"): "patch" is not a built-in edit tool; use one of: Edit, MultiEdit, Write, editor, replace_in_file, str_replace_based_edit_tool, str_replace_editor, write_to_file`},
		{name: "keys with like", alias: Alias{Name: "x", Like: "Edit", Keys: map[string]string{"f": "file_path"}},
			msg: `editTools[0] ("x"): keys apply only with kind; with like the input is the built-in tool's own`},
		{name: "unknown target", alias: Alias{Name: "x", Kind: "Edit", Keys: map[string]string{"f": "filepath"}},
			msg: `editTools[0] ("x"): keys: "f" maps to "filepath", which Edit's input does not have at that level; its keys there: file_path, old_string, new_string, replace_all`},
		{name: "nested under a non-list", alias: Alias{Name: "x", Kind: "Edit", Keys: map[string]string{"f.g": "old_string"}},
			msg: `editTools[0] ("x"): keys: "f.g" is nested in "f", which is not a list of objects in Edit's input`},
		{name: "two keys onto one", alias: Alias{Name: "x", Kind: "Write", Keys: map[string]string{"a": "content", "b": "content"}},
			msg: `editTools[0] ("x"): keys: "a" and "b" both map to "content"`},
		{name: "empty part", alias: Alias{Name: "x", Kind: "MultiEdit", Keys: map[string]string{"edits.": "old_string"}},
			msg: `editTools[0] ("x"): keys: "edits." has an empty part; write nested keys as list.key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Config{Aliases: []Alias{tt.alias}})
			var se *SettingsError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
	_, err := New(Config{Aliases: []Alias{{Name: "x", Like: "Edit"}, {Name: "x", Like: "Write"}}})
	assert.EqualError(t, err, `editTools[1] ("x"): "x" is defined twice`)
}

func TestDecodeAliases(t *testing.T) {
	as, err := DecodeAliases([]byte(`[{"name": "edit_file", "like": "Edit"}, {"name": "p", "kind": "Write", "keys": {"text": "content"}}]`))
	require.NoError(t, err)
	assert.Equal(t, []Alias{{Name: "edit_file", Like: "Edit"}, {Name: "p", Kind: "Write", Keys: map[string]string{"text": "content"}}}, as)
	_, err = DecodeAliases([]byte(`[{"name": "x", "lik": "Edit"}]`))
	assert.ErrorContains(t, err, `unknown field "lik"`)
	_, err = DecodeAliases([]byte(`{"name": "x"}`))
	assert.ErrorContains(t, err, "expected an array")
}

// A plugin's own tool {filepath, edits: [{oldText, newText}]} mapped onto MultiEdit, called
// both natively and as an XML tool use.
func TestPluginShape(t *testing.T) {
	r, err := New(Config{Aliases: []Alias{{Name: "edit_file", Kind: "MultiEdit", Keys: map[string]string{
		"filepath": "file_path", "edits.oldText": "old_string", "edits.newText": "new_string"}}}})
	require.NoError(t, err)
	tool, _ := r.Lookup("edit_file")
	assert.Equal(t, "filepath", tool.PathKey())
	assert.Equal(t, []string{"filepath", "edits"}, tool.ParamKeys())
	native, err := tool.FromJSON(map[string]any{"filepath": "a.txt", "edits": []any{
		map[string]any{"oldText": "one", "newText": "1"}, map[string]any{"oldText": "two", "newText": "2"}}})
	require.NoError(t, err)
	xml, err := tool.FromParams(map[string]string{"filepath": "a.txt", "edits": `[{"oldText": "one", "newText": "1"}, {"oldText": "two", "newText": "2"}]`})
	require.NoError(t, err)
	for _, c := range []*Call{native, xml} {
		assert.Equal(t, "a.txt", c.Path)
		res, err := c.Apply("one\ntwo\n", true)
		require.NoError(t, err)
		assert.Equal(t, "1\n2\n", res.Content)
		assert.Equal(t, "Applied 2 edits to a.txt", res.Message)
	}
	_, err = tool.FromJSON(map[string]any{"filepath": "a.txt", "edits": []any{map[string]any{"oldText": "one"}}})
	assert.EqualError(t, err, "missing required parameter `edits[0].new_string`; the edit_file tool takes filepath, edits")
}

func TestInputCoercion(t *testing.T) {
	r, err := New(Config{})
	require.NoError(t, err)
	tests := []struct {
		tool   string
		params map[string]string
		args   map[string]any
		msg    string
	}{
		{tool: "editor", params: map[string]string{"path": "a", "new_text": "x", "insert_line": "2"}},
		{tool: "editor", args: map[string]any{"path": "a", "new_text": "x", "insert_line": 2.0, "old_text": nil}},
		{tool: "editor", args: map[string]any{"path": "a", "new_text": "x", "insert_line": 2.5},
			msg: "parameter `insert_line` must be an integer, not 2.5; the editor tool takes path, old_text, new_text, insert_line"},
		{tool: "Edit", params: map[string]string{"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"},
			msg: "parameter `replace_all` must be true or false, not \"yes\"; the Edit tool takes file_path, old_string, new_string, replace_all"},
		{tool: "Write", args: map[string]any{"file_path": "a"},
			msg: "missing required parameter `content`; the Write tool takes file_path, content"},
		{tool: "MultiEdit", params: map[string]string{"file_path": "a", "edits": "not json"},
			msg: "parameter `edits` must be an array of objects, not \"not json\"; the MultiEdit tool takes file_path, edits"},
		{tool: "MultiEdit", args: map[string]any{"file_path": "a", "edits": []any{"x"}},
			msg: "parameter `edits[0]` must be an object, not \"x\"; the MultiEdit tool takes file_path, edits"},
		{tool: "Write", args: map[string]any{"file_path": 3.0, "content": "x"},
			msg: "parameter `file_path` must be a string, not 3; the Write tool takes file_path, content"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.msg, func(t *testing.T) {
			tool, ok := r.Lookup(tt.tool)
			require.True(t, ok)
			var err error
			if tt.params != nil {
				_, err = tool.FromParams(tt.params)
			} else {
				_, err = tool.FromJSON(tt.args)
			}
			if tt.msg == "" {
				require.NoError(t, err)
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, ErrBadInput, e.Code)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
}
