package v4a

import (
	"flag"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updatePerf = flag.Bool("update", false, "rewrite testdata/perf/patch_50.txt from diff_exact_50.txt")

func readPerf(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile("../testdata/perf/" + name)
	require.NoError(tb, err)
	return string(b)
}

// patchFromSearchReplace writes the sections of a SEARCH/REPLACE diff, as the v1 applier places
// them in original, as one Update File patch of path: a hunk per section, the lines the section
// leaves alone as context.
func patchFromSearchReplace(t testing.TB, path, original, diff string) string {
	res, err := apply.Construct(diff, original, true, apply.V1)
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + path + "\n")
	for _, r := range res.Replacements {
		require.True(t, r.Start == 0 || original[r.Start-1] == '\n', "section %d starts mid-line", r.Section)
		old := strings.Split(strings.TrimSuffix(original[r.Start:r.End], "\n"), "\n")
		repl := strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
		p := 0
		for p < len(old) && p < len(repl) && old[p] == repl[p] {
			p++
		}
		s := 0
		for s < len(old)-p && s < len(repl)-p && old[len(old)-1-s] == repl[len(repl)-1-s] {
			s++
		}
		b.WriteString("@@\n")
		for _, l := range old[:p] {
			b.WriteString(" " + l + "\n")
		}
		for _, l := range old[p : len(old)-s] {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range repl[p : len(repl)-s] {
			b.WriteString("+" + l + "\n")
		}
		for _, l := range old[len(old)-s:] {
			b.WriteString(" " + l + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// TestPatch50 checks that testdata/perf/patch_50.txt is diff_exact_50.txt as a V4A patch: the
// same 50 edits, giving the same file as the v1 applier. -update rewrites it.
func TestPatch50(t *testing.T) {
	file := readPerf(t, "file_10k.go.txt")
	diff := readPerf(t, "diff_exact_50.txt")
	patch := patchFromSearchReplace(t, "file_10k.go", file, diff)
	if *updatePerf {
		require.NoError(t, os.WriteFile("../testdata/perf/patch_50.txt", []byte(patch), 0o644))
	}
	assert.Equal(t, patch, readPerf(t, "patch_50.txt"))
	want, err := apply.Construct(diff, file, true, apply.V1)
	require.NoError(t, err)
	plan, err := ApplyText(patch, perfFiles(file))
	require.NoError(t, err)
	require.Len(t, plan.Hunks, 50)
	assert.Equal(t, want.NewContent, plan.Changes[0].Content)
}

func perfFiles(file string) Files {
	return func(p string) (string, error) {
		if p == "file_10k.go" {
			return file, nil
		}
		return "", fs.ErrNotExist
	}
}

// BenchmarkApplyPatch50 parses and applies the 50-hunk patch to file_10k.go; compare
// apply.BenchmarkConstructExact50, the v1 applier on the same 50 edits.
func BenchmarkApplyPatch50(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	patch := readPerf(b, "patch_50.txt")
	files := perfFiles(file)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ApplyText(patch, files); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParsePatch50 is the parsing share of BenchmarkApplyPatch50.
func BenchmarkParsePatch50(b *testing.B) {
	patch := readPerf(b, "patch_50.txt")
	b.SetBytes(int64(len(patch)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(patch); err != nil {
			b.Fatal(err)
		}
	}
}
