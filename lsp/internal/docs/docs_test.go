package docs

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const docsTestURI = uri.URI("file:///ws/a.txt")

const (
	utf8Enc  = protocol.PositionEncodingKindUTF8
	utf16Enc = protocol.PositionEncodingKindUTF16
	utf32Enc = protocol.PositionEncodingKindUTF32
)

// rangeChange builds an incremental content change.
func rangeChange(sl, sc, el, ec uint32, text string) Change {
	return Change{Range: &protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}, Text: text}
}

// wholeChange builds a whole-document content change.
func wholeChange(text string) Change { return Change{Text: text} }

// TestDocumentsChange checks that changes apply in order, in the given encoding.
func TestDocumentsChange(t *testing.T) {
	tests := []struct {
		name    string
		initial string
		enc     protocol.PositionEncodingKind
		changes []Change
		want    string
		wantErr string
	}{
		{"insert", "abc\n", utf16Enc, []Change{rangeChange(0, 1, 0, 1, "X")}, "aXbc\n", ""},
		{"in order, second sees first", "abc", utf16Enc, []Change{rangeChange(0, 0, 0, 1, "日本"), rangeChange(0, 2, 0, 3, "")}, "日本c", ""},
		{"utf16 after emoji", "😀x\r\ny", utf16Enc, []Change{rangeChange(0, 2, 0, 3, "Z")}, "😀Z\r\ny", ""},
		{"utf32 after emoji", "😀x\r\ny", utf32Enc, []Change{rangeChange(0, 1, 0, 2, "Z")}, "😀Z\r\ny", ""},
		{"utf8 after emoji", "😀x\r\ny", utf8Enc, []Change{rangeChange(0, 4, 0, 5, "Z")}, "😀Z\r\ny", ""},
		{"delete crlf line", "a\r\nb\r\nc", utf16Enc, []Change{rangeChange(1, 0, 2, 0, "")}, "a\r\nc", ""},
		{"whole replaces", "abc", utf16Enc, []Change{rangeChange(0, 0, 0, 1, "Q"), wholeChange("new"), rangeChange(0, 3, 0, 3, "!")}, "new!", ""},
		{"clamped past end", "ab", utf16Enc, []Change{rangeChange(9, 0, 9, 0, "z")}, "abz", ""},
		{"reversed range refused", "abc", utf16Enc, []Change{rangeChange(0, 0, 0, 1, "Q"), rangeChange(0, 2, 0, 1, "")}, "abc", "before its start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New()
			d.Open(docsTestURI, 1, tt.initial)
			edits, err := d.Change(docsTestURI, 2, tt.changes, tt.enc)
			content, version, ok := d.Get(docsTestURI)
			require.True(t, ok)
			assert.Equal(t, tt.want, content)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, int32(1), version, "a refused didChange must not move the version")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, int32(2), version)
			// The edits Change reports, each of the content the previous left, lead to the same.
			require.Len(t, edits, len(tt.changes))
			replayed := tt.initial
			for _, e := range edits {
				replayed = text.Apply(replayed, []text.Edit{e})
			}
			assert.Equal(t, tt.want, replayed)
		})
	}
}

// TestDocumentsLifecycle checks open, stale versions, close and changes to unknown documents.
func TestDocumentsLifecycle(t *testing.T) {
	d := New()
	_, _, ok := d.Get(docsTestURI)
	assert.False(t, ok)
	assert.ErrorContains(t, changeErr(d.Change(docsTestURI, 1, []Change{wholeChange("x")}, utf16Enc)), "not open")

	d.Open(docsTestURI, 5, "five")
	require.NoError(t, changeErr(d.Change(docsTestURI, 3, []Change{wholeChange("three")}, utf16Enc)))
	content, version, ok := d.Get(docsTestURI)
	require.True(t, ok)
	assert.Equal(t, "three", content, "an older version is still applied")
	assert.Equal(t, int32(3), version)

	d.Open(docsTestURI, 7, "reopened")
	content, version, _ = d.Get(docsTestURI)
	assert.Equal(t, "reopened", content)
	assert.Equal(t, int32(7), version)

	d.Close(docsTestURI)
	d.Close(docsTestURI)
	_, _, ok = d.Get(docsTestURI)
	assert.False(t, ok)
}

