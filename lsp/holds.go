package lsp

import (
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/aymanbagabas/go-udiff"
)

// holds reports whether content holds the edit that turned base into intended through edits
// (sorted byte edits of base), whatever else changed in it (see touchesNone): the line diff from
// intended to content leaves every stretch the edit wrote alone, and the line diff from base to
// content does not leave every stretch the edit replaced alone. The second half settles the
// cases where a free line diff can line a repeated line up on either side of the edit, which
// would make a document without the edit look like one with it: an edit is taken as held only
// when the document does not look just as much like it never was, since a false "held" would
// lose the edit for good while a false "not held" can still be corrected (a late didChange, or
// applying it again).
func holds(base, intended string, edits []text.Edit, content string) bool {
	switch {
	case content == intended:
		return true
	case content == base:
		return false
	}
	return touchesNone(intended, writtenRanges(edits), content) && !touchesNone(base, replacedRanges(edits), content)
}

// touchesNone reports whether the line diff from from to content touches none of the spans of
// from. A change that ends where a span begins, or begins where it ends, touches it only if it
// is an insertion inside an empty span (a deletion), which is what a document still holding the
// deleted text looks like.
func touchesNone(from string, spans []span, content string) bool {
	if len(spans) == 0 {
		return true
	}
	changes := udiff.Lines(from, content)
	i := 0
	for _, ch := range changes {
		for i < len(spans) && spans[i].end < ch.Start {
			i++
		}
		for j := i; j < len(spans) && spans[j].start <= ch.End; j++ {
			if touches(spans[j], ch.Start, ch.End) {
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

// replacedRanges returns the stretches of the original the edits replace.
func replacedRanges(edits []text.Edit) []span {
	out := make([]span, len(edits))
	for i, e := range edits {
		out[i] = span{e.Start, e.End}
	}
	return out
}

// touches reports whether a change of [x, y) alters the span w.
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
