// Package provider decodes the stream events of model providers into turn deltas: OpenAI
// chat-completions chunks and Anthropic Messages stream events, both exactly as the providers
// send them, and the normalized assistant/parse shape. Each decoder keeps the little a provider
// says only once (OpenAI sends a call's id and name only on the first chunk of its index;
// Anthropic names a block once, by index, in content_block_start).
package provider

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/assistant-ls/assistant-ls/turn"
)

// Decoder decodes a stream whose lines may come from any of the shapes, told apart line by line:
// an OpenAI chunk has "choices" (or "object": "chat.completion.chunk"), an Anthropic event has a
// string "type", a normalized line has "delta", "toolCall" or "final". Server-sent-events framing
// is accepted as well: a "data:" prefix is dropped, "event:" lines, comments and blank lines are
// skipped, and OpenAI's "[DONE]" ends the message. The zero value is ready to use.
type Decoder struct {
	OpenAI    OpenAI
	Anthropic Anthropic
}

// probe is just enough of a line to tell its shape.
type probe struct {
	Type     *string         `json:"type"`
	Object   string          `json:"object"`
	Choices  json.RawMessage `json:"choices"`
	Delta    json.RawMessage `json:"delta"`
	ToolCall json.RawMessage `json:"toolCall"`
	Final    json.RawMessage `json:"final"`
	Error    json.RawMessage `json:"error"`
}

// Decode returns the deltas of one line, in order; a line that carries nothing for the message
// (framing, a ping, usage) gives none.
func (d *Decoder) Decode(line []byte) ([]turn.Delta, error) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0, line[0] == ':', bytes.HasPrefix(line, []byte("event:")):
		return nil, nil
	case bytes.HasPrefix(line, []byte("data:")):
		line = bytes.TrimSpace(line[len("data:"):])
		if string(line) == "[DONE]" {
			return []turn.Delta{{Final: true}}, nil
		}
	}
	var p probe
	if err := json.Unmarshal(line, &p); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	switch {
	case p.Choices != nil || p.Object == "chat.completion.chunk":
		return d.OpenAI.Decode(line)
	case p.Type != nil:
		return d.Anthropic.Decode(line)
	case p.Delta != nil || p.ToolCall != nil || p.Final != nil:
		return decodeNormalized(line)
	case p.Error != nil:
		return nil, fmt.Errorf("the provider reported an error: %s", p.Error)
	}
	return nil, fmt.Errorf(`not a known stream event: expected an OpenAI chat-completions chunk ("choices"), an Anthropic Messages event ("type") or a normalized delta ("delta", "toolCall", "final")`)
}

// decodeNormalized reads a line already in assistant/parse's shape.
func decodeNormalized(line []byte) ([]turn.Delta, error) {
	var raw struct {
		turn.Delta
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, fmt.Errorf("normalized delta: %w", err)
	}
	if raw.Text != nil {
		return nil, fmt.Errorf(`normalized delta: "text" (the whole text so far) is not accepted here; send "delta" with the new text`)
	}
	return []turn.Delta{raw.Delta}, nil
}
