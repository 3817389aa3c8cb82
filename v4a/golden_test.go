package v4a

import (
	"errors"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGolden runs testdata/*.txtar: Codex's quirks and this package's own choices, one case a
// file. Sections: "patch"; "before/PATH", a file before the patch; then either "after/PATH", every
// file after it (a file of before without an after section is deleted) with an optional
// "summary", or "error", Codex's message for the failure. txtar ends every section with a line
// break, which is not part of the value: a value that ends in one has an empty last line.
func TestGolden(t *testing.T) {
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c golden.Case) {
		before, want := map[string]string{}, map[string]*string{}
		sec := map[string]string{}
		for _, name := range c.Names {
			v := c.Sections[name]
			if p, ok := strings.CutPrefix(name, "before/"); ok {
				before[p] = v
			} else if p, ok := strings.CutPrefix(name, "after/"); ok {
				want[p] = &v
			} else {
				sec[name] = v
			}
		}
		require.Contains(t, sec, "patch")
		plan, err := ApplyText(sec["patch"], folder(before))
		if msg, ok := sec["error"]; ok {
			var e *Error
			require.True(t, errors.As(err, &e), "got %v", err)
			assert.Equal(t, msg, e.Message)
			assert.Nil(t, plan)
			return
		}
		require.NoError(t, err)
		for p := range before {
			if _, ok := want[p]; !ok {
				want[p] = nil
			}
		}
		assert.Equal(t, want, after(before, plan))
		if s, ok := sec["summary"]; ok {
			assert.Equal(t, s+"\n", plan.Summary)
		}
	})
}
