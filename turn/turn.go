// Package turn assembles one assistant message (one model turn) from what a provider streams:
// text deltas, parsed for Cline XML tool uses as package parse does, and native tool calls whose
// JSON arguments arrive in fragments, parsed by package jsonstream. Both arrive interleaved, in
// order, as protocol section 3 describes for assistant/parse.
//
// The message is a sequence of segments. A text segment is every text delta between two tool
// calls, parsed by its own parse.Stream, so its blocks are exactly what parse gives for that
// text. A tool call is one block. The first delta of a new call ends the text segment before it,
// whose blocks all become complete as they do on final; text after a call starts a new segment.
package turn

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/assistant-ls/assistant-ls/jsonstream"
	"github.com/assistant-ls/assistant-ls/parse"
)

// Delta is one step of the message, in the normalized shape of assistant/parse's params: text,
// a tool call delta, the end, or several of them, applied in that order.
type Delta struct {
	Text     string         `json:"delta,omitempty"`
	ToolCall *ToolCallDelta `json:"toolCall,omitempty"`
	Final    bool           `json:"final,omitempty"`
}

// ToolCallDelta is one piece of a native tool call. The first delta of an ID names the call;
// Arguments is the next raw fragment of its JSON arguments, split wherever the provider split
// it; Done says the call is complete.
type ToolCallDelta struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Done      bool   `json:"done,omitempty"`
}

// Block is one block of the message: a parse.Block, plus what a native tool call carries.
//
// A text segment's blocks are parse's, except that Span and ParamSpans are byte offsets into that
// segment's text (the text deltas since the tool call before it), not into all the text.
//
// A tool call's block has Type parse.ToolUse, Name, CallID and Params: every top-level string
// field of the arguments decoded as far as it has streamed, other fields as compact JSON text
// once complete (see jsonstream.Parser.Params). Once the call is complete (Partial false),
// Input holds the whole arguments object, or Err says why there is none: arguments that are not
// JSON (wrapping a *jsonstream.SyntaxError), or JSON that is not an object. Err is set as soon
// as the arguments can no longer be valid, even while the call is partial. A call that received
// no arguments at all has the empty object as Input.
type Block struct {
	parse.Block
	CallID string         `json:"callId,omitempty"`
	Input  map[string]any `json:"input,omitzero"`
	Err    error          `json:"-"`

	open   string // the call's string field still arriving, when opened
	call   bool   // the block is a native tool call
	opened bool   // a string field of the call is still arriving
}

// Streaming reports whether param name of a partial tool use may still grow: for a tool call,
// a string field of its arguments whose closing quote has not arrived; for a tool use in the
// text, a param whose closing tag has not. A complete block streams nothing.
func (b Block) Streaming(name string) bool {
	switch {
	case !b.Partial || b.Type != parse.ToolUse:
		return false
	case b.call:
		return b.opened && b.open == name
	}
	// An open param's span runs to the end of the text, like the tool use's; a closed one
	// stops before its closing tag.
	sp, ok := b.ParamSpans[name]
	return ok && sp.End == b.Span.End
}

// DeltaError is a delta the Stream refused. A refused delta changes nothing, its text included.
type DeltaError struct {
	// CallID is the tool call the delta was for; empty when it was refused as a whole.
	CallID string
	// Reason says what was wrong and what to send instead.
	Reason string
}

// Error returns the reason.
func (e *DeltaError) Error() string { return e.Reason }

// call is one native tool call.
type call struct {
	id, name string
	index    int // its block's index
	args     jsonstream.Parser
	sent     bool // some arguments arrived
	done     bool
}

// Stream assembles one message incrementally. It is not safe for concurrent use.
//
// A call ends on its own done, on the stream's final, and also when text or another call
// follows it: providers stream one call after the other (OpenAI says no more than that the next
// index starts), so that only the last block can be partial, as in package parse.
type Stream struct {
	parser *parse.Parser

	done []Block // complete blocks, in order, with room for the partial one after them

	text  *parse.Stream // the open text segment, or nil
	moved int           // blocks of text already complete in done
	// shown is the text segment's partial block after the last delta, to tell whether a delta
	// changed it.
	shown    parse.Block
	hasShown bool

	call  *call // the open tool call, or nil; its block is the last
	calls map[string]*call

	final bool
	dirty int // lowest index changed since the last Changed, or -1
}

