package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemo(t *testing.T) {
	code, out, errOut := runCLI(t, "", "demo", "--delay", "0", "--chunk", "23")
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", errOut, out)

	assert.Contains(t, out, `positionEncoding "utf-8"`)
	assert.Contains(t, out, "#1 replace_in_file greet/greet.go: applied")
	assert.Contains(t, out, "#3 write_to_file greet/greet_test.go: applied")
	assert.Contains(t, out, "#5 write_to_file ../notes/greet-changes.md: refused")
	assert.Contains(t, out, "exit code 0")

	require.Contains(t, out, "--- a/greet/greet.go")
	diff := out[strings.Index(out, "--- a/greet/greet.go"):]
	for _, line := range []string{
		"+import (",
		"+\t\"strings\"",
		"+\tif name == \"\" {",
		"-\treturn fmt.Sprintf(\"HELLO, %s!\", name)",
		"+\treturn strings.ToUpper(Hello(name))",
		"+++ b/greet/greet_test.go",
		"+func TestHello(t *testing.T) {",
	} {
		assert.Contains(t, diff, line+"\n")
	}
	assert.NotContains(t, out, "greet-changes.md\n+")
}

func TestDemoUsage(t *testing.T) {
	code, _, _ := runCLI(t, "", "demo", "--chunk", "0")
	assert.Equal(t, exitUsage, code)
}

func TestDemoEditorTextEdits(t *testing.T) {
	edit := func(l1, c1, l2, c2 int, text string) textEdit {
		var e textEdit
		e.Range.Start, e.Range.End, e.NewText = position{l1, c1}, position{l2, c2}, text
		return e
	}
	for _, tt := range []struct {
		name, text string
		edits      []textEdit
		want       string
		wantErr    bool
	}{
		{"insert and replace, given out of order", "ab\ncd\n", []textEdit{edit(1, 0, 1, 1, "X"), edit(0, 0, 0, 0, ">")}, ">ab\nXd\n", false},
		{"past the end of a CRLF line stops before its break", "ab\r\ncd", []textEdit{edit(0, 9, 0, 9, "!")}, "ab!\r\ncd", false},
		{"past the last line is the end", "ab", []textEdit{edit(5, 0, 5, 0, "!")}, "ab!", false},
		{"overlapping edits are refused", "abcdef", []textEdit{edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 4, "y")}, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyTextEdits(tt.text, tt.edits)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
