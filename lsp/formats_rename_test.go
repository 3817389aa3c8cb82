package lsp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRenameCases are unified diffs that rename, delete and create one path several times, with
// what git apply (2.39.5) makes of them on a tree holding only a.txt = "one\ntwo\n": a rename
// reads its source as the tree held it before the diff ("git patches do not depend on the
// order"), and a path renamed away cannot be patched again, only created anew. Two cases depart
// from git, which keeps whichever of two writes of one path comes last (docs/protocol.md).
var gitRenameCases = []struct {
	name, diff string
	files      map[string]any // path → content after, nil when deleted; nil map when refused
	err        string
}{
	{name: "chained renames", diff: renameDiff("a.txt", "b.txt") + renameDiff("b.txt", "c.txt"),
		err: "b.txt: No such file or directory"},
	{name: "rename of a new file", diff: newFileDiff("b.txt", "new") + renameDiff("b.txt", "c.txt"),
		err: "b.txt: No such file or directory"},
	{name: "rename of a file deleted earlier", diff: "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n" +
		renameDiff("a.txt", "b.txt"),
		files: map[string]any{"a.txt": nil, "b.txt": "one\ntwo\n"}},
	{name: "two renames of one source", diff: renameDiff("a.txt", "b.txt") + renameDiff("a.txt", "c.txt"),
		files: map[string]any{"a.txt": nil, "b.txt": "one\ntwo\n", "c.txt": "one\ntwo\n"}},
	{name: "rename, then the old path created anew", diff: renameDiff("a.txt", "b.txt") + newFileDiff("a.txt", "shim"),
		files: map[string]any{"a.txt": "shim\n", "b.txt": "one\ntwo\n"}},
	{name: "rename, then an edit of the new path", diff: renameDiff("a.txt", "b.txt") +
		"diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-one\n+1\n two\n",
		files: map[string]any{"a.txt": nil, "b.txt": "1\ntwo\n"}},
	{name: "rename, then an edit of the old path", diff: renameDiff("a.txt", "b.txt") +
		"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+1\n two\n",
		err: "path a.txt has been renamed/deleted"},
	{name: "edit, then a rename of the original", diff: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+1\n two\n" +
		renameDiff("a.txt", "b.txt"),
		files: map[string]any{"a.txt": "1\ntwo\n", "b.txt": "one\ntwo\n"}},
	// Departures: git keeps the later write of b.txt.
	{name: "rename onto a file the diff created", diff: newFileDiff("b.txt", "new") + renameDiff("a.txt", "b.txt"),
		err: "the diff renames a.txt to b.txt, but b.txt already exists"},
	{name: "a file created over a rename's destination", diff: renameDiff("a.txt", "b.txt") + newFileDiff("b.txt", "new"),
		err: "the diff creates b.txt from /dev/null, but the file already exists"},
}

func renameDiff(from, to string) string {
	return "diff --git a/" + from + " b/" + to + "\nrename from " + from + "\nrename to " + to + "\n"
}

func newFileDiff(path, line string) string {
	return "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + path + "\n@@ -0,0 +1 @@\n+" + line + "\n"
}

// TestUDiffRenamesAsGit runs each case offline, as the patch command and the server plan it.
func TestUDiffRenamesAsGit(t *testing.T) {
	t.Parallel()
	for _, tt := range gitRenameCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			read := func(rel string) (string, bool, error) {
				if rel == "a.txt" {
					return "one\ntwo\n", true, nil
				}
				return "", false, nil
			}
			out, err := PatchFolder(t.TempDir(), tt.diff, "udiff", read)
			require.NoError(t, err)
			if tt.err != "" {
				assert.False(t, out.OK, "applied, to %v", out.Changes)
				assert.Contains(t, out.Error, tt.err)
				return
			}
			require.True(t, out.OK, out.Error)
			got := map[string]any{}
			for _, c := range out.Changes {
				got[c.Path] = nil
				if c.After != nil {
					got[c.Path] = *c.After
				}
			}
			assert.Equal(t, tt.files, got)
		})
	}
}
