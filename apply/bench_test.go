package apply

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

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
// scans of the whole file that find nothing. "search_texts" uses the SEARCH texts of the
// whitespace-perturbed diff, exactly the failing scans the exact tier makes; "rare_needle" uses a
// needle whose first byte never occurs, the fastest scan strings.Index can make, for a stricter
// ratio.
func BenchmarkIndexBaseline(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	needles := searchTexts(readPerf(b, "diff_fallback_50.txt"))
	require.Len(b, needles, 50)
	rare := make([]string, 50)
	for i := range rare {
		rare[i] = fmt.Sprintf("\x00absent needle %d\n", i)
	}
	for _, set := range []struct {
		name    string
		needles []string
	}{{"search_texts", needles}, {"rare_needle", rare}} {
		for _, n := range set.needles {
			require.Equal(b, -1, strings.Index(file, n))
		}
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				for _, n := range set.needles {
					if at := strings.Index(file, n); at != -1 {
						b.Fatalf("needle found at %d", at)
					}
				}
			}
		})
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

// BenchmarkStreamExact50 streams diff_exact_50.txt in 40-byte deltas (420 partial steps, then the
// final result), reading each partial result once. The target is at most 3x one final Construct
// (BenchmarkConstructExact50), with the original indexed afresh as for a document version seen
// for the first time. How the partial content is read decides most of the cost, so each
// way is measured:
//   - pieces: Head and Tail as they are; the reader gets the whole content and copies nothing.
//   - string: NewContent, one string; a copy of the content whenever Tail is not empty.
//   - copy: Head and Tail copied into one reused buffer, as writing every byte out costs.
//   - construct: Construct of every prefix, the way without a Stream.
func BenchmarkStreamExact50(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	diff := readPerf(b, "diff_exact_50.txt")
	const chunk = 40
	want, err := Construct(diff, file, true, V1)
	require.NoError(b, err)
	var sink []byte
	reads := map[string]func(*Stream) int{
		"pieces": func(s *Stream) int {
			p, _ := s.Partial()
			return len(p.Head) + len(p.Tail)
		},
		"string": func(s *Stream) int {
			p, _ := s.Partial()
			return len(p.NewContent())
		},
		"copy": func(s *Stream) int {
			p, _ := s.Partial()
			sink = append(append(sink[:0], p.Head...), p.Tail...)
			return len(sink)
		},
	}
	for _, name := range []string{"pieces", "string", "copy"} {
		read := reads[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				s := NewStream(file, V1)
				for at := 0; at < len(diff); at += chunk {
					s.Append(diff[at:min(at+chunk, len(diff))])
					read(s)
				}
				res, err := s.Final()
				if err != nil || res.NewContent != want.NewContent {
					b.Fatal("final result differs", err)
				}
			}
		})
	}
	b.Run("construct", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			for at := 0; at < len(diff); at += chunk {
				res, _ := Construct(diff[:min(at+chunk, len(diff))], file, false, V1)
				_ = len(res.NewContent)
			}
			if _, err := Construct(diff, file, true, V1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkIndexedConstruct is BenchmarkConstructExact50 and BenchmarkConstructFallback50 with an
// Index kept across calls, as for later edits of a document version: the line tables are built
// once, outside the measured loop.
func BenchmarkIndexedConstruct(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	for _, name := range []string{"exact", "fallback"} {
		diff := readPerf(b, "diff_"+name+"_50.txt")
		x := NewIndex(file)
		res, err := x.Construct(diff, true, V1)
		require.NoError(b, err)
		require.Len(b, res.Replacements, 50)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := x.Construct(diff, true, V1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConstructIdle is BenchmarkConstructExact50 as an editor meets it: one call on a fresh
// document (a copy of the file, indexed afresh) after a 30 ms pause with the timer stopped, in a
// long-lived process. The pause lets the runtime's background work (the scavenger returning
// freed memory to the OS) and other processes run, so each call finds memory and caches as an
// idle server does. Compare it with BenchmarkConstructExact50 in the same run; gcs/op counts the
// collections that ran during the timed calls. Most of what an idle call costs beyond the loop's
// is fresh memory: a call that gets its 280 KB result in pages the OS has not mapped in takes
// about 70 page faults, which cost several times the call (see idleCollector in
// cmd/assistant-ls, which has the server reuse memory between requests).
func BenchmarkConstructIdle(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	diff := readPerf(b, "diff_exact_50.txt")
	gcs := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	var during uint64
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		time.Sleep(30 * time.Millisecond)
		doc := strings.Clone(file)
		metrics.Read(gcs)
		before := gcs[0].Value.Uint64()
		b.StartTimer()
		if _, err := Construct(diff, doc, true, V1); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		metrics.Read(gcs)
		during += gcs[0].Value.Uint64() - before
		b.StartTimer()
	}
	b.ReportMetric(float64(during)/float64(b.N), "gcs/op")
}
