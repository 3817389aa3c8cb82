package lsp

import (
	"context"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/parse"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// This file publishes the review diagnostics (section 7) with textDocument/publishDiagnostics,
// and wires the two review stores (held edits, response documents) to the server: what they
// show in a document is one list, published after the document or its targets stop changing.

// defaultDiagnosticsDelay is how long the diagnostics of a document wait for the next change
// before they are computed and published: typing a word costs one publish, not one per key.
const defaultDiagnosticsDelay = 150 * time.Millisecond

// publishCallback names the debounce timers' callback in the supervisor's logs and faults.
const publishCallback = "publish diagnostics"

// diagnosticSource lists the diagnostics one store shows in a document.
type diagnosticSource func(u uri.URI, enc protocol.PositionEncodingKind) []protocol.Diagnostic

// publisher debounces and sends the diagnostics of documents. It is safe for concurrent use.
type publisher struct {
	peer    peer
	sup     *supervisor // runs the debounce timers' callbacks
	log     *zap.Logger
	delay   time.Duration // <= 0: publish at once, on the caller's goroutine
	enc     func() protocol.PositionEncodingKind
	sources []diagnosticSource

	mu      sync.Mutex
	timers  map[uri.URI]*time.Timer
	last    map[uri.URI]string // the diagnostics last published, as JSON; absent when none
	stopped bool

	sendMu sync.Mutex // one publish at a time, so that a document's publishes never cross
}

// schedule publishes u's diagnostics once u has not been scheduled again for the delay.
func (p *publisher) schedule(u uri.URI) {
	if p.delay <= 0 {
		p.publishNow(u)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if t, ok := p.timers[u]; ok {
		t.Reset(p.delay)
		return
	}
	p.timers[u] = time.AfterFunc(p.delay, p.sup.callback(publishCallback, func() {
		p.mu.Lock()
		delete(p.timers, u)
		p.mu.Unlock()
		p.publishNow(u)
	}))
}

// publishNow computes and sends u's diagnostics when they differ from the last ones sent: an
// empty list is sent only to clear earlier ones.
func (p *publisher) publishNow(u uri.URI) {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	p.mu.Lock()
	stopped, last := p.stopped, p.last[u]
	p.mu.Unlock()
	if stopped {
		return
	}
	enc := p.enc()
	ds := []protocol.Diagnostic{}
	for _, src := range p.sources {
		ds = append(ds, src(u, enc)...)
	}
	cur := string(mustJSON(ds))
	if len(ds) == 0 && last == "" || cur == last {
		return
	}
	p.mu.Lock()
	if len(ds) == 0 {
		delete(p.last, u)
	} else {
		p.last[u] = cur
	}
	p.mu.Unlock()
	err := p.peer.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: ds})
	if err != nil {
		p.log.Debug("publish diagnostics", zap.String("uri", string(u)), zap.Error(err))
	}
}

// stop cancels pending publishes; later ones are ignored.
func (p *publisher) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	for u, t := range p.timers {
		t.Stop()
		delete(p.timers, u)
	}
}

// review is the server's review layer: held edits, response documents and their diagnostics.
type review struct {
	diags *publisher
	held  *reviewer
	resp  *responses
}

// startReview builds the review layer of s, once its editor exists.
func (s *server) startReview() {
	delay := s.opts.diagnosticsDelay
	if delay == 0 {
		delay = defaultDiagnosticsDelay
	}
	p := &publisher{peer: s.peer, log: s.log, sup: s.editor.sup, delay: delay, enc: s.encoding,
		timers: map[uri.URI]*time.Timer{}, last: map[uri.URI]string{}}
	rv := &review{diags: p}
	rv.held = newReviewer(s.editor, p.schedule)
	rv.resp = newResponses(s.editor, s.streams.currentParser(), p.schedule)
	p.sources = []diagnosticSource{rv.resp.diagnostics, rv.held.diagnostics}
	s.rv = rv
}

// currentParser returns the parser new streams use.
func (ss *streams) currentParser() *parse.Parser {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.parser
}

// held takes a block's edit held for review (editorDeps.Held).
func (s *server) held(key editKey, be *blockEdit, p *plannedEdit) { s.rv.held.hold(key, be, p) }

// blockChanged reports a block's new edit state to the streams and the response documents
// (editorDeps.Changed).
func (s *server) blockChanged(stream string, index int) {
	s.streams.changed(stream, index)
	if s.rv != nil {
		s.rv.resp.blockChanged(stream)
	}
}

// reviewOpened follows a didOpen: a response document is analysed, held hunks of the document
// are placed in its content, and response documents editing it are analysed again.
func (s *server) reviewOpened(u uri.URI, languageID, text string) {
	s.rv.resp.opened(u, languageID, text)
	s.reviewChanged(u, nil)
}

// reviewChanged follows a change of document u, made by edits (a didChange's, each of the
// content the previous one left; nil when none are known).
//
// The document's content is built only when review looks at it (a held edit targets it, or it
// is a response document): for any other document a keystroke costs what the rope's change
// costs, not its length; response documents that target it are only republished.
func (s *server) reviewChanged(u uri.URI, edits []text.Edit) {
	if !s.rv.held.hasHunks(u) && !s.rv.resp.isDocument(u) {
		s.rv.resp.changed(u, "")
		return
	}
	text, _, ok := s.docs.Get(u)
	if !ok {
		return
	}
	s.rv.held.docChanged(u, text, edits)
	s.rv.resp.changed(u, text)
}

// reviewClosed follows a didClose.
func (s *server) reviewClosed(u uri.URI) { s.rv.resp.closed(u) }
