package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patchDir makes a folder holding files (path → content) and returns it.
func patchDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	return dir
}

// snapshot reads every file under dir, to show that a command wrote nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

const threeFilePatch = "*** Begin Patch\n" +
	"*** Update File: src/a.go\n*** Move to: lib/a.go\n@@\n-b\n+B\n" +
	"*** Add File: docs/new.md\n+# New\n" +
	"*** Delete File: old.txt\n" +
	"*** End Patch\n"

func TestPatchJSON(t *testing.T) {
	t.Parallel()
	dir := patchDir(t, map[string]string{"src/a.go": "a\nb\n", "old.txt": "bye\n", "keep.txt": "k\n"})
	before := snapshot(t, dir)
	code, out, errOut := runCLI(t, threeFilePatch, "patch", "--dir", dir, "--json")
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.NotEmpty(t, got["toolResult"])
	delete(got, "toolResult")
	assert.Equal(t, map[string]any{
		"ok":     true,
		"format": "v4a",
		"files": map[string]any{
			"lib/a.go": "a\nB\n", "src/a.go": nil, "docs/new.md": "# New\n", "old.txt": nil,
		},
	}, got)
	assert.Equal(t, 1, strings.Count(out, "\n"), "exactly one JSON object")
	assert.Equal(t, before, snapshot(t, dir), "nothing is written")
}

func TestPatchDiff(t *testing.T) {
	t.Parallel()
	dir := patchDir(t, map[string]string{"src/a.go": "a\nb\n", "old.txt": "bye\n"})
	code, out, errOut := runCLI(t, "", "patch", "--dir", dir, "--patch", writeTemp(t, threeFilePatch))
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "--- a/src/a.go\n+++ b/lib/a.go\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"+
		"--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+# New\n"+
		"--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", out)
}

func TestPatchFailsWhole(t *testing.T) {
	t.Parallel()
	dir := patchDir(t, map[string]string{"a.txt": "x\n", "b.txt": "y\n"})
	before := snapshot(t, dir)
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+X\n*** Update File: b.txt\n@@\n-nope\n+Y\n*** End Patch\n"
	code, out, _ := runCLI(t, patch, "patch", "--dir", dir, "--json")
	assert.Equal(t, 1, code)
	var got patchOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.False(t, got.OK)
	assert.Empty(t, got.Files)
	assert.True(t, strings.HasPrefix(got.Error, "Failed to find expected lines in b.txt:\nnope\n(hunk 1 of the update to b.txt;"), got.Error)
	assert.Equal(t, before, snapshot(t, dir))

	code, out, errOut := runCLI(t, patch, "patch", "--dir", dir)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Failed to find expected lines in b.txt")
}

func TestPatchRefusesPathsOutside(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "ws")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("s\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(parent, "secret.txt"), filepath.Join(dir, "link.txt")))
	require.NoError(t, os.Symlink(parent, filepath.Join(dir, "up")))
	for _, p := range []string{
		"*** Delete File: ../secret.txt",
		"*** Delete File: " + filepath.ToSlash(filepath.Join(parent, "secret.txt")),
		"*** Add File: sub/../../x.txt\n+x",
		"*** Update File: in.txt\n*** Move to: ../out.txt\n@@\n+x",
		"*** Update File: link.txt\n@@\n-s\n+t",
		"*** Add File: up/planted.txt\n+x",
	} {
		t.Run(p, func(t *testing.T) {
			code, out, _ := runCLI(t, "*** Begin Patch\n"+p+"\n*** End Patch\n", "patch", "--dir", dir, "--json")
			assert.Equal(t, 1, code)
			var got patchOutput
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			assert.False(t, got.OK)
			assert.NotEmpty(t, got.Error)
		})
	}
	data, err := os.ReadFile(filepath.Join(parent, "secret.txt"))
	require.NoError(t, err)
	assert.Equal(t, "s\n", string(data))
}

func TestPatchAbsolutePathInside(t *testing.T) {
	t.Parallel()
	dir := patchDir(t, map[string]string{"a.txt": "x\n"})
	patch := "*** Begin Patch\n*** Update File: " + filepath.ToSlash(filepath.Join(dir, "a.txt")) + "\n@@\n-x\n+y\n*** End Patch\n"
	code, out, errOut := runCLI(t, patch, "patch", "--dir", dir, "--json")
	require.Equal(t, 0, code, errOut)
	var got patchOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, map[string]*string{"a.txt": ptr("y\n")}, got.Files)
}

func TestPatchUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"patch"},
		{"patch", "--dir", dir, "extra"},
		{"patch", "--dir", filepath.Join(dir, "missing")},
		{"patch", "--dir", dir, "--patch", filepath.Join(dir, "missing.txt")},
		{"patch", "--nope"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, "", args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.NotEmpty(t, errOut)
		})
	}
}

func ptr(s string) *string { return &s }

// writeTemp writes content to a new file and returns its path.
func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "patch.txt")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}
