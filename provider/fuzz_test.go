package provider

import (
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/turn"
)

// FuzzDecoder feeds random lines through a Decoder into a turn.Stream: neither may panic, and
// after final every block is complete.
func FuzzDecoder(f *testing.F) {
	f.Add(`{"choices":[{"index":0,"delta":{"content":"hi <read_file><path>a"}}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"n","arguments":"{\"a\":\"\\ud83d"}}]}}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	f.Add(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"w","input":{}}}` + "\n" +
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"x\": [1,"}}` + "\n" +
		`{"type":"content_block_stop","index":0}` + "\n" + `{"type":"message_stop"}`)
	f.Add(`data: {"delta":"x"}` + "\n" + `{"toolCall":{"id":"a","name":"b","arguments":"{"}}` + "\n" + `{"toolCall":{"id":"a","done":true}}` + "\ndata: [DONE]")
	p := parse.New(parse.Config{})
	f.Fuzz(func(t *testing.T, input string) {
		var d Decoder
		s := turn.New(p)
		for _, line := range strings.Split(input, "\n") {
			ds, err := d.Decode([]byte(line))
			if err != nil {
				continue
			}
			for _, x := range ds {
				_ = s.Apply(x)
				s.Changed()
				s.Snapshot()
			}
		}
		if err := s.Apply(turn.Delta{Final: true}); err != nil {
			t.Fatal(err)
		}
		for i, b := range s.Blocks() {
			if b.Partial {
				t.Fatalf("block %d partial after final", i)
			}
		}
	})
}
