package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// refusedError reports a tool use's path that resolvePath will not let the server touch, because
// it lies outside every workspace folder (lexically, through .., or through a symbolic link) or
// is empty. The server recognises it with errors.As and gives the tool use status "refused"
// rather than "failed". Path is the clean absolute path as resolved lexically (or the param as
// given when it could not be resolved); Reason says what is wrong with it.
type refusedError struct{ Path, Reason string }

// Error describes the refusal for logs and for the tool use's error message.
func (e *refusedError) Error() string {
	return fmt.Sprintf("refused path %q: %s", e.Path, e.Reason)
}

// maxSymlinks bounds how many symbolic links one resolution follows, so that link loops end.
const maxSymlinks = 255

// resolvePath resolves the path param p of a tool use against cwd and checks it lies inside one
// of the workspace folders.
//
// Accepted forms of p: a relative path (resolved against cwd; / separators work on every OS), an
// absolute path, a file:// URI (host empty or localhost), and ~ or ~/... for the user's home
// directory (so that "~/x" does not silently become a folder named ~ in the workspace; ~user is
// not expanded). An empty cwd falls back to the first workspace folder. Workspace folders are
// paths or file:// URIs.
//
// The result is the clean absolute path, lexically resolved: symbolic links are not replaced, so
// it matches the name under which the editor has the document open. Unless allowOutside, the
// path with all its symbolic links followed (also links that dangle or point to ones that do not
// exist yet, as an editor writing the file would follow them) must lie inside one of the folders
// with their own links followed; otherwise, and for an empty p, the error is a *refusedError.
// Other errors (a malformed URI, no base for a relative path) are plain errors.
func resolvePath(p, cwd string, folders []string, allowOutside bool) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", &refusedError{Path: p, Reason: "the path is empty"}
	}
	if strings.ContainsRune(p, 0) {
		return "", &refusedError{Path: p, Reason: "the path contains a NUL byte"}
	}
	path, err := toFilePath(p)
	if err != nil {
		return "", fmt.Errorf("path param %q: %w", p, err)
	}
	if !filepath.IsAbs(path) {
		base := cwd
		if base == "" && len(folders) > 0 {
			base = folders[0]
		}
		if base == "" {
			return "", fmt.Errorf("cannot resolve relative path %q: there is no cwd and no workspace folder", p)
		}
		if base, err = toFilePath(base); err != nil {
			return "", fmt.Errorf("cwd %q: %w", cwd, err)
		}
		path = filepath.Join(base, path)
	}
	path, err = filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("making %q absolute: %w", p, err)
	}
	if allowOutside {
		return path, nil
	}
	if len(folders) == 0 {
		return "", &refusedError{Path: path, Reason: "there is no workspace folder"}
	}
	real, err := followSymlinks(path)
	if err != nil {
		return "", &refusedError{Path: path, Reason: err.Error()}
	}
	lexicallyInside := false
	for _, f := range folders {
		folder, err := toFilePath(f)
		if err != nil {
			continue
		}
		if folder, err = filepath.Abs(folder); err != nil {
			continue
		}
		lexicallyInside = lexicallyInside || within(folder, path)
		realFolder, err := followSymlinks(folder)
		if err != nil {
			continue
		}
		if within(realFolder, real) {
			return path, nil
		}
	}
	if lexicallyInside {
		return "", &refusedError{Path: path, Reason: fmt.Sprintf("a symbolic link leads outside the workspace folders (to %s)", real)}
	}
	return "", &refusedError{Path: path, Reason: "it is outside the workspace folders"}
}

// toFilePath turns a path param into an OS path: a file:// URI becomes its path, a leading ~
// becomes the home directory, and / separators become the OS's. Anything else is a path as is.
func toFilePath(p string) (string, error) {
	if len(p) >= len("file:") && strings.EqualFold(p[:len("file:")], "file:") {
		u, err := url.Parse(p)
		if err != nil {
			return "", fmt.Errorf("malformed file URI: %w", err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Errorf("file URI names another host %q", u.Host)
		}
		path := u.Path
		// file:///C:/x has the path /C:/x; the drive letter starts the Windows path.
		if runtime.GOOS == "windows" && len(path) >= 3 && path[0] == '/' && path[2] == ':' {
			path = path[1:]
		}
		if path == "" {
			return "", errors.New("file URI has no path")
		}
		return filepath.FromSlash(path), nil
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

// within reports whether path is dir or lies below it; both are clean absolute paths.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

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
