// Package editors holds the tests that drive the real editors (Neovim, Emacs, VS Code through
// code-server) with the integrations in this folder and a freshly built assistant-ls.
//
// An editor that is not installed skips its test, unless ASSISTANT_LS_EDITOR_TESTS is set (as
// .ci/run does after .ci/install-editors), where a missing editor is a failure.
package editors

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serverBin is the assistant-ls binary built for this run by TestMain.
var serverBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "assistant-ls-editors-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	serverBin = filepath.Join(dir, "assistant-ls")
	build := exec.Command("go", "build", "-o", serverBin, "../cmd/assistant-ls")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building assistant-ls:", err)
		return 1
	}
	return m.Run()
}

// need returns the path of an editor's program, skipping the test when it is missing, or failing
// it when ASSISTANT_LS_EDITOR_TESTS is set.
func need(t *testing.T, program string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err == nil {
		return p
	}
	if os.Getenv("ASSISTANT_LS_EDITOR_TESTS") != "" {
		t.Fatalf("%s is not installed (run .ci/install-editors and put its bin folder on PATH): %v", program, err)
	}
	t.Skipf("%s is not installed; .ci/install-editors installs it", program)
	return ""
}

// repoDir is the repository's root (the tests run in editors/).
func repoDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// writeFiles creates files (path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// result is how an editor process ended.
type result struct {
	code   int // exit status; -1 when it was killed
	output string
	took   time.Duration
}

// hangTimeout bounds a wait for the language server (an answer, diagnostics, its exit): a last
// resort, reached only when it hangs, so it is minutes, since a busy machine may take tens of
// seconds for what takes milliseconds alone.
const hangTimeout = 5 * time.Minute

// runEditor runs cmd in its own process group with a deadline. When the editor has ended, it
// waits up to linger for the rest of the group (the language server) to end by itself, then
// kills whatever is left, so no child outlives the test. It reports a server that outlived its
// editor with t.Log: a known server defect is that it does not exit on `exit` while its stdin
// is still open.
func runEditor(t *testing.T, timeout, linger time.Duration, cmd *exec.Cmd) result {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	pgid := cmd.Process.Pid
	killGroup := func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
	t.Cleanup(killGroup)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		killGroup()
		<-done
		t.Fatalf("%s did not end within %s; output:\n%s", filepath.Base(cmd.Path), timeout, out.String())
	}
	r := result{output: out.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("%s: %v", filepath.Base(cmd.Path), err)
	}
	if !groupGone(pgid, linger) {
		t.Logf("processes of %s's group (the language server) were still running %s after it ended; killed", filepath.Base(cmd.Path), linger)
		killGroup()
	}
	return r
}

// groupGone waits up to d for every process of the group to end.
func groupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serverLog returns the server's log file, for failure messages.
func serverLog(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no server log: " + err.Error() + ")"
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}
