package turn

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/require"
)

// BenchmarkToolCall1MB streams a write_to_file call with 1 MB of content in 40-byte argument
// fragments, reading the changed blocks after each delta as a server would.
func BenchmarkToolCall1MB(b *testing.B) {
	src, err := os.ReadFile("../testdata/perf/file_10k.go.txt")
	require.NoError(b, err)
	content := strings.Repeat(string(src), 1+(1<<20)/len(src))[:1<<20]
	args, err := json.Marshal(map[string]string{"path": "internal/big/big.go", "content": content})
	require.NoError(b, err)
	var deltas []Delta
	for a := string(args); len(a) > 0; {
		n := min(40, len(a))
		deltas = append(deltas, Delta{ToolCall: &ToolCallDelta{ID: "call_1", Arguments: a[:n]}})
		a = a[n:]
	}
	p := parse.New(parse.Config{})
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		s := New(p)
		_ = s.Apply(Delta{Text: "Writing the file.", ToolCall: &ToolCallDelta{ID: "call_1", Name: "write_to_file"}})
		for _, d := range deltas {
			_ = s.Apply(d)
			if from := s.Changed(); from >= 0 {
				_ = s.Blocks()[from:]
			}
		}
		_ = s.Apply(Delta{Final: true})
		if s.Blocks()[1].Err != nil {
			b.Fatal(s.Blocks()[1].Err)
		}
	}
}
