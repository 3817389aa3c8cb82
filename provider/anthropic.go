package provider

import (
	"encoding/json"
	"fmt"

	"github.com/assistant-ls/assistant-ls/turn"
)

// Anthropic decodes the events of a Messages stream ("stream": true), the data of each
// server-sent event.
//
// content_block_start opens the block at its index: a "text" block, or a "tool_use" block with
// the call's id and name. content_block_delta adds a text_delta's text, or an input_json_delta's
// partial_json as the call's next arguments fragment. content_block_stop completes a tool_use
// block, and message_stop ends the message. Blocks of other types (thinking, server tools and
// their results) and other deltas (thinking, signatures, citations) are not part of the edit
// stream and are skipped; message_start, message_delta and ping carry nothing for it. An "error"
// event is returned as an error. The zero value is ready to use.
type Anthropic struct {
	blocks map[int]anthropicBlock
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
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// Decode returns the deltas of one event.
func (a *Anthropic) Decode(event []byte) ([]turn.Delta, error) {
	var e anthropicEvent
	if err := json.Unmarshal(event, &e); err != nil {
		return nil, fmt.Errorf("Anthropic event: %w", err)
	}
	if a.blocks == nil {
		a.blocks = map[int]anthropicBlock{}
	}
	switch e.Type {
	case "content_block_start":
		if e.Index == nil || e.ContentBlock == nil {
			return nil, fmt.Errorf("Anthropic event: content_block_start needs index and content_block")
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
			return nil, fmt.Errorf("Anthropic event: content_block_delta needs index and delta")
		}
		b, ok := a.blocks[*e.Index]
		if !ok {
			return nil, fmt.Errorf("Anthropic event: content_block_delta for index %d, which no content_block_start opened", *e.Index)
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
			return nil, fmt.Errorf("Anthropic event: content_block_stop needs index")
		}
		if b := a.blocks[*e.Index]; b.kind == "tool_use" {
			return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: b.id, Done: true}}}, nil
		}
		return nil, nil
	case "message_stop":
		return []turn.Delta{{Final: true}}, nil
	case "error":
		if e.Error != nil {
			return nil, fmt.Errorf("the provider reported an error: %s: %s", e.Error.Type, e.Error.Message)
		}
		return nil, fmt.Errorf("the provider reported an error")
	}
	return nil, nil
}
