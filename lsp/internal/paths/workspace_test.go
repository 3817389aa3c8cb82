package paths

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewWorkspace checks which folders a session gets and that every other one is reported.
func TestNewWorkspace(t *testing.T) {
	ws := t.TempDir()
	wsURI := "file://" + filepath.ToSlash(ws)
	tests := []struct {
		name    string
		folders []string
		want    []string
		reasons []string // one per ignored folder, a part of its reason
	}{
		{name: "absolute path", folders: []string{ws}, want: []string{ws}},
		{name: "file uri", folders: []string{wsURI}, want: []string{ws}},
		{name: "file uri in upper case", folders: []string{"FILE://" + filepath.ToSlash(ws)}, want: []string{ws}},
		{name: "trailing slash and dots cleaned", folders: []string{wsURI + "/./"}, want: []string{ws}},
		{name: "escaped uri", folders: []string{"file:///tmp/a%20b"}, want: []string{"/tmp/a b"}},
		{name: "localhost is this machine", folders: []string{"file://localhost/x"}, want: []string{"/x"}},
		{name: "LOCALHOST too", folders: []string{"file://LOCALHOST/x"}, want: []string{"/x"}},
		{name: "duplicates kept once", folders: []string{ws, wsURI}, want: []string{ws}},
		{name: "order kept", folders: []string{"/b", "/a"}, want: []string{"/b", "/a"}},

		{name: "empty uri", folders: []string{""}, reasons: []string{"empty"}},
		{name: "blank", folders: []string{" "}, reasons: []string{"empty"}},
		{name: "file scheme only", folders: []string{"file://"}, reasons: []string{"no path"}},
		{name: "file root", folders: []string{"file:///"}, reasons: []string{"root of the file system"}},
		{name: "slash", folders: []string{"/"}, reasons: []string{"root of the file system"}},
		{name: "slash dot dot", folders: []string{"/x/.."}, reasons: []string{"root of the file system"}},
		{name: "cwd", folders: []string{"."}, reasons: []string{"not an absolute path"}},
		{name: "home", folders: []string{"~"}, reasons: []string{"not an absolute path"}},
		{name: "relative", folders: []string{"src/project"}, reasons: []string{"not an absolute path"}},
		{name: "other host", folders: []string{"file://server/share"}, reasons: []string{"another host"}},
		{name: "other scheme", folders: []string{"untitled:/x"}, reasons: []string{"not an absolute path"}},
		{name: "relative file uri", folders: []string{"file:x"}, reasons: []string{"no path"}},
		{name: "NUL", folders: []string{"/a\x00b"}, reasons: []string{"NUL"}},
		{name: "bad ones dropped, good ones kept", folders: []string{"", ws, "."}, want: []string{ws}, reasons: []string{"empty", "not an absolute path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, warnings := NewWorkspace(tt.folders)
			assert.Equal(t, tt.want, w.Folders())
			require.Len(t, warnings, len(tt.reasons))
			for i, reason := range tt.reasons {
				assert.Contains(t, warnings[i].Reason, reason)
			}
		})
	}
}

// TestWarningMessage checks that the warning names the folder and what follows from ignoring it.
func TestWarningMessage(t *testing.T) {
	_, warnings := NewWorkspace([]string{"."})
	require.Len(t, warnings, 1)
	assert.Equal(t, `assistant-ls: workspace folder "." ignored: it is not an absolute path (relative paths such as "." and "~" are not expanded); edits are only allowed inside the other workspace folders`, warnings[0].String())
}

// TestEmptyFolderIsNoSandboxHole checks the defect that made "/" the workspace: with only an
// empty folder URI, an absolute path anywhere is refused.
func TestEmptyFolderIsNoSandboxHole(t *testing.T) {
	for _, folder := range []string{"", "file://", "file:///", ".", "~"} {
		t.Run(folder, func(t *testing.T) {
			w, _ := NewWorkspace([]string{folder})
			_, err := w.Resolve("/etc/passwd", "", Policy{})
			var refused *RefusedError
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, refused.Reason, "no workspace folder")
		})
	}
}

// TestFromURI checks the file URI forms and the errors for the others.
func TestFromURI(t *testing.T) {
	tests := []struct{ uri, want, err string }{
		{uri: "file:///a/b", want: "/a/b"},
		{uri: "file://localhost/a/b", want: "/a/b"},
		{uri: "file:///a/b/../c", want: "/a/c"},
		{uri: "file:///a%23b", want: "/a#b"},
		{uri: "file://host/a", err: "another host"},
		{uri: "http:///a", err: "not a file URI"},
		{uri: "file://", err: "no path"},
		{uri: "file://%zz/a", err: "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			got, err := FromURI(tt.uri)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, filepath.FromSlash(tt.want), got)
		})
	}
}

func TestFolderOf(t *testing.T) {
	ws, warnings := NewWorkspace([]string{"/w/a", "/w/b"})
	require.Empty(t, warnings)
	tests := []struct{ abs, want string }{
		{"/w/a/x.go", "/w/a"},
		{"/w/b", "/w/b"},
		{"/w/ab/x.go", ""},
		{"/elsewhere/x.go", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ws.FolderOf(tt.abs), tt.abs)
	}
	var none *Workspace
	assert.Empty(t, none.FolderOf("/w/a/x.go"))
}
