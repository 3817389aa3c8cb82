package provider

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

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
// opens with its name, each partial argument adds its value at its JSON path, and a functionCall
// without willContinue completes it. A finishReason completes an open call but does
// not end the stream (see Decoder); a blocked
// prompt (promptFeedback.blockReason) and an error are errors. Parts of server-side tools
// (executableCode, codeExecutionResult) and media carry nothing for the message. The zero value
// is ready to use.
type gemini struct {
	calls int // calls so far, for their ids
	// The call whose arguments are streaming (partialArgs), if any.
	open     string            // its id, or ""
	stack    []geminiContainer // its open objects and arrays, the arguments object first
	inString string            // the path whose string value continues, or ""
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
		g.open, g.inString = g.nextID(id), ""
		g.stack = []geminiContainer{{}}
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

// partials adds streamed arguments to the open call: each partial argument's value goes at its
// JSON path, opening and closing the objects and arrays on the way, so that the arguments stream
// as one JSON text in order. A string whose willContinue is set stays open for the next piece of
// the same path.
func (g *gemini) partials(ps []geminiPartial) ([]turn.Delta, error) {
	var args []byte
	for _, p := range ps {
		path, err := parseJSONPath(p.JSONPath)
		if err != nil {
			return nil, err
		}
		if g.inString != "" && g.inString == p.JSONPath {
			if p.StringValue == nil {
				return nil, fmt.Errorf("partialArgs %s continues a string with a value that is not one", p.JSONPath)
			}
			args = append(args, jsonString(*p.StringValue)...)
			if !p.WillContinue {
				args = append(args, '"')
				g.inString = ""
			}
			continue
		}
		if g.inString != "" {
			args = append(args, '"')
			g.inString = ""
		}
		if args, err = g.openTo(args, p.JSONPath, path); err != nil {
			return nil, err
		}
		switch {
		case p.StringValue != nil:
			args = append(args, '"')
			args = append(args, jsonString(*p.StringValue)...)
			if p.WillContinue {
				g.inString = p.JSONPath
			} else {
				args = append(args, '"')
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

// openTo closes the containers the path leaves, opens those it enters, and writes what goes
// before the value at path: a separator and, in an object, the key.
func (g *gemini) openTo(args []byte, raw string, path []pathSegment) ([]byte, error) {
	parent := path[:len(path)-1]
	k := 0 // containers below the root shared with the open ones
	for k < len(g.stack)-1 && k < len(parent) && g.stack[k+1].seg == parent[k] {
		k++
	}
	for len(g.stack)-1 > k {
		args = append(args, g.stack[len(g.stack)-1].closer())
		g.stack = g.stack[:len(g.stack)-1]
	}
	for i := k; i < len(path); i++ {
		top := &g.stack[len(g.stack)-1]
		seg := path[i]
		switch {
		case top.array && !seg.isIndex, !top.array && seg.isIndex:
			return nil, fmt.Errorf("partialArgs path %s does not match the arguments' shape so far", raw)
		case top.array && seg.index != top.n:
			return nil, fmt.Errorf("partialArgs path %s skips or repeats an array element: send every chunk in the order the provider sent it", raw)
		}
		if top.n > 0 {
			args = append(args, ',')
		}
		top.n++
		if !top.array {
			args = append(args, '"')
			args = append(args, jsonString(seg.key)...)
			args = append(args, '"', ':')
		}
		if i == len(path)-1 {
			break
		}
		next := geminiContainer{seg: seg, array: path[i+1].isIndex}
		args = append(args, next.opener())
		g.stack = append(g.stack, next)
	}
	return args, nil
}

// pathSegment is one step of a JSON path: an object key or an array index.
type pathSegment struct {
	key     string
	index   int
	isIndex bool
}

// geminiContainer is an object or array of the streamed arguments still open, and how many
// members it has so far.
type geminiContainer struct {
	seg   pathSegment // where it is in its parent
	array bool
	n     int
}

func (c geminiContainer) opener() byte {
	if c.array {
		return '['
	}
	return '{'
}

func (c geminiContainer) closer() byte {
	if c.array {
		return ']'
	}
	return '}'
}

// jsonPathStep matches one step of a JSON path: .name, ['name'] or [N].
var jsonPathStep = regexp.MustCompile(`^(?:\.([A-Za-z_$][A-Za-z0-9_$-]*)|\['([^'\\]*)'\]|\[([0-9]+)\])`)

// parseJSONPath reads a partial argument's path, $ and at least one step.
func parseJSONPath(raw string) ([]pathSegment, error) {
	rest, ok := strings.CutPrefix(raw, "$")
	var out []pathSegment
	for ok && rest != "" {
		m := jsonPathStep.FindStringSubmatch(rest)
		if m == nil {
			ok = false
			break
		}
		switch {
		case m[3] != "":
			n, err := strconv.Atoi(m[3])
			if err != nil {
				return nil, fmt.Errorf("partialArgs path %q: %w", raw, err)
			}
			out = append(out, pathSegment{index: n, isIndex: true})
		default:
			out = append(out, pathSegment{key: m[1] + m[2]})
		}
		rest = rest[len(m[0]):]
	}
	if !ok || len(out) == 0 {
		return nil, fmt.Errorf("partialArgs path %q is not a JSON path of .name, ['name'] and [N] steps from $", raw)
	}
	return out, nil
}

// endOpen completes the call whose arguments were streaming, closing what is open.
func (g *gemini) endOpen() turn.Delta {
	var args []byte
	if g.inString != "" {
		args = append(args, '"')
	}
	for i := len(g.stack) - 1; i >= 0; i-- {
		args = append(args, g.stack[i].closer())
	}
	d := turn.Delta{ToolCall: &turn.ToolCallDelta{ID: g.open, Arguments: string(args), Done: true}}
	g.open, g.inString, g.stack = "", "", nil
	return d
}
