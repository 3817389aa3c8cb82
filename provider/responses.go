package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/assistant-ls/assistant-ls/turn"
)

// responses decodes the events of an OpenAI Responses API stream ("stream": true).
//
// response.output_text.delta (and a refusal's response.refusal.delta) is text. An output item
// that is a call opens a tool call at response.output_item.added, under the item's call_id, and
// completes it at response.output_item.done:
//   - a function_call's arguments arrive as response.function_call_arguments.delta fragments;
//   - a custom_tool_call's free-form input (response.custom_tool_call_input.delta) becomes the
//     arguments {"input": "…"}, streamed as the input streams;
//   - an apply_patch_call's operation becomes the apply_patch tool's input {type, path, diff}
//     (contract section 4b), its diff streamed from response.apply_patch_call_operation_diff.delta;
//   - any other item with a call_id (a shell or computer call the client runs) is a call named
//     after its type less "_call", its fields but id, type, status and call_id as arguments, given
//     whole when the item is done; a call's result (an item of type "…_output") and a call the
//     server runs ("execution": "server") are not calls.
//
// A call whose deltas never came (a relay that sends only the .done events) is given whole from
// them, and so is a text part. Reasoning, server-side tools (web and file search, code
// interpreter, image generation, MCP) and lifecycle events carry nothing for the message and are
// skipped. response.completed does not end the stream, which may hold the turn's next response
// (see Decoder); response.failed and error are errors. The zero value is ready to use.
type responses struct {
	items map[string]*responsesItem // by item id
	texts map[responsesPart]bool    // output text parts whose deltas came
}

// responsesPart names one content part of an output item.
type responsesPart struct {
	item  string
	index int
}

// responsesItem is a call item being streamed.
type responsesItem struct {
	callID string
	kind   string // function_call, custom_tool_call, apply_patch_call
	// open is set when the arguments so far end inside a string (a custom input or a diff)
	// that the item's end closes.
	open bool
	sent bool // some of the streamed value arrived
	done bool
}

// isResponses recognises an event by its type's "response." prefix. "error" is shared with
// Anthropic, so it is recognised only in a stream already known to be the Responses API's.
func isResponses(_ map[string]json.RawMessage, typ string) bool {
	return strings.HasPrefix(typ, "response.")
}

// responsesEvent is the fields of the events decode reads. Fields that other items and events
// give other types (a tool search's arguments object, a shell output's delta object) are read
// as text only where they are text.
type responsesEvent struct {
	Type      string      `json:"type"`
	ItemID    string      `json:"item_id"`
	Delta     lenientText `json:"delta"`
	Text      string      `json:"text"`
	Content   int         `json:"content_index"`
	Arguments lenientText `json:"arguments"`
	Input     lenientText `json:"input"`
	Diff      string      `json:"diff"`
	Item      *struct {
		ID        string      `json:"id"`
		Type      string      `json:"type"`
		CallID    string      `json:"call_id"`
		Execution string      `json:"execution"`
		Name      string      `json:"name"`
		Arguments lenientText `json:"arguments"`
		Input     lenientText `json:"input"`
		Operation *struct {
			Type string `json:"type"`
			Path string `json:"path"`
			Diff string `json:"diff"`
		} `json:"operation"`
	} `json:"item"`
	Response *struct {
		Error json.RawMessage `json:"error"`
	} `json:"response"`
}

// lenientText is a JSON string's value, or "" for any other JSON value.
type lenientText string

// UnmarshalJSON reads a string, and leaves other values empty.
func (t *lenientText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = lenientText(s)
	}
	return nil
}

// responsesSkipped are prefixes of event types that carry nothing for the message.
var responsesSkipped = []string{
	"response.created", "response.in_progress", "response.queued",
	"response.content_part.", "response.output_text.annotation.",
	"response.refusal.done", "response.reasoning", "response.web_search_call.",
	"response.file_search_call.", "response.code_interpreter_call", "response.image_generation_call.",
	"response.mcp_", "response.audio.", "response.tool_search_call.", "response.shell_call",
	"response.local_shell_call",
}

