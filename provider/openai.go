package provider

import (
	"encoding/json"
	"fmt"

	"github.com/assistant-ls/assistant-ls/turn"
)

// openAIChat decodes the chunks of a chat-completions stream ("stream": true), one
// chat.completion.chunk object each. Only choice 0 is read: a stream is one message.
//
// choices[0].delta.content is text. Each entry of choices[0].delta.tool_calls is a piece of the
// call at its index: the first piece of an index carries the call's id and function.name, later
// ones only function.arguments. A new index completes the call before it, and a finish_reason
// completes the open call; like "[DONE]", it does not end the stream (see Decoder), so that a
// next completion of the same turn may follow: its calls' indexes count from 0 again. The zero
// value is ready to use.
type openAIChat struct {
	ids  map[int]string // call id by tool_calls index
	open int            // index of the open call, or -1 (when ids is not nil)
}

type openAIChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}

// isOpenAIChat recognises a chunk by its choices or its object type.
func isOpenAIChat(keys map[string]json.RawMessage, _ string) bool {
	return keys["choices"] != nil || string(keys["object"]) == `"chat.completion.chunk"`
}

// decode returns the deltas of one chunk.
func (o *openAIChat) decode(chunk []byte, _ map[string]json.RawMessage) ([]turn.Delta, error) {
	var c openAIChunk
	if err := json.Unmarshal(chunk, &c); err != nil {
		return nil, fmt.Errorf("not a chat.completion.chunk: %w", err)
	}
	if c.Error != nil {
		return nil, providerError(chunk)
	}
	if o.ids == nil {
		o.ids, o.open = map[int]string{}, -1
	}
	var out []turn.Delta
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if t := ch.Delta.Content; t != nil && *t != "" {
			out = append(out, turn.Delta{Text: *t})
		}
		for _, tc := range ch.Delta.ToolCalls {
			index := o.open
			if tc.Index != nil {
				index = *tc.Index
			}
			id, known := o.ids[index]
			switch {
			case tc.ID != "" && (!known || tc.ID != id):
				if o.open >= 0 && o.open != index {
					out = append(out, turn.Delta{ToolCall: &turn.ToolCallDelta{ID: o.ids[o.open], Done: true}})
				}
				id = tc.ID
				o.ids[index], o.open = id, index
			case !known:
				return nil, fmt.Errorf("its tool_calls entry at index %d has no id, and no earlier chunk gave one for that index: send the chunks in the order the provider sent them, the first of each index included", index)
			}
			d := &turn.ToolCallDelta{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
			out = append(out, turn.Delta{ToolCall: d})
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			if o.open >= 0 {
				out = append(out, turn.Delta{ToolCall: &turn.ToolCallDelta{ID: o.ids[o.open], Done: true}})
				o.open = -1
			}
			clear(o.ids)
		}
	}
	return out, nil
}
