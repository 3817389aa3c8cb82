package paths

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resolve resolves p against ws, which must succeed.
func resolve(t *testing.T, w *Workspace, p, cwd string, pol Policy) Target {
	t.Helper()
	tg, err := w.Resolve(p, cwd, pol)
	require.NoError(t, err)
	return tg
}

// entries lists every path below dir, relative to it, slash-separated.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			out = append(out, filepath.ToSlash(relPath(dir, p)))
		}
		return nil
	}))
	return out
}

// TestCreateEmpty checks what CreateEmpty and MakeParents make, and that they report it.
func TestCreateEmpty(t *testing.T) {
	root, ws, _ := pathsFixture(t)
	wslink := filepath.Join(root, "wslink")
	tests := []struct {
		name      string
		folder, p string
		parents   bool // MakeParents instead of CreateEmpty
		wantDirs  []string
		wantFile  string
	}{
		{name: "new file in new folders", folder: ws, p: "a/b/c.txt", wantDirs: []string{"a", "a/b"}, wantFile: "a/b/c.txt"},
		{name: "new file in an existing folder", folder: ws, p: "sub/new.txt", wantFile: "sub/new.txt"},
		{name: "existing file", folder: ws, p: "sub/file.txt"},
		{name: "folders only", folder: ws, p: "f/g/h.txt", parents: true, wantDirs: []string{"f", "f/g"}},
		{name: "through a link inside", folder: ws, p: "in/n/x.txt", wantDirs: []string{"sub/n"}, wantFile: "sub/n/x.txt"},
		{name: "folder named through a link", folder: wslink, p: "d/x.txt", wantDirs: []string{"d"}, wantFile: "d/x.txt"},
		{name: "the folder itself", folder: ws, p: "."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := resolve(t, workspace(t, tt.folder), tt.p, tt.folder, Policy{})
			create := tg.CreateEmpty
			if tt.parents {
				create = tg.MakeParents
			}
			c, err := create()
			require.NoError(t, err)
			var wantDirs []string
			for _, d := range tt.wantDirs {
				wantDirs = append(wantDirs, filepath.Join(ws, filepath.FromSlash(d)))
				info, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(d)))
				require.NoError(t, err)
				assert.True(t, info.IsDir())
			}
			assert.Equal(t, wantDirs, c.Dirs)
			if tt.wantFile == "" {
				assert.Empty(t, c.File)
				return
			}
			assert.Equal(t, filepath.Join(ws, filepath.FromSlash(tt.wantFile)), c.File)
			data, err := os.ReadFile(tg.Path)
			require.NoError(t, err)
			assert.Empty(t, data)
		})
	}
}

// TestCreateNeverLeaves checks that nothing is created outside the workspace, also with
// outside paths allowed, where a folder or the file is missing.
func TestCreateNeverLeaves(t *testing.T) {
	_, ws, outside := pathsFixture(t)
	w := workspace(t, ws)
	allow := Policy{AllowOutside: true}
	tests := []struct {
		name, p string
		parents bool
		wantErr string // "" when nothing needs creating
	}{
		{name: "new folder through a leaving link", p: "out/new/x.txt", wantErr: "outside the workspace"},
		{name: "new folder through a leaving link, folders only", p: "out/new/x.txt", parents: true, wantErr: "outside the workspace"},
		{name: "new file through a leaving link", p: "out/x.txt", wantErr: "outside the workspace"},
		{name: "new folder outside", p: filepath.Join(outside, "new", "x.txt"), parents: true, wantErr: "outside the workspace"},
		{name: "new file outside", p: filepath.Join(outside, "x.txt"), wantErr: "create the file first"},
		{name: "existing folder outside, folders only", p: filepath.Join(outside, "x.txt"), parents: true},
		{name: "existing file outside", p: filepath.Join(outside, "secret.txt")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := resolve(t, w, tt.p, ws, allow)
			create := tg.CreateEmpty
			if tt.parents {
				create = tg.MakeParents
			}
			c, err := create()
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
			} else {
				assert.NoError(t, err)
			}
			assert.Empty(t, c.Dirs)
			assert.Empty(t, c.File)
			assert.Equal(t, []string{"secret.txt"}, entries(t, outside))
		})
	}
}

// TestCreateSwappedLink checks that a link swapped in after Resolve cannot redirect the
// creation: the check and the creation are one operation.
func TestCreateSwappedLink(t *testing.T) {
	_, ws, outside := pathsFixture(t)
	w := workspace(t, ws)
	for _, p := range []string{"d/x.txt", "d/e/x.txt"} {
		t.Run(p, func(t *testing.T) {
			d := filepath.Join(ws, "d")
			require.NoError(t, os.Mkdir(d, 0o755))
			tg := resolve(t, w, p, ws, Policy{})
			require.NoError(t, os.Remove(d))
			require.NoError(t, os.Symlink(outside, d))
			t.Cleanup(func() { _ = os.Remove(d) })
			_, err := tg.CreateEmpty()
			assert.ErrorContains(t, err, "never through a symbolic link that leaves it")
			assert.Equal(t, []string{"secret.txt"}, entries(t, outside))
		})
	}
}

