package apply

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func readPerf(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile("../testdata/perf/" + name)
	require.NoError(tb, err)
	return string(b)
}

// searchTexts returns the SEARCH texts of a well-formed diff, as the applier accumulates them.
func searchTexts(diff string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case isSearchStart(l):
			in = true
			cur.Reset()
		case isSeparator(l):
			if in {
				out = append(out, cur.String())
			}
			in = false
		case in:
			cur.WriteString(l + "\n")
		}
	}
	return out
}

// BenchmarkIndexBaseline is the yardstick for the two Construct benchmarks: 50 strings.Index
// scans of the whole file that find nothing. The needles are the SEARCH texts of the
// whitespace-perturbed diff, which is exactly the failing scan the exact tier makes.
func BenchmarkIndexBaseline(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	needles := searchTexts(readPerf(b, "diff_fallback_50.txt"))
	require.Len(b, needles, 50)
	for _, n := range needles {
		require.Equal(b, -1, strings.Index(file, n))
	}
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range needles {
			if strings.Index(file, n) >= 0 {
				b.Fatal("needle found")
			}
		}
	}
}

func benchConstruct(b *testing.B, diffName string) {
	file := readPerf(b, "file_10k.go.txt")
	diff := readPerf(b, diffName)
	res, err := Construct(diff, file, true, V1)
	require.NoError(b, err)
	require.Len(b, res.Replacements, 50)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Construct(diff, file, true, V1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConstructExact50 applies 50 sections that match exactly (target: at most 3x the
// baseline).
func BenchmarkConstructExact50(b *testing.B) { benchConstruct(b, "diff_exact_50.txt") }

// BenchmarkConstructFallback50 applies 50 whitespace-perturbed sections that need the
// line-trimmed fallback (target: at most 20x the baseline).
func BenchmarkConstructFallback50(b *testing.B) { benchConstruct(b, "diff_fallback_50.txt") }
