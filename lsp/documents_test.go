package lsp

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const docsTestURI = uri.URI("file:///ws/a.txt")

// rangeChange builds an incremental content change.
func rangeChange(sl, sc, el, ec uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: lspPos(sl, sc), End: lspPos(el, ec)}, Text: text}
}

// wholeChange builds a whole-document content change.
func wholeChange(text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}
}

// TestDocumentsChange checks that changes apply in order, in the given encoding.
func TestDocumentsChange(t *testing.T) {
	tests := []struct {
		name    string
		initial string
		enc     protocol.PositionEncodingKind
		changes []protocol.TextDocumentContentChangeEvent
		want    string
		wantErr string
	}{
		{"insert", "abc\n", utf16Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(0, 1, 0, 1, "X")}, "aXbc\n", ""},
		{"in order, second sees first", "abc", utf16Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(0, 0, 0, 1, "日本"), rangeChange(0, 2, 0, 3, "")}, "日本c", ""},
		{"utf16 after emoji", "😀x\r\ny", utf16Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(0, 2, 0, 3, "Z")}, "😀Z\r\ny", ""},
		{"utf32 after emoji", "😀x\r\ny", utf32Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(0, 1, 0, 2, "Z")}, "😀Z\r\ny", ""},
		{"utf8 after emoji", "😀x\r\ny", utf8Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(0, 4, 0, 5, "Z")}, "😀Z\r\ny", ""},
		{"delete crlf line", "a\r\nb\r\nc", utf16Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(1, 0, 2, 0, "")}, "a\r\nc", ""},
		{"whole replaces", "abc", utf16Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(0, 0, 0, 1, "Q"), wholeChange("new"), rangeChange(0, 3, 0, 3, "!")}, "new!", ""},
		{"clamped past end", "ab", utf16Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(9, 0, 9, 0, "z")}, "abz", ""},
		{"reversed range refused", "abc", utf16Enc, []protocol.TextDocumentContentChangeEvent{rangeChange(0, 0, 0, 1, "Q"), rangeChange(0, 2, 0, 1, "")}, "abc", "before its start"},
		{"nil change refused", "abc", utf16Enc, []protocol.TextDocumentContentChangeEvent{nil}, "abc", "unsupported content change"},
		{"typed nil refused", "abc", utf16Enc, []protocol.TextDocumentContentChangeEvent{(*protocol.TextDocumentContentChangePartial)(nil)}, "abc", "nil range change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDocuments()
			d.open(docsTestURI, "plaintext", 1, tt.initial)
			err := d.change(docsTestURI, 2, tt.changes, tt.enc)
			content, version, ok := d.get(docsTestURI)
			require.True(t, ok)
			assert.Equal(t, tt.want, content)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, int32(1), version, "a refused didChange must not move the version")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, int32(2), version)
		})
	}
}

// TestDocumentsLifecycle checks open, stale versions, close and changes to unknown documents.
func TestDocumentsLifecycle(t *testing.T) {
	d := newDocuments()
	_, _, ok := d.get(docsTestURI)
	assert.False(t, ok)
	assert.ErrorContains(t, d.change(docsTestURI, 1, []protocol.TextDocumentContentChangeEvent{wholeChange("x")}, utf16Enc), "not open")

	d.open(docsTestURI, "go", 5, "five")
	require.NoError(t, d.change(docsTestURI, 3, []protocol.TextDocumentContentChangeEvent{wholeChange("three")}, utf16Enc))
	content, version, ok := d.get(docsTestURI)
	require.True(t, ok)
	assert.Equal(t, "three", content, "an older version is still applied")
	assert.Equal(t, int32(3), version)

	d.open(docsTestURI, "go", 7, "reopened")
	content, version, _ = d.get(docsTestURI)
	assert.Equal(t, "reopened", content)
	assert.Equal(t, int32(7), version)

	d.close(docsTestURI)
	d.close(docsTestURI)
	_, _, ok = d.get(docsTestURI)
	assert.False(t, ok)
}

// TestDocumentsWaitForLaterChange checks that a waiter is woken by a later change.
func TestDocumentsWaitForLaterChange(t *testing.T) {
	d := newDocuments()
	d.open(docsTestURI, "go", 1, "old")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	result := make(chan bool)
	checked := make(chan struct{}) // closed by the waiter's first check, so the changes below wake it
	var once sync.Once
	go func() {
		result <- d.waitFor(ctx, docsTestURI, func(content string, version int32, open bool) bool {
			once.Do(func() { close(checked) })
			return open && content == "new" && version == 3
		})
	}()
	<-checked
	other := uri.URI("file:///ws/b.txt")
	d.open(other, "go", 1, "unrelated")
	require.NoError(t, d.change(docsTestURI, 2, []protocol.TextDocumentContentChangeEvent{wholeChange("mid")}, utf16Enc))
	require.NoError(t, d.change(docsTestURI, 3, []protocol.TextDocumentContentChangeEvent{wholeChange("new")}, utf16Enc))
	select {
	case ok := <-result:
		assert.True(t, ok)
	case <-time.After(5 * time.Second):
		t.Fatal("waitFor was not woken by the change")
	}
}

// TestDocumentsWaitForImmediateAndClose checks an already-true condition and waiting for close.
func TestDocumentsWaitForImmediateAndClose(t *testing.T) {
	d := newDocuments()
	d.open(docsTestURI, "go", 1, "x")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.True(t, d.waitFor(ctx, docsTestURI, func(content string, _ int32, open bool) bool { return open && content == "x" }))

	result := make(chan bool)
	go func() {
		result <- d.waitFor(ctx, docsTestURI, func(_ string, _ int32, open bool) bool { return !open })
	}()
	d.close(docsTestURI)
	assert.True(t, <-result)
}

// TestDocumentsWaitForTimeout checks that an unsatisfied waiter returns false when ctx ends.
func TestDocumentsWaitForTimeout(t *testing.T) {
	d := newDocuments()
	d.open(docsTestURI, "go", 1, "x")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var calls int
	ok := d.waitFor(ctx, docsTestURI, func(string, int32, bool) bool { calls++; return false })
	assert.False(t, ok)
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded, "waitFor returned before its context ended")
	assert.Equal(t, 1, calls, "without changes the condition is checked once, not polled")
}

// TestDocumentsConcurrent runs writers, readers and waiters at once; run with -race.
func TestDocumentsConcurrent(t *testing.T) {
	d := newDocuments()
	const writers, perWriter = 4, 50
	uris := make([]uri.URI, writers)
	for i := range uris {
		uris[i] = uri.URI(fmt.Sprintf("file:///ws/%d.txt", i))
		d.open(uris[i], "go", 0, "")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	waited := make([]bool, writers)
	for i := range writers {
		wg.Go(func() {
			waited[i] = d.waitFor(ctx, uris[i], func(content string, version int32, _ bool) bool {
				return version == perWriter && len(content) == perWriter
			})
		})
		wg.Go(func() {
			for v := int32(1); v <= perWriter; v++ {
				assert.NoError(t, d.change(uris[i], v, []protocol.TextDocumentContentChangeEvent{rangeChange(0, uint32(v-1), 0, uint32(v-1), "x")}, utf16Enc))
				d.get(uris[(i+1)%writers])
			}
		})
	}
	wg.Wait()
	for i := range writers {
		assert.True(t, waited[i], i)
		content, version, _ := d.get(uris[i])
		assert.Len(t, content, perWriter)
		assert.Equal(t, int32(perWriter), version)
	}
}
