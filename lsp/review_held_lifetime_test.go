package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWireHeldEditOutlivesItsStream holds a three-hunk edit for review and then drops its
// stream, by assistant/close and by eviction (issue 16, item 4): the hunks stay in the document
// as diagnostics with their code actions, and accepting and rejecting them still works.
func TestWireHeldEditOutlivesItsStream(t *testing.T) {
	t.Parallel()
	drops := map[string]func(c *testClient){
		"close": func(c *testClient) { c.notify(ext.MethodClose, map[string]any{"stream": "s"}) },
		"eviction": func(c *testClient) {
			require.NoError(c.t, c.request(ext.MethodParse, map[string]any{"stream": "other", "delta": "x"}, nil))
			c.waitFor("the eviction", func() bool { return c.logs.FilterMessage("stream evicted: too many streams").Len() == 1 })
		},
	}
	for name, drop := range drops {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"review": true}),
				withServerOptions(Options{diagnosticsDelay: -1, MaxStreams: 1}))
			u := c.didOpen("h.go", heldSrc)
			streamMessage(c, "s", replaceUse("h.go", heldDiff), 40)
			waitHunks(c, "s", 0, ext.HunkPending, ext.HunkPending, ext.HunkPending)
			c.waitFor("three pending diagnostics", func() bool { return len(c.diagnostics(u)) == 3 })

			drop(c)
			// Served after the drop, in wire order: the held edit is still there.
			assert.Len(t, codeActions(c, u, rng(7, 2, 7, 2)), 4, "the hunks still have their code actions")
			var res ext.CommandResult
			command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 0}, &res)
			assert.Equal(t, ext.StatusPartial, res.Status, res.Error)
			assert.Equal(t, strings.Replace(heldSrc, "return 1\n", "return 10\n", 1), c.buffer(u))
			c.waitFor("the two other hunks pending", func() bool {
				return fmt.Sprint(pendingSummary(t, c, u)) == fmt.Sprint([]diagSummary{pending(7, "\treturn 20"), pending(11, "\treturn 30")})
			})
			command(c, ext.CommandRejectHunk, map[string]any{"stream": "s", "index": 0, "hunk": 1}, &res)
			assert.Equal(t, ext.StatusPartial, res.Status, res.Error)
			c.waitFor("the last hunk pending", func() bool {
				return fmt.Sprint(pendingSummary(t, c, u)) == fmt.Sprint([]diagSummary{pending(11, "\treturn 30")})
			})
			command(c, ext.CommandAcceptAll, map[string]any{"stream": "s", "index": 0}, &res)
			assert.Equal(t, ext.StatusPartial, res.Status, res.Error)
			assert.Equal(t, strings.NewReplacer("return 1\n", "return 10\n", "return 3\n", "return 30\n").Replace(heldSrc), c.buffer(u))
			c.waitFor("no pending diagnostics", func() bool { return len(c.diagnostics(u)) == 0 })
		})
	}
}
