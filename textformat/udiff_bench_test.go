package textformat

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updatePerf = flag.Bool("update-perf", false, "rewrite ../testdata/perf/udiff_50.txt from diff_exact_50.txt")

// readPerf reads a benchmark input of ../testdata/perf.
func readPerf(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile("../testdata/perf/" + name)
	require.NoError(tb, err)
	return string(b)
}

// udiffFromSearchReplace writes the sections of a SEARCH/REPLACE diff, as the v1 applier places
// them in original, as a unified diff of path: a hunk per section with git's line numbers, the
// lines the section leaves alone as context (the same hunks as v4a's patch_50.txt).
func udiffFromSearchReplace(t testing.TB, path, original, diff string) string {
	res, err := apply.Construct(diff, original, true, apply.V1)
	require.NoError(t, err)
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	delta := 0
	for _, r := range res.Replacements {
		require.True(t, r.Start == 0 || original[r.Start-1] == '\n', "section %d starts mid-line", r.Section)
		old := strings.Split(strings.TrimSuffix(original[r.Start:r.End], "\n"), "\n")
		repl := strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
		line := strings.Count(original[:r.Start], "\n") + 1
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", line, len(old), line+delta, len(repl))
		delta += len(repl) - len(old)
		p := 0
		for p < len(old) && p < len(repl) && old[p] == repl[p] {
			p++
		}
		s := 0
		for s < len(old)-p && s < len(repl)-p && old[len(old)-1-s] == repl[len(repl)-1-s] {
			s++
		}
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
	return b.String()
}

// TestUDiff50 checks that testdata/perf/udiff_50.txt is diff_exact_50.txt as a unified diff: 50
// hunks, giving the same file as the v1 applier, each at its own line. -update-perf rewrites it.
func TestUDiff50(t *testing.T) {
	t.Parallel()
	file := readPerf(t, "file_10k.go.txt")
	diff := readPerf(t, "diff_exact_50.txt")
	patch := udiffFromSearchReplace(t, "file_10k.go", file, diff)
	if *updatePerf {
		require.NoError(t, os.WriteFile("../testdata/perf/udiff_50.txt", []byte(patch), 0o644))
	}
	assert.Equal(t, patch, readPerf(t, "udiff_50.txt"))
	want, err := apply.Construct(diff, file, true, apply.V1)
	require.NoError(t, err)
	es := FindUDiff(patch)
	require.Len(t, es, 1)
	require.Len(t, es[0].Files[0].Sections, 50)
	res, err := es[0].Files[0].Apply(file, true)
	require.NoError(t, err)
	assert.Equal(t, want.NewContent, res.Content)
	for i, tier := range res.Tiers {
		assert.Equal(t, apply.TierExact, tier, "hunk %d", i+1)
	}
}

// BenchmarkUDiff50 recognises and applies the 50-hunk diff to file_10k.go; compare
// v4a.BenchmarkApplyPatch50, the same 50 edits as a V4A patch.
func BenchmarkUDiff50(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	patch := readPerf(b, "udiff_50.txt")
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		es := FindUDiff(patch)
		if _, err := es[0].Files[0].Apply(file, true); err != nil {
			b.Fatal(err)
		}
	}
}
