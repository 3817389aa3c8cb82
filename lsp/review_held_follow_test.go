package lsp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dupSrc holds the same three lines twice, so the second copy's middle line has the same text
// and the same context as the first's.
const dupSrc = "package d\n\nfunc f() {\n\tx := 1\n\ty := 2\n\tz := 3\n\tx := 1\n\ty := 2\n\tz := 3\n}\n"

// TestWireAcceptedHunkStaysInItsCopy: an accepted hunk whose lines the user edits stays where it
// is, though its original text and context stand in another copy nearby; only restoring its own
// lines makes it pending again, there, and accepting it then edits those lines.
func TestWireAcceptedHunkStaysInItsCopy(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
	u := c.didOpen("d.go", dupSrc)
	streamMessage(c, "s", replaceUse("d.go", "------- SEARCH\n\ty := 2\n\tz := 3\n}\n=======\n\ty := 20\n\tz := 3\n}\n+++++++ REPLACE\n"), 40)
	waitHunks(c, "s", 0, ext.HunkPending)
	require.Equal(t, []ext.HunkState{{Range: prange(7, 0, 8, 0), Status: ext.HunkPending}}, editStatus(c, "s", 0).Hunks)
	var res ext.CommandResult
	command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 0}, &res)
	require.Equal(t, ext.StatusApplied, res.Status, res.Error)
	accepted := strings.Replace(dupSrc, "\tz := 3\n\tx := 1\n\ty := 2\n", "\tz := 3\n\tx := 1\n\ty := 20\n", 1)
	require.Equal(t, accepted, c.buffer(u))
	c.waitFor("no pending diagnostics", func() bool { return len(c.diagnostics(u)) == 0 })

	// The user changes "20" to "21": the hunk's lines, not the first copy's. A code action
	// request, handled after the didChange, sees the hunks as it left them.
	c.changeRange(u, prange(7, 7, 7, 8), "1")
	assert.Empty(t, codeActions(c, u, rng(4, 0, 4, 0)), "nothing pending at the first copy")
	assert.Empty(t, codeActions(c, u, rng(7, 0, 7, 0)))
	assert.Equal(t, []ext.HunkStatus{ext.HunkAccepted}, hunkStatuses(c, "s", 0))

	// Typing elsewhere, above both copies, shifts it; typing its text back keeps it accepted.
	c.changeRange(u, prange(1, 0, 1, 0), "// top\n")
	c.changeRange(u, prange(8, 7, 8, 8), "0")
	assert.Empty(t, codeActions(c, u, rng(5, 0, 5, 0)), "nothing pending at the first copy")
	assert.Equal(t, []ext.HunkStatus{ext.HunkAccepted}, hunkStatuses(c, "s", 0))

	// Restoring its own line to the original text (the undo of the accept) makes it pending there.
	c.changeRange(u, prange(8, 0, 9, 0), "\ty := 2\n")
	waitHunks(c, "s", 0, ext.HunkPending)
	assert.Equal(t, []ext.HunkState{{Range: prange(8, 0, 9, 0), Status: ext.HunkPending}}, editStatus(c, "s", 0).Hunks)
	command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 0}, &res)
	require.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, strings.Replace(accepted, "\n\nfunc", "\n// top\n\nfunc", 1), c.buffer(u), "the second copy changed, the first did not")
}

// TestHeldFileAcceptedNeverMovesProperty: over random edits around an accepted hunk amid copies
// of its text, the hunk turns pending only when its own region, shifted by the edits before it,
// holds its original text again, and only there.
func TestHeldFileAcceptedNeverMovesProperty(t *testing.T) {
	t.Parallel()
	const block = "\tx := 1\n\ty := 2\n\tz := 3\n"
	src := "package d\n\nfunc f() {\n" + block + block + block + "}\n"
	s := strings.Index(src, block) + len(block) + len("\tx := 1\n") // the second copy's "y" line
	old, proposed := "\ty := 2\n", "\ty := 20\n"
	pieces := []string{"", "\ty := 2\n", "\ty := 20\n", "2", "0", "\n", "x", "\tx := 1\n", "\tz := 3\n"}
	for seed := range uint64(300) {
		rnd := rand.New(rand.NewPCG(seed, 11))
		content := src[:s] + proposed + src[s+len(old):]
		f := &heldFile{content: content, hunks: []*hunk{newHunk(src, text.Edit{Start: s, End: s + len(old), NewText: proposed})}}
		h := f.hunks[0]
		h.status, h.end = ext.HunkAccepted, s+len(proposed)
		at, size := s, len(proposed) // the model: the hunk's own region
		for step := range 12 {
			var e text.Edit
			switch rnd.IntN(4) {
			case 0: // before the region
				a := rnd.IntN(at + 1)
				e = text.Edit{Start: a, End: a + rnd.IntN(at-a+1), NewText: pieces[rnd.IntN(len(pieces))]}
			case 1: // after it
				a := at + size + rnd.IntN(len(content)-at-size+1)
				e = text.Edit{Start: a, End: a + rnd.IntN(len(content)-a+1), NewText: pieces[rnd.IntN(len(pieces))]}
			case 2: // inside it
				a := at + rnd.IntN(size+1)
				e = text.Edit{Start: a, End: a + rnd.IntN(at+size-a+1), NewText: pieces[rnd.IntN(len(pieces))]}
			default: // the whole region, with the old or the proposed text or another
				e = text.Edit{Start: at, End: at + size, NewText: []string{old, proposed, "\ty := 3\n"}[rnd.IntN(3)]}
			}
			next := content[:e.Start] + e.NewText + content[e.End:]
			delta := len(e.NewText) - (e.End - e.Start)
			switch {
			case e.End <= at && !(e.Start == e.End && e.Start == at && size == 0):
				at += delta
			case e.Start >= at+size:
			default:
				size += delta
			}
			was := h.status
			f.sync(next, []text.Edit{e})
			content = next
			what := fmt.Sprintf("seed %d step %d: edit %+v", seed, step, e)
			if h.status == ext.HunkPending {
				require.Equal(t, at, h.start, "pending at its own place; %s", what)
				require.Equal(t, old, content[h.start:h.end], what)
				if was != ext.HunkPending {
					require.Equal(t, old, content[at:at+size], "turned pending only once its region holds the old text; %s", what)
				}
			}
			if h.status == ext.HunkStale {
				break
			}
			if h.status == ext.HunkPending {
				// Accepting it again, as the user would: the model follows.
				acc := text.Edit{Start: h.start, End: h.end, NewText: proposed}
				next = content[:acc.Start] + acc.NewText + content[acc.End:]
				f.sync(next, []text.Edit{acc})
				content, size = next, len(proposed)
				require.Equal(t, ext.HunkAccepted, h.status, what)
			}
		}
	}
}
