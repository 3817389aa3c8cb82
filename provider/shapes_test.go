package provider

import (
	"encoding/json"
	"testing"

	"github.com/assistant-ls/assistant-ls/turn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBedrockPayloads replays the recorded Bedrock streams as bare event-stream payloads, the
// event type left to a header as on the wire, padding included: they make the same message.
func TestBedrockPayloads(t *testing.T) {
	t.Parallel()
	n := 0
	for _, rs := range recordedStreams(t) {
		if rs.shape != "bedrock" {
			continue
		}
		n++
		var payloads [][]byte
		for _, ev := range rs.events {
			var keyed map[string]map[string]any
			require.NoError(t, json.Unmarshal(ev, &keyed))
			require.Len(t, keyed, 1)
			for _, payload := range keyed {
				payload["p"] = "abcdefghij"
				b, err := json.Marshal(payload)
				require.NoError(t, err)
				payloads = append(payloads, b)
			}
		}
		for _, named := range []string{"", "bedrock"} {
			d, err := New(named)
			require.NoError(t, err)
			var deltas []turn.Delta
			for _, p := range payloads {
				ds, err := d.Event(p)
				require.NoError(t, err, string(p))
				deltas = append(deltas, ds...)
			}
			text, calls := messageOf(t, deltas)
			assert.Equal(t, rs.want.Text, text, rs.name)
			assert.Equal(t, wantCalls(rs.want), calls, rs.name)
		}
	}
	require.Positive(t, n)
}

// TestShapeErrors: an event out of order, of an unknown type or malformed is an error naming the
// event and saying what to do; none is dropped.
func TestShapeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, shape string
		events      []string
		want        string
	}{
		{"responses delta before its item", "openai-responses", []string{
			`{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{"}`}, `item_id "fc_1" names no function_call`},
		{"responses delta of another kind", "openai-responses", []string{
			`{"type":"response.output_item.added","item":{"id":"ct_1","type":"custom_tool_call","call_id":"c1","name":"x","input":""}}`,
			`{"type":"response.function_call_arguments.delta","item_id":"ct_1","delta":"{"}`}, `is a custom_tool_call, not a function_call`},
		{"responses item done twice", "openai-responses", []string{
			`{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","call_id":"c1","name":"x","arguments":""}}`,
			`{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","call_id":"c1","name":"x","arguments":"{}"}}`,
			`{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","call_id":"c1","name":"x","arguments":"{}"}}`}, `already done`},
		{"responses unknown type", "openai-responses", []string{`{"type":"response.novel.delta"}`}, `"response.novel.delta" is not a Responses API event`},
		{"responses failed", "openai-responses", []string{`{"type":"response.failed","response":{"error":{"code":"server_error","message":"boom"}}}`}, "boom"},
		{"responses error", "openai-responses", []string{`{"type":"error","code":"rate_limit_exceeded","message":"slow down"}`}, "slow down"},
		{"gemini blocked", "gemini", []string{`{"promptFeedback":{"blockReason":"SAFETY"}}`}, "blocked the prompt: SAFETY"},
		{"gemini partial args skipping an element", "gemini", []string{
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[1]","stringValue":"x"}],"willContinue":true}}]}}]}`}, "skips or repeats an array element"},
		{"gemini partial args of another shape", "gemini", []string{
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a.b","stringValue":"x"}],"willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0]","stringValue":"x"}],"willContinue":true}}]}}]}`}, "does not match the arguments' shape"},
		{"gemini partial args bad path", "gemini", []string{
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"a.b","stringValue":"x"}],"willContinue":true}}]}}]}`}, "is not a JSON path"},
		{"gemini error", "gemini", []string{`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`}, "RESOURCE_EXHAUSTED: quota"},
		{"bedrock delta before start", "bedrock", []string{`{"contentBlockDelta":{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{"}}}}`}, "index 2, which no contentBlockStart"},
		{"bedrock exception", "bedrock", []string{`{"throttlingException":{"message":"Too many requests"}}`}, "Too many requests"},
		{"bedrock two types", "bedrock", []string{`{"messageStart":{"role":"assistant"},"messageStop":{"stopReason":"end_turn"}}`}, "not both"},
		{"cohere delta before start", "cohere", []string{`{"type":"content-delta","index":1,"delta":{"message":{"content":{"text":"x"}}}}`}, "index 1, which no content-start"},
		{"cohere call end before start", "cohere", []string{`{"type":"tool-call-end","index":0}`}, "which no tool-call-start"},
		{"cohere unknown type", "cohere", []string{`{"type":"tool-call-middle","index":0}`}, `"tool-call-middle" is not a v2 chat stream event`},
		{"anthropic stop before start", "anthropic", []string{`{"type":"content_block_stop","index":0}`}, "which no content_block_start"},
		{"anthropic index of the last message", "anthropic", []string{
			`{"type":"message_start","message":{}}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			`{"type":"message_stop"}`,
			`{"type":"message_start","message":{}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x"}}`}, "of this message"},
		{"mixed shapes", "", []string{`{"type":"ping"}`, `{"candidates":[]}`}, "is a Gemini streamGenerateContent chunk, but this stream's events are Anthropic Messages events"},
		{"mixed shapes, an", "", []string{`{"candidates":[]}`, `{"type":"ping"}`}, "is an Anthropic Messages event, but this stream's events are Gemini streamGenerateContent chunks"},
		{"no shape", "", []string{`{"hello":"world"}`}, `event {"hello":"world"} is of no known shape`},
		{"not an object", "", []string{`[1,2]`}, "is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := New(tt.shape)
			require.NoError(t, err)
			for i, ev := range tt.events {
				_, err = d.Event([]byte(ev))
				if i < len(tt.events)-1 {
					require.NoError(t, err, ev)
				}
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := New("mistral")
	var unknown *UnknownProviderError
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, "mistral", unknown.Name)
}

// TestWholeWhenDeltasAreMissing: a relay that forwards only the .done events of the Responses
// API loses nothing: the calls and the text come whole from them.
func TestWholeWhenDeltasAreMissing(t *testing.T) {
	t.Parallel()
	events := []string{
		`{"type":"response.output_item.added","item":{"id":"msg_1","type":"message","content":[]}}`,
		`{"type":"response.output_text.done","item_id":"msg_1","content_index":0,"text":"Creating it."}`,
		`{"type":"response.output_item.added","item":{"id":"apc_1","type":"apply_patch_call","call_id":"call_1","operation":{"type":"create_file","path":"a.md","diff":""}}}`,
		`{"type":"response.output_item.done","item":{"id":"apc_1","type":"apply_patch_call","call_id":"call_1","operation":{"type":"create_file","path":"a.md","diff":"+hi\n"}}}`,
		`{"type":"response.output_item.done","item":{"id":"fc_2","type":"function_call","call_id":"call_2","name":"read","arguments":"{\"p\":1}"}}`,
		`{"type":"response.output_item.added","item":{"id":"ct_3","type":"custom_tool_call","call_id":"call_3","name":"sql","input":""}}`,
		`{"type":"response.custom_tool_call_input.done","item_id":"ct_3","input":"SELECT 1"}`,
		`{"type":"response.output_item.done","item":{"id":"ct_3","type":"custom_tool_call","call_id":"call_3","name":"sql","input":"SELECT 1"}}`,
	}
	var d Decoder
	var deltas []turn.Delta
	for _, ev := range events {
		ds, err := d.Event([]byte(ev))
		require.NoError(t, err, ev)
		deltas = append(deltas, ds...)
	}
	text, calls := messageOf(t, deltas)
	assert.Equal(t, "Creating it.", text)
	assert.Equal(t, []recordedCall{
		{ID: "call_1", Name: "apply_patch", Input: map[string]any{"type": "create_file", "path": "a.md", "diff": "+hi\n"}},
		{ID: "call_2", Name: "read", Input: map[string]any{"p": float64(1)}},
		{ID: "call_3", Name: "sql", Input: map[string]any{"input": "SELECT 1"}},
	}, calls)
}

// TestDecodeTellsPayloadsFromNormalized: on the command line a bare Bedrock payload, which has a
// delta like a normalized line, is read as Bedrock's, and normalized lines still mix in.
func TestDecodeTellsPayloadsFromNormalized(t *testing.T) {
	t.Parallel()
	got := decodeAll(t,
		`{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"read_file"}},"p":"abc"}`,
		`{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}`,
		`{"contentBlockIndex":0}`,
		`{"delta":"Done."}`,
	)
	assert.Equal(t, []turn.Delta{tc("t1", "read_file", "", false), tc("t1", "", "{}", false), tc("t1", "", "", true), {Text: "Done."}}, got)
}

// TestShapeMismatch: an event of another shape than its stream's is a *ShapeMismatchError naming
// both shapes, which says whether the stream's shape was only the name New was given.
func TestShapeMismatch(t *testing.T) {
	t.Parallel()
	responses := `{"type":"response.created","response":{"id":"resp_1"}}`
	for _, tt := range []struct {
		name   string
		shape  string
		events []string
		named  bool
		want   string
	}{
		{"named wrong", "gemini", []string{responses}, true, "is an OpenAI Responses API event, but this stream's events are Gemini streamGenerateContent chunks"},
		{"named, then another shape", "gemini", []string{`{"candidates":[]}`, responses}, false, "is an OpenAI Responses API event"},
		{"recognised, then another shape", "", []string{`{"candidates":[]}`, responses}, false, "is an OpenAI Responses API event"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := New(tt.shape)
			require.NoError(t, err)
			for _, ev := range tt.events[:len(tt.events)-1] {
				_, err := d.Event([]byte(ev))
				require.NoError(t, err)
			}
			_, err = d.Event([]byte(tt.events[len(tt.events)-1]))
			var mm *ShapeMismatchError
			require.ErrorAs(t, err, &mm)
			assert.Equal(t, "openai-responses", mm.Shape)
			assert.Equal(t, "gemini", mm.Stream)
			assert.Equal(t, tt.named, mm.Named)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestWithArticle: every shape's description takes the article its provider's name is sounded
// with.
func TestWithArticle(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"openai-chat": "an", "openai-responses": "an", "anthropic": "an",
		"gemini": "a", "bedrock": "a", "cohere": "a",
	}
	require.Len(t, shapes, len(want), "a new shape gives its article here")
	for _, sh := range shapes {
		assert.Equal(t, want[sh.name]+" "+sh.what, withArticle(sh.what), sh.name)
	}
}
