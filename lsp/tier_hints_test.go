package lsp

import (
	"context"
	"sync"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/stretchr/testify/assert"
	"go.lsp.dev/uri"
)

// countingCtx is a context that runs its AfterFunc registrations itself, so a test can count
// those still live: registered, neither run nor stopped.
type countingCtx struct {
	context.Context // only for Deadline and Value
	done            chan struct{}
	mu              sync.Mutex
	next            int
	fs              map[int]func()
}

func newCountingCtx() *countingCtx {
	return &countingCtx{Context: context.Background(), done: make(chan struct{}), fs: map[int]func(){}}
}

func (c *countingCtx) Done() <-chan struct{} { return c.done }

func (c *countingCtx) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// AfterFunc is the hook context.AfterFunc uses for a context that has one.
func (c *countingCtx) AfterFunc(f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.next
	c.next++
	c.fs[id] = f
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.fs[id]
		delete(c.fs, id)
		return ok
	}
}

// cancel ends the context and runs its live registrations.
func (c *countingCtx) cancel() {
	c.mu.Lock()
	fs := c.fs
	c.fs = map[int]func(){}
	close(c.done)
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

func (c *countingCtx) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.fs)
}

// TestTierHintsOneCleanupPerBlock: applying the same block again replaces its hints and its
// cleanup: however often it is applied, one cleanup stays registered on its context, and it
// still takes the hints away when the block ends.
func TestTierHintsOneCleanupPerBlock(t *testing.T) {
	t.Parallel()
	u := uri.File("/w/a.go")
	published := make(chan uri.URI, 100)
	h := newTierHints(nil, func(u uri.URI) { published <- u })
	ctx := newCountingCtx()
	be := &blockEdit{ctx: ctx, cancel: ctx.cancel}
	key := editKey{stream: "s", index: 0}
	p := &plannedEdit{Req: editRequest{Tool: &editTool{name: "replace_in_file"}}, Files: []*fileEdit{{
		Target: target{URI: u}, Intended: "a\n\tb\n",
		Located: []locatedSection{{Section: 1, Tier: apply.TierLineTrimmed, Start: 2, End: 5}},
	}}}
	for range 5 {
		h.located(key, be, p)
	}
	assert.Equal(t, 1, ctx.count(), "one cleanup registration for the block")
	h.mu.Lock()
	assert.Len(t, h.byDoc[u].list, 1)
	h.mu.Unlock()

	for len(published) > 0 {
		<-published
	}
	ctx.cancel()
	assert.Equal(t, u, <-published, "the cleanup publishes the document it took hints from")
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Empty(t, h.byDoc, "the block's end takes its hints")
}

// TestDocHintsFollow: a hint shifts by the edits before it, goes when an edit touches its text
// or its lines' ends, and is never found again at another copy of its text.
func TestDocHintsFollow(t *testing.T) {
	t.Parallel()
	const src = "a\n\treturn nil\n}\n\treturn nil\n}\n"
	at := len("a\n") // the first "\treturn nil"
	tests := []struct {
		name  string
		edits []text.Edit
		want  int // the hint's offset afterwards; -1: gone
	}{
		{"a line above", []text.Edit{{Start: 0, End: 0, NewText: "top\n"}}, at + 4},
		{"a line below", []text.Edit{{Start: at + 12, End: at + 12, NewText: "x\n"}}, at},
		{"deleting the line above", []text.Edit{{Start: 0, End: 2}}, 0},
		{"two edits, the second of the first's result", []text.Edit{{Start: 0, End: 0, NewText: "1\n"}, {Start: 0, End: 0, NewText: "2\n"}}, at + 4},
		{"typing in its text", []text.Edit{{Start: at + 2, End: at + 3, NewText: "E"}}, -1},
		{"typing at its line's start", []text.Edit{{Start: at, End: at, NewText: "x"}}, -1},
		{"typing at its line's end", []text.Edit{{Start: at + 11, End: at + 11, NewText: " // x"}}, -1},
		{"joining it to the line above", []text.Edit{{Start: at - 1, End: at}}, -1},
		{"deleting it, its copy below stays", []text.Edit{{Start: at, End: at + 12}}, -1},
		{"a new line after its end", []text.Edit{{Start: at + 11, End: at + 11, NewText: "\n// x"}}, at},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := &docHints{content: src, list: []*tierHint{{text: "\treturn nil", at: at, startsLine: true, endsLine: true}}}
			content := src
			for _, e := range tt.edits {
				content = text.Apply(content, []text.Edit{e})
			}
			d.follow(content, tt.edits)
			if tt.want < 0 {
				assert.Empty(t, d.list)
				return
			}
			if assert.Len(t, d.list, 1) {
				assert.Equal(t, tt.want, d.list[0].at)
			}
		})
	}
}
