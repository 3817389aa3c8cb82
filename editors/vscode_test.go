package editors

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cacheDir is where .ci/install-editors keeps code-server and playwright-core.
func cacheDir() string {
	if d := os.Getenv("ASSISTANT_LS_CACHE"); d != "" {
		return d
	}
	return "/var/cache/assistant-ls"
}

// needFile is need for a file the test uses directly.
func needFile(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	if os.Getenv("ASSISTANT_LS_EDITOR_TESTS") != "" {
		t.Fatalf("%s (%s) is missing; .ci/install-editors installs it", what, path)
	}
	t.Skipf("%s (%s) is missing; .ci/install-editors installs it", what, path)
}

// command runs a build step with a deadline and fails the test with its output.
func command(t *testing.T, dir string, timeout time.Duration, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	r := runEditor(t, timeout, time.Second, cmd)
	require.Equal(t, 0, r.code, "%s %s:\n%s", name, strings.Join(args, " "), r.output)
}

// buildVSIX builds the extension and the probe into dir and returns their .vsix paths.
func buildVSIX(t *testing.T, dir string) (ext, probe string) {
	t.Helper()
	src := filepath.Join(repoDir(t), "editors", "vscode")
	if _, err := os.Stat(filepath.Join(src, "node_modules", ".bin", "vsce")); err != nil {
		command(t, src, 5*time.Minute, "npm", "ci", "--no-audit", "--no-fund")
	}
	command(t, src, 3*time.Minute, "npm", "run", "package")
	ext = filepath.Join(dir, "assistant-ls.vsix")
	require.NoError(t, os.Rename(filepath.Join(src, "assistant-ls.vsix"), ext))
	probe = filepath.Join(dir, "probe.vsix")
	command(t, filepath.Join(src, "test", "probe"), 2*time.Minute, filepath.Join(src, "node_modules", ".bin", "vsce"),
		"package", "--no-dependencies", "--skip-license", "-o", probe)
	return ext, probe
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// serverProcesses lists the pids of running processes whose executable is bin.
func serverProcesses(bin string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == bin {
			pids = append(pids, pid)
		}
	}
	return pids
}

type probeResult struct {
	Done    bool `json:"done"`
	Settled bool `json:"settled"`
	Error   string
	Edits   []struct{ URI, Status, Error string }
	Seen    []string
	JP      string  `json:"jp"`
	JPAfter string  `json:"jpAfterCommand"`
	JPDirty bool    `json:"jpDirty"`
	JPDisk  string  `json:"jpDisk"`
	Hello   *string `json:"hello"`
	Command string  `json:"command"`
	Server  *struct {
		Path, Version string
	} `json:"server"`
	Previews []struct {
		Tree     string
		Unticked int
	}
}

// TestVSCode installs the built .vsix and a probe extension (the agent plugin) into a real
// code-server (VS Code 1.139), opens the workbench in Chromium through playwright-core and lets
// the probe stream a replace_in_file on an open document and a write_to_file creating a file.
func TestVSCode(t *testing.T) {
	codeServer := need(t, "code-server")
	node := need(t, "node")
	needFile(t, "/usr/bin/chromium", "Debian's chromium")
	nodeModules := filepath.Join(cacheDir(), "vscode", "node_modules")
	needFile(t, filepath.Join(nodeModules, "playwright-core"), "playwright-core")
	need(t, "npm")
	build := t.TempDir()
	ext, probe := buildVSIX(t, build)
	for _, s := range []vscodeSession{
		{name: "confirm-off", serverPath: serverBin},
		{name: "confirm-on", serverPath: serverBin, confirm: true},
		{name: "user-settings", serverPath: serverBin, userOnly: true},
		{name: "server-missing", serverPath: "/nonexistent/assistant-ls"},
	} {
		t.Run(s.name, func(t *testing.T) {
			runVSCode(t, codeServer, node, nodeModules, ext, probe, s)
		})
	}
}

// vscodeSession is one workbench session of TestVSCode.
type vscodeSession struct {
	name       string
	serverPath string // assistant.serverPath
	confirm    bool   // assistant.confirm: Apply is clicked in each Refactor Preview
	userOnly   bool   // serverPath in the user settings only, as a user sets it (else also the machine's)
}

// settleTimeoutMs is the extension's default wait of settled() in the sessions, short so that
// a preview held open for heldMs outlasts it twice (the two waits of Apply Edits in Selection).
const settleTimeoutMs, heldMs = 2000, 6000

// decoyServer writes an assistant-ls into dir that records in marker that it ran, and fails.
// It comes first on the workbench's PATH: only assistant.serverPath may run.
func decoyServer(t *testing.T, dir, marker string) {
	t.Helper()
	writeFiles(t, dir, map[string]string{"assistant-ls": "#!/bin/sh\necho \"$0 $*\" >> " + marker + "\nexit 1\n"})
	require.NoError(t, os.Chmod(filepath.Join(dir, "assistant-ls"), 0o755))
}

