package apply

import (
	"errors"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGolden runs the cases in testdata/*.txtar. The comment holds "version:" and "final:"
// lines; the sections are original, diff and want, where want is either the new content or
// "error: <kind>". The format ends every section with a newline, which is not part of the value.
func TestGolden(t *testing.T) {
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c golden.Case) {
		v, final := V1, false
		for _, l := range strings.Split(c.Comment, "\n") {
			if s, ok := strings.CutPrefix(l, "version: "); ok {
				v = Version(s)
			}
			if s, ok := strings.CutPrefix(l, "final: "); ok {
				final = s == "true"
			}
		}
		require.Contains(t, []Version{V1, V2}, v, "version: must be v1 or v2")
		sec := c.Sections
		require.Contains(t, sec, "original")
		require.Contains(t, sec, "diff")
		require.Contains(t, sec, "want")
		res, err := Construct(sec["diff"], sec["original"], final, v)
		if kind, ok := strings.CutPrefix(sec["want"], "error: "); ok {
			var e *Error
			require.True(t, errors.As(err, &e), "got %v", err)
			assert.Equal(t, kind, string(e.Kind))
			return
		}
		require.NoError(t, err)
		assert.Equal(t, sec["want"], res.NewContent)
		if final {
			assert.Equal(t, res.NewContent, ApplyReplacements(sec["original"], res.Replacements))
		}
	})
}
