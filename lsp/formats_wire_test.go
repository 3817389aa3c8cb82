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