// hangTimeout bounds a wait for a waiter: a last resort, reached only when it hangs, so it is
// minutes, since a busy machine under -race may take seconds for what takes microseconds.
const hangTimeout = 5 * time.Minute

// TestDocumentsWaitForLaterChange checks that a waiter is woken by a later change.
func TestDocumentsWaitForLaterChange(t *testing.T) {
	d := New()
	d.Open(docsTestURI, 1, "old")
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	result := make(chan bool)
	checked := make(chan struct{}) // closed by the waiter's first check, so the changes below wake it
	var once sync.Once
	go func() {
		result <- d.WaitFor(ctx, docsTestURI, func(d Snapshot) bool {
			once.Do(func() { close(checked) })
			return d.Open && d.Text.Equal("new") && d.Version == 3
		})
	}()
	<-checked
	other := uri.URI("file:///ws/b.txt")
	d.Open(other, 1, "unrelated")
	require.NoError(t, changeErr(d.Change(docsTestURI, 2, []Change{wholeChange("mid")}, utf16Enc)))
	require.NoError(t, changeErr(d.Change(docsTestURI, 3, []Change{wholeChange("new")}, utf16Enc)))
	select {
	case ok := <-result:
		assert.True(t, ok)
	case <-time.After(hangTimeout):
		t.Fatalf("waitFor was not woken by the change after %v: it hangs", hangTimeout)
	}
}

// TestDocumentsWaitForImmediateAndClose checks an already-true condition and waiting for close.
func TestDocumentsWaitForImmediateAndClose(t *testing.T) {
	d := New()
	d.Open(docsTestURI, 1, "x")
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	assert.True(t, d.WaitFor(ctx, docsTestURI, func(d Snapshot) bool { return d.Open && d.Text.Equal("x") }))

	result := make(chan bool)
	go func() {
		result <- d.WaitFor(ctx, docsTestURI, func(d Snapshot) bool { return !d.Open })
	}()
	d.Close(docsTestURI)
	assert.True(t, <-result)
}

// TestDocumentsWaitForTimeout checks that an unsatisfied waiter returns false when ctx ends.
func TestDocumentsWaitForTimeout(t *testing.T) {
	d := New()
	d.Open(docsTestURI, 1, "x")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var calls int
	ok := d.WaitFor(ctx, docsTestURI, func(Snapshot) bool { calls++; return false })
	assert.False(t, ok)
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded, "waitFor returned before its context ended")
	assert.Equal(t, 1, calls, "without changes the condition is checked once, not polled")
}

// TestDocumentsConcurrent runs writers, readers and waiters at once; run with -race.
func TestDocumentsConcurrent(t *testing.T) {
	d := New()
	const writers, perWriter = 4, 50
	uris := make([]uri.URI, writers)
	for i := range uris {
		uris[i] = uri.URI(fmt.Sprintf("file:///ws/%d.txt", i))
		d.Open(uris[i], 0, "")
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	var wg sync.WaitGroup
	waited := make([]bool, writers)
	for i := range writers {
		wg.Go(func() {
			waited[i] = d.WaitFor(ctx, uris[i], func(d Snapshot) bool {
				return d.Version == perWriter && d.Text.Len() == perWriter
			})
		})
		wg.Go(func() {
			for v := int32(1); v <= perWriter; v++ {
				assert.NoError(t, changeErr(d.Change(uris[i], v, []Change{rangeChange(0, uint32(v-1), 0, uint32(v-1), "x")}, utf16Enc)))
				d.Get(uris[(i+1)%writers])
			}
		})
	}
	wg.Wait()
	for i := range writers {
		assert.True(t, waited[i], i)
		content, version, _ := d.Get(uris[i])
		assert.Len(t, content, perWriter)
		assert.Equal(t, int32(perWriter), version)
	}
}

// changeErr is the error of a Store.Change, whose edits the caller does not need.
func changeErr(_ []text.Edit, err error) error { return err }
