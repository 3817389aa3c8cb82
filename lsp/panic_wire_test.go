package lsp

import (
	"context"
	"encoding/json"
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

// TestWireSlowHandlerIsNeverOvertaken: a handler served in wire order holds the messages after
// it for as long as it takes (issue 16, item 7: a timed release served the next didChange
// beside a slow one). A didChange is held until the test releases it, and the client sends a
// second didChange, a request that reads the document, shutdown and exit without waiting: the
// transport reads them all ahead, but none is served before the first didChange returns, and
// the shutdown is still answered before the session ends.
func TestWireSlowHandlerIsNeverOvertaken(t *testing.T) {
	t.Parallel()
	var (
		mu        sync.Mutex
		changes   int  // didChange handlers started
		released  bool // the first one was let go
		overtaken bool // a later one started before that
	)
	entered, release, readAhead := make(chan struct{}), make(chan struct{}), make(chan struct{})
	fault := func(name string) {
		switch name {
		case "textDocument/didChange":
			mu.Lock()
			changes++
			n := changes
			overtaken = overtaken || n > 1 && !released
			mu.Unlock()
			if n == 1 {
				close(entered)
				<-release
			}
		case inputEndedHook:
			close(readAhead)
		}
	}
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: -1, Fault: fault, stopGrace: waitTimeout}))
	u := c.didOpen("r.assistant.md", "One.\n")
	c.didChange(u, "Two.\n")
	<-entered
	c.didChange(u, "Three.\n")
	// Served in wire order as well, the symbols of a response document read what it holds.
	c.rawRequest("symbols", "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}})
	c.rawRequest("shutdown", "shutdown", nil)
	c.notify("exit", nil)
	select {
	case <-readAhead:
	case <-time.After(waitTimeout):
		t.Fatal("the server was not told of the exit read ahead")
	}
	mu.Lock()
	assert.False(t, overtaken, "the second didChange was served while the first was running")
	released = true
	mu.Unlock()
	close(release)

	r, ok := c.serveResult()
	require.True(t, ok, "Serve did not return")
	assert.Equal(t, 0, r.code, "shutdown was served before exit")
	assert.NoError(t, r.err)
	for _, id := range []string{"symbols", "shutdown"} {
		_, ok := c.rawResponse(id)
		assert.True(t, ok, "%s was answered before the session ended", id)
	}
	raw, _ := c.rawResponse("symbols")
	var res struct {
		Result []struct {
			Name string `json:"name"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(raw, &res), "%s", raw)
	require.Len(t, res.Result, 1, "%s", raw)
	assert.Equal(t, "Three.", res.Result[0].Name, "the server's copy reads the second change")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, changes)
}

// TestWireStuckHandlerDoesNotHoldTheEnd: the session ends while a handler never returns,
// whether it is served in wire order (the reader waits for it) or on its own goroutine: when
// Serve's context ends (SIGTERM), and at exit, which the transport reads ahead of the held
// reader. A shutdown sent behind the held handler was never answered: the exit code is 1.
func TestWireStuckHandlerDoesNotHoldTheEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		method   string // the handler that never returns
		shutdown bool   // shutdown is sent (and waited for when it can be answered) before exit
		end      string // "context" or "exit"
		want     int
	}{
		{"in order/context", "textDocument/codeAction", false, "context", 1},
		{"in order/exit", "textDocument/codeAction", false, "exit", 1},
		{"in order/shutdown then exit", "textDocument/codeAction", true, "exit", 1},
		{"own goroutine/context", ext.MethodApply, false, "context", 1},
		{"own goroutine/exit", ext.MethodApply, false, "exit", 1},
		{"own goroutine/shutdown then exit", ext.MethodApply, true, "exit", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stuck := newStuckHandler(t, tt.method)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// The messages before an exit read ahead are waited for this long: the held handler
			// never lets them be served.
			opts := Options{diagnosticsDelay: -1, Fault: stuck.fault, stopGrace: time.Millisecond}
			c := newTestClient(t, profileHelix, withServeContext(ctx), withServerOptions(opts))
			u := c.didOpen("a.go", "package a\n")
			params := map[string]any{"textDocument": map[string]any{"uri": u}}
			if tt.method == ext.MethodApply {
				params = map[string]any{"uri": u, "content": "package b\n"}
			}
			c.rawRequest("stuck", tt.method, params)
			<-stuck.entered
			switch {
			case tt.shutdown && tt.want == 0:
				require.NoError(t, c.request("shutdown", nil, nil))
			case tt.shutdown:
				c.rawRequest("shutdown", "shutdown", nil)
			}
			if tt.end == "exit" {
				c.notify("exit", nil)
			} else {
				cancel()
			}
			r, ok := c.serveResult()
			require.True(t, ok, "Serve did not return")
			assert.Equal(t, tt.want, r.code)
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
