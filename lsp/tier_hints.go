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
// section, Aider section or diff hunk that only a fallback tier of its applier matched
// (tierWords) was applied where the model's text does not stand verbatim, so the lines it
// replaced deserve a look. Each such section gets a hint diagnostic on the text it put in the document. The hint
// stays while that text stands in the document (it moves with the user's edits elsewhere) and
// goes when the user edits those lines, when the block's stream is closed or starts over, or
// when the block is applied again.

// locatedSection is one section (a replace_in_file or Aider section, a diff hunk) of a fileEdit:
// where its new text stands in the fileEdit's Intended content, [Start, End), and the tier that
// located it.
type locatedSection struct {
	Section    int // 1-based, in the diff
	Tier       apply.MatchTier
	Start, End int
}

// tierHint is the hint of one section in one document.
type tierHint struct {
	key    editKey
	target target
	text   string // the text the hint covers, as the edit left it
	at     int    // its offset in its docHints' content
	// startsLine and endsLine say the text began and ended a line when placed: an edit that
	// joins those lines to another, or types at their ends, is an edit of them.
	startsLine, endsLine bool
	message              string
}

// stands reports whether x's text stands at its offset in content, its lines whole.
func (x *tierHint) stands(content string) bool {
	end := x.at + len(x.text)
	if x.at < 0 || end > len(content) || content[x.at:end] != x.text {
		return false
	}
	if x.startsLine && x.at > 0 && !isBreak(content[x.at-1]) {
		return false
	}
	return !x.endsLine || end == len(content) || isBreak(content[end])
}

func isBreak(b byte) bool { return b == '\n' || b == '\r' }

// docHints are the hints in one document, with the content their offsets refer to.
type docHints struct {
	content string
	list    []*tierHint
}

// follow moves d's hints to content, through edits (a didChange's; nil when none are known):
// a hint shifts by the edits before it and goes when one touches it or its text no longer
// stands at its shifted offset. It is never looked for elsewhere, where another copy of its
// text may stand.
func (d *docHints) follow(content string, edits []text.Edit) {
	if d.content == content {
		return
	}
	steps, afters := changeSteps(d.content, content, edits)
	for i, e := range steps {
		delta := len(e.NewText) - (e.End - e.Start)
		d.list = slices.DeleteFunc(d.list, func(x *tierHint) bool {
			switch {
			case e.End <= x.at:
				x.at += delta
			case e.Start >= x.at+len(x.text):
			default:
				return true
			}
			return !x.stands(afters[i])
		})
	}
	d.content = content
}

// tierHints holds the hints of applied edits, by document. It is safe for concurrent use.
type tierHints struct {
	ed      *editor
	publish func(uri.URI)

	mu    sync.Mutex
	byDoc map[uri.URI]*docHints
	// cleanups holds, per block with hints, the registration that forgets them when the block
	// ends: one per block however often it is applied, stopped when its hints are forgotten.
	cleanups map[editKey]*hintCleanup
}

// hintCleanup is the registration of one block's cleanup on its context.
type hintCleanup struct{ stop func() bool }

// newTierHints returns an empty store that publishes a document's diagnostics with publish.
func newTierHints(ed *editor, publish func(uri.URI)) *tierHints {
	return &tierHints{ed: ed, publish: publish, byDoc: map[uri.URI]*docHints{}, cleanups: map[editKey]*hintCleanup{}}
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
			c := f.Intended
			start, end := hintSpan(c, l.Start, l.End)
			hint := &tierHint{key: key, target: f.Target, text: c[start:end], at: start,
				startsLine: start == 0 || isBreak(c[start-1]), endsLine: end == len(c) || isBreak(c[end]),
				message: fmt.Sprintf("%s %s %d was located only %s; check the lines it replaced", p.Req.Tool.name, sectionNoun(p.Req.Tool.name), l.Section, words)}
			h.mu.Lock()
			d := h.byDoc[f.Target.URI]
			if d == nil {
				d = &docHints{content: c}
				h.byDoc[f.Target.URI] = d
			}
			d.follow(c, nil)
			d.list = append(d.list, hint)
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
	for u, d := range h.byDoc {
		n := len(d.list)
		d.list = slices.DeleteFunc(d.list, func(x *tierHint) bool { return x.key == key })
		if len(d.list) == n {
			continue
		}
		out = append(out, u)
		if len(d.list) == 0 {
			delete(h.byDoc, u)
		}
	}
	return out
}

// changed follows a change of document u made by edits (a didChange's): its hints shift by
// them, or go, and are published again.
func (h *tierHints) changed(u uri.URI, edits []text.Edit) {
	content, exists, ok := h.current(u)
	if !ok {
		return
	}
	h.mu.Lock()
	if d := h.byDoc[u]; d != nil && exists {
		d.follow(content, edits)
	}
	h.mu.Unlock()
	h.publish(u)
}

// current is the content of u, which holds hints (ok false when it holds none).
func (h *tierHints) current(u uri.URI) (content string, exists, ok bool) {
	h.mu.Lock()
	d := h.byDoc[u]
	if d == nil || len(d.list) == 0 {
		h.mu.Unlock()
		return "", false, false
	}
	t := d.list[0].target
	h.mu.Unlock()
	content, exists = h.ed.current(t)
	return content, exists, true
}

// diagnostics lists u's hints (a diagnosticSource), followed to the document as it now stands
// where it changed without a didChange (a file on disk); a document that no longer exists
// takes them away.
func (h *tierHints) diagnostics(u uri.URI, enc protocol.PositionEncodingKind) []protocol.Diagnostic {
	content, exists, ok := h.current(u)
	if !ok {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.byDoc[u]
	if d == nil {
		return nil
	}
	if !exists {
		delete(h.byDoc, u)
		return nil
	}
	d.follow(content, nil)
	m := text.NewMapper(content)
	var out []protocol.Diagnostic
	for _, x := range d.list {
		start, err1 := m.Position(x.at, enc)
		end, err2 := m.Position(x.at+len(x.text), enc)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, protocol.Diagnostic{
			Range: protocol.Range{Start: start, End: end}, Severity: protocol.DiagnosticSeverityHint,
			Code: protocol.String(ext.CodeFallback), Source: protocol.NewOptional(ext.DiagnosticSource), Message: protocol.String(x.message),
		})
	}
	if len(d.list) == 0 {
		delete(h.byDoc, u)
	}
	return out
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
