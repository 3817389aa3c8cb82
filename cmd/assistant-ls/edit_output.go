package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/assistant-ls/assistant-ls/internal/diskedit"
	"github.com/assistant-ls/assistant-ls/lsp"
	"github.com/aymanbagabas/go-udiff"
)

// This file is what patch and tool share: the printing of an edit's outcome and, with --write,
// its writing through diskedit.

// editOutput holds the output flags of patch and tool.
type editOutput struct {
	json, write *bool
}

// outputFlags declares --json and --write on fs.
func outputFlags(fs *flag.FlagSet) editOutput {
	return editOutput{
		json:  fs.Bool("json", false, `print {"ok", "format", "files": {path: content|null}, "toolResult", "error"?} as one JSON object`),
		write: fs.Bool("write", false, "write the changed files (all of them or, when one cannot be written, none)"),
	}
}

// finish writes the files of res when asked, prints it, and returns the exit code: 1 when the
// edit does not apply or the files cannot be written.
func (o editOutput) finish(e env, ws *diskedit.Folder, res lsp.Outcome) int {
	if res.OK && *o.write {
		if err := ws.Write(diskChanges(res.Changes)); err != nil {
			res = lsp.Outcome{Format: res.Format, ToolResult: res.ToolResult, Error: fmt.Sprintf("nothing was written: %v", err)}
		}
	}
	code := 0
	if !res.OK {
		code = 1
	}
	if *o.json {
		if c := encodeOrFail(e, jsonEncoder(e), outcomeJSON(res)); c != 0 {
			return c
		}
		return code
	}
	if !res.OK {
		return fail(e, code, "%s", res.Error)
	}
	if _, err := fmt.Fprint(e.stdout, changesDiff(res.Changes)); err != nil {
		return fail(e, 1, "writing output: %v", err)
	}
	return 0
}

// jsonEncoder writes JSON lines to e.stdout, leaving <, > and & as they are.
func jsonEncoder(e env) *json.Encoder {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	return enc
}

// patchOutput is the --json form of an outcome (contract section 8).
type patchOutput struct {
	OK         bool               `json:"ok"`
	Format     string             `json:"format"`
	Files      map[string]*string `json:"files"`
	ToolResult string             `json:"toolResult"`
	Error      string             `json:"error,omitempty"`
}

func outcomeJSON(res lsp.Outcome) patchOutput {
	out := patchOutput{OK: res.OK, Format: res.Format, Files: map[string]*string{}, ToolResult: res.ToolResult, Error: res.Error}
	for _, c := range res.Changes {
		out.Files[c.Path] = c.After
	}
	return out
}

// changesDiff renders changes as unified diffs, a move as one diff from its source to its
// destination.
func changesDiff(changes []lsp.FileChange) string {
	before := map[string]*string{}
	moved := map[string]bool{}
	for _, c := range changes {
		before[c.Path] = c.Before
		if c.MovedFrom != "" {
			moved[c.MovedFrom] = true
		}
	}
	var b strings.Builder
	for _, c := range changes {
		if moved[c.Path] && c.After == nil {
			continue
		}
		oldName, newName, old := "a/"+c.Path, "b/"+c.Path, c.Before
		if c.MovedFrom != "" && c.Before == nil {
			oldName, old = "a/"+c.MovedFrom, before[c.MovedFrom]
		}
		if old == nil {
			oldName = "/dev/null"
		}
		if c.After == nil {
			newName = "/dev/null"
		}
		d := udiff.Unified(oldName, newName, deref(old), deref(c.After))
		if d == "" && c.MovedFrom != "" {
			// A move that changes nothing else still says where the file went.
			d = fmt.Sprintf("--- %s\n+++ %s\n", oldName, newName)
		}
		b.WriteString(d)
	}
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// diskChanges is what res's changes write to disk.
func diskChanges(changes []lsp.FileChange) []diskedit.Change {
	out := make([]diskedit.Change, len(changes))
	for i, c := range changes {
		out[i] = diskedit.Change{Path: c.Path, Existed: c.Before != nil, Content: c.After}
	}
	return out
}
