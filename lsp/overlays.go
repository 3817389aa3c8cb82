package lsp

import (
	"sync"

	"go.lsp.dev/uri"
)

// overlay remembers an edit the client applied to a file it does not have open: until the
// file is saved, the disk still holds before, and later edits must build on after. It is valid
// only while the client has not opened the document since the edit was computed (opens is the
// documents store's open count then): an editor that opened the edited buffer reports its
// content itself, and once it closed the buffer without saving, after exists nowhere any more.
type overlay struct {
	before, after string
	opens         uint64
}

// overlays holds the unsaved content of edited files that are not open. It is safe for
// concurrent use.
type overlays struct {
	mu sync.Mutex
	by map[uri.URI]*overlay
}

// newOverlays returns an empty store.
func newOverlays() *overlays { return &overlays{by: map[uri.URI]*overlay{}} }

// apply returns snap with the overlay of u laid over it: the content the client holds for a
// file that is not open. A stale overlay (the document is or was open since, its buffer being
// the truth, or the disk moved on because the editor saved or something else wrote the file)
// is dropped.
func (o *overlays) apply(u uri.URI, snap snapshot) snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	ov, ok := o.by[u]
	if !ok {
		return snap
	}
	if !snap.Open && snap.Opens == ov.opens && snap.Content == ov.before && (snap.Exists || ov.before == "") {
		return snapshot{Content: ov.after, Exists: true, Opens: snap.Opens}
	}
	delete(o.by, u)
	return snap
}

// record remembers that f's document, not open, now holds f.Intended in the client.
func (o *overlays) record(f *fileEdit) {
	o.mu.Lock()
	defer o.mu.Unlock()
	before := f.Base.Content
	if ov, ok := o.by[f.Target.URI]; ok && ov.after == f.Base.Content {
		// The edit was built on an earlier unsaved edit: the disk still holds what was there
		// before that one.
		before = ov.before
	}
	o.by[f.Target.URI] = &overlay{before: before, after: f.Intended, opens: f.Base.Opens}
}
