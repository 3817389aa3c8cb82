package v4a

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// TestDifferential runs patches through Codex's own apply_patch and through this package and
// compares outcome, files and wording: the golden cases, the conformance vectors and mutations
// of them (CODEX_MUTATIONS per vector, default 3). It needs the released binary (npm install @openai/codex@0.171.0; the platform
// package's vendor/*/bin/codex) named by CODEX_BINARY, and is skipped without it.
func TestDifferential(t *testing.T) {
	bin := os.Getenv("CODEX_BINARY")
	if bin == "" {
		t.Skip("set CODEX_BINARY to the @openai/codex 0.171.0 binary to compare with it")
	}
	link := filepath.Join(t.TempDir(), "apply_patch") // the binary acts as apply_patch by name
	require.NoError(t, os.Symlink(bin, link))

	type tc struct {
		name  string
		files map[string]string
		patch string
	}
	var cases []tc
	goldens, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err)
	for _, name := range goldens {
		ar, err := txtar.ParseFile(name)
		require.NoError(t, err)
		c := tc{name: filepath.Base(name), files: map[string]string{}}
		for _, f := range ar.Files {
			v := strings.TrimSuffix(string(f.Data), "\n")
			if p, ok := strings.CutPrefix(f.Name, "before/"); ok {
				c.files[p] = v
			} else if f.Name == "patch" {
				c.patch = v
			}
		}
		cases = append(cases, c)
	}
	mutations := 3
	if n, err := strconv.Atoi(os.Getenv("CODEX_MUTATIONS")); err == nil {
		mutations = n
	}
	rng := rand.New(rand.NewSource(171))
	for _, v := range loadVectors(t) {
		cases = append(cases, tc{v.ID, v.Files, v.Patch})
		for k := range mutations {
			cases = append(cases, tc{v.ID + "/mutation" + strconv.Itoa(k), v.Files, mutate(rng, v.Patch)})
		}
	}
	for _, c := range cases {
		dir := t.TempDir()
		for p, content := range c.files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
			require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
		}
		var stderr bytes.Buffer
		cmd := exec.Command(link, c.patch)
		cmd.Dir, cmd.Stderr = dir, &stderr
		codexOK := cmd.Run() == nil
		codexMsg := strings.TrimSuffix(strings.ReplaceAll(stderr.String(), dir+"/", ""), "\n")

		p, err := Parse(c.patch)
		var plan *Plan
		if err == nil {
			plan, err = Apply(p, folder(c.files))
		}
		switch {
		case err == nil && !codexOK && p.Unwrapped:
			// Beyond Codex: an envelope it refuses, unwrapped.
		case (err == nil) != codexOK:
			t.Errorf("%s: Codex ok=%v (%s), ours ok=%v (%v)\npatch: %q", c.name, codexOK, codexMsg, err == nil, err, c.patch)
		case err != nil:
			var e *Error
			if w, uerr := unwrap(c.patch); w != nil || uerr != nil {
				// Unwrapped, the patch fails for its own reasons, not Codex's refusal.
				break
			}
			if errors.As(err, &e) && e.Message != codexMsg {
				t.Errorf("%s: wording\n ours:  %q\n Codex: %q", c.name, e.Message, codexMsg)
			}
		default:
			want := map[string]string{}
			require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(path)
				rel, _ := filepath.Rel(dir, path)
				want[filepath.ToSlash(rel)] = string(data)
				return err
			}))
			got := map[string]string{}
			for k, v := range after(c.files, plan) {
				if v != nil {
					got[k] = *v
				}
			}
			if !equalMaps(want, got) {
				t.Errorf("%s: files differ\n Codex: %q\n ours:  %q\npatch: %q", c.name, want, got, c.patch)
			}
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// mutate changes a patch the way models get patches wrong: a line dropped, repeated, padded,
// emptied, swapped with the next, its first character removed or its tabs made spaces, a marker
// or a bare line inserted, or every line break made CRLF.
func mutate(rng *rand.Rand, patch string) string {
	lines := strings.Split(patch, "\n")
	i := rng.Intn(len(lines))
	switch rng.Intn(11) {
	case 0:
		lines = append(lines[:i], lines[i+1:]...)
	case 1:
		lines = append(lines[:i+1], lines[i:]...)
	case 2:
		lines[i] += "  "
	case 3:
		lines[i] = "\t" + lines[i]
	case 4:
		lines[i] = ""
	case 5:
		if lines[i] != "" {
			lines[i] = lines[i][1:]
		}
	case 6:
		marks := []string{"*** End of File", "@@", "*** End Patch", "@@ func", "", " "}
		lines = append(lines[:i], append([]string{marks[rng.Intn(len(marks))]}, lines[i:]...)...)
	case 7:
		lines[i] = strings.ReplaceAll(lines[i], "\t", "    ")
	case 8:
		if i+1 < len(lines) {
			lines[i], lines[i+1] = lines[i+1], lines[i]
		}
	case 9:
		return strings.ReplaceAll(patch, "\n", "\r\n")
	case 10:
		marks := []string{"*** Begin Patch", "*** Add File: x.txt", "*** Move to: y.txt", "*** Delete File: x.txt", "+", "-", "@@ }"}
		lines = append(lines[:i], append([]string{marks[rng.Intn(len(marks))]}, lines[i:]...)...)
	}
	return strings.Join(lines, "\n")
}