// decode returns the deltas of one event.
func (r *responses) decode(event []byte, keys map[string]json.RawMessage) ([]turn.Delta, error) {
	var typ string
	_ = json.Unmarshal(keys["type"], &typ)
	for _, p := range responsesSkipped {
		if strings.HasPrefix(typ, p) {
			return nil, nil // decoded no further: these events' fields have shapes of their own
		}
	}
	var e responsesEvent
	if err := json.Unmarshal(event, &e); err != nil {
		return nil, fmt.Errorf("not a Responses API event: %w", err)
	}
	if r.items == nil {
		r.items, r.texts = map[string]*responsesItem{}, map[responsesPart]bool{}
	}
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		if e.Delta == "" {
			return nil, nil
		}
		r.texts[responsesPart{e.ItemID, e.Content}] = true
		return []turn.Delta{{Text: string(e.Delta)}}, nil
	case "response.output_text.done":
		// A part whose deltas never came (a relay that sends only .done) is given whole.
		if part := (responsesPart{e.ItemID, e.Content}); !r.texts[part] && e.Text != "" {
			r.texts[part] = true
			return []turn.Delta{{Text: e.Text}}, nil
		}
		return nil, nil
	case "response.output_item.added":
		return r.added(e)
	case "response.output_item.done":
		return r.itemDone(e, event)
	case "response.function_call_arguments.delta":
		return r.fragment(e, "function_call", string(e.Delta), false)
	case "response.function_call_arguments.done":
		return r.fragment(e, "function_call", string(e.Arguments), true)
	case "response.custom_tool_call_input.delta":
		return r.fragment(e, "custom_tool_call", jsonString(string(e.Delta)), false)
	case "response.custom_tool_call_input.done":
		return r.fragment(e, "custom_tool_call", jsonString(string(e.Input)), true)
	case "response.apply_patch_call_operation_diff.delta":
		return r.fragment(e, "apply_patch_call", jsonString(string(e.Delta)), false)
	case "response.apply_patch_call_operation_diff.done":
		return r.fragment(e, "apply_patch_call", jsonString(e.Diff), true)
	case "response.completed", "response.incomplete":
		return nil, nil // the stream may hold the next response of the turn
	case "response.failed":
		if e.Response != nil && len(e.Response.Error) > 0 && string(e.Response.Error) != "null" {
			return nil, providerError([]byte(`{"error":` + string(e.Response.Error) + `}`))
		}
		return nil, fmt.Errorf("the provider reported that the response failed")
	case "error":
		return nil, providerError(event)
	}
	return nil, fmt.Errorf("type %q is not a Responses API event assistant-ls knows: send only the events the provider sent, and report the type if it carries text or a tool call", e.Type)
}

// added opens the call an output item starts.
func (r *responses) added(e responsesEvent) ([]turn.Delta, error) {
	it := e.Item
	if it == nil {
		return nil, fmt.Errorf("response.output_item.added needs item")
	}
	var d *turn.ToolCallDelta
	item := &responsesItem{callID: it.CallID, kind: it.Type}
	switch it.Type {
	case "function_call":
		d = &turn.ToolCallDelta{ID: it.CallID, Name: it.Name, Arguments: string(it.Arguments)}
		item.sent = it.Arguments != ""
	case "custom_tool_call":
		d = &turn.ToolCallDelta{ID: it.CallID, Name: it.Name, Arguments: `{"input":"` + jsonString(string(it.Input))}
		item.open, item.sent = true, it.Input != ""
	case "apply_patch_call":
		d = applyPatchStart(it.CallID, it.Operation)
		item.open = d.Arguments[len(d.Arguments)-1] != '}'
		item.sent = it.Operation != nil && it.Operation.Diff != ""
	default:
		return nil, nil // a message, reasoning, a server-side tool, or a call given whole when done
	}
	if it.CallID == "" || it.ID == "" {
		return nil, fmt.Errorf("a %s item needs id and call_id", it.Type)
	}
	r.items[it.ID] = item
	return []turn.Delta{{ToolCall: d}}, nil
}

// applyPatchStart opens an apply_patch call with the operation's type and path, and its diff as
// far as it has come, left open for the diff's deltas; a delete_file has no diff.
func applyPatchStart(callID string, op *struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Diff string `json:"diff"`
}) *turn.ToolCallDelta {
	d := &turn.ToolCallDelta{ID: callID, Name: "apply_patch"}
	if op == nil {
		d.Arguments = "{"
		return d
	}
	head := `{"type":"` + jsonString(op.Type) + `","path":"` + jsonString(op.Path) + `"`
	if op.Type == "delete_file" {
		d.Arguments = head + "}"
		return d
	}
	d.Arguments = head + `,"diff":"` + jsonString(op.Diff)
	return d
}

