package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// This file tells the user how an applied edit was located (section 4b): a replace_in_file
// section that only a fallback tier matched (line-trimmed, block-anchor, whole-file) was applied
// where the model's SEARCH text does not stand verbatim, so the lines it replaced deserve a
// look. Each such section gets a hint diagnostic on the text it put in the document. The hint
// stays while that text stands in the document (it moves with the user's edits elsewhere) and
// goes when the user edits those lines, when the block's stream is closed or starts over, or
// when the block is applied again.

// locatedSection is one replace_in_file section of a fileEdit: where its new text stands in the
// fileEdit's Intended content, [Start, End), and the tier that located it.
type locatedSection struct {
	Section    int // 1-based, in the diff
	Tier       apply.MatchTier
	Start, End int
}

// tierHint is the hint of one section in one document.
type tierHint struct {
	key     editKey
	target  target
	text    string // the text the hint covers, as the edit left it
	at      int    // its offset in the document when last seen
	message string
}

// tierHints holds the hints of applied edits, by document. It is safe for concurrent use.
type tierHints struct {
	ed      *editor
	publish func(uri.URI)

	mu    sync.Mutex
	byDoc map[uri.URI][]*tierHint
	// cleanups holds, per block with hints, the registration that forgets them when the block
	// ends: one per block however often it is applied, stopped when its hints are forgotten.
	cleanups map[editKey]*hintCleanup
}

// hintCleanup is the registration of one block's cleanup on its context.
type hintCleanup struct{ stop func() bool }

// newTierHints returns an empty store that publishes a document's diagnostics with publish.
func newTierHints(ed *editor, publish func(uri.URI)) *tierHints {
	return &tierHints{ed: ed, publish: publish, byDoc: map[uri.URI][]*tierHint{}, cleanups: map[editKey]*hintCleanup{}}
}

// located records the hints of p, the edit of block key that the client applied
// (editorDeps.Located), in place of the block's earlier ones.
func (h *tierHints) located(key editKey, be *blockEdit, p *plannedEdit) {
	touched := h.forget(key)
	var added bool
	for _, f := range p.Files {
		for _, l := range f.Located {
			words, ok := tierWords[l.Tier]
			if !ok || f.Delete || f.MoveTo != nil {
				continue
			}
			start, end := hintSpan(f.Intended, l.Start, l.End)
			hint := &tierHint{key: key, target: f.Target, text: f.Intended[start:end], at: start,
				message: fmt.Sprintf("%s section %d was located only through %s; check the lines it replaced", p.Req.Tool.name, l.Section, words)}
			h.mu.Lock()
			h.byDoc[f.Target.URI] = append(h.byDoc[f.Target.URI], hint)
			h.mu.Unlock()
			touched, added = appendURI(touched, f.Target.URI), true
		}
	}
	if added {
		// A block dropped (its stream closed or restarted, the session ending) takes its hints;
		// a cleanup that was replaced meanwhile leaves the new hints alone.
		c := &hintCleanup{}
		h.mu.Lock()
		c.stop = context.AfterFunc(be.ctx, func() {
			for _, u := range h.forgetIf(key, c) {
				h.publish(u)
			}
		})
		h.cleanups[key] = c
		h.mu.Unlock()
	}
	for _, u := range touched {
		h.publish(u)
	}
}

// hintSpan is the range a hint covers for a section whose new text is content[start:end]: that
// text without its final line break, or for a section that left no text (a deletion) the line
// where it was.
func hintSpan(content string, start, end int) (int, int) {
	start, end = min(start, len(content)), min(end, len(content))
	if end > start {
		return start, trimBreak(content, start, end)
	}
	ls := strings.LastIndexByte(content[:start], '\n') + 1
	le := strings.IndexByte(content[start:], '\n')
	if le < 0 {
		return ls, len(content)
	}
	return ls, trimBreak(content, ls, start+le+1)
}

