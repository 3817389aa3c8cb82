// Package docs is the server's state layer for the documents the client has open: their content
// and version as didOpen, didChange and didClose leave them, and waiting for a content to arrive.
package docs

import (
	"context"
	"fmt"
	"sync"

	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Store owns the content and version of every document the client has open. It is safe for
// concurrent use.
//
// A document is held as a text.Rope, so a small didChange costs its own length and one chunk,
// not the document's length; the content as one string is built only when Get asks for it, and
// kept until the next change.
//
// Every mutation (open, change, close) wakes all WaitFor calls by closing the current changed
// channel and installing a fresh one; waiters re-check their condition, so a wake-up for another
// document only costs one re-check.
type Store struct {
	mu      sync.Mutex
	docs    map[uri.URI]*document
	opens   map[uri.URI]uint64 // didOpens seen per document, open or closed now
	changed chan struct{}
}

// document is the tracked state of one open document.
type document struct {
	version int32
	text    *text.Rope
}

// New returns an empty store.
func New() *Store {
	return &Store{docs: map[uri.URI]*document{}, opens: map[uri.URI]uint64{}, changed: make(chan struct{})}
}

// broadcast wakes every WaitFor. The caller holds d.mu.
func (d *Store) broadcast() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// Open records a didOpen. Opening a document that is already open replaces its state, since
// the client's didOpen is the truth.
func (d *Store) Open(u uri.URI, version int32, content string) {
	r := text.NewRope(content)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[u] = &document{version: version, text: r}
	d.opens[u]++
	d.broadcast()
}

// Change applies a didChange's content changes in order, ranges in enc, and returns them as byte
// edits, each of the content the previous one left (a whole-document change replaces it all).
// Followers of the document's text (held hunks, hints) shift by these rather than search for
// their text again.
//
// A range change's positions are converted against the content as left by the previous change,
// with the Mapper's clamping (see text.Mapper); a whole-document change replaces the content. A
// version older than the current one is still applied and recorded (the LSP says versions only
// increase, so the client's content is the better truth than our ordering assumption).
// It is an error if the document is not open or a range ends before it starts; then nothing of
// this didChange is applied, because a partial application would leave content that matches no
// version of the client's.
func (d *Store) Change(u uri.URI, version int32, changes []Change, enc protocol.PositionEncodingKind) ([]text.Edit, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[u]
	if !ok {
		return nil, fmt.Errorf("didChange for %s, which is not open", u)
	}
	r := doc.text
	edits := make([]text.Edit, 0, len(changes))
	for i, ch := range changes {
		if ch.Range == nil {
			edits = append(edits, text.Edit{Start: 0, End: r.Len(), NewText: ch.Text})
			r = text.NewRope(ch.Text)
			continue
		}
		next, edit, err := r.Replace(ch.Range.Start, ch.Range.End, enc, ch.Text)
		if err != nil {
			return nil, fmt.Errorf("didChange for %s version %d, change %d: %w", u, version, i, err)
		}
		edits = append(edits, edit)
		r = next
	}
	doc.text = r
	doc.version = version
	d.broadcast()
	return edits, nil
}

// Close records a didClose. Closing a document that is not open does nothing.
func (d *Store) Close(u uri.URI) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.docs[u]; !ok {
		return
	}
	delete(d.docs, u)
	d.broadcast()
}

// Get returns the content and version of an open document; ok is false if it is not open. The
// first Get after a change builds the content (O(length)); later ones return it at no cost.
func (d *Store) Get(u uri.URI) (content string, version int32, ok bool) {
	s := d.Snapshot(u)
	if !s.Open {
		return "", 0, false
	}
	return s.Text.String(), s.Version, true
}

// Version returns the version of an open document without building its content; ok is false if
// it is not open.
func (d *Store) Version(u uri.URI) (version int32, ok bool) {
	s := d.Snapshot(u)
	return s.Version, s.Open
}

// Snapshot is one state of a document. Text is immutable, so a Snapshot may be kept and read
// without the store's lock.
type Snapshot struct {
	Open    bool
	Version int32      // 0 when not open
	Text    *text.Rope // nil when not open
}

// Snapshot returns the current state of u, without building its content.
func (d *Store) Snapshot(u uri.URI) Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.snapshotLocked(u)
}

func (d *Store) snapshotLocked(u uri.URI) Snapshot {
	doc, ok := d.docs[u]
	if !ok {
		return Snapshot{}
	}
	return Snapshot{Open: true, Version: doc.version, Text: doc.text}
}

// OpenCount returns how many didOpens of u the store has seen. Comparing two counts tells whether
// the client opened the document in between, even if it closed it again: what it held in an
// unsaved buffer before is then gone.
func (d *Store) OpenCount(u uri.URI) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.opens[u]
}

// WaitFor blocks until cond holds for the document's state, or ctx ends, and reports whether
// cond held. cond is called first immediately and then after every open, change and close of any
// document; it runs without the store's lock held, so it may be slow but sees a snapshot. To stay
// cheap while a large document changes, cond should compare with Text.Equal or Text.EqualLF
// (which answer from the length when it differs) rather than build the content.
func (d *Store) WaitFor(ctx context.Context, u uri.URI, cond func(Snapshot) bool) bool {
	for {
		d.mu.Lock()
		s := d.snapshotLocked(u)
		changed := d.changed
		d.mu.Unlock()
		if cond(s) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}
