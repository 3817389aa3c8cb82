package paths

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pathsFixture builds, under a fresh temporary directory:
//
//	ws/                      the workspace folder
//	ws/sub/file.txt
//	ws/.git/hooks/           a repository's own folder
//	ws/in -> ws/sub          link staying inside
//	ws/out -> outside        link leaving
//	ws/dangling -> outside/new.txt   link to a file that does not exist yet
//	ws/rel -> ../outside     relative link leaving
//	ws/loop -> ws/loop       link loop
//	ws/up -> sub/../..       link whose .. leaves through its target
//	ws/hooks -> .git/hooks   link into the .git folder
//	outside/secret.txt
//	wslink -> ws             a workspace folder reached through a link
//
// and returns the real paths of the temporary root, the workspace and the outside directory.
func pathsFixture(t *testing.T) (root, ws, outside string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ws = filepath.Join(root, "ws")
	outside = filepath.Join(root, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "sub", "file.txt"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o644))
	for link, target := range map[string]string{
		filepath.Join(ws, "in"):       filepath.Join(ws, "sub"),
		filepath.Join(ws, "out"):      outside,
		filepath.Join(ws, "dangling"): filepath.Join(outside, "new.txt"),
		filepath.Join(ws, "rel"):      filepath.Join("..", "outside"),
		filepath.Join(ws, "loop"):     filepath.Join(ws, "loop"),
		filepath.Join(ws, "up"):       filepath.Join("sub", "..", ".."),
		filepath.Join(ws, "hooks"):    filepath.Join(".git", "hooks"),
		filepath.Join(root, "wslink"): ws,
	} {
		require.NoError(t, os.Symlink(target, link))
	}
	return root, ws, outside
}

// workspace builds a Workspace of folders that must all be valid.
func workspace(t *testing.T, folders ...string) *Workspace {
	t.Helper()
	w, warnings := NewWorkspace(folders)
	require.Empty(t, warnings)
	return w
}

