package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// documents owns the content and version of every document the client has open. It is safe for
// concurrent use.
//
// Every mutation (open, change, close) wakes all waitFor calls by closing the current changed
// channel and installing a fresh one; waiters re-check their condition, so a wake-up for another
// document only costs one re-check.
type documents struct {
	mu      sync.Mutex
	docs    map[uri.URI]*document
	opens   map[uri.URI]uint64 // didOpens seen per document, open or closed now
	changed chan struct{}
}

// document is the tracked state of one open document.
type document struct {
	version int32
	content string
}

// newDocuments returns an empty store.
func newDocuments() *documents {
	return &documents{docs: map[uri.URI]*document{}, opens: map[uri.URI]uint64{}, changed: make(chan struct{})}
}

// broadcast wakes every waitFor. The caller holds d.mu.
func (d *documents) broadcast() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// open records a didOpen. Opening a document that is already open replaces its state, since
// the client's didOpen is the truth. The language id is not kept: edits are plain text whatever
// the language.
func (d *documents) open(u uri.URI, languageID string, version int32, text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[u] = &document{version: version, content: text}
	d.opens[u]++
	d.broadcast()
}

// change applies a didChange's content changes in order, ranges in enc.
//
// A range change's positions are converted against the content as left by the previous change,
// with the mapper's clamping (see mapper); a whole-document change replaces the content. A
// version older than the current one is still applied and recorded (the LSP says versions only
// increase, so the client's content is the better truth than our ordering assumption).
// It is an error if the document is not open, a change is nil or of an unknown kind, or a range
// ends before it starts; then nothing of this didChange is applied, because a partial application
// would leave content that matches no version of the client's.
func (d *documents) change(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent, enc protocol.PositionEncodingKind) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[u]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open", u)
	}
	content := doc.content
	for i, ch := range changes {
		next, err := applyChange(content, ch, enc)
		if err != nil {
			return fmt.Errorf("didChange for %s version %d, change %d: %w", u, version, i, err)
		}
		content = next
	}
	doc.content = content
	doc.version = version
	d.broadcast()
	return nil
}

// errBadChange reports a content change event the store cannot apply.
var errBadChange = errors.New("unsupported content change")

// applyChange returns content with one content change event applied, positions in enc.
func applyChange(content string, ch protocol.TextDocumentContentChangeEvent, enc protocol.PositionEncodingKind) (string, error) {
	switch c := ch.(type) {
	case *protocol.TextDocumentContentChangeWholeDocument:
		if c == nil {
			return "", fmt.Errorf("%w: nil whole-document change", errBadChange)
		}
		return c.Text, nil
	case *protocol.TextDocumentContentChangePartial:
		if c == nil {
			return "", fmt.Errorf("%w: nil range change", errBadChange)
		}
		m := newMapper(content)
		start, end := m.offset(c.Range.Start, enc), m.offset(c.Range.End, enc)
		if end < start {
			return "", fmt.Errorf("%w: range end %v is before its start %v", errBadChange, c.Range.End, c.Range.Start)
		}
		return content[:start] + c.Text + content[end:], nil
	default:
		return "", fmt.Errorf("%w: %T", errBadChange, ch)
	}
}

// close records a didClose. Closing a document that is not open does nothing.
func (d *documents) close(u uri.URI) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.docs[u]; !ok {
		return
	}
	delete(d.docs, u)
	d.broadcast()
}

// get returns the content and version of an open document; ok is false if it is not open.
func (d *documents) get(u uri.URI) (content string, version int32, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[u]
	if !ok {
		return "", 0, false
	}
	return doc.content, doc.version, true
}

// openCount returns how many didOpens of u the store has seen. Comparing two counts tells whether
// the client opened the document in between, even if it closed it again: what it held in an
// unsaved buffer before is then gone.
func (d *documents) openCount(u uri.URI) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.opens[u]
}

// waitFor blocks until cond holds for the document's content and version, or ctx ends, and
// reports whether cond held. cond is called with ("", 0, false) while the document is not open,
// first immediately and then after every open, change and close of any document; it runs
// without the store's lock held, so it may be slow but sees a snapshot.
func (d *documents) waitFor(ctx context.Context, u uri.URI, cond func(content string, version int32, open bool) bool) bool {
	for {
		d.mu.Lock()
		var content string
		var version int32
		doc, open := d.docs[u]
		if open {
			content, version = doc.content, doc.version
		}
		changed := d.changed
		d.mu.Unlock()
		if cond(content, version, open) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}
