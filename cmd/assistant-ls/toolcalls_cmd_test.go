package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// printedBlock is a block as "parse --tool-calls" prints it.
type printedBlock struct {
	Type    string            `json:"type"`
	Content string            `json:"content"`
	Name    string            `json:"name"`
	Params  map[string]string `json:"params"`
	Partial bool              `json:"partial"`
	CallID  string            `json:"callId"`
	Input   map[string]any    `json:"input"`
	Error   string            `json:"error"`
}

func TestParseToolCallsExamples(t *testing.T) {
	for _, tc := range []struct {
		file, text, name, callID, key, contains string
	}{
		{"toolcalls_openai.jsonl", "I'll make the greeting mention the launch in `greet.go`.", "replace_in_file", "call_q7PLw2aVHb1cXu8e", "diff", "fmt.Println(\"Hello, 🚀 world\")"},
		{"toolcalls_anthropic.jsonl", "I'll rewrite `greet/greet.go` so the greeting includes a rocket.", "write_to_file", "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "content", "// Greet says hello — with a rocket 🚀."},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "examples", tc.file)
			code, out, errOut := runCLI(t, "", "parse", "--tool-calls", path)
			require.Equal(t, 0, code, errOut)
			var blocks []printedBlock
			require.NoError(t, json.Unmarshal([]byte(out), &blocks))
			require.Len(t, blocks, 2)
			assert.Equal(t, printedBlock{Type: "text", Content: tc.text}, blocks[0])
			b := blocks[1]
			assert.Equal(t, "tool_use", b.Type)
			assert.Equal(t, tc.name, b.Name)
			assert.Equal(t, tc.callID, b.CallID)
			assert.False(t, b.Partial)
			assert.Empty(t, b.Error)
			assert.Contains(t, b.Params[tc.key], tc.contains)
			assert.Equal(t, map[string]any{"path": "greet/greet.go", tc.key: b.Params[tc.key]}, b.Input)

			// The updates, replayed as a client replays pushes, end in the same blocks.
			code, updates, errOut := runCLI(t, "", "parse", "--tool-calls", path, "--updates")
			require.Equal(t, 0, code, errOut)
			var replayed []printedBlock
			lines := strings.Split(strings.TrimSuffix(updates, "\n"), "\n")
			require.Greater(t, len(lines), 5)
			for _, line := range lines {
				var u struct {
					From   int            `json:"from"`
					Blocks []printedBlock `json:"blocks"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &u), line)
				require.LessOrEqual(t, u.From, len(replayed))
				replayed = append(replayed[:u.From], u.Blocks...)
				for _, rb := range replayed {
					assert.NotContains(t, rb.Params[tc.key], "\uFFFD", "a split escape or pair shows only once whole")
				}
			}
			assert.Equal(t, blocks, replayed)
		})
	}
}

func TestParseToolCallsStdinAndErrors(t *testing.T) {
	in := `{"delta":"See <read_file><path>a.go</path></read_file>"}` + "\n" +
		`{"toolCall":{"id":"c1","name":"write_to_file","arguments":"{\"path\": \"b\", \"content\": [}"}}` + "\n"
	code, out, errOut := runCLI(t, in, "parse", "--tool-calls", "-")
	require.Equal(t, 0, code, errOut)
	var blocks []printedBlock
	require.NoError(t, json.Unmarshal([]byte(out), &blocks))
	require.Len(t, blocks, 3)
	assert.Equal(t, "read_file", blocks[1].Name)
	assert.Equal(t, map[string]string{"path": "b"}, blocks[2].Params)
	assert.Contains(t, blocks[2].Error, "invalid JSON at byte 26")
	assert.Nil(t, blocks[2].Input)

	code, out, errOut = runCLI(t, `{"delta":"x"}`+"\n"+`{"what":1}`+"\n", "parse", "--tool-calls", "-")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "-:2: not a known stream event")

	code, _, errOut = runCLI(t, `{"toolCall":{"id":"c1","arguments":"{}"}}`, "parse", "--tool-calls", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "must carry its name")

	code, out, _ = runCLI(t, "", "parse", "--tool-calls", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "[]\n", out)
}

func TestParseToolCallsFileIsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`data: {"choices":[{"index":0,"delta":{"content":"hello"}}]}`+"\n\ndata: [DONE]\n"), 0o644))
	code, out, errOut := runCLI(t, "", "parse", "--tool-calls", path)
	require.Equal(t, 0, code, errOut)
	assert.JSONEq(t, `[{"type":"text","content":"hello"}]`, out)
}
