package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/assistant-ls/assistant-ls/lsp"
)

// runReview prints the diagnostics of a response document (an assistant's answer with edits)
// against the current folder, as a compiler prints errors, and exits 1 when an edit would not
// apply. Nothing is written.
func runReview(e env) int {
	fs := newFlags(e, "review")
	dir := fs.String("C", ".", "the `folder` the answer's relative paths resolve against")
	if code := parseFlags(fs, e); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(e, "review")
	}
	name := fs.Arg(0)
	text, err := os.ReadFile(name)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	findings, err := lsp.CheckResponse(*dir, name, string(text))
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	code := 0
	for _, f := range findings {
		fmt.Fprintf(e.stdout, "%s:%d:%d: %s: %s\n", name, f.Line, f.Column, f.Severity, f.Message)
		for _, n := range f.Notes {
			fmt.Fprintf(e.stdout, "%s:%d:1: note: %s\n", shown(n.Path), n.Line, n.Message)
		}
		if f.Severity == "error" {
			code = 1
		}
	}
	return code
}

// shown is path relative to the current folder when it lies below it.
func shown(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || !filepath.IsLocal(rel) {
		return path
	}
	return rel
}