// New starts an empty message whose text is parsed with p, with its tool and param names.
func New(p *parse.Parser) *Stream {
	return &Stream{parser: p, calls: map[string]*call{}, dirty: -1}
}

// Apply adds one delta: its text first, then its tool call, then its end. It costs time
// proportional to the delta's size (plus, as with parse.Stream, one walk of a text region that
// ends). A refused delta returns a *DeltaError and changes nothing.
func (s *Stream) Apply(d Delta) error {
	if err := s.check(d); err != nil {
		return err
	}
	s.appendText(d.Text)
	if tc := d.ToolCall; tc != nil {
		s.applyCall(tc)
	}
	if d.Final && !s.final {
		s.endOpen()
		s.final = true
	}
	return nil
}

// Check reports the *DeltaError Apply would return for d, changing nothing: a caller that
// applies d in pieces checks it whole first, since a piece of a valid delta is always valid.
func (s *Stream) Check(d Delta) error { return s.check(d) }

// check refuses what cannot be applied, before anything is.
func (s *Stream) check(d Delta) error {
	tc := d.ToolCall
	if s.final && (d.Text != "" || tc != nil && (tc.Arguments != "" || s.calls[tc.ID] == nil)) {
		return &DeltaError{Reason: "the message already ended with final: true and cannot change; send the next message as a new stream"}
	}
	if tc == nil {
		return nil
	}
	c := s.calls[tc.ID]
	switch {
	case tc.ID == "":
		return &DeltaError{Reason: `toolCall.id must be a non-empty string naming the call (OpenAI tool_calls[].id, Anthropic content_block.id)`}
	case c == nil && tc.Name == "":
		return &DeltaError{CallID: tc.ID, Reason: "tool call " + strconv.Quote(tc.ID) + " is new, so its first delta must carry its name"}
	case c != nil && tc.Name != "" && tc.Name != c.name:
		return &DeltaError{CallID: tc.ID, Reason: fmt.Sprintf("tool call %q is named %q and cannot be renamed %q; give another call another id", tc.ID, c.name, tc.Name)}
	case c != nil && !c.done && d.Text != "" && tc.Arguments != "":
		return &DeltaError{CallID: tc.ID, Reason: "the delta's text comes first and ends tool call " + strconv.Quote(tc.ID) +
			", so its arguments cannot follow; send the arguments before the text"}
	case c != nil && c.done && tc.Arguments != "":
		return &DeltaError{CallID: tc.ID, Reason: "tool call " + strconv.Quote(tc.ID) +
			" is already complete (done, or followed by text or another call), so no arguments can be added to it"}
	}
	return nil
}

// appendText adds text to the open text segment, starting one if needed.
func (s *Stream) appendText(t string) {
	if t == "" {
		return
	}
	if s.call != nil {
		s.endCall()
	}
	if s.text == nil {
		s.text, s.moved, s.hasShown = s.parser.NewStream(), 0, false
	}
	s.text.Append(t)
	blocks := s.text.Blocks()
	n := len(blocks)
	complete := n
	if n > 0 && blocks[n-1].Partial {
		complete = n - 1
	}
	if complete > s.moved {
		s.mark(len(s.done))
		for _, b := range blocks[s.moved:complete] {
			s.done = append(s.done, Block{Block: b})
		}
		s.moved, s.hasShown = complete, false
	}
	if complete == n {
		if s.hasShown {
			s.mark(len(s.done))
		}
		s.hasShown = false
		return
	}
	last := blocks[n-1]
	if !s.hasShown || !sameText(s.shown, last) {
		s.mark(len(s.done))
	}
	s.shown, s.hasShown = last, true
}

// sameText reports whether a partial block is unchanged. Only text blocks are compared: a
// partial XML tool use's maps are updated in place by parse.Stream, so it counts as changed.
func sameText(a, b parse.Block) bool {
	return a.Type == parse.Text && b.Type == parse.Text && a.Content == b.Content && a.Span == b.Span
}

