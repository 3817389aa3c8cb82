package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/assistant-ls/assistant-ls/v4a"
	"github.com/aymanbagabas/go-udiff"
)

// runPatch applies a V4A patch to the files of a folder and prints what would change: a unified
// diff per file, or with --json one object. Nothing is written.
func runPatch(e env) int {
	fs := newFlags(e, "patch")
	dir := fs.String("dir", "", "the folder the patch's paths are relative to (required)")
	patchName := fs.String("patch", "-", "the patch: a `FILE`, or - for standard input")
	asJSON := fs.Bool("json", false, `print {"ok", "files": {path: content|null}, "error"?} as one JSON object`)
	if code := parseFlags(fs, e); code >= 0 {
		return code
	}
	if *dir == "" || fs.NArg() > 0 {
		return fail(e, exitUsage, "usage: assistant-ls patch --dir DIR [--patch FILE|-] [--json]")
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	defer root.Close()
	text, err := readInput(e, *patchName)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	ws := workspaceDir{root: root, abs: abs}
	plan, err := ws.plan(text)
	if *asJSON {
		return printPatchJSON(e, ws, plan, err)
	}
	if err != nil {
		return fail(e, 1, "%v", err)
	}
	if _, err := fmt.Fprint(e.stdout, planDiff(ws, plan)); err != nil {
		return fail(e, 1, "writing output: %v", err)
	}
	return 0
}

// workspaceDir is the folder a patch applies to. Its paths are read through root, so that no
// path (.., absolute, or through a symbolic link) reaches outside it.
type workspaceDir struct {
	root *os.Root
	abs  string
}

// plan parses text and applies it to the folder, refusing a patch that names a path outside it.
func (w workspaceDir) plan(text string) (*v4a.Plan, error) {
	p, err := v4a.Parse(text)
	if err != nil {
		return nil, err
	}
	for _, op := range p.Ops {
		for _, name := range []string{op.Path, op.MoveTo} {
			if name == "" {
				continue
			}
			if _, err := w.rel(name); err != nil {
				return nil, err
			}
		}
	}
	return v4a.Apply(p, w.read)
}

// rel returns name relative to the folder, "/"-separated, or an error when it leaves the folder.
func (w workspaceDir) rel(name string) (string, error) {
	p := filepath.FromSlash(name)
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(w.abs, p)
		if err != nil {
			return "", fmt.Errorf("refused: %s is outside %s", name, w.abs)
		}
		p = r
	}
	p = filepath.Clean(p)
	if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) || filepath.IsAbs(p) {
		return "", fmt.Errorf("refused: %s is outside %s; give paths relative to it", name, w.abs)
	}
	return filepath.ToSlash(p), nil
}

// read is the plan's v4a.Files: a file's content, fs.ErrNotExist, or v4a.ErrNotFile for a
// folder.
func (w workspaceDir) read(name string) (string, error) {
	rel, err := w.rel(name)
	if err != nil {
		return "", err
	}
	info, err := w.root.Stat(filepath.FromSlash(rel))
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", v4a.ErrNotFile
	}
	data, err := w.root.ReadFile(filepath.FromSlash(rel))
	return string(data), err
}

// patchOutput is the --json form of a plan.
type patchOutput struct {
	OK    bool               `json:"ok"`
	Files map[string]*string `json:"files"`
	Error string             `json:"error,omitempty"`
}

func printPatchJSON(e env, w workspaceDir, plan *v4a.Plan, err error) int {
	out := patchOutput{OK: err == nil, Files: map[string]*string{}}
	code := 0
	if err != nil {
		out.Error, code = err.Error(), 1
	} else {
		for _, c := range plan.Changes {
			rel, _ := w.rel(c.Path) // every path was checked before applying
			if c.Deleted {
				out.Files[rel] = nil
				continue
			}
			content := c.Content
			out.Files[rel] = &content
		}
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	if c := encodeOrFail(e, enc, out); c != 0 {
		return c
	}
	return code
}

// planDiff renders the plan as unified diffs, a move as one diff from its source to its
// destination.
func planDiff(w workspaceDir, plan *v4a.Plan) string {
	from := map[string]string{} // move destination → source
	moved := map[string]bool{}
	for _, m := range plan.Moves {
		from[m.To], moved[m.From] = m.From, true
	}
	before := map[string]v4a.Change{}
	for _, c := range plan.Changes {
		before[c.Path] = c
	}
	var b strings.Builder
	for _, c := range plan.Changes {
		if moved[c.Path] && c.Deleted {
			continue
		}
		rel, _ := w.rel(c.Path)
		oldName, newName := "a/"+rel, "b/"+rel
		old, existed := c.Before, c.Existed
		if src, ok := from[c.Path]; ok {
			srcRel, _ := w.rel(src)
			oldName, old, existed = "a/"+srcRel, before[src].Before, true
		}
		if !existed {
			oldName = "/dev/null"
		}
		if c.Deleted {
			newName = "/dev/null"
		}
		d := udiff.Unified(oldName, newName, old, c.Content)
		if d == "" && oldName != newName && existed && !c.Deleted {
			d = fmt.Sprintf("--- %s\n+++ %s\n", oldName, newName)
		}
		b.WriteString(d)
	}
	return b.String()
}
