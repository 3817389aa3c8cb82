package diskedit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// folder makes a folder holding files (paths "/"-separated).
func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		name := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte(c), 0o644))
	}
	return dir
}

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return got
}

func ptr(s string) *string { return &s }

// TestWriteAllOrNothing: when any file of an edit cannot be replaced, every file is left as it
// was, whichever step failed, and no temporary or backup file is left behind.
func TestWriteAllOrNothing(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n"}
	changes := []Change{
		{Path: "a.txt", Existed: true, Content: ptr("A\n")},
		{Path: "new/dir/c.txt", Content: ptr("c\n")},
		{Path: "gone.txt", Existed: true},
		{Path: "b.txt", Existed: true, Content: ptr("B\n")},
	}
	for fail := 1; ; fail++ {
		dir := folder(t, files)
		w, err := Open(dir)
		require.NoError(t, err)
		calls := 0
		w.rename = func(oldname, newname string) error {
			if calls++; calls == fail {
				return errors.New("disk full")
			}
			return w.root.Rename(oldname, newname)
		}
		err = w.Write(changes)
		require.NoError(t, w.Close())
		if err == nil {
			// Every rename succeeded: the edit is written whole.
			assert.Equal(t, map[string]string{"a.txt": "A\n", "b.txt": "B\n", "new/dir/c.txt": "c\n"}, snapshot(t, dir))
			assert.Greater(t, fail, 1)
			return
		}
		assert.ErrorContains(t, err, "disk full")
		assert.Equal(t, files, snapshot(t, dir), "rename %d failed", fail)
		_, statErr := os.Stat(filepath.Join(dir, "new"))
		assert.True(t, os.IsNotExist(statErr), "the folders made for a new file are removed")
	}
}

// TestReadStaysInside: Read answers for files of the folder, says a missing one does not exist,
// and refuses what leads outside it.
func TestReadStaysInside(t *testing.T) {
	t.Parallel()
	dir := folder(t, map[string]string{"a.txt": "a\n"})
	outside := folder(t, map[string]string{"secret": "s\n"})
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")))
	w, err := Open(dir)
	require.NoError(t, err)
	defer w.Close()
	got, ok, err := w.Read("a.txt")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "a\n", got)
	_, ok, err = w.Read("missing.txt")
	require.NoError(t, err)
	assert.False(t, ok)
	for _, p := range []string{"../" + filepath.Base(outside) + "/secret", "link"} {
		_, _, err = w.Read(p)
		assert.Error(t, err, p)
	}
	assert.Error(t, w.Write([]Change{{Path: "../escape.txt", Content: ptr("x\n")}}))
	_, statErr := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt"))
	assert.True(t, os.IsNotExist(statErr))
}