// fragment adds a streamed piece of a call's value; a .done event (whole) adds its value only
// when no piece came before it.
func (r *responses) fragment(e responsesEvent, kind, piece string, whole bool) ([]turn.Delta, error) {
	it, ok := r.items[e.ItemID]
	switch {
	case !ok:
		return nil, fmt.Errorf("item_id %q names no %s that response.output_item.added opened: send every event in the order the provider sent it", e.ItemID, kind)
	case it.kind != kind:
		return nil, fmt.Errorf("item_id %q is a %s, not a %s", e.ItemID, it.kind, kind)
	case it.done:
		return nil, fmt.Errorf("item %q is already done", e.ItemID)
	case piece == "", whole && it.sent:
		return nil, nil
	}
	it.sent = true
	return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: it.callID, Arguments: piece}}}, nil
}

// itemDone completes the call an output item is: the one added opened, or, for an item that
// was never added or is given only whole, the whole call.
func (r *responses) itemDone(e responsesEvent, event []byte) ([]turn.Delta, error) {
	it := e.Item
	if it == nil {
		return nil, fmt.Errorf("response.output_item.done needs item")
	}
	item, ok := r.items[it.ID]
	if !ok {
		return r.wholeCall(e, event)
	}
	if item.done {
		return nil, fmt.Errorf("item %q is already done", it.ID)
	}
	item.done = true
	d := &turn.ToolCallDelta{ID: item.callID, Done: true}
	switch {
	case !item.sent && item.kind == "function_call":
		d.Arguments = string(it.Arguments)
	case !item.sent && item.kind == "custom_tool_call":
		d.Arguments = jsonString(string(it.Input))
	case !item.sent && item.kind == "apply_patch_call" && item.open && it.Operation != nil:
		d.Arguments = jsonString(it.Operation.Diff)
	}
	if item.open {
		d.Arguments += `"}`
	}
	return []turn.Delta{{ToolCall: d}}, nil
}

// wholeCall gives a call item that no output_item.added opened, whole; other items give nothing.
func (r *responses) wholeCall(e responsesEvent, event []byte) ([]turn.Delta, error) {
	it := e.Item
	var d *turn.ToolCallDelta
	switch {
	case it.CallID == "", it.Execution == "server", strings.HasSuffix(it.Type, "_output"):
		return nil, nil // not a call: a message, reasoning, a server-side tool, a call's result
	case it.Type == "function_call":
		d = &turn.ToolCallDelta{ID: it.CallID, Name: it.Name, Arguments: string(it.Arguments)}
	case it.Type == "custom_tool_call":
		d = &turn.ToolCallDelta{ID: it.CallID, Name: it.Name, Arguments: `{"input":"` + jsonString(string(it.Input)) + `"}`}
	case it.Type == "apply_patch_call":
		d = applyPatchStart(it.CallID, it.Operation)
		if !strings.HasSuffix(d.Arguments, "}") {
			d.Arguments += `"}`
		}
	default:
		args, err := otherCallArguments(event)
		if err != nil {
			return nil, err
		}
		d = &turn.ToolCallDelta{ID: it.CallID, Name: strings.TrimSuffix(it.Type, "_call"), Arguments: args}
	}
	r.items[it.ID] = &responsesItem{callID: it.CallID, kind: it.Type, done: true}
	d.Done = true
	return []turn.Delta{{ToolCall: d}}, nil
}

// otherCallArguments are the fields of a call item of another type but those that name it, as
// compact JSON with its keys sorted.
func otherCallArguments(event []byte) (string, error) {
	var raw struct {
		Item map[string]json.RawMessage `json:"item"`
	}
	if err := json.Unmarshal(event, &raw); err != nil {
		return "", err
	}
	for _, k := range []string{"id", "type", "status", "call_id"} {
		delete(raw.Item, k)
	}
	b, err := json.Marshal(raw.Item)
	return string(b), err
}
