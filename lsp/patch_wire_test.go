package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeFilePatch updates a.go, moves b.go to c.go with an edit, deletes d.go and adds e.go.
const threeFilePatch = `*** Begin Patch
*** Update File: a.go
@@ func A() int {
-	return 1
+	return 10
*** Update File: b.go
*** Move to: c.go
@@
-package b
+package c
*** Delete File: d.go
*** Add File: e.go
+package e
*** End Patch`

// patchFiles are the files threeFilePatch finds.
var patchFiles = map[string]string{
	"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n",
	"b.go": "package b\n\nconst B = 2\n",
	"d.go": "package d\n",
}

// TestWireV4APatch sends one apply_patch call touching four files (an update, a move with an
// edit, a delete, an add) to every client profile: a client with the resource operations gets
// one WorkspaceEdit and every file ends as Codex would leave it; a client without them gets
// refused, and nothing is sent.
func TestWireV4APatch(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			ua := c.didOpen("a.go", patchFiles["a.go"])
			for _, name := range []string{"b.go", "d.go"} {
				require.NoError(t, os.WriteFile(c.path(name), []byte(patchFiles[name]), 0o644))
			}
			sendCall(t, c, "s", toolPatch, map[string]any{"input": threeFilePatch})
			st := waitSettled(c, "s", 0)
			if p == profileNeovim07 {
				assert.Equal(t, ext.StatusRefused, st.Status)
				assert.Contains(t, st.Error, "cannot move files")
				assert.Empty(t, c.applyRequests())
				assert.Equal(t, patchFiles["a.go"], c.buffer(ua))
				return
			}
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Len(t, c.applyRequests(), 1, "one patch, one WorkspaceEdit")
			assert.Equal(t, "package a\n\nfunc A() int {\n\treturn 10\n}\n", c.buffer(ua))
			assert.Equal(t, "package c\n\nconst B = 2\n", clientContent(t, c, "c.go"))
			for _, gone := range []string{"b.go", "d.go"} {
				_, err := os.Stat(c.path(gone))
				assert.True(t, os.IsNotExist(err), "%s still exists", gone)
			}
			assert.Equal(t, "package e\n", clientContent(t, c, "e.go"))
			assert.Contains(t, st.ToolResult, "Success. Updated the following files:")
			var files []string
			for _, fs := range st.Files {
				assert.Equal(t, ext.StatusApplied, fs.Status)
				files = append(files, filepath.Base(string(fs.URI)))
			}
			assert.Equal(t, []string{"a.go", "b.go", "d.go", "e.go"}, files, "EditState.files: each document of the patch")
		})
	}
}

// TestWireV4APatchFailsWhole: a patch whose second file does not match sends nothing and
// changes nothing, and its error names the file and the hunk.
func TestWireV4APatchFailsWhole(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			ua := c.didOpen("a.go", patchFiles["a.go"])
			require.NoError(t, os.WriteFile(c.path("b.go"), []byte(patchFiles["b.go"]), 0o644))
			patch := "*** Begin Patch\n*** Update File: a.go\n@@\n-\treturn 1\n+\treturn 10\n*** Update File: b.go\n@@\n-const B = 3\n+const B = 4\n*** End Patch"
			sendCall(t, c, "s", toolPatch, map[string]any{"input": patch})
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusFailed, st.Status)
			assert.Contains(t, st.Error, "b.go")
			assert.Empty(t, c.applyRequests())
			assert.Equal(t, patchFiles["a.go"], c.buffer(ua))
			assert.Equal(t, patchFiles["b.go"], readFile(t, c.path("b.go")))
		})
	}
}

// TestWireV4AInText: with the v4a text format, a patch envelope in a fenced block of prose is
// an edit of its text block.
func TestWireV4AInText(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"textFormats": []string{"cline", "v4a"}}))
	ua := c.didOpen("a.go", patchFiles["a.go"])
	msg := "Here is the patch:\n\n```\n*** Begin Patch\n*** Update File: a.go\n@@\n-\treturn 1\n+\treturn 10\n*** End Patch\n```\n"
	streamMessage(c, "s", msg, 40)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, "package a\n\nfunc A() int {\n\treturn 10\n}\n", c.buffer(ua))
}

// TestWireResponsesAPIOperation: the Responses API's apply_patch_call operation form.
func TestWireResponsesAPIOperation(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	ua := c.didOpen("a.go", patchFiles["a.go"])
	sendCall(t, c, "s", toolPatch, map[string]any{"type": "update_file", "path": "a.go", "diff": "@@\n-\treturn 1\n+\treturn 10\n"})
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, "package a\n\nfunc A() int {\n\treturn 10\n}\n", c.buffer(ua))
}

// clientContent is a file as the client holds it: its buffer (an edited file the editor did
// not save), else the disk.
func clientContent(t *testing.T, c *testClient, rel string) string {
	if b := c.buffer(c.uri(rel)); b != "" {
		return b
	}
	return readFile(t, c.path(rel))
}

// TestWireV4AMoveToItself: "*** Move to:" naming the file itself is an update without a move
// (Codex deletes the file here; we do not lose it): the file keeps its place with the edit.
func TestWireV4AMoveToItself(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			ub := c.didOpen("b.go", patchFiles["b.go"])
			patch := "*** Begin Patch\n*** Update File: b.go\n*** Move to: ./b.go\n@@\n-package b\n+package c\n*** End Patch"
			sendCall(t, c, "s", toolPatch, map[string]any{"input": patch})
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, "package c\n\nconst B = 2\n", c.buffer(ub))
			_, err := os.Stat(c.path("b.go"))
			assert.NoError(t, err, "the file is still there")
			assert.Contains(t, st.ToolResult, "M ./b.go")
		})
	}
}

// TestWireV4AMoveOntoExistingFile: a move onto a file that exists overwrites it, as Codex does,
// through operations a client takes: the destination's text replaced by the moved content,
// and the source deleted (a RenameFile without overwrite would be refused).
func TestWireV4AMoveOntoExistingFile(t *testing.T) {
	t.Parallel()
	for _, open := range []bool{false, true} {
		t.Run(map[bool]string{false: "closed", true: "open"}[open], func(t *testing.T) {
			c := newTestClient(t, profileVSCode)
			require.NoError(t, os.WriteFile(c.path("b.go"), []byte(patchFiles["b.go"]), 0o644))
			const dest = "package c\n\nconst C = 3\n"
			if open {
				c.didOpen("c.go", dest)
			} else {
				require.NoError(t, os.WriteFile(c.path("c.go"), []byte(dest), 0o644))
			}
			patch := "*** Begin Patch\n*** Update File: b.go\n*** Move to: c.go\n@@\n-package b\n+package c\n*** End Patch"
			sendCall(t, c, "s", toolPatch, map[string]any{"input": patch})
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, "package c\n\nconst B = 2\n", clientContent(t, c, "c.go"))
			_, err := os.Stat(c.path("b.go"))
			assert.True(t, os.IsNotExist(err), "b.go still exists")
			assert.Contains(t, st.ToolResult, "M c.go")
		})
	}
}
