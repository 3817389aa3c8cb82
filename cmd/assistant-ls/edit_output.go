package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/assistant-ls/assistant-ls/lsp"
	"github.com/aymanbagabas/go-udiff"
)

// This file is what patch and tool share: the folder whose files an edit reads and writes, and
// the printing of its outcome.

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
func (o editOutput) finish(e env, ws *workDir, res lsp.Outcome) int {
	if res.OK && *o.write {
		if err := ws.write(res.Changes); err != nil {
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

// workDir is the folder an edit applies to. Its files are read and written through root, so
// that nothing (.., an absolute path, a symbolic link) reaches outside it; the path rules the
// server applies (section 5) have refused such paths before.
type workDir struct {
	root *os.Root
	abs  string
	// rename is root.Rename; a test replaces it to make a write fail halfway.
	rename func(oldname, newname string) error
}

// openDir opens the folder dir.
func openDir(dir string) (*workDir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	return &workDir{root: root, abs: abs, rename: root.Rename}, nil
}

func (w *workDir) close() { w.root.Close() }

// read is the outcome's lsp.FileReader.
func (w *workDir) read(rel string) (string, bool, error) {
	name := filepath.FromSlash(rel)
	info, err := w.root.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if !info.Mode().IsRegular() {
		return "", false, fmt.Errorf("%s is not a regular file", rel)
	}
	data, err := w.root.ReadFile(name)
	return string(data), true, err
}

// staged is one change on its way to disk: its content in a temporary file beside it, the file
// it replaces moved aside to a backup until every change is in place.
type staged struct {
	change lsp.FileChange
	name   string // the file, as an OS path relative to the folder
	tmp    string // the new content, "" for a deletion
	backup string // the file as it was, once moved aside; "" before
	placed bool   // the new content is at name
}

// write makes changes on disk, all of them or none: each new content is written to a temporary
// file beside its file first, then every file is moved aside and replaced by a rename; when any
// step fails, every file is put back as it was and the temporary files and the folders made
// for new files are removed.
func (w *workDir) write(changes []lsp.FileChange) (err error) {
	var steps []*staged
	var dirs []string // folders made, outermost first
	defer func() {
		if err == nil {
			for _, s := range steps {
				if s.backup != "" {
					_ = w.root.Remove(s.backup)
				}
			}
			return
		}
		for i := len(steps) - 1; i >= 0; i-- {
			w.undo(steps[i])
		}
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = w.root.Remove(dirs[i]) // only an empty folder is removed
		}
	}()
	for _, c := range changes {
		s := &staged{change: c, name: filepath.FromSlash(c.Path)}
		steps = append(steps, s)
		if c.After == nil {
			continue
		}
		made, err := w.mkdirs(path.Dir(c.Path))
		dirs = append(dirs, made...)
		if err != nil {
			return fmt.Errorf("create the folder of %s: %w", c.Path, err)
		}
		if s.tmp, err = w.temp(s.name, *c.After); err != nil {
			return fmt.Errorf("write %s: %w", c.Path, err)
		}
	}
	for _, s := range steps {
		if s.change.Before != nil {
			backup := w.unused(s.name + ".assistant-ls-backup")
			if err := w.rename(s.name, backup); err != nil {
				return fmt.Errorf("replace %s: %w", s.change.Path, err)
			}
			s.backup = backup
		}
		if s.tmp != "" {
			if err := w.rename(s.tmp, s.name); err != nil {
				return fmt.Errorf("replace %s: %w", s.change.Path, err)
			}
			s.tmp, s.placed = "", true
		}
	}
	return nil
}

// undo puts the file of s back as it was before write.
func (w *workDir) undo(s *staged) {
	if s.tmp != "" {
		_ = w.root.Remove(s.tmp)
	}
	if s.placed {
		_ = w.root.Remove(s.name)
	}
	if s.backup != "" {
		_ = w.root.Rename(s.backup, s.name)
	}
}

// unused returns name, or name with a number after it, such that no file has it.
func (w *workDir) unused(name string) string {
	for i := 0; ; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s-%d", name, i)
		}
		if _, err := w.root.Lstat(n); errors.Is(err, fs.ErrNotExist) {
			return n
		}
	}
}

// mkdirs creates the folder dir ("/"-separated) and its missing parents, returning those it made,
// outermost first.
func (w *workDir) mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if _, err := w.root.Stat(filepath.FromSlash(d)); err == nil {
			break
		}
		missing = append([]string{filepath.FromSlash(d)}, missing...)
	}
	var made []string
	for _, d := range missing {
		if err := w.root.Mkdir(d, 0o755); err != nil {
			return made, err
		}
		made = append(made, d)
	}
	return made, nil
}

// temp writes content to a new temporary file beside name, with name's permissions when it
// exists, and returns the temporary file's name.
func (w *workDir) temp(name, content string) (string, error) {
	mode := os.FileMode(0o644)
	if info, err := w.root.Stat(name); err == nil {
		mode = info.Mode().Perm()
	}
	for i := 0; ; i++ {
		tmp := fmt.Sprintf("%s.assistant-ls-%d.tmp", name, i)
		f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.WriteString(content)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = w.root.Remove(tmp)
			return "", werr
		}
		return tmp, nil
	}
}
