package lsp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWireWriteMergesUserTyping is the property of contract section 4b, "nothing typed by the
// user is lost": while a write_to_file streams, the user changes random lines; the model's
// content changes other random lines. When no line was changed by both, the document ends with
// every change of both; when one was, the edit fails naming the lines and the document keeps
// exactly what the user typed.
func TestWireWriteMergesUserTyping(t *testing.T) {
	t.Parallel()
	const lines = 30
	for seed := range uint64(24) {
		p := allProfiles[seed%uint64(len(allProfiles))]
		t.Run(fmt.Sprintf("%d-%s", seed, p), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			base := make([]string, lines)
			for i := range base {
				base[i] = fmt.Sprintf("line %d", i)
			}
			modelLines, userLines := pick(rng, lines, 1+rng.IntN(4)), pick(rng, lines, 1+rng.IntN(4))
			model, user := slices.Clone(base), slices.Clone(base)
			for _, i := range modelLines {
				model[i] = fmt.Sprintf("model %d", i)
			}
			for _, i := range userLines {
				user[i] = fmt.Sprintf("user %d", i)
			}
			overlap := false
			for _, i := range userLines {
				overlap = overlap || slices.Contains(modelLines, i)
			}

			c := newTestClient(t, p)
			u := c.didOpen("a.txt", join(base))
			msg := writeUse("a.txt", join(model))
			cut := strings.Index(msg, "<content>") + len("<content>\n") + 10
			c.notify(ext.MethodParse, map[string]any{"stream": "s", "delta": msg[:cut]})
			// The tool use named a.txt; the server must have seen it before the user types.
			c.waitFor("the streaming target", func() bool { return editStatus(c, "s", 0).URI == u })
			c.didChange(u, join(user))
			c.notify(ext.MethodParse, map[string]any{"stream": "s", "delta": msg[cut:], "final": true})
			st := waitSettled(c, "s", 0)

			if overlap {
				require.Equal(t, ext.StatusFailed, st.Status)
				assert.Contains(t, st.Error, "changed while the model wrote it")
				assert.Equal(t, join(user), c.buffer(u), "the user's text was overwritten")
				return
			}
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			want := slices.Clone(base)
			for _, i := range modelLines {
				want[i] = model[i]
			}
			for _, i := range userLines {
				want[i] = user[i]
			}
			assert.Equal(t, join(want), c.buffer(u))
		})
	}
}

// pick returns n distinct numbers below max.
func pick(rng *rand.Rand, max, n int) []int {
	return rng.Perm(max)[:n]
}

// join makes lines into content, each line ending in \n.
func join(lines []string) string { return strings.Join(lines, "\n") + "\n" }
