package provider

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/turn"
)

// cohere decodes the events of a Cohere v2 chat stream (POST /v2/chat, "stream": true).
//
// content-start opens a content block at its index and content-delta adds its text;
// tool-call-start opens a tool call at its index under delta.message.tool_calls.id and
// function.name, tool-call-delta adds function.arguments as the next fragment, tool-call-end
// completes it; message-end does not end the stream (see Decoder). The tool plan (tool-plan-delta) is the model's
// reasoning about its calls and, like a thinking block's content (content.thinking), is
// skipped; message-start, content-end, citations and debug carry nothing for the message. The
// zero value is ready to use.
type cohere struct {
	content map[int]bool   // open content blocks by index
	calls   map[int]string // open tool calls by index
}

// cohereTypes are the event types of a v2 chat stream.
var cohereTypes = []string{"message-start", "content-start", "content-delta", "content-end", "tool-plan-delta",
	"tool-call-start", "tool-call-delta", "tool-call-end", "citation-start", "citation-end", "message-end", "debug"}

// isCohere recognises an event by its type.
func isCohere(_ map[string]json.RawMessage, typ string) bool {
	return slices.Contains(cohereTypes, typ)
}

type cohereEvent struct {
	Type  string `json:"type"`
	Index *int   `json:"index"`
	Delta *struct {
		Message *struct {
			// Content is an array in message-start, an object in content events.
			Content   json.RawMessage `json:"content"`
			ToolCalls *struct {
				ID       string `json:"id"`
				Function *struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"delta"`
}

// decode returns the deltas of one event.
func (c *cohere) decode(event []byte, keys map[string]json.RawMessage) ([]turn.Delta, error) {
	var typ string
	_ = json.Unmarshal(keys["type"], &typ)
	switch typ {
	case "message-start", "tool-plan-delta", "citation-start", "citation-end", "debug":
		return nil, nil // decoded no further: message-start's message has another shape
	}
	var e cohereEvent
	if err := json.Unmarshal(event, &e); err != nil {
		return nil, fmt.Errorf("not a v2 chat stream event: %w", err)
	}
	if c.content == nil {
		c.content, c.calls = map[int]bool{}, map[int]string{}
	}
	if !slices.Contains(cohereTypes, e.Type) {
		return nil, fmt.Errorf("type %q is not a v2 chat stream event (%s)", e.Type, strings.Join(cohereTypes, ", "))
	}
	switch e.Type {
	case "message-end":
		if e.Delta != nil && e.Delta.FinishReason == "ERROR" {
			return nil, fmt.Errorf("the provider ended the message with finish_reason ERROR")
		}
		clear(c.content) // the stream may hold the turn's next message
		clear(c.calls)
		return nil, nil
	}
	if e.Index == nil {
		return nil, fmt.Errorf("%s needs index", e.Type)
	}
	i := *e.Index
	var text *string
	var call *struct {
		ID       string `json:"id"`
		Function *struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if e.Delta != nil && e.Delta.Message != nil {
		if ct := e.Delta.Message.Content; len(ct) > 0 && ct[0] == '{' {
			var content struct {
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(ct, &content); err != nil {
				return nil, fmt.Errorf("delta.message.content: %w", err)
			}
			text = content.Text
		}
		call = e.Delta.Message.ToolCalls
	}
	outOfOrder := func(what string) error {
		return fmt.Errorf("%s for index %d, which no %s opened: send every event in the order the provider sent it", e.Type, i, what)
	}
	switch e.Type {
	case "content-start", "content-delta":
		if e.Type == "content-start" {
			c.content[i] = true
		} else if !c.content[i] {
			return nil, outOfOrder("content-start")
		}
		if text == nil || *text == "" {
			return nil, nil // a thinking block's content, or an empty start
		}
		return []turn.Delta{{Text: *text}}, nil
	case "content-end":
		if !c.content[i] {
			return nil, outOfOrder("content-start")
		}
		delete(c.content, i)
		return nil, nil
	case "tool-call-start":
		if call == nil || call.ID == "" || call.Function == nil || call.Function.Name == "" {
			return nil, fmt.Errorf("tool-call-start needs delta.message.tool_calls with id and function.name")
		}
		c.calls[i] = call.ID
		return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: call.ID, Name: call.Function.Name, Arguments: call.Function.Arguments}}}, nil
	case "tool-call-delta":
		id, ok := c.calls[i]
		if !ok {
			return nil, outOfOrder("tool-call-start")
		}
		if call == nil || call.Function == nil || call.Function.Arguments == "" {
			return nil, nil
		}
		return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: id, Arguments: call.Function.Arguments}}}, nil
	default: // tool-call-end
		id, ok := c.calls[i]
		if !ok {
			return nil, outOfOrder("tool-call-start")
		}
		delete(c.calls, i)
		return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: id, Done: true}}}, nil
	}
}