// applyCall applies a checked tool call delta.
func (s *Stream) applyCall(tc *ToolCallDelta) {
	c := s.calls[tc.ID]
	if c == nil {
		s.endOpen()
		c = &call{id: tc.ID, name: tc.Name, index: len(s.done)}
		s.calls[tc.ID] = c
		s.call = c
		s.mark(c.index)
	}
	if tc.Arguments != "" {
		hadErr := c.args.Err() != nil
		wasKey, wasOpen := c.args.Open()
		c.sent = true
		// A field whose closing quote arrives alone leaves Params as they were, but its value
		// is now whole, which a reader of Streaming must learn.
		changed := c.args.Append(tc.Arguments)
		nowKey, nowOpen := c.args.Open()
		if changed || hadErr != (c.args.Err() != nil) || wasKey != nowKey || wasOpen != nowOpen {
			s.mark(c.index)
		}
	}
	if tc.Done && !c.done {
		s.endCall()
	}
}

// endOpen completes the open text segment or tool call.
func (s *Stream) endOpen() {
	if s.call != nil {
		s.endCall()
	}
	if s.text == nil {
		return
	}
	blocks := s.text.Blocks()
	if n := len(blocks); n > s.moved {
		// The segment is over, so parse.Stream never touches this block's maps again.
		last := blocks[n-1]
		last.Partial = false
		s.mark(len(s.done))
		s.done = append(s.done, Block{Block: last})
	}
	s.text, s.hasShown = nil, false
}

// endCall completes the open tool call, which is the last block.
func (s *Stream) endCall() {
	c := s.call
	s.call, c.done = nil, true
	b := c.block()
	b.Partial, b.open, b.opened = false, "", false
	if !c.sent {
		b.Input = map[string]any{}
	} else if v, err := c.args.End(); err != nil {
		b.Err = fmt.Errorf("the arguments of tool call %q (%s) are not valid JSON: %w; send them as one JSON object", c.id, c.name, err)
	} else if obj, ok := v.(map[string]any); ok {
		b.Input = obj
	} else {
		b.Err = fmt.Errorf("the arguments of tool call %q (%s) are a JSON %s, not an object; send them as one JSON object", c.id, c.name, kind(v))
	}
	s.mark(c.index)
	s.done = append(s.done, b)
}

// block returns the call's block as it stands.
func (c *call) block() Block {
	b := Block{Block: parse.Block{Type: parse.ToolUse, Name: c.name, Params: c.args.Params(), Partial: true}, CallID: c.id, call: true}
	b.open, b.opened = c.args.Open()
	if err := c.args.Err(); err != nil {
		b.Err = fmt.Errorf("the arguments of tool call %q (%s) are not valid JSON: %w; send them as one JSON object", c.id, c.name, err)
	}
	return b
}

// kind names the JSON type of a decoded value that is not an object.
func kind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// mark records that block i was added or changed.
func (s *Stream) mark(i int) {
	if s.dirty < 0 || i < s.dirty {
		s.dirty = i
	}
}

// Changed returns the lowest index of a block added or changed since the previous call to
// Changed (or since New), or -1 when none was, and starts recording afresh. Every block before
// that index is as it was; blocks are never removed. So a server pushes blocks[Changed():].
func (s *Stream) Changed() int {
	d := s.dirty
	s.dirty = -1
	return d
}

// Final reports whether the message has ended (a delta with Final was applied).
func (s *Stream) Final() bool { return s.final }

// Blocks returns every block of the message so far, without copying: its cost grows with
// neither the length of the message nor the number of blocks.
//
// The sharing rules are parse.Stream's: complete blocks never change and stay valid forever; a
// partial last block, its Params and ParamSpans maps included, stays valid only until the next
// call to Apply or Blocks. The caller must not modify the result.
func (s *Stream) Blocks() []Block {
	n := len(s.done)
	var last Block
	switch {
	case s.call != nil:
		last = s.call.block()
	case s.text != nil:
		blocks := s.text.Blocks()
		if len(blocks) == s.moved {
			return s.done[:n:n]
		}
		last = Block{Block: blocks[len(blocks)-1]}
	default:
		return s.done[:n:n]
	}
	s.done = append(s.done, last)[:n]
	return s.done[: n+1 : n+1]
}

// Snapshot returns what Blocks returns, in a form that stays valid after later calls. When the
// last block is partial it costs a copy of the block headers and of that block's maps, never of
// the text; otherwise nothing more than Blocks.
func (s *Stream) Snapshot() []Block {
	blocks := s.Blocks()
	n := len(blocks)
	if n == 0 || !blocks[n-1].Partial {
		return blocks
	}
	out := append([]Block(nil), blocks...)
	out[n-1].Params, out[n-1].ParamSpans = maps.Clone(out[n-1].Params), maps.Clone(out[n-1].ParamSpans)
	return out
}