// trimBreak is end less the line break that content[start:end] ends with, if any.
func trimBreak(content string, start, end int) int {
	s := content[start:end]
	switch {
	case strings.HasSuffix(s, "\r\n") && len(s) > 2:
		return end - 2
	case (strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\r")) && len(s) > 1:
		return end - 1
	}
	return end
}

// forget drops the hints of key, and their cleanup, and returns the documents that held some.
func (h *tierHints) forget(key editKey) []uri.URI { return h.forgetIf(key, nil) }

// forgetIf is forget when c is nil, and otherwise only while c is key's current cleanup.
func (h *tierHints) forgetIf(key editKey, c *hintCleanup) []uri.URI {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur := h.cleanups[key]
	if c != nil && cur != c {
		return nil
	}
	if cur != nil {
		cur.stop()
		delete(h.cleanups, key)
	}
	var out []uri.URI
	for u, list := range h.byDoc {
		kept := slices.DeleteFunc(slices.Clone(list), func(x *tierHint) bool { return x.key == key })
		if len(kept) == len(list) {
			continue
		}
		out = append(out, u)
		h.set(u, kept)
	}
	return out
}

// set makes list the hints of u (h.mu held).
func (h *tierHints) set(u uri.URI, list []*tierHint) {
	if len(list) == 0 {
		delete(h.byDoc, u)
		return
	}
	h.byDoc[u] = list
}

// changed follows a change of document u: its hints are published again, found where their
// text now stands or dropped.
func (h *tierHints) changed(u uri.URI) {
	h.mu.Lock()
	_, ok := h.byDoc[u]
	h.mu.Unlock()
	if ok {
		h.publish(u)
	}
}

// diagnostics lists u's hints (a diagnosticSource): each found again in the document as it now
// stands, nearest where it was last seen; a hint whose text no longer stands is dropped.
func (h *tierHints) diagnostics(u uri.URI, enc protocol.PositionEncodingKind) []protocol.Diagnostic {
	h.mu.Lock()
	list := append([]*tierHint(nil), h.byDoc[u]...)
	h.mu.Unlock()
	if len(list) == 0 {
		return nil
	}
	content, exists := h.ed.current(list[0].target)
	m := text.NewMapper(content)
	var out []protocol.Diagnostic
	seen := map[*tierHint]int{} // the hints that still stand, at their new offsets
	for _, x := range list {
		at, ok := nearest(content, x.text, x.at)
		if !exists || !ok {
			continue
		}
		start, err1 := m.Position(at, enc)
		end, err2 := m.Position(at+len(x.text), enc)
		if err1 != nil || err2 != nil {
			continue
		}
		seen[x] = at
		out = append(out, protocol.Diagnostic{
			Range: protocol.Range{Start: start, End: end}, Severity: protocol.DiagnosticSeverityHint,
			Code: protocol.String(ext.CodeFallback), Source: protocol.NewOptional(ext.DiagnosticSource), Message: protocol.String(x.message),
		})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// Hints recorded meanwhile are kept for the next publish; only those looked at are updated.
	h.set(u, slices.DeleteFunc(slices.Clone(h.byDoc[u]), func(x *tierHint) bool {
		at, ok := seen[x]
		if ok {
			x.at = at
		}
		return !ok && slices.Contains(list, x)
	}))
	return out
}

// nearest returns the offset of the occurrence of s in content nearest at. An empty s stands
// only where it was, at a line start.
func nearest(content, s string, at int) (int, bool) {
	if s == "" {
		return at, at <= len(content) && (at == 0 || content[at-1] == '\n')
	}
	at = min(at, len(content))
	before := strings.LastIndex(content[:min(len(content), at+len(s))], s)
	after := strings.Index(content[at:], s)
	switch {
	case before < 0 && after < 0:
		return 0, false
	case after < 0:
		return before, true
	case before < 0 || after < at-before:
		return at + after, true
	}
	return before, true
}

// appendURI appends u to us unless it is there.
func appendURI(us []uri.URI, u uri.URI) []uri.URI {
	for _, v := range us {
		if v == u {
			return us
		}
	}
	return append(us, u)
}

// located hands the applied edit of a block to the hints (editorDeps.Located).
func (s *server) located(key editKey, be *blockEdit, p *plannedEdit) { s.hints.located(key, be, p) }
