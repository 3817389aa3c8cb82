package edittool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGolden runs testdata/*.txtar. The comment's "tool:" line names the tool; section "input"
// is the call's JSON arguments, "file" the target's content (absent: no file), and "want" the
// content afterwards or "error: <code>", with "message" the exact error text when given and
// "tiers" the tiers, space-separated.
func TestGolden(t *testing.T) {
	reg, err := New(Config{})
	require.NoError(t, err)
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c golden.Case) {
		name := ""
		for _, l := range strings.Split(c.Comment, "\n") {
			if s, ok := strings.CutPrefix(l, "tool: "); ok {
				name = s
			}
		}
		sec := c.Raw
		tool, ok := reg.Lookup(name)
		require.True(t, ok, name)
		var args map[string]any
		require.NoError(t, json.Unmarshal([]byte(sec["input"]), &args))
		call, err := tool.FromJSON(args)
		require.NoError(t, err)
		content, exists := sec["file"]
		res, err := call.Apply(content, exists)
		if code, isErr := strings.CutPrefix(sec["want"], "error: "); isErr {
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, strings.TrimSpace(code), string(e.Code))
			if msg, ok := sec["message"]; ok {
				assert.Equal(t, strings.TrimSuffix(msg, "\n"), err.Error())
			}
			return
		}
		require.NoError(t, err)
		assert.Equal(t, sec["want"], res.Content)
		if tiers, ok := sec["tiers"]; ok {
			var names []string
			for _, tier := range res.Tiers {
				names = append(names, string(tier))
			}
			assert.Equal(t, strings.TrimSpace(tiers), strings.Join(names, " "))
		}
	})
}
