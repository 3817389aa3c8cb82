package text

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Edit replaces original[Start:End] with NewText.
type Edit struct {
	Start, End int
	NewText    string
}

// editBuilder turns the applier's output, seen as a stream of copies of the original and
// inserted text, into sorted, non-overlapping edits. cur is the offset in the original up to which
// the output so far is accounted for; open is the edit being grown, if any, with its new text
// collected in text (a builder, so merging many replacements stays linear).
type editBuilder struct {
	original string
	cur      int
	open     *Edit
	text     strings.Builder
	edits    []Edit
}

// openEdit returns the edit being grown, starting one at cur if there is none.
func (b *editBuilder) openEdit() *Edit {
	if b.open == nil {
		b.open = &Edit{Start: b.cur, End: b.cur}
		b.text.Reset()
	}
	return b.open
}

// closeEdit finishes the open edit, if any.
func (b *editBuilder) closeEdit() {
	if b.open == nil {
		return
	}
	b.open.NewText = b.text.String()
	b.edits = append(b.edits, *b.open)
	b.open = nil
}

// insert records output text that is not a copy of the original at cur.
func (b *editBuilder) insert(text string) {
	if text == "" {
		return
	}
	b.openEdit()
	b.text.WriteString(text)
}

// copyOriginal records that the output continues with original[x:y] (0 <= x <= y <= len).
// Text before cur was already accounted for, so any part of the copy before cur is inserted
// again (the applier duplicated it), text between cur and x was dropped (deleted), and only the
// part from cur on is an unchanged stretch that ends the open edit.
func (b *editBuilder) copyOriginal(x, y int) {
	if x < b.cur {
		b.insert(b.original[x:min(y, b.cur)])
		x = min(y, b.cur)
	}
	if x > b.cur {
		e := b.openEdit()
		e.End = x
		b.cur = x
	}
	if y > x {
		b.closeEdit()
		b.cur = y
	}
}

// clampOffset limits off to [0, n], the offsets a replacement may name in a content of length n;
// the applier may report an end one past the content.
func clampOffset(off, n int) int {
	return max(0, min(off, n))
}

// ReplacementEdits turns the applier's final-mode replacements into sorted, non-overlapping,
// minimal edits of original.
//
// reps are the applier's replacements as edits, in the order the applier used them (sorted by
// Start); the edits reproduce exactly what the applier builds: for each replacement, the original
// between the previous replacement's End and this Start (if Start is after it), then its NewText; finally the original from the last End.
// Offsets are clamped to [0, len(original)]. Overlapping, touching and backwards (End before
// Start) replacements therefore merge into one edit, duplicating text where the applier does.
// Each edit is then shrunk by the whole lines it leaves unchanged at its start and end
// (shrink), and edits that change nothing are dropped.
func ReplacementEdits(original string, reps []Edit) []Edit {
	b := &editBuilder{original: original}
	n := len(original)
	pos := 0
	for _, r := range reps {
		start, end := clampOffset(r.Start, n), clampOffset(r.End, n)
		if start > pos {
			b.copyOriginal(pos, start)
		}
		b.insert(r.NewText)
		pos = end
	}
	b.copyOriginal(pos, n)
	// The final copy ends at len(original), so only an edit reaching the end can still be open.
	b.closeEdit()
	out := make([]Edit, 0, len(b.edits))
	for _, e := range b.edits {
		if e, ok := shrink(original, e); ok {
			out = append(out, e)
		}
	}
	return out
}

// isLineStart reports whether offset k of s begins a line under the LSP's line breaks: it
// follows \n, or a \r that is not the first half of a \r\n. Offset 0 counts as a line start.
func isLineStart(s string, k int) bool {
	if k == 0 {
		return true
	}
	switch s[k-1] {
	case '\n':
		return true
	case '\r':
		return k == len(s) || s[k] != '\n'
	}
	return false
}

