package lsp

import (
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// holdsEdit reports whether content still holds every change of an edit that turned base into
// intended through edits (sorted byte edits of base): the line diff from intended to content
// touches none of the text the edit wrote. Changes elsewhere, such as the user typing in other
// lines before or after the editor applied the edit, do not count against it, so an edit is
// recognised as applied whatever else the document went through; a document without the edit
// differs from intended exactly where the edit wrote, and is not.
//
// A user change that ends where a written stretch begins, or begins where it ends, touches it
// only if it is an insertion inside an empty stretch (a deletion), which is what a document
// still holding the deleted text looks like.
func holdsEdit(intended string, edits []text.Edit, content string) bool {
	if content == intended {
		return true
	}
	written := writtenRanges(edits)
	if len(written) == 0 {
		return true
	}
	changes := udiff.Lines(intended, content)
	i := 0
	for _, ch := range changes {
		for i < len(written) && written[i].end < ch.Start {
			i++
		}
		for j := i; j < len(written) && written[j].start <= ch.End; j++ {
			if touches(written[j], ch.Start, ch.End) {
				return false
			}
		}
	}
	return true
}

// span is a range of bytes [start, end).
type span struct{ start, end int }

// writtenRanges returns where the edits' new texts stand in the content they produce.
func writtenRanges(edits []text.Edit) []span {
	out := make([]span, 0, len(edits))
	shift := 0
	for _, e := range edits {
		start := e.Start + shift
		out = append(out, span{start, start + len(e.NewText)})
		shift += len(e.NewText) - (e.End - e.Start)
	}
	return out
}

// touches reports whether a change of [x, y) of the intended content alters the written span w.
func touches(w span, x, y int) bool {
	if w.start == w.end {
		// A deletion: only a change across its point, or an insertion right at it, undoes it.
		return (x < w.start && w.start < y) || (x == y && x == w.start)
	}
	if x == y {
		return w.start < x && x < w.end
	}
	return x < w.end && w.start < y
}
