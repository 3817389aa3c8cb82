package lsp

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// These tests inject faults into the handlers (Options.Fault) and check that the session goes
// on, and that it ends at exit, whatever state a handler was left in (issue 16, item 7).

// ping is a request every session answers: the symbols of a document that is not open.
func ping(c *testClient) error {
	var syms []any
	return c.request("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri("none.md")}}, &syms)
}

// TestWirePanicInEveryHandler makes each handler panic once, sent as a request and as a
// notification: the request is answered InternalError, and the next request is answered.
func TestWirePanicInEveryHandler(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	budget := map[string]int{} // the panics still to inject, per method
	fault := func(method string) {
		mu.Lock()
		n := budget[method]
		budget[method] = max(n-1, 0)
		mu.Unlock()
		if n > 0 {
			panic("injected into " + method)
		}
	}
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: -1, Fault: fault}))
	names := make([]string, 0, len(methods))
	for name := range methods {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		mu.Lock()
		budget[name] = 2
		mu.Unlock()
		err := c.request(name, map[string]any{}, nil)
		assert.Equal(t, jsonrpc2.InternalError, rpcCode(err), "%s: %v", name, err)
		c.notify(name, map[string]any{})
		require.NoError(t, ping(c), "the request after a panic in %s", name)
	}
	// The notifications of the methods served on their own goroutine may still be running: their
	// log lines are waited for, a round trip at a time (the logs signal no event).
	for c.logs.FilterMessage("handler panicked").Len() < 2*len(names) {
		require.NoError(t, ping(c))
	}
	assert.Equal(t, 2*len(names), c.logs.FilterMessage("handler panicked").Len())
	mu.Lock()
	defer mu.Unlock()
	for name, n := range budget {
		assert.Zero(t, n, "%s did not panic twice", name)
	}
}

// stuckHandler is a Fault that blocks the handler of method until release is called.
type stuckHandler struct {
	method  string
	entered chan struct{} // closed when the handler first blocks
	once    sync.Once
	release chan struct{}
}

func newStuckHandler(t *testing.T, method string) *stuckHandler {
	h := &stuckHandler{method: method, entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(h.release) })
	return h
}

func (h *stuckHandler) fault(method string) {
	if method == h.method {
		h.once.Do(func() { close(h.entered) })
		<-h.release
	}
}

// TestWireStuckHandlerReleasesTheReader: a handler served in wire order that never returns
// holds the next messages back only for StallTimeout; then they are served, and exit ends the
// session.
func TestWireStuckHandlerReleasesTheReader(t *testing.T) {
	t.Parallel()
	stuck := newStuckHandler(t, "textDocument/codeAction")
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: -1, Fault: stuck.fault, StallTimeout: 1}))
	u := c.didOpen("a.go", "package a\n")
	go func() {
		_ = c.request("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u}}, nil)
	}()
	<-stuck.entered
	require.NoError(t, ping(c))
	c.waitFor("the stall to be logged", func() bool {
		return c.logs.FilterMessage("handler stalled: serving the next messages without waiting for it").
			FilterField(zap.String("method", "textDocument/codeAction")).Len() == 1
	})
	r := c.exit(true)
	assert.Equal(t, 0, r.code)
}

// TestWireStuckHandlerDoesNotHoldTheEnd: the session ends when Serve's context does (SIGTERM)
// while a handler served in wire order never returns, before the reader is released; and at
// exit, once the stall has released it for exit.
func TestWireStuckHandlerDoesNotHoldTheEnd(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"context", "exit"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			stuck := newStuckHandler(t, "textDocument/codeAction")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := Options{diagnosticsDelay: -1, Fault: stuck.fault}
			if how == "exit" {
				opts.StallTimeout = 1 // the reader is held until the stall releases it
			}
			c := newTestClient(t, profileHelix, withServeContext(ctx), withServerOptions(opts))
			u := c.didOpen("a.go", "package a\n")
			answered := make(chan error, 1)
			go func() {
				answered <- c.request("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u}}, nil)
			}()
			<-stuck.entered
			if how == "exit" {
				c.notify("exit", nil)
			} else {
				cancel()
			}
			r, ok := c.serveResult()
			require.True(t, ok, "Serve did not return")
			assert.Equal(t, 1, r.code)
			assert.NoError(t, r.err)
		})
	}
}

// TestWirePanicInEveryGoroutine (issue 16, item 8) makes each kind of the server's goroutines
// and callbacks panic once: the panic is logged with the goroutine's name, and the server goes
// on serving. The diagnostics run with a real debounce, so they are computed on a timer's
// goroutine.
func TestWirePanicInEveryGoroutine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		review  bool
		trigger func(c *testClient)
	}{
		{publishCallback, false, func(c *testClient) {
			c.didOpen("src/a.go", reviewTarget)
			c.didOpen("r.assistant.md", replaceUse("src/a.go", "------- SEARCH\n\treturn 4\n=======\n\treturn 40\n+++++++ REPLACE\n"))
		}},
		{dropCallback, true, func(c *testClient) {
			c.didOpen("h.go", heldSrc)
			c.notify("assistant/parse", map[string]any{"stream": "s", "delta": replaceUse("h.go", heldDiff)})
			c.waitFor("the held edit", func() bool { return len(hunkStatuses(c, "s", 0)) == 3 })
			c.notify("assistant/parse", map[string]any{"stream": "s", "text": "Something else."})
		}},
		{"apply request", false, func(c *testClient) {
			c.didOpen("a.txt", "a\n")
			err := c.request(ext.MethodApply, map[string]any{"uri": c.uri("a.txt"), "content": "b\n"}, nil)
			assert.Error(t, err, "the request whose goroutine panicked is answered")
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var once sync.Once
			fault := func(name string) {
				if name == tt.name {
					once.Do(func() { panic("injected into " + name) })
				}
			}
			c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"review": tt.review}),
				withServerOptions(Options{diagnosticsDelay: time.Millisecond, Fault: fault}))
			tt.trigger(c)
			logged := func() int {
				return c.logs.FilterMessage("server goroutine panicked").FilterField(zap.String("goroutine", tt.name)).Len()
			}
			for logged() == 0 {
				require.NoError(t, ping(c))
			}
			require.NoError(t, ping(c))
			doc := c.didOpen("z.assistant.md", replaceUse("z.go", "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n"))
			c.waitFor("diagnostics published after the panic", func() bool { return len(c.diagnostics(doc)) == 1 })
		})
	}
}
