package provider

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/assistant-ls/assistant-ls/turn"
)

// gemini decodes the chunks of a Gemini streamGenerateContent stream (alt=sse), one
// GenerateContentResponse each; only candidate 0 is read, as a stream is one message.
//
// A part's text is text, unless it is a thought (reasoning), which is skipped. A functionCall
// part comes whole in one chunk: it is one complete tool call, its args the arguments. Gemini
// gives a call no id unless it has one (functionCall.id); then the call is "gemini-call-N", N
// counting the stream's calls from 1, so that the ids are the same on every replay. Vertex AI's
// streamed arguments (functionCall.partialArgs, willContinue) are assembled as they come: a call
// opens with its name, each partial argument of a top-level field adds to its value, and a
// functionCall without willContinue completes it. A finishReason completes an open call but does
// not end the stream (see Decoder); a blocked
// prompt (promptFeedback.blockReason) and an error are errors. Parts of server-side tools
// (executableCode, codeExecutionResult) and media carry nothing for the message. The zero value
// is ready to use.
type gemini struct {
	calls int // calls so far, for their ids
	// The call whose arguments are streaming (partialArgs), if any.
	open     string // its id, or ""
	fields   int    // fields of its arguments so far
	inString string // the field whose string value continues, or ""
}

// isGemini recognises a chunk by its candidates or prompt feedback.
func isGemini(keys map[string]json.RawMessage, _ string) bool {
	return keys["candidates"] != nil || keys["promptFeedback"] != nil
}

type geminiChunk struct {
	Candidates []struct {
		Index   int `json:"index"`
		Content *struct {
			Parts []struct {
				Text         *string `json:"text"`
				Thought      bool    `json:"thought"`
				FunctionCall *struct {
					ID           string          `json:"id"`
					Name         string          `json:"name"`
					Args         json.RawMessage `json:"args"`
					PartialArgs  []geminiPartial `json:"partialArgs"`
					WillContinue bool            `json:"willContinue"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
}

// geminiPartial is one piece of a streamed argument.
type geminiPartial struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue"`
	NumberValue  json.RawMessage `json:"numberValue"`
	BoolValue    json.RawMessage `json:"boolValue"`
	NullValue    json.RawMessage `json:"nullValue"`
	WillContinue bool            `json:"willContinue"`
}

// topLevelPath matches the JSON path of a top-level field: $.name or $['name'].
var topLevelPath = regexp.MustCompile(`^\$(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['([^'\\]*)'\])$`)

// decode returns the deltas of one chunk.
func (g *gemini) decode(chunk []byte, _ map[string]json.RawMessage) ([]turn.Delta, error) {
	var c geminiChunk
	if err := json.Unmarshal(chunk, &c); err != nil {
		return nil, fmt.Errorf("not a GenerateContentResponse: %w", err)
	}
	if c.PromptFeedback != nil && c.PromptFeedback.BlockReason != "" {
		return nil, fmt.Errorf("the provider blocked the prompt: %s", c.PromptFeedback.BlockReason)
	}
	var out []turn.Delta
	for _, cand := range c.Candidates {
		if cand.Index != 0 {
			continue
		}
		if cand.Content != nil {
			for _, part := range cand.Content.Parts {
				switch fc := part.FunctionCall; {
				case fc != nil:
					ds, err := g.functionCall(fc.ID, fc.Name, fc.Args, fc.PartialArgs, fc.WillContinue)
					if err != nil {
						return nil, err
					}
					out = append(out, ds...)
				case part.Text != nil && *part.Text != "" && !part.Thought:
					if g.open != "" {
						return nil, fmt.Errorf("text arrived while call %q was streaming its arguments: send every chunk in the order the provider sent it", g.open)
					}
					out = append(out, turn.Delta{Text: *part.Text})
				}
			}
		}
		if cand.FinishReason != "" && cand.FinishReason != "FINISH_REASON_UNSPECIFIED" {
			if g.open != "" {
				out = append(out, g.endOpen())
			}
		}
	}
	return out, nil
}

// nextID returns the id of the next call: its own, or the next deterministic one.
func (g *gemini) nextID(own string) string {
	g.calls++
	if own != "" {
		return own
	}
	return "gemini-call-" + strconv.Itoa(g.calls)
}

// functionCall decodes one functionCall part.
func (g *gemini) functionCall(id, name string, args json.RawMessage, partial []geminiPartial, willContinue bool) ([]turn.Delta, error) {
	if g.open == "" {
		switch {
		case name == "" && len(partial) == 0 && len(args) == 0:
			return nil, nil // an empty part, as Vertex sends after a streamed call
		case name == "":
			return nil, fmt.Errorf("a functionCall part without a name continues no call that an earlier chunk opened: send every chunk in the order the provider sent it")
		case !willContinue && len(partial) == 0:
			whole := string(args)
			if len(args) == 0 || string(args) == "null" {
				whole = "{}"
			}
			return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: g.nextID(id), Name: name, Arguments: whole, Done: true}}}, nil
		}
		g.open, g.fields, g.inString = g.nextID(id), 0, ""
		out := []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: g.open, Name: name, Arguments: "{"}}}
		ds, err := g.partials(partial)
		out = append(out, ds...)
		if err == nil && !willContinue {
			out = append(out, g.endOpen())
		}
		return out, err
	}
	if name != "" || len(args) > 0 {
		return nil, fmt.Errorf("a functionCall with a name or args arrived while call %q was streaming its arguments", g.open)
	}
	out, err := g.partials(partial)
	if err == nil && !willContinue {
		out = append(out, g.endOpen())
	}
	return out, err
}

// partials adds streamed arguments to the open call.
func (g *gemini) partials(ps []geminiPartial) ([]turn.Delta, error) {
	var args []byte
	for _, p := range ps {
		m := topLevelPath.FindStringSubmatch(p.JSONPath)
		if m == nil {
			return nil, fmt.Errorf("partialArgs path %q is not a top-level field ($.name); nested streamed arguments are not supported: send the call with whole args", p.JSONPath)
		}
		field := m[1] + m[2]
		if g.inString != "" && g.inString != field {
			args = append(args, '"')
			g.inString = ""
		}
		if g.inString == "" {
			if g.fields > 0 {
				args = append(args, ',')
			}
			g.fields++
			args = append(args, '"')
			args = append(args, jsonString(field)...)
			args = append(args, '"', ':')
		}
		switch {
		case p.StringValue != nil:
			if g.inString == "" {
				args = append(args, '"')
			}
			args = append(args, jsonString(*p.StringValue)...)
			g.inString = field
			if !p.WillContinue {
				args = append(args, '"')
				g.inString = ""
			}
		case p.NumberValue != nil:
			args = append(args, p.NumberValue...)
		case p.BoolValue != nil:
			args = append(args, p.BoolValue...)
		default:
			args = append(args, "null"...)
		}
	}
	if len(args) == 0 {
		return nil, nil
	}
	return []turn.Delta{{ToolCall: &turn.ToolCallDelta{ID: g.open, Arguments: string(args)}}}, nil
}

// endOpen completes the call whose arguments were streaming.
func (g *gemini) endOpen() turn.Delta {
	args := "}"
	if g.inString != "" {
		args = `"}`
	}
	d := turn.Delta{ToolCall: &turn.ToolCallDelta{ID: g.open, Arguments: args, Done: true}}
	g.open, g.inString = "", ""
	return d
}
