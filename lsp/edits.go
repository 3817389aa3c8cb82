package lsp

import (
	"fmt"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"
)

// byteEdit replaces original[Start:End] with NewText.
type byteEdit struct {
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
	open     *byteEdit
	text     strings.Builder
	edits    []byteEdit
}

// openEdit returns the edit being grown, starting one at cur if there is none.
func (b *editBuilder) openEdit() *byteEdit {
	if b.open == nil {
		b.open = &byteEdit{Start: b.cur, End: b.cur}
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

// replacementEdits turns the applier's final-mode replacements into sorted, non-overlapping,
// minimal edits of original.
//
// reps must be in the order the applier used them (sorted by Start); the edits reproduce exactly
// what the applier builds: for each replacement, the original between the previous replacement's
// End and this Start (if Start is after it), then Content; finally the original from the last End.
// Offsets are clamped to [0, len(original)]. Overlapping, touching and backwards (End before
// Start) replacements therefore merge into one edit, duplicating text where the applier does.
// Each edit is then shrunk by the whole lines it leaves unchanged at its start and end
// (shrinkEdit), and edits that change nothing are dropped.
func replacementEdits(original string, reps []apply.Replacement) []byteEdit {
	b := &editBuilder{original: original}
	n := len(original)
	pos := 0
	for _, r := range reps {
		start, end := clampOffset(r.Start, n), clampOffset(r.End, n)
		if start > pos {
			b.copyOriginal(pos, start)
		}
		b.insert(r.Content)
		pos = end
	}
	b.copyOriginal(pos, n)
	// The final copy ends at len(original), so only an edit reaching the end can still be open.
	b.closeEdit()
	out := make([]byteEdit, 0, len(b.edits))
	for _, e := range b.edits {
		if e, ok := shrinkEdit(original, e); ok {
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

// shrinkEdit leaves out of e the whole lines at its start and its end that it does not change,
// so that editors mark only the lines that really change; ok is false if e changes nothing.
// Cuts are made only at line starts of original (never inside a \r\n or a rune) and at the
// same place of NewText, so the result applies to the same content.
func shrinkEdit(original string, e byteEdit) (byteEdit, bool) {
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
	return byteEdit{Start: e.Start + prefix, End: e.End - suffix, NewText: e.NewText[prefix : len(e.NewText)-suffix]}, true
}

// contentEdits returns minimal line-level edits that turn old into new.
//
// Lines are split at \n (a \r\n line keeps its \r; a lone \r does not split), so every edit
// starts and ends at a line start of old and new and never cuts a \r\n. The diff is the
// line-level LCS diff of go-udiff, which may settle for a near-minimal answer on huge inputs;
// edits that change nothing are dropped.
func contentEdits(old, new string) []byteEdit {
	if old == new {
		return nil
	}
	diff := udiff.Lines(old, new)
	edits := make([]byteEdit, 0, len(diff))
	for _, d := range diff {
		if old[d.Start:d.End] == d.New {
			continue
		}
		edits = append(edits, byteEdit{Start: d.Start, End: d.End, NewText: d.New})
	}
	return edits
}

// applyEdits applies sorted, non-overlapping edits to s.
//
// It never panics: an edit's offsets are clamped to the content, and an edit that starts before
// the previous one ended is treated as starting there.
func applyEdits(s string, edits []byteEdit) string {
	n := len(s)
	for _, e := range edits {
		n += len(e.NewText)
	}
	var b strings.Builder
	b.Grow(n)
	pos := 0
	for _, e := range edits {
		start := clampOffset(e.Start, len(s))
		start = max(start, pos)
		end := max(clampOffset(e.End, len(s)), start)
		b.WriteString(s[pos:start])
		b.WriteString(e.NewText)
		pos = end
	}
	b.WriteString(s[pos:])
	return b.String()
}

// textEdits converts edits of m's content to LSP text edits in enc.
//
// edits must be sorted and non-overlapping and lie within the content. An offset that no LSP
// position can name (inside a rune or between \r and \n) is widened to the nearest ones that can,
// carrying the covered bytes into NewText, so the text edits still produce exactly the same
// content; edits that touch after widening are merged.
func (m *mapper) textEdits(edits []byteEdit, enc protocol.PositionEncodingKind) ([]protocol.TextEdit, error) {
	// merged holds the edits before widening; an edit is merged into the previous one when their
	// widened ranges would overlap, so widening never has to split text between two edits.
	merged := make([]byteEdit, 0, len(edits))
	prevEnd := 0
	for i, e := range edits {
		if e.Start < prevEnd || e.End < e.Start || e.End > len(m.content) {
			return nil, fmt.Errorf("edit %d [%d, %d) is out of order or outside the document (length %d)", i, e.Start, e.End, len(m.content))
		}
		prevEnd = e.End
		if n := len(merged); n > 0 && m.roundUp(merged[n-1].End) > m.roundDown(e.Start) {
			last := merged[n-1]
			merged[n-1] = byteEdit{Start: last.Start, End: e.End, NewText: last.NewText + m.content[last.End:e.Start] + e.NewText}
			continue
		}
		merged = append(merged, e)
	}
	widened := make([]byteEdit, len(merged))
	for i, e := range merged {
		start, end := m.roundDown(e.Start), m.roundUp(e.End)
		widened[i] = byteEdit{Start: start, End: end, NewText: m.content[start:e.Start] + e.NewText + m.content[e.End:end]}
	}
	out := make([]protocol.TextEdit, 0, len(widened))
	for i, e := range widened {
		r, err := m.rangeOf(e.Start, e.End, enc)
		if err != nil {
			return nil, fmt.Errorf("edit %d: %w", i, err)
		}
		out = append(out, protocol.TextEdit{Range: r, NewText: e.NewText})
	}
	return out, nil
}

// roundDown returns the largest offset <= off (0 <= off <= len) that a position names exactly.
func (m *mapper) roundDown(off int) int {
	p, err := m.position(off, protocol.PositionEncodingKindUTF8)
	if err != nil {
		return off
	}
	return m.offset(p, protocol.PositionEncodingKindUTF8)
}

// roundUp returns the smallest offset >= off (0 <= off <= len) that a position names exactly.
// Such an offset is at most a rune (4 bytes) away, and len(content) always qualifies.
func (m *mapper) roundUp(off int) int {
	for k := off; k < len(m.content); k++ {
		if m.roundDown(k) == k {
			return k
		}
	}
	return len(m.content)
}

// lineEnding returns the line break the server writes into a document: "\r\n" if content's first
// line break is a \r\n, else "\n" (also for content without line breaks and for the rare lone-\r
// documents, where "\n" is the break every editor reads). The first break decides because editors
// that detect a file's style (VS Code, Vim's fileformat) do the same, and it costs one scan.
func lineEnding(content string) string {
	i := strings.IndexAny(content, "\r\n")
	if i >= 0 && strings.HasPrefix(content[i:], "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// withLineEnding returns text with every lone \n turned into eol when eol is "\r\n", so that text
// inserted into a \r\n document matches it; existing \r\n stay as they are. For any other eol
// text is returned unchanged: the server never turns \r\n into \n.
func withLineEnding(text, eol string) string {
	if eol != "\r\n" || !strings.Contains(text, "\n") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + strings.Count(text, "\n"))
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && (i == 0 || text[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// utf8BOM is the byte order mark some editors put at the start of UTF-8 files.
const utf8BOM = "\uFEFF"

// keepBOM returns new with old's UTF-8 byte order mark: if old starts with one and new does not,
// the mark is prepended, so write_to_file keeps a file's BOM; otherwise new is returned as is.
func keepBOM(old, new string) string {
	if strings.HasPrefix(old, utf8BOM) && !strings.HasPrefix(new, utf8BOM) {
		return utf8BOM + new
	}
	return new
}
