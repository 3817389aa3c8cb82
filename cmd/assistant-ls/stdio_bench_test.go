package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// BenchmarkStdioFinalDeltaToApplyEdit times what an outside client sees over real pipes to the
// built binary: from writing the final assistant/parse delta of a replace_in_file of 50
// sections (testdata/perf/diff_exact_50.txt) on the open 10,000-line document to reading the
// workspace/applyEdit request. The client refuses each edit, so nothing changes between
// iterations and no verification is timed. It reports the median and the mean, and the CPU
// time the server process spent per edit (both deltas, the pushes and the edit).
func BenchmarkStdioFinalDeltaToApplyEdit(b *testing.B) {
	file, err := os.ReadFile("../../testdata/perf/file_10k.go.txt")
	require.NoError(b, err)
	d, err := os.ReadFile("../../testdata/perf/diff_exact_50.txt")
	require.NoError(b, err)
	p := startServer(b, buildServer(b), stderrRead)
	path := filepath.Join(p.root, "file_10k.go")
	require.NoError(b, os.WriteFile(path, file, 0o644))
	p.initialize(map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{
		"documentChanges": true, "resourceOperations": []string{"create"}, "changeAnnotationSupport": map[string]any{},
	}})
	p.notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path), "languageId": "go", "version": 1, "text": string(file)},
	})
	msg := "Here is the change.\n<replace_in_file>\n<path>file_10k.go</path>\n<diff>\n" + string(d) + "</diff>\n</replace_in_file>"
	last := len(msg) - len("_file>")
	isApplyEdit := []byte(`"method":"workspace/applyEdit"`)

	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		stream := "s" + strconv.Itoa(i)
		p.notify("assistant/parse", map[string]any{"stream": stream, "delta": msg[:last]})
		final := encodeFrame(b, map[string]any{"method": "assistant/parse", "params": map[string]any{"stream": stream, "delta": msg[last:], "final": true}})
		start := time.Now()
		p.write(final)
		var body []byte
		for body = range p.frames {
			if bytes.Contains(body, isApplyEdit) {
				break
			}
		}
		times = append(times, time.Since(start))
		var req message
		require.NoError(b, json.Unmarshal(body, &req))
		p.write(encodeFrame(b, map[string]any{"id": req.ID, "result": map[string]any{"applied": false, "failureReason": "benchmark"}}))
		p.notify("assistant/close", map[string]any{"stream": stream})
	}
	// The server's CPU time per edit is the figure a loaded machine disturbs least.
	p.call(2, "shutdown", nil)
	require.NoError(b, p.stdin.Close())
	p.wait(time.Now())
	cpu := p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "server-cpu-ms/edit")
	slices.Sort(times)
	var total time.Duration
	for _, t := range times {
		total += t
	}
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/edit-median")
	b.ReportMetric(float64(total.Microseconds())/1000/float64(len(times)), "ms/edit")
}
