package lsp

import "github.com/assistant-ls/assistant-ls/lsp/internal/text"

// This file follows regions of a document through its changes: held hunks (review_held.go) and
// tier hints (tier_hints.go) shift by the edits of each didChange rather than search for their
// text again, which could find another copy of it.

// changeSteps returns the edits that took a document from content from to content to, each with
// the content it left: edits (a didChange's, each of the content the previous one left) when
// they lead from from to to; otherwise (no ranges are known: a file on disk changed, or the
// follower is behind the edits) the change between the two as one edit. A whole-document
// change is taken as the change between the contents around it, so that what it left as it was
// is followed.
func changeSteps(from, to string, edits []text.Edit) ([]text.Edit, []string) {
	if len(edits) > 0 {
		steps, afters := make([]text.Edit, 0, len(edits)), make([]string, 0, len(edits))
		cur := from
		for _, e := range edits {
			if e.Start < 0 || e.Start > e.End || e.End > len(cur) {
				break
			}
			if e.Start == 0 && e.End == len(cur) {
				e = diffEdit(cur, e.NewText)
			}
			cur = cur[:e.Start] + e.NewText + cur[e.End:]
			steps, afters = append(steps, e), append(afters, cur)
		}
		if len(steps) == len(edits) && cur == to {
			return steps, afters
		}
	}
	return []text.Edit{diffEdit(from, to)}, []string{to}
}

// diffEdit is the change from a to b as one edit: what lies between their common prefix and
// suffix.
func diffEdit(a, b string) text.Edit {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	return text.Edit{Start: p, End: len(a) - q, NewText: b[p : len(b)-q]}
}
