package editors

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEmacs runs each ERT test of emacs/test/assistant-ls-test.el in its own batch Emacs (Debian's
// emacs-nox with elpa-eglot in CI), with a fresh workspace and server.
func TestEmacs(t *testing.T) {
	emacs := need(t, "emacs")
	repo := repoDir(t)
	files := map[string]string{
		"jp.txt":   "こんにちは、世界 🎉\nこれはテストです。👍🏽 ok\n終わり 🍣\n",
		"four.txt": "alpha 🍎\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n",
	}
	for _, name := range []string{
		"assistant-ls-stream-replace", "assistant-ls-write-new-file", "assistant-ls-version-mismatch",
		"assistant-ls-user-says-no", "assistant-ls-late-did-change", "assistant-ls-apply-region",
		"assistant-ls-apply-region-summary",
		"assistant-ls-review-diff", "assistant-ls-beside-usual-server",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			writeFiles(t, ws, files)
			cmd := exec.Command(emacs, "--batch", "-L", filepath.Join(repo, "editors", "emacs"),
				"-l", filepath.Join(repo, "editors", "emacs", "test", "assistant-ls-test.el"),
				"--eval", `(ert-run-tests-batch-and-exit "^`+name+`$")`)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "ASSISTANT_LS_BIN="+serverBin, "ASSISTANT_WS="+ws, "HOME="+dir)
			r := runEditor(t, hangTimeout, 3*time.Second, cmd)
			t.Logf("emacs %s: %s\n%s", name, r.took.Round(time.Millisecond), r.output)
			require.Equal(t, 0, r.code, "emacs exit status; server log:\n%s", serverLog(filepath.Join(dir, "server.log")))
		})
	}
}
