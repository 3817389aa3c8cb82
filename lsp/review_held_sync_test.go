package lsp

import (
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests pin how held hunks follow a document's changes (heldFile.sync).

const syncSrc = "a\nb\nc\nd\ne\nf\n"

// syncFile holds hunks replacing line "b" by "B" and inserting "X" before line "e" in syncSrc.
func syncFile() *heldFile {
	b := strings.Index(syncSrc, "b\n")
	e := strings.Index(syncSrc, "e\n")
	return &heldFile{content: syncSrc, hunks: []*hunk{
		newHunk(syncSrc, text.Edit{Start: b, End: b + 2, NewText: "B\n"}),
		newHunk(syncSrc, text.Edit{Start: e, End: e, NewText: "X\n"}),
	}}
}

func TestHeldFileSync(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		content string
		want    []ext.HunkStatus
		olds    []string    // the text at each hunk's range afterwards
		edits   []text.Edit // the didChange's edits; nil: a whole-document change
	}{
		{"typing above shifts both", "top\n" + syncSrc, []ext.HunkStatus{ext.HunkPending, ext.HunkPending}, []string{"b\n", ""}, nil},
		{"typing between shifts the second", "a\nb\nc\nnew\nd\ne\nf\n", []ext.HunkStatus{ext.HunkPending, ext.HunkPending}, []string{"b\n", ""}, nil},
		{"typing below moves nothing", syncSrc + "end\n", []ext.HunkStatus{ext.HunkPending, ext.HunkPending}, []string{"b\n", ""}, nil},
		{"changing the hunk's line makes it stale", "a\nbb\nc\nd\ne\nf\n", []ext.HunkStatus{ext.HunkStale, ext.HunkPending}, []string{"", ""}, nil},
		{"typing the proposed text accepts it", "a\nB\nc\nd\ne\nf\n", []ext.HunkStatus{ext.HunkAccepted, ext.HunkPending}, []string{"B\n", ""}, nil},
		{"inserting the proposed line accepts it", "a\nb\nc\nd\nX\ne\nf\n", []ext.HunkStatus{ext.HunkPending, ext.HunkAccepted}, []string{"b\n", "X\n"}, nil},
		{"typing right at the insertion point keeps it", "a\nb\nc\nd\nYe\nf\n", []ext.HunkStatus{ext.HunkPending, ext.HunkPending}, []string{"b\n", ""}, nil},
		{"moving the hunk's lines with their context follows them", "d\na\nb\nc\ne\nf\n", []ext.HunkStatus{ext.HunkPending, ext.HunkPending}, []string{"b\n", ""},
			[]text.Edit{{Start: 6, End: 8}, {Start: 0, End: 0, NewText: "d\n"}}},
		{"a whole-document change that moves them makes the one it spans stale", "d\na\nb\nc\ne\nf\n", []ext.HunkStatus{ext.HunkStale, ext.HunkPending}, []string{"", ""}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := syncFile()
			f.sync(tc.content, tc.edits)
			var got []ext.HunkStatus
			for i, h := range f.hunks {
				got = append(got, h.status)
				require.LessOrEqual(t, h.start, h.end)
				require.LessOrEqual(t, h.end, len(tc.content))
				if h.status != ext.HunkStale {
					assert.Equal(t, tc.olds[i], tc.content[h.start:h.end], "hunk %d", i)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzHeldFileSync: whatever the change, hunks stay inside the content, a pending hunk's range
// holds its original text, and an accepted one's its proposed text.
func FuzzHeldFileSync(f *testing.F) {
	f.Add(syncSrc, uint(2), uint(4), "B\n", uint(3), uint(5), "zz")
	f.Add("x\ny\n", uint(0), uint(0), "ins\n", uint(0), uint(4), "")
	f.Fuzz(func(t *testing.T, src string, hs, he uint, newText string, cs, ce uint, typed string) {
		hs, he = min(hs, uint(len(src))), min(he, uint(len(src)))
		if hs > he {
			hs, he = he, hs
		}
		cs, ce = min(cs, uint(len(src))), min(ce, uint(len(src)))
		if cs > ce {
			cs, ce = ce, cs
		}
		hf := &heldFile{content: src, hunks: []*hunk{newHunk(src, text.Edit{Start: int(hs), End: int(he), NewText: newText})}}
		next := src[:cs] + typed + src[ce:]
		hf.sync(next, nil)
		h := hf.hunks[0]
		if h.start < 0 || h.start > h.end || h.end > len(next) {
			t.Fatalf("hunk [%d, %d) outside the content of length %d", h.start, h.end, len(next))
		}
		switch h.status {
		case ext.HunkPending:
			if next[h.start:h.end] != h.old {
				t.Fatalf("pending hunk's range holds %q, not %q", next[h.start:h.end], h.old)
			}
		case ext.HunkAccepted:
			if next[h.start:h.end] != h.new {
				t.Fatalf("accepted hunk's range holds %q, not %q", next[h.start:h.end], h.new)
			}
		}
	})
}
