package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEditGolden runs testdata/edits/*.txtar through patch and tool. The comment's "args:" line
// is the command line (--dir is added); sections: "input" (standard input), "config" (a
// --config file), "before/PATH" (the folder's files), "after/PATH" (a file's content afterwards)
// and "deleted/PATH" (a file the edit deletes), "format" (the --json format), "result" (text
// the tool result holds), or "error" (text the error holds, when the edit does not apply).
// Each case runs with --json, which must write nothing, then with --json --write, which must
// leave the folder as the case says (as it was, when the edit does not apply).
func TestEditGolden(t *testing.T) {
	t.Parallel()
	golden.Run(t, "testdata/edits/*.txtar", func(t *testing.T, c golden.Case) {
		var args []string
		for _, l := range strings.Split(c.Comment, "\n") {
			if s, ok := strings.CutPrefix(l, "args: "); ok {
				args = strings.Fields(s)
			}
		}
		require.NotEmpty(t, args)
		before, want := map[string]string{}, map[string]*string{}
		for _, name := range c.Names {
			if p, ok := strings.CutPrefix(name, "before/"); ok {
				before[p] = c.Raw[name]
			} else if p, ok := strings.CutPrefix(name, "after/"); ok {
				v := c.Raw[name]
				want[p] = &v
			} else if p, ok := strings.CutPrefix(name, "deleted/"); ok {
				want[p] = nil
			}
		}
		dir := patchDir(t, before)
		if cfg, ok := c.Raw["config"]; ok {
			args = append(args, "--config", writeTemp(t, cfg))
		}
		if args[0] == "tool" {
			args = append(args, "--input-file", "-")
		}
		args = append(args, "--dir", dir, "--json")
		errWant, fails := c.Sections["error"]

		code, out, errOut := runCLI(t, c.Raw["input"], args...)
		var got patchOutput
		require.NoError(t, json.Unmarshal([]byte(out), &got), errOut)
		assert.Equal(t, 1, strings.Count(out, "\n"), "exactly one JSON object")
		assert.Equal(t, before, snapshot(t, dir), "nothing is written without --write")
		if fails {
			assert.Equal(t, 1, code)
			assert.False(t, got.OK)
			assert.Empty(t, got.Files)
			assert.Contains(t, got.Error, errWant)
		} else {
			require.Equal(t, 0, code, got.Error)
			assert.True(t, got.OK)
			assert.Empty(t, got.Error)
			assert.Equal(t, want, got.Files)
			assert.NotEmpty(t, got.ToolResult)
		}
		if f, ok := c.Sections["format"]; ok {
			assert.Equal(t, f, got.Format)
		}
		if r, ok := c.Sections["result"]; ok {
			assert.Contains(t, got.ToolResult, r)
		}

		code, _, _ = runCLI(t, c.Raw["input"], append(args, "--write")...)
		after := before
		if !fails {
			assert.Equal(t, 0, code)
			after = map[string]string{}
			for p, v := range before {
				after[p] = v
			}
			for p, v := range want {
				if v == nil {
					delete(after, p)
				} else {
					after[p] = *v
				}
			}
		}
		assert.Equal(t, after, snapshot(t, dir))
	})
}

// TestEditUsage: bad usage of patch and tool exits 2 and writes nothing to standard output.
func TestEditUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badConfig := writeTemp(t, `{"editTools": [{"name": "x", "kind": "Nope"}]}`)
	for _, args := range [][]string{
		{"patch", "--dir", dir, "--format", "rst"},
		{"tool", "--dir", dir, "--name", "Edit"},
		{"tool", "--dir", dir, "--input", "{}"},
		{"tool", "--name", "Edit", "--input", "{}"},
		{"tool", "--dir", dir, "--name", "Edit", "--input", "{}", "--input-file", "-"},
		{"tool", "--dir", dir, "--name", "Nope", "--input", "{}"},
		{"tool", "--dir", dir, "--name", "Edit", "--input", "{not json"},
		{"tool", "--dir", dir, "--name", "Edit", "--input", "[1]"},
		{"tool", "--dir", dir, "--name", "Edit", "--input", "{}", "--config", badConfig},
		{"tool", "--dir", dir, "--name", "Edit", "--input", "{}", "--config", filepath.Join(dir, "missing.json")},
		{"tool", "--dir", filepath.Join(dir, "missing"), "--name", "Edit", "--input", "{}"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, "", args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.NotEmpty(t, errOut)
		})
	}
}

// TestEditExitCodes: 0 when the edit applies (the diff on standard output), 1 when it does not
// (the reason on standard error), without --json.
func TestEditExitCodes(t *testing.T) {
	t.Parallel()
	dir := patchDir(t, map[string]string{"a.go": "x\n"})
	code, out, errOut := runCLI(t, `{"file_path": "a.go", "old_string": "x", "new_string": "y"}`, "tool", "--dir", dir, "--name", "Edit", "--input-file", "-")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n", out)

	code, out, errOut = runCLI(t, "", "tool", "--dir", dir, "--name", "Edit", "--input", `{"file_path": "a.go", "old_string": "q", "new_string": "y"}`)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "String to replace not found in file.")
}
