package main

// This file runs the built binary as an editor does: over real pipes, with the client holding
// its end of standard input open for as long as it likes.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// procTimeout bounds every wait on the process. Every wait is for an event; the bound is a last
// resort, reached only when the server hangs, so it is minutes: a busy machine may take tens of
// seconds for what takes milliseconds alone.
const procTimeout = 5 * time.Minute

// buildServer builds the binary into a temporary folder, with the build tags given, and
// returns its path.
func buildServer(tb testing.TB, tags ...string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "assistant-ls")
	out, err := exec.Command("go", "build", "-tags", strings.Join(tags, ","), "-o", bin, ".").CombinedOutput()
	require.NoError(tb, err, "go build: %s", out)
	return bin
}

// stderrMode is what the client does with the server's standard error.
type stderrMode int

// The stderr modes: read and kept, piped and never read, closed by the client at once.
const (
	stderrRead stderrMode = iota
	stderrUnread
	stderrClosed
)

// proc is the server process and the client's ends of its standard streams.
type proc struct {
	tb     testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	frames chan []byte // bodies read from stdout; closed at its end
	waited chan error  // the result of Wait
	root   string      // the workspace folder
}

// startServer starts bin serve with the given stderr mode and extra arguments.
func startServer(tb testing.TB, bin string, mode stderrMode, args ...string) *proc {
	tb.Helper()
	return startServerEnv(tb, bin, nil, nil, mode, args...)
}

// startServerEnv is startServer with env added to the process's environment and extra as its
// file descriptors from 3 on.
func startServerEnv(tb testing.TB, bin string, env []string, extra []*os.File, mode stderrMode, args ...string) *proc {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	require.NoError(tb, err)
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.ExtraFiles = extra
	stdin, err := cmd.StdinPipe()
	require.NoError(tb, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(tb, err)
	var stderrR *os.File
	switch mode {
	case stderrRead:
		cmd.Stderr = &strings.Builder{}
	case stderrUnread, stderrClosed:
		r, w, err := os.Pipe()
		require.NoError(tb, err)
		cmd.Stderr, stderrR = w, r
		tb.Cleanup(func() { _ = w.Close() })
	}
	require.NoError(tb, cmd.Start())
	switch mode {
	case stderrClosed:
		require.NoError(tb, stderrR.Close())
	case stderrUnread:
		tb.Cleanup(func() { _ = stderrR.Close() })
	}
	p := &proc{tb: tb, cmd: cmd, stdin: stdin, stdout: stdout, frames: make(chan []byte, 1024), waited: make(chan error, 1), root: root}
	go p.readFrames(stdout)
	go func() { p.waited <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = stdin.Close()
	})
	return p
}

// readFrames decodes Content-Length frames from stdout.
func (p *proc) readFrames(stdout io.Reader) {
	defer close(p.frames)
	in := bufio.NewReader(stdout)
	for {
		length := -1
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		p.frames <- body
	}
}

// message is a JSON-RPC message as the client reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// frame encodes one message with its header.
func encodeFrame(tb testing.TB, msg map[string]any) []byte {
	tb.Helper()
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	require.NoError(tb, err)
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

// write writes raw bytes to the server's stdin, failing the test if the server does not take
// them in time (a server that stopped reading).
func (p *proc) write(b []byte) {
	p.tb.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(b)
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(p.tb, err)
	case <-time.After(procTimeout):
		p.tb.Fatalf("the server took no input for %v: it stopped reading its stdin", procTimeout)
	}
}

// notify sends a notification.
func (p *proc) notify(method string, params any) {
	p.tb.Helper()
	p.write(encodeFrame(p.tb, map[string]any{"method": method, "params": params}))
}

// call sends a request and waits for its answer, skipping other messages.
func (p *proc) call(id int, method string, params any) message {
	p.tb.Helper()
	p.write(encodeFrame(p.tb, map[string]any{"id": id, "method": method, "params": params}))
	return p.await(func(m message) bool { return m.Method == "" && string(m.ID) == strconv.Itoa(id) })
}

// await reads messages until one satisfies match.
func (p *proc) await(match func(message) bool) message {
	p.tb.Helper()
	deadline := time.After(procTimeout)
	for {
		select {
		case body, ok := <-p.frames:
			require.True(p.tb, ok, "stdout ended while waiting")
			var m message
			require.NoError(p.tb, json.Unmarshal(body, &m))
			if match(m) {
				return m
			}
		case <-deadline:
			p.tb.Fatalf("no matching message after %v: the server hangs", procTimeout)
		}
	}
}

// initialize runs initialize and initialized for a client with the given workspace
// capabilities.
func (p *proc) initialize(workspace map[string]any) {
	p.tb.Helper()
	res := p.call(1, "initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          uri.File(p.root),
		"capabilities":     map[string]any{"workspace": workspace},
		"workspaceFolders": []map[string]any{{"uri": uri.File(p.root), "name": "w"}},
	})
	require.Nil(p.tb, res.Error)
	p.notify("initialized", map[string]any{})
}

// wait waits for the process to end and returns its exit code and how long it took since
// since. Only a process that has not ended after procTimeout fails the test: how long an end
// takes is measured, never asserted, so that a slow machine fails nothing.
func (p *proc) wait(since time.Time) (code int, took time.Duration) {
	p.tb.Helper()
	select {
	case err := <-p.waited:
		took = time.Since(since)
		if err != nil {
			exitErr, ok := err.(*exec.ExitError)
			require.True(p.tb, ok, "wait: %v", err)
			require.True(p.tb, exitErr.Exited(), "the server did not exit by itself: %v", err)
		}
		return p.cmd.ProcessState.ExitCode(), took
	case <-time.After(procTimeout):
		p.tb.Fatalf("the server did not end within %v while its stdin stays open: it hangs", procTimeout)
		return 0, 0
	}
}
