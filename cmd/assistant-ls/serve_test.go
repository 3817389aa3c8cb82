package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeUse is a complete write_to_file tool use.
func writeUse(path, content string) string {
	return "<write_to_file><path>" + path + "</path><content>" + content + "</content></write_to_file>"
}

// TestServeBinary runs the built server over real pipes, the client keeping stdin open
// throughout, for the defects of issue 7 that only a process shows.
func TestServeBinary(t *testing.T) {
	t.Parallel()
	bin := buildServer(t)
	applyEdit := map[string]any{"applyEdit": true}

	// Issue 7, item 1: the process ends on exit, and on SIGTERM and SIGINT, with stdin open.
	endings := []struct {
		name     string
		shutdown bool
		end      func(p *proc)
		want     int
	}{
		{"shutdown then exit", true, func(p *proc) { p.notify("exit", nil) }, 0},
		{"exit without shutdown", false, func(p *proc) { p.notify("exit", nil) }, 1},
		{"SIGTERM", false, func(p *proc) { require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM)) }, 1},
		{"SIGINT after shutdown", true, func(p *proc) { require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT)) }, 0},
	}
	for _, tt := range endings {
		t.Run(tt.name, func(t *testing.T) {
			p := startServer(t, bin, stderrRead)
			p.initialize(applyEdit)
			if tt.shutdown {
				require.Nil(t, p.call(2, "shutdown", nil).Error)
			}
			start := time.Now()
			tt.end(p)
			code, took := p.wait(start)
			assert.Equal(t, tt.want, code)
			t.Logf("ended %v after the %s", took, tt.name)
		})
	}

	// Issue 7, item 1: after exit nothing more is done, not even for a frame already sent.
	t.Run("no edit after exit", func(t *testing.T) {
		p := startServer(t, bin, stderrRead)
		p.initialize(applyEdit)
		p.notify("assistant/parse", map[string]any{"stream": "before", "delta": writeUse("before.txt", "x\n"), "final": true})
		p.await(func(m message) bool { return m.Method == "workspace/applyEdit" })
		_, err := os.Stat(filepath.Join(p.root, "before.txt"))
		require.NoError(t, err, "an edit before exit creates its file (a client without documentChanges)")

		start := time.Now()
		p.write(append(encodeFrame(t, map[string]any{"method": "exit"}),
			encodeFrame(t, map[string]any{"method": "assistant/parse", "params": map[string]any{
				"stream": "after", "delta": writeUse("after.txt", "x\n"), "final": true}})...))
		code, took := p.wait(start)
		assert.Equal(t, 1, code)
		t.Logf("ended %v after exit", took)
		_, err = os.Stat(filepath.Join(p.root, "after.txt"))
		assert.True(t, os.IsNotExist(err), "the edit sent after exit created its file: %v", err)
	})

	// A client that closes its end of stdout but keeps stdin open: the server can no longer
	// answer, so it ends (exit code 1, no shutdown) instead of dying of SIGPIPE.
	t.Run("stdout closed", func(t *testing.T) {
		p := startServer(t, bin, stderrRead)
		p.initialize(applyEdit)
		require.NoError(t, p.stdout.Close())
		start := time.Now()
		p.write(encodeFrame(t, map[string]any{"id": 2, "method": "assistant/parse", "params": map[string]any{"stream": "s", "text": "x"}}))
		code, took := p.wait(start)
		assert.Equal(t, 1, code)
		t.Logf("ended %v after the answer failed", took)
	})

	// Issue 7, item 13: a client that closes its end of stderr, or never reads it, must not
	// end or stall the session. The long method names make each debug line about 1 KiB, so the
	// session logs several times the 64 KiB a pipe holds.
	for _, mode := range []stderrMode{stderrClosed, stderrUnread} {
		name := map[stderrMode]string{stderrClosed: "stderr closed", stderrUnread: "stderr never read"}[mode]
		t.Run(name, func(t *testing.T) {
			p := startServer(t, bin, mode, "--log-level", "debug")
			p.initialize(applyEdit)
			long := "custom/" + strings.Repeat("x", 1024)
			for i := range 300 {
				p.notify(long, map[string]int{"i": i})
			}
			res := p.call(2, "assistant/parse", map[string]any{"stream": "s", "text": "still serving"})
			require.Nil(t, res.Error)
			assert.Contains(t, string(res.Result), "still serving")
			require.Nil(t, p.call(3, "shutdown", nil).Error)
			start := time.Now()
			p.notify("exit", nil)
			code, took := p.wait(start)
			assert.Equal(t, 0, code)
			t.Logf("ended %v after exit", took)
		})
	}
}

// TestServeBinaryStuckHandler (issue 16, item 7): a server whose handler never returns still
// ends on SIGTERM, on exit, on shutdown then exit and at the end of its input, its stdin open
// (but in the last case). The binary is built with the testfaults tag, which makes the
// handler of the method in ASSISTANT_LS_STUCK block forever. A handler served in wire order
// holds the messages after it, a shutdown included, which then was never answered (exit code
// 1); the end waits 5 s for them before it goes on without them.
func TestServeBinaryStuckHandler(t *testing.T) {
	bin := buildServer(t, "testfaults")
	const inOrder, ownGoroutine = "textDocument/codeAction", "workspace/executeCommand"
	tests := []struct {
		name   string
		method string
		end    func(p *proc)
		want   int
	}{
		{"in order/SIGTERM", inOrder, func(p *proc) { require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM)) }, 1},
		{"in order/exit", inOrder, func(p *proc) { p.notify("exit", nil) }, 1},
		{"in order/shutdown then exit", inOrder, func(p *proc) {
			p.write(encodeFrame(t, map[string]any{"id": 3, "method": "shutdown"}))
			p.notify("exit", nil)
		}, 1},
		{"in order/end of input", inOrder, func(p *proc) { require.NoError(t, p.stdin.Close()) }, 1},
		{"own goroutine/SIGTERM", ownGoroutine, func(p *proc) { require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM)) }, 1},
		{"own goroutine/shutdown then exit", ownGoroutine, func(p *proc) {
			require.Nil(t, p.call(3, "shutdown", nil).Error)
			p.notify("exit", nil)
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stuck, signal, err := os.Pipe()
			require.NoError(t, err)
			defer func() { _ = stuck.Close() }()
			p := startServerEnv(t, bin, []string{"ASSISTANT_LS_STUCK=" + tt.method}, []*os.File{signal}, stderrRead)
			require.NoError(t, signal.Close())
			p.initialize(map[string]any{"applyEdit": true})
			params := map[string]any{"textDocument": map[string]any{"uri": "file:///x.go"}}
			if tt.method == ownGoroutine {
				params = map[string]any{"command": "assistant.applyAll", "arguments": []any{}}
			}
			p.write(encodeFrame(t, map[string]any{"id": 2, "method": tt.method, "params": params}))
			line, err := bufio.NewReader(stuck).ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, tt.method+"\n", line, "the handler is stuck")
			start := time.Now()
			tt.end(p)
			code, took := p.wait(start)
			assert.Equal(t, tt.want, code)
			t.Logf("ended %v after the %s", took, tt.name)
		})
	}
}
