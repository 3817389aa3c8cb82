package textformat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGolden runs testdata/*.txtar. Section "text" is an assistant message; "edits" lists what
// Find (all formats) recognises in it, one line per file (format, op, path, number of sections)
// or per V4A envelope ("v4a" and its first and last lines), with "span:" lines quoting each
// edit's first and last lines. For each file the edit names, "file <path>" is its content (absent:
// the file does not exist), "want <path>" the content after Apply, "deleted", or "error: <kind>",
// and "tiers <path>" the tiers, space-separated.
func TestGolden(t *testing.T) {
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c golden.Case) {
		sec := c.Raw
		text := sec["text"]
		edits := Find(text, Aider, V4A, UDiff)
		var got strings.Builder
		for _, e := range edits {
			spanned := strings.Split(strings.TrimSuffix(text[e.Span.Start:e.Span.End], "\n"), "\n")
			fmt.Fprintf(&got, "span: %s ... %s\n", spanned[0], spanned[len(spanned)-1])
			if e.Format == V4A {
				pl := strings.Split(e.Patch, "\n")
				fmt.Fprintf(&got, "v4a %s ... %s\n", pl[0], pl[len(pl)-1])
			}
			for _, f := range e.Files {
				fmt.Fprintf(&got, "%s %s %s %d\n", f.Format, f.Op, f.Path, len(f.Sections))
				checkApply(t, f, sec)
			}
		}
		assert.Equal(t, sec["edits"], got.String())
	})
}

func checkApply(t *testing.T, f File, sec map[string]string) {
	want, ok := sec["want "+f.Path]
	if !ok {
		return
	}
	content, exists := sec["file "+f.Path]
	res, err := f.Apply(content, exists)
	if kind, isErr := strings.CutPrefix(want, "error: "); isErr {
		var fe *Error
		require.ErrorAs(t, err, &fe, f.Path)
		assert.Equal(t, strings.TrimSpace(kind), string(fe.Kind), f.Path)
		return
	}
	require.NoError(t, err, f.Path)
	if want == "deleted\n" {
		assert.True(t, res.Delete, f.Path)
		return
	}
	assert.Equal(t, want, res.Content, f.Path)
	if tiers, ok := sec["tiers "+f.Path]; ok {
		var names []string
		for _, tier := range res.Tiers {
			names = append(names, string(tier))
		}
		assert.Equal(t, strings.TrimSpace(tiers), strings.Join(names, " "), f.Path)
	}
}
