package lsp

import (
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWireTextFormats streams a message that edits files the way Aider and a unified diff do,
// in plain text, with textFormats enabled, to every client profile: each text block holding an
// edit gets an edit state, the edits land, and the tier of every section is reported.
func TestWireTextFormats(t *testing.T) {
	t.Parallel()
	const aSrc = "package a\n\nfunc A() int {\n\treturn 1\n}\n"
	const bSrc = "one\ntwo\nthree\n"
	msg := "Here is the change to a.go:\n\na.go\n```go\n<<<<<<< SEARCH\nreturn 1\n=======\nreturn 2\n>>>>>>> REPLACE\n```\n\n" +
		"<thinking>and now b</thinking>\n" +
		"```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1,1 @@\n+new file\n```\nDone."
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p, withInitOptions(map[string]any{"textFormats": []string{"cline", "aider", "udiff"}}))
			ua := c.didOpen("a.go", aSrc)
			ub := c.didOpen("b.txt", bSrc)
			streamMessage(c, "s", msg, 50)
			c.waitFor("the final push", func() bool { return c.final("s") })
			blocks := c.blocks("s")
			var edited []ext.EditState
			for i, b := range blocks {
				if b.Edit != nil {
					edited = append(edited, waitSettled(c, "s", i))
				}
			}
			require.Len(t, edited, 1, "one text block holds both edits")
			st := edited[0]
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, []string{"leading_whitespace", "exact", "empty"}, st.Tiers)
			assert.Equal(t, strings.Replace(aSrc, "return 1", "return 2", 1), c.buffer(ua))
			assert.Equal(t, "one\nTWO\nthree\n", c.buffer(ub))
			got := c.buffer(c.uri("c.txt"))
			if got == "" {
				data, err := os.ReadFile(c.path("c.txt"))
				require.NoError(t, err)
				got = string(data)
			}
			assert.Equal(t, "new file\n", got)
		})
	}
}

// TestWireTextFormatsOffByDefault: the same message with the default textFormats is prose: a
// Cline agent's text can never be taken for an edit.
func TestWireTextFormatsOffByDefault(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	u := c.didOpen("b.txt", "one\ntwo\nthree\n")
	streamMessage(c, "s", "```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n```\n", 50)
	c.waitFor("the final push", func() bool { return c.final("s") })
	for _, b := range c.blocks("s") {
		assert.Nil(t, b.Edit)
	}
	assert.Empty(t, c.applyRequests())
	assert.Equal(t, "one\ntwo\nthree\n", c.buffer(u))
}

// TestWireUDiffRename streams a git diff that renames b.txt to c.txt with a change, and
// renames d.txt to e.txt unchanged, to every client profile: a client with the rename resource
// operation gets one WorkspaceEdit that edits b.txt and then renames both; a client without it
// gets refused, naming the operation, and nothing is sent.
func TestWireUDiffRename(t *testing.T) {
	t.Parallel()
	msg := "Renaming:\n\n```diff\ndiff --git a/b.txt b/c.txt\nsimilarity index 67%\nrename from b.txt\nrename to c.txt\nindex 1234567..89abcde 100644\n" +
		"--- a/b.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" +
		"diff --git a/d.txt b/e.txt\nsimilarity index 100%\nrename from d.txt\nrename to e.txt\n```\n"
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p, withInitOptions(map[string]any{"textFormats": []string{"cline", "udiff"}}))
			ub := c.didOpen("b.txt", "one\ntwo\nthree\n")
			require.NoError(t, os.WriteFile(c.path("d.txt"), []byte("d\n"), 0o644))
			streamMessage(c, "s", msg, 50)
			c.waitFor("the final push", func() bool { return c.final("s") })
			var st ext.EditState
			for i, b := range c.blocks("s") {
				if b.Edit != nil {
					st = waitSettled(c, "s", i)
				}
			}
			if p == profileNeovim07 {
				assert.Equal(t, ext.StatusRefused, st.Status)
				assert.Contains(t, st.Error, "cannot move files")
				assert.Empty(t, c.applyRequests())
				assert.Equal(t, "one\ntwo\nthree\n", c.buffer(ub))
				return
			}
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Len(t, c.applyRequests(), 1, "one diff, one WorkspaceEdit")
			assert.Equal(t, "one\nTWO\nthree\n", clientContent(t, c, "c.txt"))
			assert.Equal(t, "d\n", clientContent(t, c, "e.txt"))
			for _, gone := range []string{"b.txt", "d.txt"} {
				_, err := os.Stat(c.path(gone))
				assert.True(t, os.IsNotExist(err), "%s still exists", gone)
			}
			assert.Equal(t, []string{"exact"}, st.Tiers)
		})
	}
}

// TestWireUDiffRenameThenRecreate streams a git diff that renames a.txt to b.txt and then
// creates a.txt anew: every client profile ends with both files as git apply leaves them, in
// one WorkspaceEdit that needs no rename operation.
func TestWireUDiffRenameThenRecreate(t *testing.T) {
	msg := "Moving:\n\n```diff\n" + renameDiff("a.txt", "b.txt") + newFileDiff("a.txt", "shim") + "```\n"
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p, withInitOptions(map[string]any{"textFormats": []string{"cline", "udiff"}}))
			c.didOpen("a.txt", "one\ntwo\n")
			streamMessage(c, "s", msg, 50)
			c.waitFor("the final push", func() bool { return c.final("s") })
			var st ext.EditState
			for i, b := range c.blocks("s") {
				if b.Edit != nil {
					st = waitSettled(c, "s", i)
				}
			}
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Len(t, c.applyRequests(), 1)
			assert.Equal(t, "shim\n", clientContent(t, c, "a.txt"))
			assert.Equal(t, "one\ntwo\n", clientContent(t, c, "b.txt"))
		})
	}
}
