package jsonstream

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fragmentSize is what a provider typically sends per tool-call delta.
const fragmentSize = 40

// writeArgs returns the arguments of a write_to_file call whose content is 1 MB of Go source,
// encoded as encoding/json encodes it (escaped quotes, new lines, tabs and <, >, &).
func writeArgs(tb testing.TB) string {
	src, err := os.ReadFile("../testdata/perf/file_10k.go.txt")
	require.NoError(tb, err)
	content := strings.Repeat(string(src), 1+(1<<20)/len(src))[:1<<20]
	args, err := json.Marshal(map[string]string{"path": "internal/big/big.go", "content": content})
	require.NoError(tb, err)
	return string(args)
}

func fragments(text string) []string {
	var out []string
	for len(text) > fragmentSize {
		out = append(out, text[:fragmentSize])
		text = text[fragmentSize:]
	}
	return append(out, text)
}

// BenchmarkStream1MB streams the arguments in 40-byte fragments, reading Params after each as a
// server pushing the growing content would, and ends with the whole value.
func BenchmarkStream1MB(b *testing.B) {
	args := writeArgs(b)
	frags := fragments(args)
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		var p Parser
		for _, f := range frags {
			p.Append(f)
			_ = p.Params()["content"]
		}
		if _, err := p.End(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		var p Parser
		for _, f := range frags {
			p.Append(f)
		}
		_, _ = p.End()
	}))/float64(len(frags)), "allocs/fragment")
}

// BenchmarkUnmarshal1MB is the baseline: one json.Unmarshal of the whole arguments.
func BenchmarkUnmarshal1MB(b *testing.B) {
	args := []byte(writeArgs(b))
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(args, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAllocsPerFragment pins the allocation profile: a long string field costs no allocation per
// fragment beyond the amortised growth of its buffer.
func TestAllocsPerFragment(t *testing.T) {
	frags := fragments(writeArgs(t))
	allocs := testing.AllocsPerRun(2, func() {
		var p Parser
		for _, f := range frags {
			p.Append(f)
		}
		_, _ = p.End()
	})
	assert.Less(t, allocs, 64.0, "%d fragments", len(frags))
}
