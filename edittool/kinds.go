// Package edittool gives the edit tools that agents call (Cline's, the Cline SDK's editor,
// Anthropic's text editor, Claude Code's Edit, MultiEdit and Write) one shape: a registry of
// tools by name, each reading its input from a native tool call's JSON object or from an XML tool
// use's string parameters, naming its target path, and computing the target's new content from
// its current content with the reference tool's own semantics and error wording.
//
// Where a reference tool's behaviour would lose or corrupt text, this package departs from it,
// and the doc comment of the Kind says so. Every departure keeps the result a model expects.
package edittool

import "github.com/assistant-ls/assistant-ls/apply"

// Kind is the semantics of a built-in edit tool, named by the tool's canonical name.
//
// Every kind handles line breaks alike (package internal/eol): the file is matched and edited
// with each of its breaks ("\r\n", a lone "\r", "\n") read as "\n", so that text the model
// writes with "\n" matches a CRLF, classic Mac (CR) or mixed file; the lines an edit does not
// touch keep their own breaks, and the breaks it writes take the file's style (its first
// break). A whole-content write to an existing file takes that style too.
type Kind string

// The built-in kinds.
const (
	// ReplaceInFile is Cline's replace_in_file {path, diff}: the SEARCH/REPLACE diff applied by
	// package apply, in final mode, with the registry's diff version, on the file read with "\n"
	// breaks (see Kind; the server's own replace_in_file reads only lone CRs so). A missing file is an empty
	// original, so a diff whose only SEARCH section is empty creates it.
	ReplaceInFile Kind = "replace_in_file"
	// WriteToFile is Cline's write_to_file {path, content}: the content as given. Cline's
	// clean-up of written content (fences, model fixes, a final line break) is the caller's, as
	// for the XML tool use.
	WriteToFile Kind = "write_to_file"
	// Editor is the Cline SDK's editor {path, old_text?, new_text, insert_line?}. With
	// insert_line (one-based, 1 to lines+1, as the SDK reads it) new_text is inserted so that
	// it begins at that line; otherwise a missing file is created with new_text, and an existing
	// one has its only occurrence of old_text replaced. Beyond the SDK, line breaks are
	// normalised (see Kind); new_text is inserted literally (JavaScript's "$&" patterns,
	// which the SDK's String.replace expands, are not).
	Editor Kind = "editor"
	// TextEditor is Anthropic's text editor tool (str_replace_based_edit_tool, and its older
	// name str_replace_editor) {command, path, old_str?, new_str?, file_text?, insert_line?}
	// as Anthropic's reference implementation runs it: str_replace replaces the only occurrence
	// of old_str, insert puts new_str after line insert_line (0 is the top; the text may come
	// as insert_text instead, which Claude sends with text_editor_20250728 though the reference
	// reads new_str: anthropic-sdk-python issue 1155), create writes a new
	// file and refuses an existing one, view edits nothing, and undo_edit (str_replace_editor
	// only) fails, as there is no edit history to undo. Unlike the reference, tabs are not
	// expanded to spaces across the file, line breaks are normalised (see Kind), and the lines reported for an
	// ambiguous old_str are where each occurrence starts.
	TextEditor Kind = "str_replace_based_edit_tool"
	// ClaudeEdit is Claude Code's Edit {file_path, old_string, new_string, replace_all?}:
	// old_string must occur once unless replace_all; curly quotes in the file match straight
	// ones in old_string; deleting text (an empty new_string) also takes the line break after
	// it; an empty old_string creates a missing or empty file. Matching is on LF line breaks, as
	// Claude Code does (see Kind). new_string is used as written (Claude Code also curls its
	// quotes when the match needed curly ones). A Jupyter notebook (a path ending in .ipynb) is
	// refused, as Claude Code refuses it, naming its NotebookEdit tool; creating one with an
	// empty old_string is not.
	ClaudeEdit Kind = "Edit"
	// ClaudeMultiEdit is Claude Code's MultiEdit {file_path, edits: [{old_string, new_string,
	// replace_all?}]}: the edits as Edit applies them, in order, each to the previous one's
	// result, all or nothing.
	ClaudeMultiEdit Kind = "MultiEdit"
	// ClaudeWrite is Claude Code's Write {file_path, content}: the content, creating or
	// replacing the file.
	ClaudeWrite Kind = "Write"
)

// TierQuotes is the tier of a Claude Code match found only once curly quotes were read as
// straight ones.
const TierQuotes apply.MatchTier = "quote_normalized"

// fieldType is the JSON type of an input field.
type fieldType int

const (
	tString fieldType = iota
	tInt
	tBool
	tList // a list of objects, each with the item fields
)

// field is one input field of a kind.
type field struct {
	name     string
	typ      fieldType
	required bool
	item     []field
}

// builtin is one built-in tool: its names (the first canonical), its kind, its input fields and
// the field holding the target path.
type builtin struct {
	names  []string
	kind   Kind
	fields []field
	path   string
}

// builtins returns the built-in tools. It is a function, not a package variable, so that no
// state is shared between registries.
func builtins() []builtin {
	path := field{name: "path", typ: tString, required: true}
	filePath := field{name: "file_path", typ: tString, required: true}
	edit := []field{
		{name: "old_string", typ: tString, required: true},
		{name: "new_string", typ: tString, required: true},
		{name: "replace_all", typ: tBool},
	}
	return []builtin{
		{names: []string{"replace_in_file"}, kind: ReplaceInFile, path: "path",
			fields: []field{path, {name: "diff", typ: tString, required: true}}},
		{names: []string{"write_to_file"}, kind: WriteToFile, path: "path",
			fields: []field{path, {name: "content", typ: tString, required: true}}},
		{names: []string{"editor"}, kind: Editor, path: "path",
			fields: []field{path, {name: "old_text", typ: tString}, {name: "new_text", typ: tString, required: true}, {name: "insert_line", typ: tInt}}},
		{names: []string{"str_replace_based_edit_tool", "str_replace_editor"}, kind: TextEditor, path: "path",
			fields: []field{{name: "command", typ: tString, required: true}, path, {name: "old_str", typ: tString},
				{name: "new_str", typ: tString}, {name: "file_text", typ: tString}, {name: "insert_line", typ: tInt},
				{name: "insert_text", typ: tString}}},
		{names: []string{"Edit"}, kind: ClaudeEdit, path: "file_path", fields: append([]field{filePath}, edit...)},
		{names: []string{"MultiEdit"}, kind: ClaudeMultiEdit, path: "file_path",
			fields: []field{filePath, {name: "edits", typ: tList, required: true, item: edit}}},
		{names: []string{"Write"}, kind: ClaudeWrite, path: "file_path",
			fields: []field{filePath, {name: "content", typ: tString, required: true}}},
	}
}

// lookupField returns the field named name among fields.
func lookupField(fields []field, name string) (field, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}
