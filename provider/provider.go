// Package provider decodes the stream events of model providers into turn deltas, exactly as the
// providers send them: OpenAI chat-completions chunks and Responses API events, Anthropic
// Messages events, Gemini streamGenerateContent chunks, Bedrock ConverseStream events and Cohere
// v2 chat events (protocol section 3, the event and provider params), and, on the command line,
// the normalized assistant/parse shape. Each decoder keeps the little a provider says only once
// (OpenAI names a call once per index, Anthropic, Bedrock and Cohere a block once per index, the
// Responses API an item once per id), so that every delta it returns names its call.
//
// An event of no known shape, or one that refers to a block or call no earlier event opened, is
// an error naming the event: nothing a provider sent is dropped without a word. Events that carry
// nothing for the message (pings, usage, metadata, reasoning, server-side tools) give no deltas.
package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/turn"
)

// decoder decodes the events of one stream of one shape, in order.
type decoder interface {
	decode(event []byte, keys map[string]json.RawMessage) ([]turn.Delta, error)
}

// shape is one provider's stream format: its name for the provider param, how its events are
// told from the others', and a fresh decoder for one stream.
type shape struct {
	name string
	// what names the shape's events in messages.
	what string
	// recognise reports whether an event, given by its top-level keys and its string "type"
	// (empty when it has none), is one of this shape's.
	recognise func(keys map[string]json.RawMessage, typ string) bool
	new       func() decoder
}

// shapes is every known stream shape, in the order recognition tries them. A new provider is one
// entry here.
var shapes = []*shape{
	{name: "openai-chat", what: "OpenAI chat-completions chunk", recognise: isOpenAIChat, new: func() decoder { return &openAIChat{} }},
	{name: "openai-responses", what: "OpenAI Responses API event", recognise: isResponses, new: func() decoder { return &responses{} }},
	{name: "anthropic", what: "Anthropic Messages event", recognise: isAnthropic, new: func() decoder { return &anthropic{} }},
	{name: "gemini", what: "Gemini streamGenerateContent chunk", recognise: isGemini, new: func() decoder { return &gemini{} }},
	{name: "bedrock", what: "Bedrock ConverseStream event", recognise: isBedrock, new: func() decoder { return &bedrock{} }},
	{name: "cohere", what: "Cohere v2 chat stream event", recognise: isCohere, new: func() decoder { return &cohere{} }},
}

// Names returns the name of every shape, as the provider param gives it.
func Names() []string {
	out := make([]string, len(shapes))
	for i, s := range shapes {
		out[i] = s.name
	}
	return out
}

// UnknownProviderError is a provider name that names no shape.
type UnknownProviderError struct{ Name string }

// Error says which names are known.
func (e *UnknownProviderError) Error() string {
	return fmt.Sprintf("unknown provider %q: give one of %s, or leave it out to have the shape recognised from the events",
		e.Name, strings.Join(Names(), ", "))
}

// Decoder decodes one stream, whose events are all of one shape: the one New named, or else the
// first event's. The zero value recognises the shape. It is not safe for concurrent use.
//
// No event ends the stream: a provider's end of a message (OpenAI's finish_reason and "[DONE]",
// Anthropic's message_stop, response.completed, Gemini's finishReason, Bedrock's messageStop,
// Cohere's message-end) completes what is open, and the next message of the same turn (an agent's
// next request after its tool results) may follow in the same stream, its text and tool calls
// continuing the message. The caller ends it: assistant/parse's final, the end of the input.
type Decoder struct {
	shape *shape
	dec   decoder
	seen  bool // an event of the shape was decoded
}

// ShapeMismatchError is an event of another shape than its stream's.
type ShapeMismatchError struct {
	Event  string // the event's start, as error messages quote it
	Shape  string // the name of the event's shape
	Stream string // the name of the stream's shape
	// Named says that no event of the stream's shape came before: its shape is only the name
	// New was given, which is then what is wrong.
	Named      bool
	what, want string
}

// Error names both shapes, each with its article.
func (e *ShapeMismatchError) Error() string {
	return fmt.Sprintf("event %s is %s, but this stream's events are %ss: send each provider's stream under its own stream name",
		e.Event, withArticle(e.what), e.want)
}

// withArticle puts "a" or "an" before a shape's description, as its first letter is sounded:
// every shape's description starts with a provider's name, none of which starts with a silent
// or sounded-otherwise letter.
func withArticle(what string) string {
	if what != "" && strings.ContainsRune("AEIOU", rune(what[0])) {
		return "an " + what
	}
	return "a " + what
}

// New returns a decoder for the shape name names (one of Names), or one that recognises the shape
// from the first event when name is empty. An unknown name is an *UnknownProviderError.
func New(name string) (*Decoder, error) {
	if name == "" {
		return &Decoder{}, nil
	}
	i := slices.IndexFunc(shapes, func(s *shape) bool { return s.name == name })
	if i < 0 {
		return nil, &UnknownProviderError{Name: name}
	}
	return &Decoder{shape: shapes[i], dec: shapes[i].new()}, nil
}

