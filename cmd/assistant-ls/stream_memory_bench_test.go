package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp"
	"github.com/stretchr/testify/require"
)

// streamKind is one shape of a long assistant message, as the deltas a client sends for it.
type streamKind struct {
	name string
	// deltas returns the params of the assistant/parse notifications of a message of about size
	// bytes in deltas of chunk bytes, the last of them final.
	deltas func(size, chunk int) []map[string]any
	edit   bool // the message ends in an edit, so the server sends workspace/applyEdit
}

// streamKinds are the three shapes whose memory differs most (issue 16, item 14): one long text
// block, one write_to_file in the text, and one native write_to_file call.
var streamKinds = []streamKind{
	{name: "text", deltas: func(size, chunk int) []map[string]any {
		line := "plain prose line of text, no tags at all\n"
		return textDeltas(strings.Repeat(line, size/len(line)), chunk)
	}},
	{name: "write_to_file", edit: true, deltas: func(size, chunk int) []map[string]any {
		head := "<write_to_file>\n<path>x.txt</path>\n<content>\n"
		return textDeltas(head+strings.Repeat("line of text\n", (size-len(head))/13), chunk)
	}},
	{name: "tool call", edit: true, deltas: func(size, chunk int) []map[string]any {
		args := `{"path": "x.txt", "content": "` + strings.Repeat(`line of text\n`, (size-40)/14) + `"}`
		var out []map[string]any
		for i := 0; i < len(args); i += chunk {
			call := map[string]any{"id": "c1", "name": "write_to_file", "arguments": args[i:min(i+chunk, len(args))]}
			if i+chunk >= len(args) {
				call["done"] = true
			}
			out = append(out, map[string]any{"stream": "s", "toolCall": call})
		}
		return append(out, map[string]any{"stream": "s", "final": true})
	}},
}

// textDeltas cuts msg into deltas of chunk bytes and ends the stream.
func textDeltas(msg string, chunk int) []map[string]any {
	var out []map[string]any
	for i := 0; i < len(msg); i += chunk {
		out = append(out, map[string]any{"stream": "s", "delta": msg[i:min(i+chunk, len(msg))]})
	}
	return append(out, map[string]any{"stream": "s", "final": true})
}

// streamBytes is the text or arguments the deltas carry.
func streamBytes(deltas []map[string]any) int {
	n := 0
	for _, d := range deltas {
		if s, ok := d["delta"].(string); ok {
			n += len(s)
		}
		if c, ok := d["toolCall"].(map[string]any); ok {
			n += len(c["arguments"].(string))
		}
	}
	return n
}

// memoryRun is what one message cost a server process.
type memoryRun struct {
	peakRSS int // VmHWM of the process, bytes
	pushed  int // bytes of assistant/blocks bodies
	edits   int // workspace/applyEdit requests
}

// streamToServer starts bin, streams deltas to it as fast as it reads them while reading
// everything it sends (refusing each workspace/applyEdit), waits for the final push and, for a
// message with an edit, the edit, and returns the process's peak resident memory.
func streamToServer(b *testing.B, bin string, kind streamKind, deltas []map[string]any) memoryRun {
	p := startServer(b, bin, stderrRead)
	p.initialize(map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{
		"documentChanges": true, "resourceOperations": []string{"create"},
	}})
	var run memoryRun
	edits := make(chan json.RawMessage, 1)
	done := make(chan struct{})
	// The client reads every frame as it comes, as an editor does, so that no push waits in the
	// server's queue for want of a reader. The edits it is asked for are answered by the test's
	// goroutine, the only writer of the server's stdin.
	go func() {
		defer close(done)
		final, edited := false, false
		for body := range p.frames {
			head := body[:min(len(body), 64)]
			switch {
			case bytes.Contains(head, []byte(`"method":"assistant/blocks"`)):
				run.pushed += len(body)
				final = final || bytes.HasSuffix(body, []byte(`"final":true}}`))
			case bytes.Contains(head, []byte(`"method":"workspace/applyEdit"`)):
				var req message
				if json.Unmarshal(body, &req) != nil {
					return
				}
				edited = true
				edits <- req.ID
			}
			if final && (!kind.edit || edited) {
				return
			}
		}
	}()
	for _, d := range deltas {
		p.notify("assistant/parse", d)
	}
	timeout := time.After(time.Minute)
	for waiting := true; waiting; {
		select {
		case id := <-edits:
			run.edits++
			p.write(encodeFrame(b, map[string]any{"id": id, "result": map[string]any{"applied": false, "failureReason": "benchmark"}}))
		case <-done:
			waiting = false
		case <-timeout:
			b.Fatal("no final push (and edit) within a minute")
		}
	}
	if len(edits) > 0 {
		run.edits++
		p.write(encodeFrame(b, map[string]any{"id": <-edits, "result": map[string]any{"applied": false, "failureReason": "benchmark"}}))
	}
	require.True(b, !kind.edit || run.edits > 0, "the server sent no workspace/applyEdit")
	run.peakRSS = peakRSS(b, p.cmd.Process.Pid)
	p.call(2, "shutdown", nil)
	require.NoError(b, p.stdin.Close())
	p.wait(time.Now())
	return run
}

// peakRSS returns the peak resident set of process pid (VmHWM), in bytes.
func peakRSS(b *testing.B, pid int) int {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Skip("no /proc/PID/status here to read the peak resident memory from")
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			require.NoError(b, err)
			return kb << 10
		}
	}
	b.Skip("/proc/PID/status has no VmHWM")
	return 0
}

// BenchmarkStdioStreamMemory measures the memory a server process holds per byte of stream
// text (issue 16, item 14): for each of streamKinds, a message just under the default
// MaxStreamBytes (32 MiB) is streamed over real pipes to the built binary in 4 KiB and in 1 MiB
// deltas, by a client that reads every push. Each iteration is a fresh process. It reports the
// process's peak resident memory (VmHWM, the whole process: runtime, heap and the collector's
// headroom) per byte streamed, and the bytes of assistant/blocks pushes per byte.
//
// The figures depend little on the machine's load, unlike the time per iteration; run it with
// -benchtime=1x (each iteration streams 32 MiB). docs/protocol.md §1 "Memory" gives them.
func BenchmarkStdioStreamMemory(b *testing.B) {
	bin := buildServer(b)
	for _, kind := range streamKinds {
		for _, chunk := range []int{4 << 10, 1 << 20} {
			deltas := kind.deltas(lsp.DefaultMaxStreamBytes-1024, chunk)
			n := streamBytes(deltas)
			b.Run(kind.name+"/"+strconv.Itoa(chunk>>10)+"KiB", func(b *testing.B) {
				var rss, pushed float64
				runs := 0
				for b.Loop() {
					run := streamToServer(b, bin, kind, deltas)
					rss += float64(run.peakRSS)
					pushed += float64(run.pushed)
					runs++
				}
				b.SetBytes(int64(n))
				b.ReportMetric(rss/float64(runs)/float64(n), "rss-B/B")
				b.ReportMetric(pushed/float64(runs)/float64(n), "push-B/B")
			})
		}
	}
}
