package main

import (
	"encoding/json"
	"io"
	"os"
	"reflect"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/parse"
)

// runParse prints the blocks of a message as a JSON array or, with --chunk, streams the message in
// N-byte deltas and prints one update line each time the blocks change. With --tool-calls it reads
// a stream of provider events instead (see runToolCalls).
func runParse(e env) int {
	fs := newFlags(e, "parse")
	chunk := fs.Int("chunk", 0, "stream the input in `N`-byte deltas and print one update per change")
	tools := fs.String("tools", "", "extra tool names, comma-separated")
	params := fs.String("params", "", "extra parameter names, comma-separated")
	toolCalls := fs.String("tool-calls", "", "read `FILE` (or - for standard input) as JSONL of provider stream events with native tool calls")
	updates := fs.Bool("updates", false, "with --tool-calls, print one update per change instead of the final blocks")
	shape := fs.String("provider", "", "with --tool-calls, the events' `SHAPE` (openai-chat, openai-responses, anthropic, gemini, bedrock, cohere); default: recognised")
	if code := parseFlags(fs, e); code >= 0 {
		return code
	}
	if fs.NArg() > 1 || *chunk < 0 || *toolCalls != "" && (fs.NArg() > 0 || *chunk > 0) || (*updates || *shape != "") && *toolCalls == "" {
		return usageError(e, "parse")
	}
	p := parse.New(parse.Config{ExtraToolNames: splitNames(*tools), ExtraParamNames: splitNames(*params)})
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	if *toolCalls != "" {
		return runToolCalls(e, enc, p, *toolCalls, *shape, *updates)
	}
	msg, err := readInput(e, fs.Arg(0))
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	if *chunk == 0 {
		return encodeOrFail(e, enc, nonNil(p.Parse(msg)))
	}
	return streamParse(e, enc, p, msg, *chunk)
}

// update is one line of "parse --chunk": like the server's assistant/blocks push, blocks replace
// the previous ones from index From on.
type update struct {
	From   int           `json:"from"`
	Blocks []parse.Block `json:"blocks"`
}

// streamParse feeds msg to a parse.Stream in deltas of about chunk bytes and prints an update
// whenever the blocks change. A delta ends on a character boundary (cut back, or for a chunk
// smaller than the character, extended to its end), so that no update shows half a character.
func streamParse(e env, enc *json.Encoder, p *parse.Parser, msg string, chunk int) int {
	s := p.NewStream()
	var prev []parse.Block
	for start := 0; start < len(msg); {
		end := min(start+chunk, len(msg))
		for end > start && end < len(msg) && !utf8.RuneStart(msg[end]) {
			end--
		}
		if end == start {
			_, size := utf8.DecodeRuneInString(msg[start:])
			end = start + size
		}
		s.Append(msg[start:end])
		start = end
		cur := s.Snapshot()
		from := firstChange(prev, cur)
		if from == len(cur) && len(cur) == len(prev) {
			continue
		}
		if code := encodeOrFail(e, enc, update{From: from, Blocks: nonNil(cur[from:])}); code != 0 {
			return code
		}
		prev = cur
	}
	return 0
}

// firstChange returns the first index at which cur differs from prev (len(cur) when cur only drops
// or keeps blocks of prev). Complete blocks never change, so the comparison starts at prev's last.
func firstChange(prev, cur []parse.Block) int {
	i := max(0, len(prev)-1)
	for i < len(prev) && i < len(cur) && reflect.DeepEqual(prev[i], cur[i]) {
		i++
	}
	return i
}

// nonNil makes an empty result print as [] rather than null.
func nonNil(b []parse.Block) []parse.Block {
	if b == nil {
		return []parse.Block{}
	}
	return b
}

// readInput reads the named file, or standard input when name is "" or "-".
func readInput(e env, name string) (string, error) {
	var data []byte
	var err error
	if name == "" || name == "-" {
		data, err = io.ReadAll(e.stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	return string(data), err
}

// encodeOrFail writes v as one JSON line; a write error is reported with exit code 1.
func encodeOrFail(e env, enc *json.Encoder, v any) int {
	if err := enc.Encode(v); err != nil {
		return fail(e, 1, "writing output: %v", err)
	}
	return 0
}
