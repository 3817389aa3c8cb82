package paths

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Created is what one MakeParents or CreateEmpty call made, so that Undo can remove exactly
// that. It holds no open file, so it needs no closing and may be dropped. The zero Created made
// nothing.
type Created struct {
	Dirs []string // real paths of the folders created, outermost first
	File string   // real path of the empty file created; "" when none was

	root     string      // the workspace folder the creation was rooted at
	rootInfo fs.FileInfo // its identity then
	made     []made      // the folders, then the file, in creation order
}

// made is one folder or file a creation made, relative to its root, with its identity.
type made struct {
	rel  string
	info fs.FileInfo
}

// MakeParents creates the missing parent folders of t, so a client can create the file itself.
// See CreateEmpty for where it creates.
func (t Target) MakeParents() (Created, error) { return t.create(false) }

// CreateEmpty creates the missing parent folders of t and, unless something exists at t.Path
// already, an empty file there (mode 0644), for a client that cannot create files itself.
//
// Inside the workspace everything is created through an os.Root opened on the workspace folder
// that holds the target, so the creation cannot leave that folder, also through a symbolic link
// swapped in after Resolve checked the path: the check and the creation are one operation. A
// target outside every folder once its links are followed (which Resolve only returns with
// Policy.AllowOutside) gets nothing created: when a folder or the file is missing there, the error says to create it first. The
// server never writes contents.
func (t Target) CreateEmpty() (Created, error) { return t.create(true) }

// create is MakeParents, and with file CreateEmpty.
func (t Target) create(file bool) (Created, error) {
	if t.root == "" {
		return Created{}, t.missingOutside(file)
	}
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return Created{}, fmt.Errorf("open the workspace folder %s: %w", t.root, err)
	}
	defer r.Close()
	rootInfo, err := r.Stat(".")
	if err != nil {
		return Created{}, fmt.Errorf("inspect the workspace folder %s: %w", t.root, err)
	}
	c := Created{root: t.root, rootInfo: rootInfo}
	dirs := splitPath(filepath.Dir(t.rel))
	for i := range dirs {
		rel := filepath.Join(dirs[:i+1]...)
		err := r.Mkdir(rel, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			err = c.recordDir(r, rel)
		}
		if err != nil {
			return Created{}, c.fail(r, fmt.Errorf("create the folder %s: %w (the server creates only inside the workspace folder %s, never through a symbolic link that leaves it); create the folder yourself or fix the path", filepath.Join(t.root, rel), err, t.root))
		}
	}
	if !file || t.rel == "." {
		return c, nil
	}
	f, err := r.OpenFile(t.rel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return c, nil
	}
	if err != nil {
		return Created{}, c.fail(r, fmt.Errorf("create the empty file %s: %w (the server creates only inside the workspace folder %s, never through a symbolic link that leaves it); create the file yourself or fix the path", filepath.Join(t.root, t.rel), err, t.root))
	}
	// The identity comes from the open file, so it is the file this call created.
	info, err := f.Stat()
	if err == nil {
		c.made = append(c.made, made{rel: t.rel, info: info})
		c.File = filepath.Join(t.root, t.rel)
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return Created{}, c.fail(r, fmt.Errorf("create the empty file %s: %w", filepath.Join(t.root, t.rel), err))
	}
	return c, nil
}

// recordDir notes the folder rel, just created through r.
func (c *Created) recordDir(r *os.Root, rel string) error {
	info, err := r.Lstat(rel)
	if err != nil {
		return err
	}
	c.made = append(c.made, made{rel: rel, info: info})
	c.Dirs = append(c.Dirs, filepath.Join(c.root, rel))
	return nil
}

// fail removes what c made before err, so a failed creation leaves the disk as it was.
func (c *Created) fail(r *os.Root, err error) error {
	if uerr := c.undo(r); uerr != nil {
		return errors.Join(err, uerr)
	}
	return err
}

// missingOutside is the error for a target outside every folder when something it needs is
// missing, since the server creates nothing there.
func (t Target) missingOutside(file bool) error {
	dir := filepath.Dir(t.Path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the folder %s does not exist and lies outside the workspace, so the server does not create it; create it first", dir)
	}
	if !file {
		return nil
	}
	if _, err := os.Lstat(t.Path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the editor cannot create files through workspace edits, and %s lies outside the workspace, so the server does not create it; create the file first", t.Path)
	}
	return nil
}

// Undo removes what c made, newest first, through an os.Root on the same workspace folder: the
// file only while it is still the same empty regular file, each folder only while it is still
// the same folder and empty (a file is the same while its identity, as os.SameFile tells it, and
// its modification time are). Anything changed since (written to, replaced, or holding other
// entries) stays, and that is not an error. It fails when the workspace folder is no longer the
// one the creation was rooted at (nothing is removed then) or a removal fails.
func (c Created) Undo() error {
	if len(c.made) == 0 {
		return nil
	}
	r, err := os.OpenRoot(c.root)
	if err != nil {
		return fmt.Errorf("undo the creation in %s: %w", c.root, err)
	}
	defer r.Close()
	info, err := r.Stat(".")
	if err != nil {
		return fmt.Errorf("undo the creation in %s: %w", c.root, err)
	}
	if !os.SameFile(info, c.rootInfo) {
		return fmt.Errorf("undo the creation in %s: the folder was replaced since; nothing removed", c.root)
	}
	return c.undo(r)
}

// undo is Undo through r, an os.Root on c.root.
func (c Created) undo(r *os.Root) error {
	var errs []error
	for i := len(c.made) - 1; i >= 0; i-- {
		m := c.made[i]
		now, err := r.Lstat(m.rel)
		if err != nil || !os.SameFile(now, m.info) {
			continue
		}
		if now.IsDir() {
			if empty, err := isEmptyDir(r, m.rel); err != nil || !empty {
				continue
			}
		} else if !now.Mode().IsRegular() || now.Size() != 0 || !now.ModTime().Equal(m.info.ModTime()) {
			// The modification time tells a file written and truncated again, or a new file
			// that reuses the inode, from the one created.
			continue
		}
		if err := r.Remove(m.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", filepath.Join(c.root, m.rel), err))
		}
	}
	return errors.Join(errs...)
}

// isEmptyDir reports whether the folder rel under r has no entries.
func isEmptyDir(r *os.Root, rel string) (bool, error) {
	d, err := r.Open(rel)
	if err != nil {
		return false, err
	}
	defer d.Close()
	_, err = d.ReadDir(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return false, err
}
