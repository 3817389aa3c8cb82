// Package diskedit writes the files of an edit to a folder on disk, all of them or none, with
// nothing reaching outside the folder. It is how an edit lands where no editor holds the files:
// the command line's --write.
package diskedit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Change is one file's new state: Content is its new content, nil when the file is deleted;
// Existed says whether the file exists before the change (it is then replaced, else created).
// Path is relative to the folder and "/"-separated.
type Change struct {
	Path    string
	Existed bool
	Content *string
}

// Folder is the folder an edit applies to. Its files are read and written through an os.Root,
// so that nothing (.., an absolute path, a symbolic link) reaches outside it, whatever the
// caller's own path checks let through.
type Folder struct {
	root *os.Root
	abs  string
	// rename is root.Rename; a test replaces it to make a write fail halfway.
	rename func(oldname, newname string) error
}

// Open opens the folder dir.
func Open(dir string) (*Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	return &Folder{root: root, abs: abs, rename: root.Rename}, nil
}

// Path is the folder's absolute path.
func (w *Folder) Path() string { return w.abs }

// Close releases the folder.
func (w *Folder) Close() error { return w.root.Close() }

// Read returns the content of the regular file rel ("/"-separated, relative to the folder) and
// whether it exists; a missing file is no error.
func (w *Folder) Read(rel string) (string, bool, error) {
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
	change Change
	name   string // the file, as an OS path relative to the folder
	tmp    string // the new content, "" for a deletion
	backup string // the file as it was, once moved aside; "" before
	placed bool   // the new content is at name
}

// Write makes changes on disk, all of them or none: each new content is written to a temporary
// file beside its file first, then every file is moved aside and replaced by a rename; when any
// step fails, every file is put back as it was and the temporary files and the folders made
// for new files are removed.
func (w *Folder) Write(changes []Change) (err error) {
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
		if c.Content == nil {
			continue
		}
		made, err := w.mkdirs(path.Dir(c.Path))
		dirs = append(dirs, made...)
		if err != nil {
			return fmt.Errorf("create the folder of %s: %w", c.Path, err)
		}
		if s.tmp, err = w.temp(s.name, *c.Content); err != nil {
			return fmt.Errorf("write %s: %w", c.Path, err)
		}
	}
	for _, s := range steps {
		if s.change.Existed {
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

// undo puts the file of s back as it was before Write.
func (w *Folder) undo(s *staged) {
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
func (w *Folder) unused(name string) string {
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
func (w *Folder) mkdirs(dir string) ([]string, error) {
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
func (w *Folder) temp(name, content string) (string, error) {
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