// shrink leaves out of e the whole lines at its start and its end that it does not change,
// so that editors mark only the lines that really change; ok is false if e changes nothing.
// Cuts are made only at line starts of original (never inside a \r\n or a rune) and at the
// same place of NewText, so the result applies to the same content.
func shrink(original string, e Edit) (Edit, bool) {
	old := original[e.Start:e.End]
	if old == e.NewText {
		return e, false
	}
	prefix := 0
	for k := 1; k <= len(old) && k <= len(e.NewText) && old[k-1] == e.NewText[k-1]; k++ {
		if isLineStart(original, e.Start+k) && isLineStart(e.NewText, k) {
			prefix = k
		}
	}
	suffix := 0
	for k := 1; k <= len(old)-prefix && k <= len(e.NewText)-prefix && old[len(old)-k] == e.NewText[len(e.NewText)-k]; k++ {
		if isLineStart(original, e.End-k) && isLineStart(e.NewText, len(e.NewText)-k) {
			suffix = k
		}
	}
	return Edit{Start: e.Start + prefix, End: e.End - suffix, NewText: e.NewText[prefix : len(e.NewText)-suffix]}, true
}

// Diff returns minimal line-level edits that turn old into new.
//
// Lines are split at \n (a \r\n line keeps its \r), so every edit starts and ends at a line
// start of old and new and never cuts a \r\n. When neither content has a \n, lines are split at
// \r instead, so that a CR-only document gets line edits too rather than one edit of the whole
// document. The diff is the line-level LCS diff of go-udiff, which may settle for a
// near-minimal answer on huge inputs; edits that change nothing are dropped.
func Diff(old, new string) []Edit {
	if old == new {
		return nil
	}
	if old == "" || new == "" {
		// The one edit any diff gives, without splitting a new file of many megabytes into
		// lines (issue 16, item 14).
		return []Edit{{Start: 0, End: len(old), NewText: new}}
	}
	if strings.Contains(old, "\n") || strings.Contains(new, "\n") {
		return lineEdits(old, new, udiff.Lines(old, new))
	}
	// Without any \n, turning every \r into \n is a one-to-one map of both contents that keeps
	// every offset, so the diff of the mapped contents is a diff of the originals.
	return lineEdits(old, new, udiff.Lines(strings.ReplaceAll(old, "\r", "\n"), strings.ReplaceAll(new, "\r", "\n")))
}

// lineEdits returns go-udiff's edits of old into new as Edits whose text is taken from new
// itself, dropping the ones that change nothing. diff may have been computed on images of old
// and new that keep every offset.
func lineEdits(old, new string, diff []udiff.Edit) []Edit {
	edits := make([]Edit, 0, len(diff))
	// delta is the offset in new minus the offset in old, which the unchanged text between
	// two edits keeps.
	delta := 0
	for _, d := range diff {
		start := d.Start + delta
		newText := new[start : start+len(d.New)]
		delta += len(d.New) - (d.End - d.Start)
		if old[d.Start:d.End] == newText {
			continue
		}
		edits = append(edits, Edit{Start: d.Start, End: d.End, NewText: newText})
	}
	return edits
}

// Apply applies sorted, non-overlapping edits to s.
//
// It never panics: an edit's offsets are clamped to the content, and an edit that starts before
// the previous one ended is treated as starting there.
func Apply(s string, edits []Edit) string {
	if len(edits) == 1 && edits[0].Start <= 0 && edits[0].End >= len(s) {
		// A replacement of the whole content is its text, not a copy of it.
		return edits[0].NewText
	}
	// Two passes, one to size the result, so that a large document is copied once instead of
	// into a buffer that doubles as it fills.
	size, pos := 0, 0
	for _, e := range edits {
		start, end := e.clamp(pos, len(s))
		size += start - pos + len(e.NewText)
		pos = end
	}
	var b strings.Builder
	b.Grow(size + len(s) - pos)
	pos = 0
	for _, e := range edits {
		start, end := e.clamp(pos, len(s))
		b.WriteString(s[pos:start])
		b.WriteString(e.NewText)
		pos = end
	}
	b.WriteString(s[pos:])
	return b.String()
}

// clamp returns e's range in a text of length n where the edits before e ended at pos: within
// the text, and never before pos or ending before it starts.
func (e Edit) clamp(pos, n int) (start, end int) {
	start = max(clampOffset(e.Start, n), pos)
	return start, max(clampOffset(e.End, n), start)
}
