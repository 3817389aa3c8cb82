package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
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
	t.Parallel()
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
	t.Parallel()
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
	assert.Contains(t, errOut, `-:2: event {"what":1} is of no known shape`)

	code, _, errOut = runCLI(t, `{"toolCall":{"id":"c1","arguments":"{}"}}`, "parse", "--tool-calls", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "must carry its name")

	code, out, _ = runCLI(t, "", "parse", "--tool-calls", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "[]\n", out)
}

func TestParseToolCallsFileIsRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`data: {"choices":[{"index":0,"delta":{"content":"hello"}}]}`+"\n\ndata: [DONE]\n"), 0o644))
	code, out, errOut := runCLI(t, "", "parse", "--tool-calls", path)
	require.Equal(t, 0, code, errOut)
	assert.JSONEq(t, `[{"type":"text","content":"hello"}]`, out)
}

// TestParseToolCallsRecordedStreams runs every recorded stream of provider/testdata through the
// command, as JSONL and as the provider's raw server-sent events (event: and data: lines), with
// the shape recognised and named, and checks the text and tool calls its source expects.
func TestParseToolCallsRecordedStreams(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "provider", "testdata", "*.txtar"))
	require.NoError(t, err)
	require.Len(t, files, 6, "one file per shape")
	for _, file := range files {
		shape := strings.TrimSuffix(filepath.Base(file), ".txtar")
		a, err := txtar.ParseFile(file)
		require.NoError(t, err)
		wants := map[string][]byte{}
		for _, f := range a.Files {
			wants[f.Name] = f.Data
		}
		for _, f := range a.Files {
			stream, ok := strings.CutSuffix(f.Name, ".jsonl")
			if !ok {
				continue
			}
			var want struct {
				Source string `json:"source"`
				Text   string `json:"text"`
				Calls  []struct {
					ID    string         `json:"id"`
					Name  string         `json:"name"`
					Input map[string]any `json:"input"`
				} `json:"calls"`
			}
			require.NoError(t, json.Unmarshal(wants[stream+".want.json"], &want))
			var sse strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				var ev struct {
					Type string `json:"type"`
				}
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type != "" {
					sse.WriteString("event: " + ev.Type + "\n")
				}
				sse.WriteString("data: " + line + "\n\n")
			}
			for form, input := range map[string]string{"jsonl": string(f.Data), "sse": sse.String()} {
				for _, args := range [][]string{{}, {"--provider", shape}} {
					t.Run(shape+"/"+stream+"/"+form+strings.Join(args, ""), func(t *testing.T) {
						t.Parallel()
						path := filepath.Join(t.TempDir(), stream+".txt")
						require.NoError(t, os.WriteFile(path, []byte(input), 0o644))
						code, out, errOut := runCLI(t, "", append([]string{"parse", "--tool-calls", path}, args...)...)
						require.Equal(t, 0, code, errOut)
						var blocks []printedBlock
						require.NoError(t, json.Unmarshal([]byte(out), &blocks))
						var text strings.Builder
						n := 0
						for _, b := range blocks {
							if b.CallID == "" {
								text.WriteString(b.Content)
								continue
							}
							require.Less(t, n, len(want.Calls), "more calls than %s holds", want.Source)
							w := want.Calls[n]
							assert.Equal(t, w.ID, b.CallID)
							assert.Equal(t, w.Name, b.Name)
							assert.Equal(t, w.Input, b.Input)
							assert.Empty(t, b.Error)
							n++
						}
						assert.Equal(t, len(want.Calls), n, want.Source)
						assert.Equal(t, strings.TrimSpace(want.Text), strings.TrimSpace(text.String()), want.Source)
					})
				}
			}
		}
	}
}

// TestParseToolCallsNeverDropsACall checks that a stream whose tool call the decoder cannot place
// fails, naming the event, instead of printing [] as if there were none.
func TestParseToolCallsNeverDropsACall(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"responses arguments for no item": `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{}"}`,
		"bedrock input for no block":      `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}}`,
		"cohere delta for no call":        `{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"{}"}}}}}`,
		"unknown responses event":         `{"type":"response.tool_call.delta","delta":"{}"}`,
		"gemini args for no call":         `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]}}]}}]}`,
		"mixed shapes":                    `{"type":"message_start","message":{}}` + "\n" + `{"type":"response.created","response":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, in+"\n", "parse", "--tool-calls", "-")
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "-:")
			assert.Contains(t, errOut, "send", "the message says what to do")
		})
	}
	code, _, errOut := runCLI(t, "", "parse", "--tool-calls", "-", "--provider", "mistral")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown provider "mistral": give one of openai-chat, openai-responses`)
}

// TestParseToolCallsProviderMismatch: a --provider that names another shape than the input's is
// what is wrong, and the message says so; events of two shapes in one input are told apart with
// each shape's article.
func TestParseToolCallsProviderMismatch(t *testing.T) {
	t.Parallel()
	responses := `{"type":"response.created","response":{"id":"resp_1"}}` + "\n"
	code, out, errOut := runCLI(t, responses, "parse", "--tool-calls", "-", "--provider", "gemini")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "assistant-ls: -:1: --provider gemini does not match these events (openai-responses): drop --provider or name the right one", strings.TrimSpace(errOut))

	code, _, errOut = runCLI(t, `{"candidates":[]}`+"\n"+responses, "parse", "--tool-calls", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "-:2: event "+strings.TrimSpace(responses)+" is an OpenAI Responses API event, but this stream's events are Gemini streamGenerateContent chunks")
}
