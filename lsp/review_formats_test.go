package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckResponseTextFormats: a response document's edits written in text (an Aider block,
// a unified diff) are diagnosed like tool uses: a section of the block's first file that
// matches only after trimming is a hint naming the tier, and a block that does not apply as a
// whole (its diff's hunk matches nothing) an error on its first line.
func TestCheckResponseTextFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() int {\n\treturn 1\n}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	answer := "Aider style:\n\na.go\n```go\n<<<<<<< SEARCH\n\treturn 1  \n=======\n\treturn 2\n>>>>>>> REPLACE\n```\n\n" +
		"<thinking>and a diff</thinking>\n" +
		"```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-ONE\n+1\n two\n```\n"
	findings, err := CheckResponse(dir, filepath.Join(dir, "x.assistant.md"), answer)
	require.NoError(t, err)
	require.Len(t, findings, 2, "%+v", findings)
	assert.Equal(t, Finding{Line: 5, Column: 1, Severity: "hint",
		Message: "SEARCH section 1 matches line 4 of a.go only through line-trimmed matching (its lines differ from the file's in leading or trailing white space)"}, findings[0])
	assert.Equal(t, "error", findings[1].Severity)
	assert.Equal(t, 1, findings[1].Line, "the block's first line")
	assert.Contains(t, findings[1].Message, "b.txt")
}
