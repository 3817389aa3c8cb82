package lsp

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/provider"
	"github.com/assistant-ls/assistant-ls/turn"
)

// This file serves assistant/parse's event param (protocol section 3): a provider's own stream
// event, decoded by the stream's decoder into the text and toolCall deltas handleParse applies.

// handleEvent applies one assistant/parse that carries a provider event: the deltas the event
// gives are applied in order, each as handleParse applies one, and final after them. An event
// that gives none (a ping, usage) still starts the stream and, as a request, returns its blocks.
func (ss *streams) handleEvent(p ext.ParseParams, withResult bool) (*ext.ParseResult, error) {
	dec, deltas, err := ss.decodeEvent(p)
	if err != nil {
		return nil, err
	}
	base := ext.ParseParams{Stream: p.Stream, Cwd: p.Cwd, ModelID: p.ModelID}
	if p.Final {
		deltas = append(deltas, turn.Delta{Final: true})
	}
	if len(deltas) == 0 {
		deltas = append(deltas, turn.Delta{})
	}
	var res *ext.ParseResult
	for i, d := range deltas {
		q := base
		if d.Text != "" {
			q.Delta = &d.Text
		}
		if tc := d.ToolCall; tc != nil {
			q.ToolCall = &ext.ToolCall{ID: tc.ID, Name: tc.Name, Done: tc.Done}
			if tc.Arguments != "" {
				q.ToolCall.Arguments = &tc.Arguments
			}
		}
		q.Final = d.Final
		if res, err = ss.handleParse(q, withResult && i == len(deltas)-1); err != nil {
			return nil, err
		}
		if i == 0 {
			ss.keepDecoder(p.Stream, dec)
		}
	}
	return res, nil
}

// decodeEvent decodes p's event with its stream's decoder, or with a new one for a stream that
// has none yet, which keepDecoder attaches once the stream exists. An event refused for what it
// holds (not an object, of no known shape or of another shape than the stream's, out of order,
// a provider's error) refuses a delta of a running stream, as handleParse refuses one: the event
// carried a part of the message that is lost, so the stream takes no more (refuseLocked). Params
// of the wrong form (no event, an event with a delta) change nothing, as in handleParse.
func (ss *streams) decodeEvent(p ext.ParseParams) (*provider.Decoder, []turn.Delta, error) {
	switch {
	case p.Event == nil:
		return nil, nil, &streamError{msg: `"provider" names the shape of "event", which is missing: send the provider's event in "event"`}
	case p.Delta != nil || p.Text != nil || p.ToolCall != nil:
		return nil, nil, &streamError{msg: `"event" goes alone: send "delta", "text" or "toolCall" in a params of their own`}
	}
	ss.mu.Lock()
	st := ss.byName[p.Stream]
	dec, deltas, err := ss.decodeLocked(st, p)
	if err != nil {
		return nil, nil, ss.refuseLocked(st, err)
	}
	ss.mu.Unlock()
	return dec, deltas, nil
}

// decodeLocked decodes p's event for st, the stream it names (nil when there is none yet); ss.mu
// is held.
func (ss *streams) decodeLocked(st *stream, p ext.ParseParams) (*provider.Decoder, []turn.Delta, error) {
	event := []byte(p.Event)
	if event[0] == '"' {
		var s string
		if err := json.Unmarshal(event, &s); err != nil {
			return nil, nil, &streamError{msg: `"event" must be an object or a string holding one: ` + err.Error()}
		}
		event = []byte(s)
	}
	var dec *provider.Decoder
	if st != nil && st.events != nil {
		dec = st.events
		if p.Provider != "" && dec.Shape() != "" && dec.Shape() != p.Provider {
			return nil, nil, &streamError{msg: "stream " + strconv.Quote(p.Stream) + " carries " + dec.Shape() +
				" events, not " + p.Provider + ": send each provider's stream under its own stream name"}
		}
	} else {
		var err error
		if dec, err = provider.New(p.Provider); err != nil {
			return nil, nil, &streamError{msg: err.Error()}
		}
	}
	deltas, err := dec.Event(event)
	var mm *provider.ShapeMismatchError
	if errors.As(err, &mm) && mm.Named && p.Provider != "" {
		return nil, nil, &streamError{msg: `"provider": "` + p.Provider + `" does not match this event (` + mm.Shape +
			`): leave "provider" out or name the right one`}
	}
	if err != nil {
		return nil, nil, &streamError{msg: "stream " + strconv.Quote(p.Stream) + ": " + err.Error()}
	}
	return dec, deltas, nil
}

// keepDecoder attaches dec to its stream, which handleParse has now started, unless the stream
// has one already.
func (ss *streams) keepDecoder(name string, dec *provider.Decoder) {
	ss.mu.Lock()
	if st := ss.byName[name]; st != nil && st.events == nil {
		st.events = dec
	}
	ss.mu.Unlock()
}
