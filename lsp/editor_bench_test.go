package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// signalPeer is a client for benchmarks: it refuses every applyEdit at once (so that no
// verification wait is timed) and signals each one.
type signalPeer struct{ applyEdit chan struct{} }

// call answers applyEdit with applied false after signalling it.
func (p *signalPeer) Call(_ context.Context, method string, _, result any) error {
	if method == "workspace/applyEdit" {
		*result.(*protocol.ApplyWorkspaceEditResult) = protocol.ApplyWorkspaceEditResult{}
		p.applyEdit <- struct{}{}
	}
	return nil
}

// notify drops notifications.
func (p *signalPeer) Notify(context.Context, string, any) error { return nil }

// BenchmarkEditorFinalToApplyEdit times the edit pipeline from the update that completes a
// replace_in_file of 50 sections (testdata/perf/diff_exact_50.txt) on the open 10,000-line
// document to the workspace/applyEdit leaving for the client: path checks, the applier, the
// minimal edits, position conversion and the WorkspaceEdit. It runs at the editor level with a
// fake client, so JSON encoding and the transport are not included.
func BenchmarkEditorFinalToApplyEdit(b *testing.B) {
	file, err := os.ReadFile("../testdata/perf/file_10k.go.txt")
	require.NoError(b, err)
	d, err := os.ReadFile("../testdata/perf/diff_exact_50.txt")
	require.NoError(b, err)
	dir, err := filepath.EvalSymlinks(b.TempDir())
	require.NoError(b, err)
	path := filepath.Join(dir, "file_10k.go")
	require.NoError(b, os.WriteFile(path, file, 0o644))
	docs := docs.New()
	docs.Open(uri.File(path), 1, string(file))
	p := &signalPeer{applyEdit: make(chan struct{}, 1)}
	caps := vscodeCaps()
	caps.WorkDoneProgress = false
	set := settings{Config: defaultConfig(), Caps: caps, Workspace: mustWorkspace(b, dir)}
	ed := newEditor(editorDeps{Peer: p, Docs: docs, Settings: func() settings { return set }})
	b.Cleanup(ed.shutdown)
	sb := toolBlock(toolReplace, "file_10k.go", string(d), false)

	var total time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		ed.update("s"+strconv.Itoa(i), 0, sb)
		<-p.applyEdit
		total += time.Since(start)
		ed.forget("s" + strconv.Itoa(i))
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/edit")
}

// BenchmarkWireFinalDeltaToApplyEdit times, through the LSP wire of an in-process server, the
// time from the client writing the final assistant/parse delta of a replace_in_file of 50
// sections (testdata/perf/diff_exact_50.txt) on the open 10,000-line document to the client
// receiving the workspace/applyEdit: parse, the edit pipeline, JSON encoding and framing both
// ways. The client refuses each edit, so nothing changes between iterations and no
// verification is timed.
func BenchmarkWireFinalDeltaToApplyEdit(b *testing.B) {
	benchWireToApplyEdit(b, func(stream, diff string) (head, last map[string]any) {
		msg := "Here is the change.\n<replace_in_file>\n<path>file_10k.go</path>\n<diff>\n" + diff + "</diff>\n</replace_in_file>"
		cut := len(msg) - len("_file>")
		return map[string]any{"stream": stream, "delta": msg[:cut]},
			map[string]any{"stream": stream, "delta": msg[cut:], "final": true}
	})
}

// BenchmarkWireFinalToolCallToApplyEdit is the same edit as a native tool call: the time from
// the call's last argument fragment (with done) to workspace/applyEdit.
func BenchmarkWireFinalToolCallToApplyEdit(b *testing.B) {
	benchWireToApplyEdit(b, func(stream, diff string) (head, last map[string]any) {
		args, err := json.Marshal(map[string]string{"path": "file_10k.go", "diff": diff})
		require.NoError(b, err)
		cut := len(args) - 40
		return map[string]any{"stream": stream, "toolCall": map[string]any{"id": "c", "name": toolReplace, "arguments": string(args[:cut])}},
			map[string]any{"stream": stream, "toolCall": map[string]any{"id": "c", "arguments": string(args[cut:]), "done": true}, "final": true}
	})
}

// benchWireToApplyEdit runs a server over a pipe with file_10k.go open and times, for each
// stream, the last part of a message that edits it with the 50 sections of diff_exact_50.txt:
// from sending last(stream) to receiving workspace/applyEdit, after head(stream) was sent.
func benchWireToApplyEdit(b *testing.B, parts func(stream, diff string) (head, last map[string]any)) {
	file, err := os.ReadFile("../testdata/perf/file_10k.go.txt")
	require.NoError(b, err)
	d, err := os.ReadFile("../testdata/perf/diff_exact_50.txt")
	require.NoError(b, err)
	root, err := filepath.EvalSymlinks(b.TempDir())
	require.NoError(b, err)
	path := filepath.Join(root, "file_10k.go")
	require.NoError(b, os.WriteFile(path, file, 0o644))

	serverEnd, clientEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_, _ = Serve(ctx, serverEnd, Options{})
	}()
	applyEdit := make(chan struct{}, 1)
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))
	conn.Go(ctx, func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "workspace/applyEdit" {
			applyEdit <- struct{}{}
			return map[string]any{"applied": false, "failureReason": "benchmark"}, nil
		}
		return nil, nil
	})
	b.Cleanup(func() {
		_, _ = conn.Call(ctx, "shutdown", nil, nil)
		_ = conn.Notify(ctx, "exit", nil)
		<-served
		cancel()
		_ = clientEnd.Close()
	})
	caps := map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{
		"documentChanges": true, "resourceOperations": []string{"create"}, "changeAnnotationSupport": map[string]any{},
	}}}
	_, err = conn.Call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri.File(root), "capabilities": caps,
		"workspaceFolders": []map[string]any{{"uri": uri.File(root), "name": "w"}},
	}, nil)
	require.NoError(b, err)
	require.NoError(b, conn.Notify(ctx, "initialized", map[string]any{}))
	require.NoError(b, conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path), "languageId": "go", "version": 1, "text": string(file)},
	}))
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		stream := "s" + strconv.Itoa(i)
		head, last := parts(stream, string(d))
		require.NoError(b, conn.Notify(ctx, "assistant/parse", head))
		start := time.Now()
		require.NoError(b, conn.Notify(ctx, "assistant/parse", last))
		<-applyEdit
		total += time.Since(start)
		require.NoError(b, conn.Notify(ctx, "assistant/close", map[string]any{"stream": stream}))
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/edit")
}