// Shape returns the name of the stream's shape, or "" while it is not known yet.
func (d *Decoder) Shape() string {
	if d.shape == nil {
		return ""
	}
	return d.shape.name
}

// Event returns the deltas of one event, the JSON of one server-sent event's data (OpenAI's
// "[DONE]" included), in order. An event that carries nothing for the message gives none.
func (d *Decoder) Event(event []byte) ([]turn.Delta, error) {
	event = bytes.TrimSpace(event)
	if string(event) == "[DONE]" {
		return nil, nil
	}
	keys, typ, err := probe(event)
	if err != nil {
		return nil, err
	}
	return d.event(event, keys, typ)
}

// event decodes a probed event.
func (d *Decoder) event(event []byte, keys map[string]json.RawMessage, typ string) ([]turn.Delta, error) {
	sh := recognise(keys, typ)
	switch {
	case sh == nil && (typ == "error" || keys["error"] != nil):
		// Every shape reports a failure in an event of its own, {"type": "error"} or {"error": …}.
		return nil, providerError(event)
	case d.dec == nil && sh == nil:
		return nil, fmt.Errorf("event %s is of no known shape: expected one of %s (name the shape with assistant/parse's provider, or --provider on the command line)", excerpt(event), strings.Join(Names(), ", "))
	case d.dec == nil:
		d.shape, d.dec = sh, sh.new()
	case sh != nil && sh != d.shape:
		return nil, &ShapeMismatchError{Event: excerpt(event), Shape: sh.name, Stream: d.shape.name, Named: !d.seen,
			what: sh.what, want: d.shape.what}
	}
	d.seen = true
	ds, err := d.dec.decode(event, keys)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", d.shape.what, excerpt(event), err)
	}
	return ds, nil
}

// recognise returns the first shape that recognises an event, or nil.
func recognise(keys map[string]json.RawMessage, typ string) *shape {
	for _, s := range shapes {
		if s.recognise(keys, typ) {
			return s
		}
	}
	return nil
}

// Decode returns the deltas of one line of a recorded stream: an event as Event takes it, or a
// line in the normalized assistant/parse shape ("delta", "toolCall", "final"). Server-sent-events
// framing is accepted as well: a "data:" prefix is dropped, and "event:" lines, comments and
// blank lines are skipped (every shape repeats the event's type in its data, or needs none).
func (d *Decoder) Decode(line []byte) ([]turn.Delta, error) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0, line[0] == ':', bytes.HasPrefix(line, []byte("event:")):
		return nil, nil
	case bytes.HasPrefix(line, []byte("data:")):
		line = bytes.TrimSpace(line[len("data:"):])
	}
	if string(line) == "[DONE]" {
		return nil, nil
	}
	keys, typ, err := probe(line)
	if err != nil {
		return nil, err
	}
	_, hasType := keys["type"]
	if !hasType && (keys["delta"] != nil || keys["toolCall"] != nil || keys["final"] != nil) && recognise(keys, typ) == nil {
		return decodeNormalized(line)
	}
	return d.event(line, keys, typ)
}

// probe returns an event's top-level keys and its string "type".
func probe(event []byte) (map[string]json.RawMessage, string, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(event, &keys); err != nil || keys == nil {
		return nil, "", fmt.Errorf("event %s is not a JSON object: send the JSON of one server-sent event's data line", excerpt(event))
	}
	var typ string
	if raw, ok := keys["type"]; ok {
		_ = json.Unmarshal(raw, &typ) // a type that is not a string is no shape's
	}
	return keys, typ, nil
}

// excerpt quotes the start of an event for an error message, so that the message names the event
// without repeating a long one whole.
func excerpt(event []byte) string {
	const max = 120
	if len(event) <= max {
		return string(event)
	}
	cut := max
	for cut > 0 && event[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return string(event[:cut]) + "…"
}

// providerError is the error an error event reports: its message, wherever the shape puts it.
func providerError(event []byte) error {
	var e struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Error   *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Code    any    `json:"code"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	_ = json.Unmarshal(event, &e)
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if e.Error != nil {
		add(e.Error.Type)
		add(e.Error.Status)
		add(e.Error.Message)
	}
	add(e.Message)
	if len(parts) == 0 {
		return fmt.Errorf("the provider reported an error: %s", excerpt(event))
	}
	return fmt.Errorf("the provider reported an error: %s", strings.Join(parts, ": "))
}

// jsonString returns s as the inside of a JSON string: escaped, without the quotes, so that a
// text a provider streams in pieces (a custom tool's input, a patch's diff) becomes fragments of
// a call's JSON arguments.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a Go string always encodes
	out := b.Bytes()
	return string(out[1 : len(out)-2]) // the quotes and the encoder's newline
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
