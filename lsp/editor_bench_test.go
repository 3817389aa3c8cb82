package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// signalPeer is a client for benchmarks: it refuses every applyEdit at once (so that no
// verification wait is timed) and signals each one.
type signalPeer struct{ applyEdit chan struct{} }

// call answers applyEdit with applied false after signalling it.
func (p *signalPeer) call(_ context.Context, method string, _, result any) error {
	if method == "workspace/applyEdit" {
		*result.(*protocol.ApplyWorkspaceEditResult) = protocol.ApplyWorkspaceEditResult{}
		p.applyEdit <- struct{}{}
	}
	return nil
}

// notify drops notifications.
func (p *signalPeer) notify(context.Context, string, any) error { return nil }

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
	docs := newDocuments()
	docs.open(uri.File(path), "go", 1, string(file))
	p := &signalPeer{applyEdit: make(chan struct{}, 1)}
	caps := vscodeCaps()
	caps.WorkDoneProgress = false
	set := settings{Config: defaultConfig(), Caps: caps, Folders: []string{dir}}
	ed := newEditor(editorDeps{Peer: p, Docs: docs, Blocks: &fakeBlocks{}, Settings: func() settings { return set }})
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
