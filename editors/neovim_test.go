package editors

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNeovim runs each case of neovim/test/run.lua in a headless Neovim (Debian's 0.7.2 in CI)
// with the plugin on runtimepath, one Neovim and one server per case.
func TestNeovim(t *testing.T) {
	nvim := need(t, "nvim")
	repo := repoDir(t)
	files := map[string]string{
		"jp.txt":    "こんにちは、世界 🎉\nこれはテストです。👍🏽 ok\n終わり 🍣\n",
		"four.txt":  "alpha 🍎\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n",
		".git/HEAD": "ref: refs/heads/main\n",
	}
	for _, c := range []string{"replace", "write", "stale", "review", "review_held", "review_partial", "tool_call", "command"} {
		t.Run(c, func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			writeFiles(t, ws, files)
			cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
				"--cmd", "set rtp^="+filepath.Join(repo, "editors", "neovim"),
				"-c", "luafile "+filepath.Join(repo, "editors", "neovim", "test", "run.lua"))
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "ASSISTANT_LS_BIN="+serverBin, "ASSISTANT_WS="+ws, "ASSISTANT_CASE="+c,
				"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
				"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
			r := runEditor(t, hangTimeout, 3*time.Second, cmd)
			t.Logf("nvim %s: %s\n%s", c, r.took.Round(time.Millisecond), r.output)
			require.Equal(t, 0, r.code, "nvim exit status; server log:\n%s", serverLog(filepath.Join(dir, "server.log")))
			if c == "replace" {
				require.Equal(t, files["jp.txt"], readFile(t, filepath.Join(ws, "jp.txt")), "the server wrote the file")
			}
		})
	}
}
