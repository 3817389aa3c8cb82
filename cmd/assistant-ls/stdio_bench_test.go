package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// stdioEdit is a server over real pipes with testdata/perf/file_10k.go.txt open, and the
// assistant message that edits it with the 50 sections of testdata/perf/diff_exact_50.txt.
type stdioEdit struct {
	p    *proc
	msg  string
	last int // where the final delta of msg begins
}

// isApplyEdit marks the frame the benchmarks wait for.
var isApplyEdit = []byte(`"method":"workspace/applyEdit"`)

func startStdioEdit(b *testing.B, bin string) *stdioEdit {
	file, err := os.ReadFile("../../testdata/perf/file_10k.go.txt")
	require.NoError(b, err)
	d, err := os.ReadFile("../../testdata/perf/diff_exact_50.txt")
	require.NoError(b, err)
	p := startServer(b, bin, stderrRead)
	path := filepath.Join(p.root, "file_10k.go")
	require.NoError(b, os.WriteFile(path, file, 0o644))
	p.initialize(map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{
		"documentChanges": true, "resourceOperations": []string{"create"}, "changeAnnotationSupport": map[string]any{},
	}})
	p.notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path), "languageId": "go", "version": 1, "text": string(file)},
	})
	msg := "Here is the change.\n<replace_in_file>\n<path>file_10k.go</path>\n<diff>\n" + string(d) + "</diff>\n</replace_in_file>"
	return &stdioEdit{p: p, msg: msg, last: len(msg) - len("_file>")}
}

// edit sends stream's message up to its final delta in pieces of chunk bytes, waits pause, and
// returns the time from writing the final delta to reading workspace/applyEdit, and the page
// faults the server took meanwhile. It refuses the edit and closes the stream, so the document
// is left as it was.
func (s *stdioEdit) edit(b *testing.B, stream string, chunk int, pause time.Duration) (time.Duration, int) {
	for at := 0; at < s.last; at += chunk {
		s.p.notify("assistant/parse", map[string]any{"stream": stream, "delta": s.msg[at:min(at+chunk, s.last)]})
	}
	time.Sleep(pause)
	final := encodeFrame(b, map[string]any{"method": "assistant/parse", "params": map[string]any{"stream": stream, "delta": s.msg[s.last:], "final": true}})
	faults := minorFaults(s.p.cmd.Process.Pid)
	start := time.Now()
	s.p.write(final)
	var body []byte
	for body = range s.p.frames {
		if bytes.Contains(body, isApplyEdit) {
			break
		}
	}
	took := time.Since(start)
	faults = minorFaults(s.p.cmd.Process.Pid) - faults
	var req message
	require.NoError(b, json.Unmarshal(body, &req))
	s.p.write(encodeFrame(b, map[string]any{"id": req.ID, "result": map[string]any{"applied": false, "failureReason": "benchmark"}}))
	s.p.notify("assistant/close", map[string]any{"stream": stream})
	return took, faults
}

// stop shuts the server down and returns the CPU time it spent.
func (s *stdioEdit) stop() time.Duration {
	s.p.call(2, "shutdown", nil)
	require.NoError(s.p.tb, s.p.stdin.Close())
	s.p.wait(time.Now())
	return s.p.cmd.ProcessState.UserTime() + s.p.cmd.ProcessState.SystemTime()
}

// minorFaults returns the page faults process pid has taken that needed no disk, or 0 where
// /proc does not say: each is the first touch of a page of fresh memory.
func minorFaults(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// minflt is the 10th field; the 2nd, the command name in parentheses, may hold spaces.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 8 {
		return 0
	}
	n, _ := strconv.Atoi(f[7])
	return n
}

// reportEdits reports the median and the mean of times, and the mean of faults.
func reportEdits(b *testing.B, times []time.Duration, faults int) {
	slices.Sort(times)
	var total time.Duration
	for _, t := range times {
		total += t
	}
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/edit-median")
	b.ReportMetric(float64(total.Microseconds())/1000/float64(len(times)), "ms/edit")
	b.ReportMetric(float64(faults)/float64(len(times)), "faults/edit")
}

// BenchmarkStdioFinalDeltaToApplyEdit times what an outside client sees over real pipes to the
// built binary: from writing the final assistant/parse delta of a replace_in_file of 50
// sections (testdata/perf/diff_exact_50.txt) on the open 10,000-line document to reading the
// workspace/applyEdit request, edit after edit in one server. The client refuses each edit, so
// nothing changes between iterations and no verification is timed. It reports the median and
// the mean, the page faults, and the CPU time the server process spent per edit (both deltas,
// the pushes and the edit).
func BenchmarkStdioFinalDeltaToApplyEdit(b *testing.B) {
	s := startStdioEdit(b, buildServer(b))
	var times []time.Duration
	faults := 0
	for i := 0; b.Loop(); i++ {
		took, f := s.edit(b, "s"+strconv.Itoa(i), len(s.msg), 0)
		times = append(times, took)
		faults += f
	}
	// The server's CPU time per edit is the figure a loaded machine disturbs least.
	cpu := s.stop()
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "server-cpu-ms/edit")
	reportEdits(b, times, faults)
}

// BenchmarkStdioFirstEdits is the same edit as an outside client meets it first: a fresh
// server for each iteration, the diff streamed in 40-byte deltas as a model writes it, a pause
// for the server to catch up, and then the three first edits timed. Memory the server has never
// touched costs a page fault per page, which a long run of one server no longer sees.
func BenchmarkStdioFirstEdits(b *testing.B) {
	bin := buildServer(b)
	var times []time.Duration
	faults := 0
	for b.Loop() {
		s := startStdioEdit(b, bin)
		for i := range 3 {
			took, f := s.edit(b, "s"+strconv.Itoa(i), 40, 50*time.Millisecond)
			times = append(times, took)
			faults += f
		}
		s.stop()
	}
	reportEdits(b, times, faults)
}
