package provider

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/turn"
)

// anthropic decodes the events of a Messages stream ("stream": true), the data of each
// server-sent event.
//
// content_block_start opens the block at its index: a "text" block, or a "tool_use" block with
// the call's id and name. content_block_delta adds a text_delta's text, or an input_json_delta's
// partial_json as the call's next arguments fragment. content_block_stop completes a tool_use
// block. Blocks of other types (thinking, server tools and their results) and other deltas
// (thinking, signatures, citations) are not part of the edit stream and are skipped;
// message_delta and ping carry nothing for it. An "error" event is returned as an error.
//
// message_stop does not end the stream: an input may hold several messages (an agent's turn of
// several requests), and a message_start after it starts the next one, whose block indexes start
// again at 0 while its text and tool calls continue the same stream. The stream ends with final
// (or, on the command line, at the end of the input). The zero value is ready to use.
type anthropic struct {
	blocks map[int]anthropicBlock
}

// anthropicTypes are the event types of a Messages stream.
var anthropicTypes = []string{"message_start", "message_delta", "message_stop", "content_block_start",
	"content_block_delta", "content_block_stop", "ping"}

// isAnthropic recognises an event by its type. "error" is shared with the Responses API, so it
// is recognised only in a stream already known to be Anthropic's.
func isAnthropic(_ map[string]json.RawMessage, typ string) bool {
	return slices.Contains(anthropicTypes, typ)
}

// anthropicBlock is what an index was opened as.
type anthropicBlock struct {
	kind string // "text", "tool_use", or another type, which is skipped
	id   string
}

type anthropicEvent struct {
	Type         string `json:"type"`
	Index        *int   `json:"index"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
}

// decode returns the deltas of one event.
func (a *anthropic) decode(event []byte, _ map[string]json.RawMessage) ([]turn.Delta, error) {
	var e anthropicEvent
	if err := json.Unmarshal(event, &e); err != nil {
		return nil, fmt.Errorf("not a Messages stream event: %w", err)
	}
	if a.blocks == nil {
		a.blocks = map[int]anthropicBlock{}
	}
	switch e.Type {
	case "message_start":
		clear(a.blocks) // the next message's blocks count from 0 again
		return nil, nil
	case "message_delta", "message_stop", "ping":
		return nil, nil
	case "content_block_start":
		if e.Index == nil || e.ContentBlock == nil {
			return nil, fmt.Errorf("content_block_start needs index and content_block")
		}
		cb := e.ContentBlock
		a.blocks[*e.Index] = anthropicBlock{kind: cb.Type, id: cb.ID}
		switch cb.Type {
		case "text":
			if cb.Text != "" {
				return []turn.Delta{{Text: cb.Text}}, nil
			}
		case "tool_use":
			d := &turn.ToolCallDelta{ID: cb.ID, Name: cb.Name}
			// The API streams the input in deltas after an empty placeholder; a relay that
			// sends the whole input here instead is taken at its word.
			var in map[string]json.RawMessage
			if json.Unmarshal(cb.Input, &in) == nil && len(in) > 0 {
				d.Arguments = string(cb.Input)
			}
			return []turn.Delta{{ToolCall: d}}, nil
		}
		return nil, nil
	case "content_block_delta":
		if e.Index == nil || e.Delta == nil {
			return nil, fmt.Errorf("content_block_delta needs index and delta")
		}
		b, ok := a.blocks[*e.Index]
		if !ok {
			return nil, fmt.Errorf("content_block_delta for index %d, which no content_block_start of this message opened: send every event in the order the provider sent it", *e.Index)
		}
		switch {
		case e.Delta.Type == "text_delta" && b.kind == "text" && e.Delta.Text != "":
			return []turn.Delta{{Text: e.Delta.Text}}, nil
		case e.Delta.Type == "input_json_delta" && b.kind == "tool_use" && e.Delta.PartialJSON != "":
			return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: b.id, Arguments: e.Delta.PartialJSON}}}, nil
		}
		return nil, nil
	case "content_block_stop":
		if e.Index == nil {
			return nil, fmt.Errorf("content_block_stop needs index")
		}
		b, ok := a.blocks[*e.Index]
		if !ok {
			return nil, fmt.Errorf("content_block_stop for index %d, which no content_block_start of this message opened: send every event in the order the provider sent it", *e.Index)
		}
		if b.kind == "tool_use" {
			return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: b.id, Done: true}}}, nil
		}
		return nil, nil
	case "error":
		return nil, providerError(event)
	}
	return nil, fmt.Errorf("type %q is not a Messages stream event (%s, error)", e.Type, strings.Join(anthropicTypes, ", "))
}
