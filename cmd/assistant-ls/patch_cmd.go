package main

import (
	"strings"

	"github.com/assistant-ls/assistant-ls/internal/diskedit"
	"github.com/assistant-ls/assistant-ls/lsp"
)

// runPatch applies an edit written in any text format to the files of a folder, as the server
// would, and prints what it changes: a unified diff per file, or with --json one object. Files
// are written only with --write.
func runPatch(e env) int {
	fs := newFlags(e, "patch")
	dir := fs.String("dir", "", "the folder the edit's paths are relative to (required)")
	patchName := fs.String("patch", "-", "the edit: a `FILE`, or - for standard input")
	format := fs.String("format", "auto", "the edit's `format`: "+strings.Join(lsp.PatchFormats, ", "))
	out := outputFlags(fs)
	if code := parseFlags(fs, e); code >= 0 {
		return code
	}
	if *dir == "" || fs.NArg() > 0 {
		return usageError(e, "patch")
	}
	ws, err := diskedit.Open(*dir)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	defer ws.Close()
	text, err := readInput(e, *patchName)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	res, err := lsp.PatchFolder(ws.Path(), text, *format, ws.Read)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	return out.finish(e, ws, res)
}