func runVSCode(t *testing.T, codeServer, node, nodeModules, ext, probe string, session vscodeSession) {
	serverPath, confirm := session.serverPath, session.confirm
	dir := t.TempDir()
	ws, ud, exts := filepath.Join(dir, "ws"), filepath.Join(dir, "user"), filepath.Join(dir, "extensions")
	jp := "こんにちは、世界 🎉\nこれはテストです。👍🏽 ok\n終わり 🍣\n"
	writeFiles(t, ws, map[string]string{"jp.txt": jp})
	settings, err := json.Marshal(map[string]any{
		"assistant.serverPath":                             serverPath,
		"assistant.serverArgs":                             []string{"--log-file", filepath.Join(dir, "server.log"), "--log-level", "debug"},
		"assistant.confirm":                                confirm,
		"workbench.startupEditor":                          "none",
		"workbench.tips.enabled":                           false,
		"security.workspace.trust.enabled":                 false,
		"extensions.autoUpdate":                            false,
		"extensions.autoCheckUpdates":                      false,
		"extensions.ignoreRecommendations":                 true,
		"update.mode":                                      "none",
		"telemetry.telemetryLevel":                         "off",
		"chat.disableAIFeatures":                           true,
		"workbench.enableExperiments":                      false,
		"files.simpleDialog.enable":                        true,
		"window.restoreWindows":                            "none",
		"workbench.welcomePage.walkthroughs.openOnInstall": false,
	})
	require.NoError(t, err)
	settingsFiles := map[string]string{"User/settings.json": string(settings)}
	if !session.userOnly {
		// code-server also reads the machine's settings from Machine/settings.json
		settingsFiles["Machine/settings.json"] = string(settings)
	}
	writeFiles(t, ud, settingsFiles)
	decoys, decoyRan := filepath.Join(dir, "decoy"), filepath.Join(dir, "decoy-ran")
	decoyServer(t, decoys, decoyRan)
	// The extension host takes PATH from a login shell (Debian's /etc/profile sets it anew), so
	// the decoy goes first on PATH through the shell's profile, as a user's ~/go/bin would.
	home := filepath.Join(dir, "home")
	profile := "export PATH=" + decoys + ":$PATH\n"
	writeFiles(t, home, map[string]string{".profile": profile, ".bashrc": profile})
	result := filepath.Join(dir, "result.json")
	scenario := filepath.Join(dir, "scenario.json")
	writeFiles(t, dir, map[string]string{"scenario.json": fmt.Sprintf(`{"result": %q}`, result)})

	base := []string{"--user-data-dir", ud, "--extensions-dir", exts}
	// code-server writes its own config under XDG_CONFIG_HOME
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	install := exec.Command(codeServer, append(base, "--install-extension", ext, "--install-extension", probe)...)
	install.Env = env
	ri := runEditor(t, 2*time.Minute, time.Second, install)
	require.Equal(t, 0, ri.code, "installing the extensions:\n%s", ri.output)

	port := freePort(t)
	srv := exec.Command(codeServer, append(base, "--auth", "none", "--bind-addr", fmt.Sprintf("127.0.0.1:%d", port),
		"--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
		"--disable-getting-started-override", "--reconnection-grace-time", "3", ws)...)
	srv.Env = append(env, "ASSISTANT_PROBE="+scenario, "HOME="+home, "PATH="+decoys+string(os.PathListSeparator)+os.Getenv("PATH"),
		fmt.Sprintf("ASSISTANT_LS_SETTLE_TIMEOUT_MS=%d", settleTimeoutMs))
	srvLog, err := os.Create(filepath.Join(dir, "code-server.log"))
	require.NoError(t, err)
	defer srvLog.Close()
	srv.Stdout, srv.Stderr = srvLog, srvLog
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
		_ = srv.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	deadline := time.Now().Add(hangTimeout)
	for {
		resp, err := http.Get(url + "healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		require.True(t, time.Now().Before(deadline), "code-server did not listen within %v: %v", hangTimeout, err)
		time.Sleep(200 * time.Millisecond)
	}

	shots := filepath.Join(dir, "shots")
	if a := os.Getenv("ASSISTANT_LS_EDITOR_ARTIFACTS"); a != "" {
		// screenshots of the workbench and the logs stay there for a look after the run
		shots = filepath.Join(a, t.Name())
		t.Cleanup(func() {
			for _, f := range []string{"code-server.log", "server.log", "result.json"} {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
					_ = os.WriteFile(filepath.Join(shots, f), b, 0o644)
				}
			}
		})
	}
	require.NoError(t, os.MkdirAll(shots, 0o755))
	// With confirm, the first preview of Apply Edits in Selection (the third of the session) is
	// left open past the extension's default wait, twice over.
	drive := exec.Command(node, filepath.Join(repoDir(t), "editors", "vscode", "test", "drive.js"),
		url+"?folder="+ws, result, map[bool]string{false: "0", true: "1"}[confirm], shots, "3", fmt.Sprint(heldMs))
	drive.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	r := runEditor(t, 4*time.Minute, 5*time.Second, drive)
	t.Logf("workbench session (confirm=%v): %s", confirm, r.took.Round(time.Millisecond))
	logs := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "code-server.log"))
		return fmt.Sprintf("driver:\n%s\ncode-server:\n%s\nserver:\n%s", r.output, b, serverLog(filepath.Join(dir, "server.log")))
	}
	require.Equal(t, 0, r.code, logs())
	var summary struct {
		Clicks   int
		Previews []struct {
			Tree     string
			Unticked int
		}
		Result *probeResult
	}
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(lastLine(r.output))), &summary), logs())
	require.NotNil(t, summary.Result, "the probe wrote no result; %s", logs())
	p := summary.Result
	ran, _ := os.ReadFile(decoyRan)
	require.Empty(t, string(ran), "the assistant-ls found on PATH ran, not assistant.serverPath")
	if serverPath != serverBin {
		// the probe's api.ready rejects with the message the user sees as an error notification
		require.Contains(t, p.Error, `the server "`+serverPath+`" (setting assistant.serverPath) does not exist or is not executable`)
		return
	}
	t.Logf("probe: settled=%v seen=%v edits=%+v previews=%+v jp=%q dirty=%v disk=%q", p.Settled, p.Seen, p.Edits, summary.Previews, p.JP, p.JPDirty, p.JPDisk)
	require.Empty(t, p.Error, logs())
	require.NotNil(t, p.Server, "the API names no server")
	require.Equal(t, serverBin, p.Server.Path)
	require.Equal(t, "assistant-ls "+serverVersion(t), p.Server.Version)
	require.True(t, p.Settled, "the edits did not settle; %s", logs())
	require.Len(t, p.Edits, 2)
	for _, e := range p.Edits {
		require.Equal(t, "applied", e.Status, "%s: %s; %s", e.URI, e.Error, logs())
	}
	require.Equal(t, "こんにちは、世界 🎉\nこれは本番です 🚀 ok\n終わり 🍣\n", p.JP)
	require.NotNil(t, p.Hello, "no document holds new/dir/hello.txt")
	require.Equal(t, "こんにちは 🌸\nline two\n", *p.Hello)
	require.Equal(t, "こんばんは、世界 🌙\nこれは本番です 🚀 ok\nおしまい 🍵\n", p.JPAfter, "after Apply Edits in Selection")
	// The message of Apply Edits in Selection: how the first edit was found, and the failure
	// with the server's hint.
	require.True(t, strings.HasPrefix(p.Command, "assistant-ls: 2 applied, 1 failed (replace_in_file jp.txt: section 1 matched after trimming white space; replace_in_file jp.txt failed: "), p.Command)
	require.Contains(t, p.Command, "did you mean line 2?")
	requireLogged(t, ud, "started "+serverBin+": assistant-ls "+serverVersion(t))
	if confirm {
		require.Equal(t, 4, summary.Clicks, "one Refactor Preview per edit, in turn")
		for _, p := range summary.Previews {
			// The extension's own empty entry, which makes VS Code show the preview; every real
			// change is ticked, so Apply as shown applies it (drive.js ticks nothing).
			require.Equal(t, 1, p.Unticked, "unticked entries in the preview of %q", p.Tree)
		}
	} else {
		require.Zero(t, summary.Clicks)
	}
	// The disk is VS Code's business here: code-server saves edited files by itself (in the
	// browser files.autoSave defaults to afterDelay), so it cannot show that the server wrote
	// nothing; the Neovim, Emacs and Helix tests do.
	t.Logf("jp.txt on disk after the session: %q", readFile(t, filepath.Join(ws, "jp.txt")))

	// The browser window is closed: after code-server's reconnection grace time the extension
	// host ends, and with it the language server.
	closed := time.Now()
	for len(serverProcesses(serverBin)) > 0 {
		require.Less(t, time.Since(closed), hangTimeout, "assistant-ls still runs %v after the window closed: it hangs: %v", hangTimeout, serverProcesses(serverBin))
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("the server was gone %s after the window closed", time.Since(closed).Round(100*time.Millisecond))
}

// serverVersion is what the built server says of itself.
func serverVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(serverBin, "version").Output()
	require.NoError(t, err)
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "assistant-ls ")
}

// requireLogged checks that the extension's output channel, which code-server keeps in a file
// under the user data folder's logs, holds line.
func requireLogged(t *testing.T, userData, line string) {
	t.Helper()
	var logs []string
	held := false
	_ = filepath.WalkDir(filepath.Join(userData, "logs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, "assistant-ls.log") {
			logs = append(logs, p)
			b, _ := os.ReadFile(p)
			held = held || strings.Contains(string(b), line)
		}
		return nil
	})
	require.True(t, held, "no output channel log holds %q (logs: %v)", line, logs)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
