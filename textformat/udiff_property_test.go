package textformat

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUDiffGitProperty: for random files and random edits of them, the diff git writes
// (git diff --no-index, with 0 to 4 lines of context and each diff algorithm) applied by us
// gives exactly the edited file. The files repeat lines, so that hunks have to be placed by
// their line numbers; some have CRLF line breaks, some lines CRLF among LF ones, some no final
// line break.
func TestUDiffGitProperty(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed; this property compares with git diff")
	}
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+dir, "LC_ALL=C")
	algorithms := []string{"myers", "minimal", "patience", "histogram"}
	n := 250
	if testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(18, 1))
	for i := range n {
		before := randomFile(rng)
		after := randomEdit(rng, before)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "f.txt"), []byte(before), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "b", "f.txt"), []byte(after), 0o644))
		args := []string{"-C", dir, "diff", "--no-index", "--no-color", fmt.Sprintf("-U%d", rng.IntN(5)),
			"--diff-algorithm=" + algorithms[rng.IntN(len(algorithms))], "a/f.txt", "b/f.txt"}
		cmd := exec.Command(git, args...)
		cmd.Env = env
		out, err := cmd.Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 {
			err = nil // differences found
		}
		require.NoError(t, err, "git %v", args)
		if before == after {
			continue
		}
		diff := string(out)
		es := FindUDiff(diff)
		require.Len(t, es, 1, "case %d: %s", i, diff)
		require.Len(t, es[0].Files, 1, "case %d", i)
		res, err := es[0].Files[0].Apply(before, true)
		require.NoError(t, err, "case %d: %q\n%s", i, before, diff)
		require.Equal(t, after, res.Content, "case %d: %q\n%s", i, before, diff)
	}
}

// propertyLines are the lines random files are made of: few, so that they repeat.
var propertyLines = []string{"", "}", "\treturn nil", "if err != nil {", "x := 1", "  indented  ", "- item", "+ plus",
	"--- dashes", "@@ at", "\\ backslash", "func f() {", " ", "\t", "// comment"}

// randomFile returns up to 40 lines of propertyLines: LF, CRLF, or mixed, with or without a
// final line break.
func randomFile(rng *rand.Rand) string {
	var b strings.Builder
	n := rng.IntN(41)
	style := rng.IntN(3) // LF, CRLF, mixed
	for range n {
		b.WriteString(propertyLines[rng.IntN(len(propertyLines))])
		if style == 1 || style == 2 && rng.IntN(3) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	s := b.String()
	if rng.IntN(5) == 0 {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	}
	return s
}

// randomEdit changes a few line ranges of s: removes, inserts or replaces lines (inserted
// lines take a line break at random), and sometimes adds or drops the final line break.
func randomEdit(rng *rand.Rand, s string) string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for range 1 + rng.IntN(4) {
		at := rng.IntN(len(lines) + 1)
		del := min(rng.IntN(4), len(lines)-at)
		var ins []string
		for range rng.IntN(4) {
			br := "\n"
			if rng.IntN(3) == 0 {
				br = "\r\n"
			}
			ins = append(ins, propertyLines[rng.IntN(len(propertyLines))]+br)
		}
		lines = append(lines[:at], append(ins, lines[at+del:]...)...)
	}
	out := strings.Join(lines, "")
	switch rng.IntN(6) {
	case 0:
		out = strings.TrimSuffix(out, "\n")
	case 1:
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
	}
	return out
}
