package paths

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RefusedError reports a path param that the path rules forbid: empty, outside every workspace
// folder (lexically, through .., or through a symbolic link), or inside a .git folder. The
// server recognises it with errors.As and gives the tool use status "refused" rather than
// "failed". Path is the clean absolute path as resolved lexically (or the param as given when it
// could not be resolved); Reason says what is wrong with it and what to do instead.
type RefusedError struct{ Path, Reason string }

// Error describes the refusal for logs and for the tool use's error message.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused path %q: %s", e.Path, e.Reason)
}

// Policy is what the settings allow beyond the workspace rule. It is passed per call, since the
// settings can change during a session while the workspace cannot.
type Policy struct {
	AllowOutside bool // allowOutsideWorkspace: paths outside every folder are not refused
	AllowGitDir  bool // allowGitDir: paths inside a .git folder are not refused
}

// Target is a path that passed Resolve. Create missing folders and the empty file for it with
// MakeParents and CreateEmpty, which stay inside the workspace folder the check found.
type Target struct {
	// Path is the clean absolute path, resolved lexically: symbolic links are kept, so it
	// matches the name under which the editor has the document open.
	Path string
	// Rel is Path relative to the workspace folder that lexically holds it, slash-separated,
	// for labels and messages; Path itself when no folder does.
	Rel string

	root string // the real path of the folder holding the real target; "" when none does
	rel  string // the real target relative to root
}

// maxSymlinks bounds how many symbolic links one resolution follows, so that link loops end.
const maxSymlinks = 255

// Resolve resolves the path param p of a tool use against cwd and applies the path rules.
//
// Accepted forms of p: a relative path (resolved against cwd; / separators work on every OS), an
// absolute path, a file:// URI (see FromURI), and ~ or ~/... for the user's home directory (so
// that "~/x" does not silently become a folder named ~ in the workspace; ~user is not expanded).
// cwd is an absolute path or a file URI; "" means the first workspace folder.
//
// The path with all its symbolic links followed (also links that dangle or point to ones that do
// not exist yet, as an editor writing the file would follow them) must lie inside one of the
// folders with their own links followed, unless pol.AllowOutside. Neither the path as written
// nor the path with its links followed may have a .git component (compared without case and
// trailing dots or spaces, as case-insensitive file systems and Windows compare names), unless
// pol.AllowGitDir. A path that breaks a rule, or an empty p, gives a *RefusedError. Other errors
// (a malformed URI, no base for a relative path) are plain errors.
func (w *Workspace) Resolve(p, cwd string, pol Policy) (Target, error) {
	if strings.TrimSpace(p) == "" {
		return Target{}, &RefusedError{Path: p, Reason: "the path is empty: give the path of the file, relative to the working directory"}
	}
	if strings.ContainsRune(p, 0) {
		return Target{}, &RefusedError{Path: p, Reason: "the path contains a NUL byte"}
	}
	path, err := toFilePath(p)
	if err != nil {
		return Target{}, fmt.Errorf("path param %q: %w", p, err)
	}
	if !filepath.IsAbs(path) {
		base := cwd
		if base == "" {
			base = w.first()
		}
		if base == "" {
			return Target{}, fmt.Errorf("cannot resolve relative path %q: there is no cwd and no workspace folder; send an absolute path", p)
		}
		if base, err = toFilePath(base); err != nil {
			return Target{}, fmt.Errorf("cwd %q: %w", cwd, err)
		}
		if !filepath.IsAbs(base) {
			return Target{}, fmt.Errorf("cwd %q is not an absolute path: send the working directory as a file URI", cwd)
		}
		path = filepath.Join(base, path)
	}
	path = filepath.Clean(path)
	real, err := followSymlinks(path)
	if err != nil {
		return Target{}, &RefusedError{Path: path, Reason: err.Error()}
	}
	t := Target{Path: path, Rel: path}
	folders := w.Folders()
	lexicallyInside := false
	for _, f := range folders {
		if !lexicallyInside && within(f, path) {
			lexicallyInside = true
			t.Rel = slashRel(f, path)
		}
		realFolder, err := followSymlinks(f)
		if err != nil {
			continue
		}
		if t.root == "" && within(realFolder, real) {
			t.root, t.rel = realFolder, relPath(realFolder, real)
		}
	}
	switch {
	case t.root != "" || pol.AllowOutside:
	case len(folders) == 0:
		return t, &RefusedError{Path: path, Reason: "there is no workspace folder: open a folder in the editor"}
	case lexicallyInside:
		return t, &RefusedError{Path: path, Reason: fmt.Sprintf("a symbolic link leads outside the workspace folders (to %s)", real)}
	default:
		return t, &RefusedError{Path: path, Reason: "it is outside the workspace folders: edit files inside the workspace"}
	}
	if !pol.AllowGitDir && (hasGitComponent(path) || hasGitComponent(real)) {
		return t, &RefusedError{Path: path, Reason: "it is inside a .git folder, which holds the repository's own data and hooks that run at the next commit: edit the working tree's files instead (the setting allowGitDir allows it)"}
	}
	return t, nil
}

// toFilePath turns a path param into an OS path: a file: URI becomes its path, a leading ~
// becomes the home directory, and / separators become the OS's. Anything else is a path as is.
func toFilePath(p string) (string, error) {
	if hasFileScheme(p) {
		return FromURI(p)
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~`+string(filepath.Separator)) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expanding ~: %w", err)
		}
		return filepath.Join(home, filepath.FromSlash(p[1:])), nil
	}
	return filepath.FromSlash(p), nil
}

// hasGitComponent reports whether a component of the clean path p names a .git folder on some
// file system: ".git" in any case, with any trailing dots and spaces (which Windows drops).
func hasGitComponent(p string) bool {
	for _, c := range splitPath(p[len(filepath.VolumeName(p)):]) {
		if strings.EqualFold(strings.TrimRight(c, ". "), ".git") {
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies below it; both are clean absolute paths.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// relPath is path relative to dir, for paths that lie within dir.
func relPath(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return rel
}

// slashRel is relPath with / separators, for users.
func slashRel(dir, path string) string { return filepath.ToSlash(relPath(dir, path)) }

// followSymlinks returns the clean absolute path with every symbolic link followed, the way the
// OS would when the file is written: component by component, with .. in a link's target applied
// to the link's real directory. Components from the first one that does not exist (or cannot be
// inspected) on are appended as they are; a link whose target does not exist is still followed.
// It fails only when more than maxSymlinks links are followed (a loop) or a link cannot be read.
func followSymlinks(path string) (string, error) {
	vol := filepath.VolumeName(path)
	real := vol + string(filepath.Separator)
	pending := splitPath(path[len(vol):])
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		if c == ".." {
			real = filepath.Dir(real)
			continue
		}
		next := filepath.Join(real, c)
		info, err := os.Lstat(next)
		if err != nil {
			// Nothing below a missing component exists: the rest is resolved lexically.
			return filepath.Join(append([]string{next}, pending...)...), nil
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			real = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", fmt.Errorf("too many symbolic links under %s (a link loop?)", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("reading symbolic link %s: %w", next, err)
		}
		if filepath.IsAbs(target) {
			tvol := filepath.VolumeName(target)
			real = tvol + string(filepath.Separator)
			target = target[len(tvol):]
		}
		pending = append(splitPath(target), pending...)
	}
	return real, nil
}

// splitPath returns the non-empty, non-"." components of an OS path without its volume name.
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}
