package provider

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/turn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tc(id, name, args string, done bool) turn.Delta {
	return turn.Delta{ToolCall: &turn.ToolCallDelta{ID: id, Name: name, Arguments: args, Done: done}}
}

// decodeAll decodes lines in order with one Decoder and returns every delta.
func decodeAll(t *testing.T, lines ...string) []turn.Delta {
	t.Helper()
	var d Decoder
	var out []turn.Delta
	for _, l := range lines {
		ds, err := d.Decode([]byte(l))
		require.NoError(t, err, l)
		out = append(out, ds...)
	}
	return out
}

func TestOpenAIChunks(t *testing.T) {
	got := decodeAll(t,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Checking."},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":1,"delta":{"content":"another choice"},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.go\"}"}},{"index":1,"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{}"}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
	)
	assert.Equal(t, []turn.Delta{
		{Text: "Checking."},
		tc("call_a", "read_file", "", false),
		tc("call_a", "", `{"path":`, false),
		tc("call_a", "", `"a.go"}`, false),
		tc("call_a", "", "", true),
		tc("call_b", "read_file", "{}", false),
		tc("call_b", "", "", true),
	}, got, "finish_reason completes the calls but does not end the stream")
}

func TestOpenAIErrors(t *testing.T) {
	var o Decoder
	_, err := o.Event([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"arguments":"{}"}}]}}]}`))
	assert.ErrorContains(t, err, "index 2 has no id")
	_, err = o.Event([]byte(`{"choices":[],"error":{"message":"rate limited"}}`))
	assert.ErrorContains(t, err, "rate limited")
	_, err = o.Event([]byte(`{"choices":"x"}`))
	assert.Error(t, err)
}

func TestAnthropicEvents(t *testing.T) {
	got := decodeAll(t,
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`{"type":"ping"}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Writing."}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_to_file","input":{}}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"}"}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}`,
		`{"type":"content_block_stop","index":3}`,
		`{"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_2","name":"read_file","input":{"path":"b"}}}`,
		`{"type":"content_block_stop","index":4}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}`,
		`{"type":"message_stop"}`,
	)
	assert.Equal(t, []turn.Delta{
		{Text: "Writing."},
		tc("toolu_1", "write_to_file", "", false),
		tc("toolu_1", "", `{"path": "a`, false),
		tc("toolu_1", "", `"}`, false),
		tc("toolu_1", "", "", true),
		tc("toolu_2", "read_file", `{"path":"b"}`, false),
		tc("toolu_2", "", "", true),
	}, got, "message_stop does not end the stream: a next message may follow")
}

func TestAnthropicErrors(t *testing.T) {
	a, err := New("anthropic")
	require.NoError(t, err)
	_, err = a.Event([]byte(`{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"x"}}`))
	assert.ErrorContains(t, err, "index 7")
	assert.ErrorContains(t, err, `Anthropic Messages event {"type":"content_block_delta"`, "the error names the event")
	_, err = a.Event([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	assert.ErrorContains(t, err, "overloaded_error: Overloaded")
	_, err = a.Event([]byte(`{"type":"content_block_start"}`))
	assert.Error(t, err)
	_, err = a.Event([]byte(`{"type":"content_block_shuffle","index":0}`))
	assert.ErrorContains(t, err, `type "content_block_shuffle" is not a Messages stream event`)
}

func TestFramingAndNormalized(t *testing.T) {
	got := decodeAll(t,
		"event: content_block_delta",
		": keep-alive",
		"",
		`data: {"delta":"Hi "}`,
		`{"toolCall":{"id":"x","name":"read_file","arguments":"{}","done":true}}`,
		`data: [DONE]`,
	)
	assert.Equal(t, []turn.Delta{{Text: "Hi "}, tc("x", "read_file", "{}", true)}, got, "[DONE] ends the request, not the stream")

	var d Decoder
	for _, line := range []string{`{"text":"whole"}`, `{"foo":1}`, `not json`, `{"error":{"message":"bad"}}`} {
		_, err := d.Decode([]byte(line))
		assert.Error(t, err, line)
	}
}

// TestExamples replays the example streams and checks the message they make.
func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		file, name, key string
	}{
		{"toolcalls_openai.jsonl", "replace_in_file", "diff"},
		{"toolcalls_anthropic.jsonl", "write_to_file", "content"},
	} {
		f, err := os.Open("../testdata/examples/" + tc.file)
		require.NoError(t, err)
		s := turn.New(parse.New(parse.Config{}))
		var d Decoder
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			ds, err := d.Decode(sc.Bytes())
			require.NoError(t, err)
			for _, x := range ds {
				require.NoError(t, s.Apply(x))
			}
		}
		require.NoError(t, f.Close())
		require.NoError(t, s.Apply(turn.Delta{Final: true}))
		blocks := s.Blocks()
		require.Len(t, blocks, 2, tc.file)
		assert.Equal(t, parse.Text, blocks[0].Type)
		b := blocks[1]
		assert.Equal(t, tc.name, b.Name)
		assert.NoError(t, b.Err)
		assert.Equal(t, "greet/greet.go", b.Input["path"])
		assert.Contains(t, b.Params[tc.key], "🚀")
		assert.Equal(t, b.Params[tc.key], b.Input[tc.key])
		assert.False(t, strings.ContainsRune(b.Params[tc.key], '\uFFFD'))
	}
}