// TestCreateRace is the defect of a folder flipping between a real directory and a link to an
// outside folder while files are created below it: nothing may ever be created outside. The
// former check-then-create left files there in about one run in three of this size.
func TestCreateRace(t *testing.T) {
	const creators, perCreator = 2, 1000
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	require.NoError(t, os.Mkdir(ws, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	w := workspace(t, ws)
	d := filepath.Join(ws, "d")

	var stop atomic.Bool
	var flipper sync.WaitGroup
	flipper.Go(func() {
		for !stop.Load() {
			_ = os.RemoveAll(d)
			_ = os.Mkdir(d, 0o755)
			_ = os.RemoveAll(d)
			_ = os.Symlink(outside, d)
		}
	})
	var created atomic.Int64
	var wg sync.WaitGroup
	for g := range creators {
		wg.Go(func() {
			for i := range perCreator {
				tg, err := w.Resolve(fmt.Sprintf("d/sub/f%d-%d.txt", g, i), ws, Policy{})
				if err != nil {
					continue // refused while d was the link
				}
				if c, err := tg.CreateEmpty(); err == nil && c.File != "" {
					created.Add(1)
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	flipper.Wait()
	assert.Empty(t, entries(t, outside), "created outside the workspace")
	t.Logf("%d of %d files created inside", created.Load(), creators*perCreator)
}

// TestUndo checks that Undo removes exactly what was created, and only while it is unchanged.
func TestUndo(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, ws string) // what happens between the creation and Undo
		want   []string                      // entries of ws/a after Undo; nil: a is gone
	}{
		{name: "unchanged", change: func(*testing.T, string) {}},
		{name: "file written", change: func(t *testing.T, ws string) {
			require.NoError(t, os.WriteFile(filepath.Join(ws, "a", "b", "c.txt"), []byte("kept"), 0o644))
		}, want: []string{"b", "b/c.txt"}},
		{name: "file replaced by another empty one", change: func(t *testing.T, ws string) {
			p := filepath.Join(ws, "a", "b", "c.txt")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.WriteFile(p+".tmp", nil, 0o644))
			hourAgo := time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(p+".tmp", hourAgo, hourAgo))
			require.NoError(t, os.Rename(p+".tmp", p))
		}, want: []string{"b", "b/c.txt"}},
		{name: "file already removed", change: func(t *testing.T, ws string) {
			require.NoError(t, os.Remove(filepath.Join(ws, "a", "b", "c.txt")))
		}},
		{name: "folder gained another file", change: func(t *testing.T, ws string) {
			require.NoError(t, os.WriteFile(filepath.Join(ws, "a", "other.txt"), nil, 0o644))
		}, want: []string{"other.txt"}},
		{name: "file replaced by a link", change: func(t *testing.T, ws string) {
			p := filepath.Join(ws, "a", "b", "c.txt")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Symlink(filepath.Join(ws, "keep.txt"), p))
		}, want: []string{"b", "b/c.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(ws, "keep.txt"), nil, 0o644))
			tg := resolve(t, workspace(t, ws), "a/b/c.txt", ws, Policy{})
			c, err := tg.CreateEmpty()
			require.NoError(t, err)
			tt.change(t, ws)
			require.NoError(t, c.Undo())
			if tt.want == nil {
				assert.Equal(t, []string{"keep.txt"}, entries(t, ws))
				return
			}
			assert.Equal(t, tt.want, entries(t, filepath.Join(ws, "a")))
			assert.FileExists(t, filepath.Join(ws, "keep.txt"))
		})
	}
}

// TestUndoKeepsWhatExisted checks that folders and files that existed before are never removed.
func TestUndoKeepsWhatExisted(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755))
	w := workspace(t, ws)
	c, err := resolve(t, w, "a/b/c/d.txt", ws, Policy{}).CreateEmpty()
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(ws, "a", "b", "c")}, c.Dirs)
	require.NoError(t, c.Undo())
	assert.Equal(t, []string{"a", "a/b"}, entries(t, ws))

	require.NoError(t, os.WriteFile(filepath.Join(ws, "e.txt"), nil, 0o644))
	c, err = resolve(t, w, "e.txt", ws, Policy{}).CreateEmpty()
	require.NoError(t, err)
	require.NoError(t, c.Undo())
	assert.FileExists(t, filepath.Join(ws, "e.txt"), "an existing empty file is not the creation's")

	require.NoError(t, Created{}.Undo(), "nothing created, nothing to undo")
}

// TestUndoReplacedFolder checks that Undo removes nothing once the workspace folder itself was
// replaced, even by one with the same contents.
func TestUndoReplacedFolder(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	require.NoError(t, os.Mkdir(ws, 0o755))
	c, err := resolve(t, workspace(t, ws), "a/x.txt", ws, Policy{}).CreateEmpty()
	require.NoError(t, err)
	require.NoError(t, os.Rename(ws, filepath.Join(root, "old")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a", "x.txt"), nil, 0o644))
	assert.ErrorContains(t, c.Undo(), "replaced")
	assert.Equal(t, []string{"a", "a/x.txt"}, entries(t, ws))
	assert.Equal(t, []string{"a", "a/x.txt"}, entries(t, filepath.Join(root, "old")))
}
