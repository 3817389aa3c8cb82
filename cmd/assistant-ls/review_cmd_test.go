package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const reviewSrc = "package a\n\nfunc One() int {\n\treturn 1\n}\n\nfunc Two() int {\n\treturn 2\n}\n"

// replaceUse is a replace_in_file tool use as a model writes it.
func replaceUse(path, diff string) string {
	return "<replace_in_file>\n<path>" + path + "</path>\n<diff>\n" + diff + "</diff>\n</replace_in_file>\n"
}

func TestReviewPrintsDiagnostics(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte(reviewSrc), 0o644))
	answer := "Two edits.\n\n" +
		replaceUse("src/a.go", "------- SEARCH\n  return 1\n=======\n\treturn 10\n+++++++ REPLACE\n") +
		replaceUse("src/a.go", "------- SEARCH\nfunc Two() int {\n\treturn 22\n=======\nfunc Two() int {\n\treturn 20\n+++++++ REPLACE\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.assistant.md"), []byte(answer), 0o644))
	t.Chdir(dir)

	code, out, errOut := runCLI(t, "", "review", "x.assistant.md")
	assert.Equal(t, 1, code, "the second edit would not apply")
	assert.Empty(t, errOut)
	assert.Equal(t,
		"x.assistant.md:6:1: hint: SEARCH section 1 matches line 4 of src/a.go only through line-trimmed matching (its lines differ from the file's in leading or trailing white space)\n"+
			"x.assistant.md:16:1: error: SEARCH section 1 matches nothing in src/a.go; did you mean lines 7-8? (94% similar)\n"+
			"src/a.go:7:1: note: the nearest region of src/a.go (94% similar)\n", out)

	// Once the file holds what the edits expect, nothing is an error.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("package a\n\nfunc One() int {\n\treturn 1\n}\n\nfunc Two() int {\n\treturn 22\n}\n"), 0o644))
	code, _, _ = runCLI(t, "", "review", "x.assistant.md")
	assert.Equal(t, 0, code)
}

func TestReviewUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"review"}, {"review", "a", "b"}, {"review", filepath.Join(t.TempDir(), "missing.md")}} {
		code, out, errOut := runCLI(t, "", args...)
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, out)
		assert.NotEmpty(t, errOut)
	}
}