// TestResolve checks resolution and the path rules against real symbolic links.
func TestResolve(t *testing.T) {
	root, ws, outside := pathsFixture(t)
	home := filepath.Join(ws, "home")
	t.Setenv("HOME", home)
	wslink := filepath.Join(root, "wslink")
	tests := []struct {
		name    string
		p, cwd  string
		folders []string
		pol     Policy
		want    string
		wantRel string
		refused string
	}{
		{name: "relative", p: "sub/file.txt", cwd: ws, want: filepath.Join(ws, "sub", "file.txt"), wantRel: "sub/file.txt"},
		{name: "relative new nested", p: "a/b/c.txt", cwd: filepath.Join(ws, "sub"), want: filepath.Join(ws, "sub", "a", "b", "c.txt"), wantRel: "sub/a/b/c.txt"},
		{name: "dot dot inside", p: "sub/../x.txt", cwd: ws, want: filepath.Join(ws, "x.txt")},
		{name: "absolute inside", p: filepath.Join(ws, "sub", "file.txt"), cwd: outside, want: filepath.Join(ws, "sub", "file.txt")},
		{name: "file uri inside", p: "file://" + filepath.ToSlash(filepath.Join(ws, "sub", "f.txt")), cwd: ws, want: filepath.Join(ws, "sub", "f.txt")},
		{name: "file uri localhost", p: "file://localhost" + filepath.ToSlash(filepath.Join(ws, "f.txt")), cwd: ws, want: filepath.Join(ws, "f.txt")},
		{name: "file uri escaped", p: "file://" + filepath.ToSlash(ws) + "/a%20b.txt", cwd: ws, want: filepath.Join(ws, "a b.txt")},
		{name: "cwd as file uri", p: "x", cwd: "file://" + filepath.ToSlash(ws), want: filepath.Join(ws, "x")},
		{name: "link inside to inside", p: "in/file.txt", cwd: ws, want: filepath.Join(ws, "in", "file.txt"), wantRel: "in/file.txt"},
		{name: "new file under inside link", p: "in/new/x.txt", cwd: ws, want: filepath.Join(ws, "in", "new", "x.txt")},
		{name: "the folder itself", p: ".", cwd: ws, want: ws, wantRel: "."},
		{name: "folder is a link, path through it", p: "sub/file.txt", cwd: wslink, folders: []string{wslink}, want: filepath.Join(wslink, "sub", "file.txt"), wantRel: "sub/file.txt"},
		{name: "folder is a link, real path", p: filepath.Join(ws, "x"), cwd: ws, folders: []string{wslink}, want: filepath.Join(ws, "x"), wantRel: filepath.Join(ws, "x")},
		{name: "folder as file uri", p: "x", cwd: ws, folders: []string{"file://" + filepath.ToSlash(ws)}, want: filepath.Join(ws, "x")},
		{name: "empty cwd uses first folder", p: "x", folders: []string{ws, outside}, want: filepath.Join(ws, "x")},
		{name: "home inside", p: "~/notes.txt", cwd: outside, want: filepath.Join(home, "notes.txt")},
		{name: "tilde user is a name", p: "~bob/x", cwd: ws, want: filepath.Join(ws, "~bob", "x")},
		{name: "names like git are files", p: ".gitignore", cwd: ws, want: filepath.Join(ws, ".gitignore")},
		{name: "github folder", p: ".github/workflows/ci.yml", cwd: ws, want: filepath.Join(ws, ".github", "workflows", "ci.yml")},

		{name: "empty", p: "", cwd: ws, refused: "empty"},
		{name: "blank", p: "  ", cwd: ws, refused: "empty"},
		{name: "NUL", p: "a\x00b", cwd: ws, refused: "NUL"},
		{name: "dot dot leaves", p: "a/../../x", cwd: ws, refused: "outside the workspace"},
		{name: "absolute outside", p: filepath.Join(outside, "secret.txt"), cwd: ws, refused: "outside the workspace"},
		{name: "link inside to outside", p: "out/secret.txt", cwd: ws, refused: "symbolic link"},
		{name: "link itself leaving", p: "out", cwd: ws, refused: "symbolic link"},
		{name: "nested new file under leaving link", p: "out/a/b/new.txt", cwd: ws, refused: "symbolic link"},
		{name: "dangling link to outside", p: "dangling", cwd: ws, refused: "symbolic link"},
		{name: "relative link leaving", p: "rel/secret.txt", cwd: ws, refused: "symbolic link"},
		{name: "link target dot dot leaves", p: "up/outside/secret.txt", cwd: ws, refused: "symbolic link"},
		{name: "link loop", p: "loop/x", cwd: ws, refused: "too many symbolic links"},
		{name: "no folders", p: "x", cwd: ws, folders: []string{}, refused: "no workspace folder"},
		{name: "file uri outside", p: "file://" + filepath.ToSlash(filepath.Join(outside, "secret.txt")), cwd: ws, refused: "outside the workspace"},

		{name: "git hook", p: ".git/hooks/pre-commit", cwd: ws, refused: ".git folder"},
		{name: "git config", p: ".git/config", cwd: ws, refused: "allowGitDir"},
		{name: "git folder itself", p: ".git", cwd: ws, refused: ".git folder"},
		{name: "nested repository", p: "sub/.git/hooks/post-merge", cwd: ws, refused: ".git folder"},
		{name: "git in upper case", p: ".GIT/hooks/pre-commit", cwd: ws, refused: ".git folder"},
		{name: "git with trailing dot", p: ".git./hooks/pre-commit", cwd: ws, refused: ".git folder"},
		{name: "git through a link", p: "hooks/pre-commit", cwd: ws, refused: ".git folder"},
		{name: "git through dot dot", p: "sub/../.git/hooks/pre-commit", cwd: ws, refused: ".git folder"},
		{name: "git with outside allowed", p: ".git/hooks/pre-commit", cwd: ws, pol: Policy{AllowOutside: true}, refused: ".git folder"},

		{name: "git allowed", p: ".git/hooks/pre-commit", cwd: ws, pol: Policy{AllowGitDir: true}, want: filepath.Join(ws, ".git", "hooks", "pre-commit"), wantRel: ".git/hooks/pre-commit"},
		{name: "git through a link allowed", p: "hooks/pre-commit", cwd: ws, pol: Policy{AllowGitDir: true}, want: filepath.Join(ws, "hooks", "pre-commit")},
		{name: "allow outside absolute", p: filepath.Join(outside, "secret.txt"), cwd: ws, pol: Policy{AllowOutside: true}, want: filepath.Join(outside, "secret.txt"), wantRel: filepath.Join(outside, "secret.txt")},
		{name: "allow outside dot dot", p: "../outside/x", cwd: ws, pol: Policy{AllowOutside: true}, want: filepath.Join(outside, "x")},
		{name: "allow outside through link", p: "out/secret.txt", cwd: ws, pol: Policy{AllowOutside: true}, want: filepath.Join(ws, "out", "secret.txt"), wantRel: "out/secret.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			folders := tt.folders
			if folders == nil {
				folders = []string{filepath.Join(root, "other"), ws}
			}
			got, err := workspace(t, folders...).Resolve(tt.p, tt.cwd, tt.pol)
			if tt.refused != "" {
				var refused *RefusedError
				require.True(t, errors.As(err, &refused), "want a refusal, got %v (%q)", err, got.Path)
				assert.Contains(t, refused.Reason, tt.refused)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Path)
			if tt.wantRel != "" {
				assert.Equal(t, tt.wantRel, got.Rel)
			}
		})
	}
}

// TestResolveErrors checks inputs that are not refusals but cannot be resolved.
func TestResolveErrors(t *testing.T) {
	ws := t.TempDir()
	tests := []struct {
		name, p, cwd string
		folders      []string
		want         string
	}{
		{"no base", "x", "", nil, "no cwd"},
		{"relative cwd", "x", ".", []string{ws}, "not an absolute path"},
		{"remote file uri", "file://server/share/x", ws, []string{ws}, "another host"},
		{"malformed file uri", "file://%zz/x", ws, []string{ws}, "malformed file URI"},
		{"file uri without path", "file://", ws, []string{ws}, "no path"},
		{"relative file uri", "file:x", ws, []string{ws}, "no path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workspace(t, tt.folders...).Resolve(tt.p, tt.cwd, Policy{})
			require.Error(t, err)
			var refused *RefusedError
			assert.False(t, errors.As(err, &refused))
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestNilWorkspace checks that a session without folders refuses every path but resolves them
// with outside paths allowed.
func TestNilWorkspace(t *testing.T) {
	var w *Workspace
	assert.Empty(t, w.Folders())
	dir := t.TempDir()
	_, err := w.Resolve("x", dir, Policy{})
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Contains(t, refused.Reason, "no workspace folder")
	got, err := w.Resolve("x", dir, Policy{AllowOutside: true})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "x"), got.Path)
}

// TestRefusedErrorMessage checks the message names the path and the reason.
func TestRefusedErrorMessage(t *testing.T) {
	err := error(&RefusedError{Path: "/x", Reason: "it is outside the workspace folders"})
	assert.Equal(t, `refused path "/x": it is outside the workspace folders`, err.Error())
}
