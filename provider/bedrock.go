package provider

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/turn"
)

// bedrock decodes the events of an Amazon Bedrock ConverseStream response, in either form they
// are recorded in: keyed by their event type, as the AWS SDKs give them (boto3, the JavaScript
// and other SDKs' ConverseStreamOutput: {"contentBlockDelta": {...}}), or the bare payload of
// one event-stream message, whose type travels in a header ({"contentBlockIndex": 0, "delta":
// {...}, "p": "…"}), told apart by its fields.
//
// contentBlockStart with start.toolUse opens a tool call at its index under toolUseId and name;
// contentBlockDelta adds delta.text as text (a text block has no start) or delta.toolUse.input as
// the call's next arguments fragment; contentBlockStop completes a call. messageStop does not end
// the stream (see Decoder). Reasoning and citation deltas, messageStart and metadata carry nothing for it. An
// exception event is an error. The zero value is ready to use.
type bedrock struct {
	calls map[int]string // open tool calls by content block index
}

// bedrockEvents are the event types of a ConverseStream; bedrockErrors its exception events.
var (
	bedrockEvents = []string{"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
	bedrockErrors = []string{"internalServerException", "modelStreamErrorException", "validationException",
		"throttlingException", "serviceUnavailableException"}
)

// isBedrock recognises a keyed event by its type's key, and a bare payload by contentBlockIndex,
// stopReason or the event stream's padding p, which no other shape has.
func isBedrock(keys map[string]json.RawMessage, _ string) bool {
	if keys["contentBlockIndex"] != nil || keys["stopReason"] != nil || keys["p"] != nil {
		return true
	}
	for k := range keys {
		if slices.Contains(bedrockEvents, k) || slices.Contains(bedrockErrors, k) {
			return true
		}
	}
	return false
}

type bedrockPayload struct {
	ContentBlockIndex *int `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta *struct {
		Text    *string `json:"text"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
	} `json:"delta"`
}

// decode returns the deltas of one event.
func (b *bedrock) decode(event []byte, keys map[string]json.RawMessage) ([]turn.Delta, error) {
	if b.calls == nil {
		b.calls = map[int]string{}
	}
	typ, payload := "", json.RawMessage(event)
	for k, v := range keys {
		if slices.Contains(bedrockErrors, k) {
			return nil, providerError([]byte(`{"error":` + string(v) + `,"message":"` + k + `"}`))
		}
		if slices.Contains(bedrockEvents, k) {
			if typ != "" {
				return nil, fmt.Errorf("an event holds one of %s, not both %s and %s", strings.Join(bedrockEvents, ", "), typ, k)
			}
			typ, payload = k, v
		}
	}
	var p bedrockPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, fmt.Errorf("not a ConverseStream event: %w", err)
	}
	if typ == "" { // a bare payload
		switch {
		case keys["stopReason"] != nil:
			typ = "messageStop"
		case p.Start != nil:
			typ = "contentBlockStart"
		case p.Delta != nil:
			typ = "contentBlockDelta"
		case p.ContentBlockIndex != nil:
			typ = "contentBlockStop"
		case keys["role"] != nil:
			typ = "messageStart"
		case keys["usage"] != nil || keys["metrics"] != nil:
			typ = "metadata"
		default:
			return nil, fmt.Errorf("not a ConverseStream event: expected one of %s, or the payload of one", strings.Join(bedrockEvents, ", "))
		}
	}
	switch typ {
	case "messageStart", "metadata":
		return nil, nil
	case "messageStop":
		clear(b.calls) // the stream may hold the turn's next message
		return nil, nil
	}
	if p.ContentBlockIndex == nil {
		return nil, fmt.Errorf("%s needs contentBlockIndex", typ)
	}
	i := *p.ContentBlockIndex
	id, open := b.calls[i]
	switch typ {
	case "contentBlockStart":
		if p.Start == nil || p.Start.ToolUse == nil {
			return nil, nil // another kind of block, whose deltas are text or skipped
		}
		tu := p.Start.ToolUse
		if tu.ToolUseID == "" || tu.Name == "" {
			return nil, fmt.Errorf("contentBlockStart.start.toolUse needs toolUseId and name")
		}
		b.calls[i] = tu.ToolUseID
		return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: tu.ToolUseID, Name: tu.Name}}}, nil
	case "contentBlockDelta":
		switch {
		case p.Delta == nil:
			return nil, fmt.Errorf("contentBlockDelta needs delta")
		case p.Delta.ToolUse != nil && !open:
			return nil, fmt.Errorf("contentBlockDelta with toolUse for index %d, which no contentBlockStart with toolUse opened: send every event in the order the provider sent it", i)
		case p.Delta.ToolUse != nil:
			if p.Delta.ToolUse.Input == "" {
				return nil, nil
			}
			return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: id, Arguments: p.Delta.ToolUse.Input}}}, nil
		case p.Delta.Text != nil && open:
			return nil, fmt.Errorf("contentBlockDelta with text for index %d, which is the tool call %q", i, id)
		case p.Delta.Text != nil && *p.Delta.Text != "":
			return []turn.Delta{{Text: *p.Delta.Text}}, nil
		}
		return nil, nil // reasoning, citations
	default: // contentBlockStop
		if !open {
			return nil, nil
		}
		delete(b.calls, i)
		return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: id, Done: true}}}, nil
	}
}
