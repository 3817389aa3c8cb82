package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/provider"
	"github.com/assistant-ls/assistant-ls/turn"
)

// toolBlock is a turn.Block as "parse --tool-calls" prints it: the block's JSON with its error as
// text.
type toolBlock struct {
	turn.Block
	Error string `json:"error,omitempty"`
}

// toolUpdate is one line of "parse --tool-calls --updates": blocks replace the previous ones from
// index From on, as in the server's assistant/blocks push.
type toolUpdate struct {
	From   int         `json:"from"`
	Blocks []toolBlock `json:"blocks"`
}

// runToolCalls reads a JSONL stream of provider events (of the shape named by shape, or
// recognised from the first event; normalized deltas may be mixed in), applies them to one
// message and prints its final blocks as a JSON array, or with updates one line per change. The
// message ends at the end of the input, which may hold several messages of one turn.
func runToolCalls(e env, enc *json.Encoder, p *parse.Parser, name, shape string, updates bool) int {
	dec, err := provider.New(shape)
	if err != nil {
		return fail(e, exitUsage, "--provider: %v", err)
	}
	var in io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fail(e, exitUsage, "%v", err)
		}
		defer f.Close()
		in = f
	}
	s := turn.New(p)
	var prev []turn.Block
	emit := func() int {
		from := s.Changed()
		if !updates || from < 0 {
			return 0
		}
		cur := s.Snapshot()
		// Changed may count a block that looks the same; an update that shows nothing new
		// is left out.
		for from < len(prev) && from < len(cur) && reflect.DeepEqual(prev[from], cur[from]) {
			from++
		}
		if from == len(cur) && len(cur) == len(prev) {
			return 0
		}
		prev = cur
		return encodeOrFail(e, enc, toolUpdate{From: from, Blocks: toToolBlocks(cur[from:])})
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		deltas, err := dec.Decode(sc.Bytes())
		var mm *provider.ShapeMismatchError
		if errors.As(err, &mm) && mm.Named && shape != "" {
			// The stream is one input, so its other shape says --provider is wrong.
			return fail(e, 1, "%s:%d: --provider %s does not match these events (%s): drop --provider or name the right one",
				name, n, shape, mm.Shape)
		}
		if err != nil {
			return fail(e, 1, "%s:%d: %v", name, n, err)
		}
		for _, d := range deltas {
			if err := s.Apply(d); err != nil {
				return fail(e, 1, "%s:%d: %v", name, n, err)
			}
		}
		if code := emit(); code != 0 {
			return code
		}
	}
	if err := sc.Err(); err != nil {
		return fail(e, exitUsage, "reading %s: %v", name, err)
	}
	if err := s.Apply(turn.Delta{Final: true}); err != nil {
		return fail(e, 1, "%v", err)
	}
	if updates {
		return emit()
	}
	return encodeOrFail(e, enc, toToolBlocks(s.Blocks()))
}

// toToolBlocks converts blocks for printing; an empty list prints as [].
func toToolBlocks(blocks []turn.Block) []toolBlock {
	out := make([]toolBlock, len(blocks))
	for i, b := range blocks {
		out[i] = toolBlock{Block: b}
		if b.Err != nil {
			out[i].Error = b.Err.Error()
		}
	}
	return out
}
