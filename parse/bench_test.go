package parse

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func readPerf(b *testing.B, name string) string {
	b.Helper()
	data, err := os.ReadFile("../testdata/perf/" + name)
	require.NoError(b, err)
	return string(data)
}

// BenchmarkParse1MB is the full parse the speed targets are about.
func BenchmarkParse1MB(b *testing.B) {
	msg := readPerf(b, "msg_1mb.txt")
	p := New(Config{})
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		p.Parse(msg)
	}
}

// BenchmarkCountGT is the floor Parse is measured against: one pass that only counts the bytes
// Parse stops at.
func BenchmarkCountGT(b *testing.B) {
	msg := readPerf(b, "msg_1mb.txt")
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += strings.Count(msg, ">")
	}
	require.Positive(b, n)
}

func BenchmarkParse100KB(b *testing.B) {
	msg := readPerf(b, "msg_100kb.txt")
	p := New(Config{})
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		p.Parse(msg)
	}
}

// streamDelta is the delta size of the streaming benchmarks.
const streamDelta = 40

func deltas(msg string) []string {
	var ds []string
	for len(msg) > streamDelta {
		ds = append(ds, msg[:streamDelta])
		msg = msg[streamDelta:]
	}
	return append(ds, msg)
}

// benchStream streams msg in streamDelta-byte deltas the way a server would: Append, then
// Blocks, each time.
func benchStream(b *testing.B, msg string) {
	ds := deltas(msg)
	p := New(Config{})
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		s := p.NewStream()
		for _, d := range ds {
			s.Append(d)
			s.Blocks()
		}
	}
}

// BenchmarkStream100KB streams the realistic 100 KB message.
func BenchmarkStream100KB(b *testing.B) { benchStream(b, readPerf(b, "msg_100kb.txt")) }

// BenchmarkReparse100KB is the baseline Stream must beat: a full Parse of the prefix after
// every delta.
func BenchmarkReparse100KB(b *testing.B) {
	msg := readPerf(b, "msg_100kb.txt")
	p := New(Config{})
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		for end := streamDelta; ; end += streamDelta {
			p.Parse(msg[:min(end, len(msg))])
			if end >= len(msg) {
				break
			}
		}
	}
}

// BenchmarkStreamWhitespaceParam streams a param of 1 MB of white space: Blocks after every
// delta must not walk the white space again, or this turns quadratic.
func BenchmarkStreamWhitespaceParam(b *testing.B) {
	benchStream(b, "<write_to_file><path>a</path><content>x"+strings.Repeat(" \n\u3000", 1<<18))
}
