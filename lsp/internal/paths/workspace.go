// Package paths owns the server's path rules (protocol section 5): which workspace folders a
// session has, how a tool use's path param resolves against them, which paths are refused, and
// how the server creates missing folders and empty files without ever leaving the workspace.
//
// Nothing here knows LSP types: the server hands in the folders and path params as strings and
// turns the results into statuses and messages.
package paths

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Workspace is the validated set of workspace folders of a session. It never changes once
// built. A nil *Workspace has no folders, so every path is refused unless outside paths are
// allowed.
type Workspace struct {
	folders []string // clean absolute paths, symbolic links kept as the client wrote them
}

// Warning says which workspace folder was ignored and why, for the user.
type Warning struct {
	Folder string // the folder as the client sent it
	Reason string
}

// String formats the warning as the window/showMessage text.
func (w Warning) String() string {
	return fmt.Sprintf("assistant-ls: workspace folder %q ignored: %s; edits are only allowed inside the other workspace folders", w.Folder, w.Reason)
}

// NewWorkspace validates the folders a client named (file URIs, or absolute paths as in
// rootPath) and keeps those that are absolute file paths other than the file system's root, in
// order and without duplicates. Each other one is left out with a Warning: an empty URI,
// "file://", a relative path such as "." or "~", a URI of another scheme or host would otherwise
// make "/", the server's working directory or $HOME the workspace. Paths are cleaned; symbolic
// links are kept, so that paths built from a folder name documents as the editor opened them.
func NewWorkspace(folders []string) (*Workspace, []Warning) {
	w := &Workspace{}
	var warnings []Warning
	for _, f := range folders {
		p, err := folderPath(f)
		if err != nil {
			warnings = append(warnings, Warning{Folder: f, Reason: err.Error()})
			continue
		}
		if !slices.Contains(w.folders, p) {
			w.folders = append(w.folders, p)
		}
	}
	return w, warnings
}

// Folders returns the folder paths, in the client's order. The caller may keep the slice.
func (w *Workspace) Folders() []string {
	if w == nil {
		return nil
	}
	return slices.Clone(w.folders)
}

// FolderOf returns the workspace folder that holds the clean absolute path abs (lexically, as
// the client names it), or "" when none does.
func (w *Workspace) FolderOf(abs string) string {
	if w == nil {
		return ""
	}
	for _, f := range w.folders {
		if within(f, abs) {
			return f
		}
	}
	return ""
}

// first returns the first folder, or "" when there is none.
func (w *Workspace) first() string {
	if w == nil || len(w.folders) == 0 {
		return ""
	}
	return w.folders[0]
}

// folderPath validates one folder as NewWorkspace describes.
func folderPath(f string) (string, error) {
	if strings.TrimSpace(f) == "" {
		return "", errors.New("it is empty")
	}
	if strings.ContainsRune(f, 0) {
		return "", errors.New("it contains a NUL byte")
	}
	p := f
	if hasFileScheme(f) {
		var err error
		if p, err = FromURI(f); err != nil {
			return "", err
		}
	} else if !filepath.IsAbs(p) {
		return "", errors.New("it is not an absolute path (relative paths such as \".\" and \"~\" are not expanded)")
	}
	p = filepath.Clean(p)
	if isVolumeRoot(p) {
		return "", errors.New("it is the root of the file system, which would open every file to edits; open a project folder instead")
	}
	return p, nil
}

// isVolumeRoot reports whether the clean absolute path p is "/" (or a volume's root on Windows).
func isVolumeRoot(p string) bool {
	return p == filepath.VolumeName(p)+string(filepath.Separator)
}

// hasFileScheme reports whether s starts with "file:", in any case.
func hasFileScheme(s string) bool {
	return len(s) >= len("file:") && strings.EqualFold(s[:len("file:")], "file:")
}

// FromURI returns the clean absolute OS path of a file URI. Following RFC 8089, the host must be
// empty or "localhost" (both the local machine: file://localhost/x is /x); another host, another
// scheme, a malformed URI or one without an absolute path is an error saying so.
func FromURI(u string) (string, error) {
	parsed, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("malformed file URI: %w", err)
	}
	if !strings.EqualFold(parsed.Scheme, "file") {
		return "", fmt.Errorf("%q is not a file URI: use file:///absolute/path", u)
	}
	if parsed.Host != "" && !strings.EqualFold(parsed.Host, "localhost") {
		return "", fmt.Errorf("file URI names another host %q: only files of this machine can be edited", parsed.Host)
	}
	path := parsed.Path
	// file:///C:/x has the path /C:/x; the drive letter starts the Windows path.
	if runtime.GOOS == "windows" && len(path) >= 3 && path[0] == '/' && path[2] == ':' {
		path = path[1:]
	}
	if path == "" {
		return "", errors.New("file URI has no path: use file:///absolute/path")
	}
	path = filepath.FromSlash(path)
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("file URI %q has no absolute path: use file:///absolute/path", u)
	}
	return filepath.Clean(path), nil
}
