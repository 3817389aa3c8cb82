package main

import (
	"os"

	"github.com/assistant-ls/assistant-ls/internal/diskedit"
	"github.com/assistant-ls/assistant-ls/lsp"
)

// runTool runs one edit tool call on the files of a folder, as the server runs a native tool
// call of that tool, and prints what it changes like patch.
func runTool(e env) int {
	fs := newFlags(e, "tool")
	dir := fs.String("dir", "", "the folder the call's paths are relative to (required)")
	name := fs.String("name", "", "the edit tool's `name`: Edit, MultiEdit, Write, str_replace_based_edit_tool, editor, apply_patch, replace_in_file, write_to_file, or an editTools alias (required)")
	input := fs.String("input", "", "the call's arguments, a `JSON` object")
	inputFile := fs.String("input-file", "", "the call's arguments from a `FILE`, or - for standard input")
	config := fs.String("config", "", "a JSON settings `FILE`, as initializationOptions, for editTools aliases")
	out := outputFlags(fs)
	if code := parseFlags(fs, e); code >= 0 {
		return code
	}
	if *dir == "" || *name == "" || (*input == "") == (*inputFile == "") || fs.NArg() > 0 {
		return usageError(e, "tool")
	}
	args := *input
	if *inputFile != "" {
		var err error
		if args, err = readInput(e, *inputFile); err != nil {
			return fail(e, exitUsage, "%v", err)
		}
	}
	var settings []byte
	if *config != "" {
		var err error
		if settings, err = os.ReadFile(*config); err != nil {
			return fail(e, exitUsage, "%v", err)
		}
	}
	ws, err := diskedit.Open(*dir)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	defer ws.Close()
	res, err := lsp.ToolFolder(ws.Path(), *name, args, settings, ws.Read)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	return out.finish(e, ws, res)
}
