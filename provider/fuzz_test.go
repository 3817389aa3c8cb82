package provider

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/turn"
)

// FuzzDecoder feeds random lines through a recognising Decoder, and through one decoder of
// every shape, into turn.Streams: nothing may panic, and after final every block is complete.
// The seeds are the start of every recorded stream of every shape, and lines of each framing.
func FuzzDecoder(f *testing.F) {
	f.Add(`{"choices":[{"index":0,"delta":{"content":"hi <read_file><path>a"}}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"n","arguments":"{\"a\":\"\\ud83d"}}]}}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	f.Add(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"w","input":{}}}` + "\n" +
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"x\": [1,"}}` + "\n" +
		`{"type":"content_block_stop","index":0}` + "\n" + `{"type":"message_stop"}`)
	f.Add(`data: {"delta":"x"}` + "\n" + `{"toolCall":{"id":"a","name":"b","arguments":"{"}}` + "\n" + `{"toolCall":{"id":"a","done":true}}` + "\ndata: [DONE]")
	f.Add(`{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{"}},"p":"ab"}` + "\n" + `{"stopReason":"end_turn"}`)
	for _, rs := range recordedStreams(f) {
		n := min(len(rs.events), 12)
		f.Add(string(bytes.Join(rs.events[:n], []byte("\n"))))
	}
	p := parse.New(parse.Config{})
	f.Fuzz(func(t *testing.T, input string) {
		lines := strings.Split(input, "\n")
		var auto Decoder
		run(t, p, lines, auto.Decode)
		for _, name := range Names() {
			d, err := New(name)
			if err != nil {
				t.Fatal(err)
			}
			run(t, p, lines, d.Event)
		}
	})
}

// run applies what decode gives for each line to a new message, ends it and checks that every
// block is complete.
func run(t *testing.T, p *parse.Parser, lines []string, decode func([]byte) ([]turn.Delta, error)) {
	s := turn.New(p)
	for _, line := range lines {
		ds, err := decode([]byte(line))
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
}
