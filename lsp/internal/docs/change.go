package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"
)

// ChangeParams are the params of textDocument/didChange, with content changes decoded strictly
// (see Change).
type ChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []Change                                 `json:"contentChanges"`
}

// Change is one content change event: a range change when Range is set, else a whole-document
// change. rangeLength, deprecated in the LSP, is ignored.
type Change struct {
	Range *protocol.Range
	Text  string
}

// ErrBadChange marks a content change event that is not one the LSP allows. The whole didChange
// must then be refused: applying a malformed range as a whole-document change would replace the
// document with a fragment.
var ErrBadChange = errors.New("malformed content change")

// UnmarshalJSON decodes a content change event. Unlike a union decoder that takes whatever it
// cannot read as a range for a whole-document change, it tells "range absent" (a whole-document
// change) from "range present but malformed": a range whose line or character is negative, above
// 2^31-1 (the LSP's uinteger), fractional, a string, missing or null is an ErrBadChange, as is
// a missing text. A position past the document's end within that bound clamps (Store.Change).
func (c *Change) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return fmt.Errorf("%w: %s is not an object; send {range, text} or {text}", ErrBadChange, data)
	}
	rawText, ok := fields["text"]
	var txt string
	if !ok || isNull(rawText) || json.Unmarshal(rawText, &txt) != nil {
		return fmt.Errorf("%w: \"text\" must be a string; send {range, text} or {text}", ErrBadChange)
	}
	*c = Change{Text: txt}
	rawRange, ok := fields["range"]
	if !ok {
		return nil
	}
	r, err := decodeRange(rawRange)
	if err != nil {
		return fmt.Errorf("%w: range %s: %v; a range is {start: {line, character}, end: {line, character}} with integers from 0 to 2147483647", ErrBadChange, rawRange, err)
	}
	c.Range = &r
	return nil
}

// isNull reports whether a JSON value is null, which decoding into a Go value would silently
// skip.
func isNull(data json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(data), []byte("null"))
}

// MaxUinteger is the largest value of the LSP's uinteger, which every line and character is.
const MaxUinteger = 1<<31 - 1

// decodeRange decodes a Range whose four numbers must all be present and LSP uintegers (0 to
// MaxUinteger); null is refused too.
func decodeRange(data json.RawMessage) (protocol.Range, error) {
	if isNull(data) {
		return protocol.Range{}, errors.New("it is null")
	}
	type position struct {
		Line      *uint32 `json:"line"`
		Character *uint32 `json:"character"`
	}
	var raw struct {
		Start *position `json:"start"`
		End   *position `json:"end"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return protocol.Range{}, err
	}
	var out [2]protocol.Position
	for i, p := range []*position{raw.Start, raw.End} {
		name := [2]string{"start", "end"}[i]
		if p == nil || p.Line == nil || p.Character == nil {
			return protocol.Range{}, fmt.Errorf("%s needs both line and character", name)
		}
		if *p.Line > MaxUinteger || *p.Character > MaxUinteger {
			return protocol.Range{}, fmt.Errorf("%s is past the LSP's uinteger (at most %d)", name, MaxUinteger)
		}
		out[i] = protocol.Position{Line: *p.Line, Character: *p.Character}
	}
	return protocol.Range{Start: out[0], End: out[1]}, nil
}
