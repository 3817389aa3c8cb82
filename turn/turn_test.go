package turn

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/assistant-ls/assistant-ls/jsonstream"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func apply(t *testing.T, s *Stream, ds ...Delta) {
	t.Helper()
	for _, d := range ds {
		require.NoError(t, s.Apply(d))
	}
}

func TestTextThenToolCallThenText(t *testing.T) {
	s := New(parse.New(parse.Config{}))
	apply(t, s, Delta{Text: "I'll write the file."})
	assert.Equal(t, 0, s.Changed())
	assert.Equal(t, -1, s.Changed(), "nothing changed since")

	apply(t, s, Delta{Text: " Now:", ToolCall: &ToolCallDelta{ID: "call_1", Name: "write_to_file", Arguments: `{"path":"a.go","content":"pack`}})
	assert.Equal(t, 0, s.Changed(), "the text grew and was completed")
	blocks := s.Blocks()
	require.Len(t, blocks, 2)
	assert.Equal(t, Block{Block: parse.Block{Type: parse.Text, Content: "I'll write the file. Now:", Span: parse.Span{Start: 0, End: 25}}}, blocks[0])
	assert.Equal(t, Block{Block: parse.Block{Type: parse.ToolUse, Name: "write_to_file", Partial: true,
		Params: map[string]string{"path": "a.go", "content": "pack"}}, CallID: "call_1", call: true, open: "content", opened: true}, blocks[1])

	apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "call_1", Arguments: `age a\n"}`}})
	assert.Equal(t, 1, s.Changed())
	apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "call_1", Done: true}})
	assert.Equal(t, 1, s.Changed())
	blocks = s.Blocks()
	assert.False(t, blocks[1].Partial)
	assert.Equal(t, map[string]any{"path": "a.go", "content": "package a\n"}, blocks[1].Input)

	// Text after the call is a new segment, parsed for XML tool uses from its own start.
	apply(t, s, Delta{Text: "Then <read_file><path>b.go</path>"})
	assert.Equal(t, 2, s.Changed())
	blocks = s.Blocks()
	require.Len(t, blocks, 4)
	assert.Equal(t, "Then", blocks[2].Content)
	assert.Equal(t, parse.Span{Start: 0, End: 4}, blocks[2].Span, "spans count from the segment's start")
	assert.Equal(t, parse.Block{Type: parse.ToolUse, Name: "read_file", Params: map[string]string{"path": "b.go"},
		ParamSpans: map[string]parse.Span{"path": {Start: 22, End: 26}}, Partial: true, Span: parse.Span{Start: 5, End: 33}}, blocks[3].Block)

	apply(t, s, Delta{Final: true})
	assert.Equal(t, 3, s.Changed())
	assert.True(t, s.Final())
	assert.False(t, s.Blocks()[3].Partial)
}

func TestCallEndsWhenTextOrAnotherCallFollows(t *testing.T) {
	s := New(parse.New(parse.Config{}))
	apply(t, s,
		Delta{ToolCall: &ToolCallDelta{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}},
		Delta{ToolCall: &ToolCallDelta{ID: "b", Name: "read_file", Arguments: `{"path":"y"`}},
	)
	blocks := s.Blocks()
	require.Len(t, blocks, 2)
	assert.False(t, blocks[0].Partial)
	assert.Equal(t, map[string]any{"path": "x"}, blocks[0].Input)
	assert.True(t, blocks[1].Partial)

	apply(t, s, Delta{Text: "done"})
	blocks = s.Blocks()
	require.Len(t, blocks, 3)
	assert.False(t, blocks[1].Partial)
	var syn *jsonstream.SyntaxError
	require.True(t, errors.As(blocks[1].Err, &syn), "unclosed object: %v", blocks[1].Err)
	assert.Equal(t, int64(11), syn.Offset)
	assert.Contains(t, blocks[1].Err.Error(), `tool call "b" (read_file)`)
	assert.Nil(t, blocks[1].Input)
}

func TestRefusedDeltas(t *testing.T) {
	s := New(parse.New(parse.Config{}))
	apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`, Done: true}},
		Delta{ToolCall: &ToolCallDelta{ID: "open", Name: "t", Arguments: "["}})
	s.Changed()
	before := s.Snapshot()
	for _, tc := range []struct {
		name string
		d    Delta
		id   string
		msg  string
	}{
		{"no id", Delta{ToolCall: &ToolCallDelta{Name: "x"}}, "", "non-empty"},
		{"new id without a name", Delta{Text: "lost?", ToolCall: &ToolCallDelta{ID: "b", Arguments: "{}"}}, "b", "must carry its name"},
		{"a second name", Delta{ToolCall: &ToolCallDelta{ID: "a", Name: "write_to_file"}}, "a", "cannot be renamed"},
		{"arguments after done", Delta{ToolCall: &ToolCallDelta{ID: "a", Arguments: " "}}, "a", "already complete"},
		{"text before arguments of the open call", Delta{Text: "x", ToolCall: &ToolCallDelta{ID: "open", Arguments: "1"}}, "open", "send the arguments before the text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, s.Check(tc.d), s.Apply(tc.d), "Check tells what Apply does")
			err := s.Apply(tc.d)
			var de *DeltaError
			require.True(t, errors.As(err, &de), "%v", err)
			assert.Equal(t, tc.id, de.CallID)
			assert.Contains(t, de.Reason, tc.msg)
			assert.Equal(t, before, s.Snapshot(), "a refused delta changes nothing, its text included")
			assert.Equal(t, -1, s.Changed())
		})
	}
	// Repeating what is known is no change.
	apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "a", Name: "read_file", Done: true}})
	assert.Equal(t, -1, s.Changed())

	apply(t, s, Delta{Final: true}, Delta{Final: true}, Delta{ToolCall: &ToolCallDelta{ID: "a", Done: true}})
	var de *DeltaError
	assert.True(t, errors.As(s.Apply(Delta{Text: "more"}), &de))
	assert.True(t, errors.As(s.Apply(Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "x"}}), &de))
}

func TestArgumentsOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		input map[string]any
		err   string
	}{
		{"none", nil, map[string]any{}, ""},
		{"empty fragments", []string{"", ""}, map[string]any{}, ""},
		{"object", []string{`{"a":`, `[1]}`}, map[string]any{"a": []any{1.0}}, ""},
		{"array", []string{`[1]`}, nil, "are a JSON array, not an object"},
		{"invalid", []string{`{"a":'b'}`}, nil, "invalid character '\\'' looking for the beginning of a value"},
		{"trailing", []string{`{} {}`}, nil, "after the top-level value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(parse.New(parse.Config{}))
			apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "t"}})
			for _, a := range tc.args {
				apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "c", Arguments: a}})
			}
			apply(t, s, Delta{Final: true})
			b := s.Blocks()[0]
			assert.False(t, b.Partial)
			assert.Equal(t, tc.input, b.Input)
			if tc.err == "" {
				assert.NoError(t, b.Err)
			} else {
				require.Error(t, b.Err)
				assert.Contains(t, b.Err.Error(), tc.err)
			}
		})
	}
}

func TestErrorShowsWhilePartial(t *testing.T) {
	s := New(parse.New(parse.Config{}))
	apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "t", Arguments: `{"a":"x"`}})
	s.Changed()
	apply(t, s, Delta{ToolCall: &ToolCallDelta{ID: "c", Arguments: `]`}})
	assert.Equal(t, 0, s.Changed(), "the error is a change")
	b := s.Blocks()[0]
	assert.True(t, b.Partial)
	assert.Error(t, b.Err)
	assert.Equal(t, map[string]string{"a": "x"}, b.Params)
}

// segment is one piece of a generated message: text, or a tool call's arguments.
type segment struct {
	text     string
	callID   string
	name     string
	args     string
	explicit bool // ends with done: true rather than by what follows
}

var (
	texts = []string{
		"Let me look.", " ", "\n\nI'll update <b>it</b> now: ", "Reading <read_file><path>a.go</path></read_file> first. ",
		"<write_to_file><path>b.go</path><content>package b\n</content></write_to_file>", "Done ✨", "<execute_command><command>go test",
	}
	argsPool = []string{
		`{"path":"src/a.go","content":"package a\n\nfunc A() string { return \"\u00e9\ud83d\ude00\" }\n"}`,
		`{"path": "x", "diff": "------- SEARCH\n\told\n=======\n\tnew \ud83d\ude80\n+++++++ REPLACE\n", "n": 3}`,
		`{}`, `{"a": [1, {"b": "c"}], "s": "\\u0041 \/"}`, `{"broken": tru}`,
	}
)

func genMessage(rng *rand.Rand) []segment {
	var segs []segment
	for i := range 1 + rng.IntN(6) {
		if rng.IntN(2) == 0 {
			segs = append(segs, segment{text: texts[rng.IntN(len(texts))] + texts[rng.IntN(len(texts))]})
			continue
		}
		segs = append(segs, segment{callID: "call_" + string(rune('a'+i)), name: "write_to_file",
			args: argsPool[rng.IntN(len(argsPool))], explicit: rng.IntN(2) == 0})
	}
	return segs
}

// split cuts s into random pieces of at most max bytes.
func split(rng *rand.Rand, s string, maxLen int) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 1+rng.IntN(maxLen))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// reference is the message as a client must see it after the deltas so far: what parse gives for
// each text segment (complete once something followed it), and for each call the params of its
// arguments so far, computed in one piece.
type reference struct {
	p      *parse.Parser
	blocks []Block
	text   string // the open text segment so far
	args   string // the open call's arguments so far
	id     string
	name   string
}

func (r *reference) current() []Block {
	out := append([]Block(nil), r.blocks...)
	switch {
	case r.id != "":
		var jp jsonstream.Parser
		jp.Append(r.args)
		b := Block{Block: parse.Block{Type: parse.ToolUse, Name: r.name, Params: jp.Params(), Partial: true}, CallID: r.id, call: true}
		b.open, b.opened = jp.Open()
		if jp.Err() != nil {
			b.Err = jp.Err()
		}
		out = append(out, b)
	case r.text != "":
		for _, b := range r.p.Parse(r.text) {
			out = append(out, Block{Block: b})
		}
	}
	return out
}

// close completes the open segment, as the next segment or final does.
func (r *reference) close() {
	cur := r.current()
	if len(cur) > len(r.blocks) {
		last := &cur[len(cur)-1]
		last.Partial, last.open, last.opened = false, "", false
		if r.id != "" {
			var jp jsonstream.Parser
			jp.Append(r.args)
			v, err := jp.End()
			switch obj, ok := v.(map[string]any); {
			case r.args == "":
				last.Input = map[string]any{}
			case err == nil && ok:
				last.Input = obj
			default:
				last.Err = errors.New("any")
			}
		}
	}
	r.blocks, r.text, r.args, r.id = cur, "", "", ""
}

// sameBlocks compares blocks, with errors compared by presence only.
func sameBlocks(a, b []Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.Err == nil) != (y.Err == nil) {
			return false
		}
		x.Err, y.Err = nil, nil
		if len(x.Params) == 0 && len(y.Params) == 0 {
			x.Params, y.Params = nil, nil
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// TestMixedStreamProperty streams random messages of text and tool calls in random deltas (text
// and arguments split anywhere, text and a call sometimes in one delta, calls ended explicitly
// or by what follows) and checks after every delta that the blocks are the reference's, and that
// a client replaying blocks[Changed():] over what it had holds exactly those blocks.
func TestMixedStreamProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := parse.New(parse.Config{})
	for iter := range 300 {
		segs := genMessage(rng)
		s := New(p)
		ref := &reference{p: p}
		var client []Block
		check := func(step string) {
			t.Helper()
			want := ref.current()
			got := s.Snapshot()
			if !sameBlocks(want, got) {
				require.Equal(t, want, got, "message %d, %s", iter, step)
			}
			if from := s.Changed(); from >= 0 {
				require.LessOrEqual(t, from, len(client))
				client = append(client[:from:from], got[from:]...)
			}
			if !sameBlocks(want, client) {
				require.Equal(t, want, client, "message %d, %s: client replay", iter, step)
			}
		}
		var pendingText string
		for k, seg := range segs {
			if seg.callID == "" {
				pieces := split(rng, seg.text, 9)
				for j, piece := range pieces {
					if j == len(pieces)-1 && k+1 < len(segs) && segs[k+1].callID != "" && rng.IntN(2) == 0 {
						pendingText = piece // sent together with the next call's first delta
						break
					}
					if ref.id != "" {
						ref.close()
					}
					require.NoError(t, s.Apply(Delta{Text: piece}))
					ref.text += piece
					check("text " + piece)
				}
				continue
			}
			first := &ToolCallDelta{ID: seg.callID, Name: seg.name}
			require.NoError(t, s.Apply(Delta{Text: pendingText, ToolCall: first}))
			if pendingText != "" {
				ref.text += pendingText
				pendingText = ""
			}
			ref.close()
			ref.id, ref.name = seg.callID, seg.name
			check("open " + seg.callID)
			for _, frag := range split(rng, seg.args, 12) {
				require.NoError(t, s.Apply(Delta{ToolCall: &ToolCallDelta{ID: seg.callID, Arguments: frag}}))
				ref.args += frag
				check("args " + frag)
			}
			if seg.explicit {
				require.NoError(t, s.Apply(Delta{ToolCall: &ToolCallDelta{ID: seg.callID, Done: true}}))
				ref.close()
				check("done " + seg.callID)
			}
		}
		require.NoError(t, s.Apply(Delta{Final: true}))
		ref.close()
		check("final")
		for _, b := range s.Blocks() {
			assert.False(t, b.Partial)
		}
	}
}

func TestInvisibleTextChangesNothing(t *testing.T) {
	s := New(parse.New(parse.Config{}))
	apply(t, s, Delta{Text: "Hello"})
	s.Changed()
	apply(t, s, Delta{Text: "  \n"})
	assert.Equal(t, -1, s.Changed(), "trailing white space is trimmed from the partial block")
	apply(t, s, Delta{Text: "world"})
	assert.Equal(t, 0, s.Changed())
	assert.Equal(t, "Hello  \nworld", s.Blocks()[0].Content)
}

// TestStreaming checks which param of a partial tool use may still grow, for tool calls whose
// keys come in any order and for tool uses in the text.
func TestStreaming(t *testing.T) {
	tests := []struct {
		name      string
		delta     Delta
		streaming []string // params that may still grow
		whole     []string // params that are complete
	}{
		{"call: path after command, arriving", Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "edit", Arguments: `{"command":"create","path":"src/ma`}}, []string{"path"}, []string{"command"}},
		{"call: path after command, whole", Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "edit", Arguments: `{"command":"create","path":"src/main.go"`}}, nil, []string{"command", "path"}},
		{"call: path after the payload", Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "edit", Arguments: `{"file_text":"x\n","path":"a`}}, []string{"path"}, []string{"file_text"}},
		{"call: path first", Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "write_to_file", Arguments: `{"path":"a.go","content":"pa`}}, []string{"content"}, []string{"path"}},
		{"call: done", Delta{ToolCall: &ToolCallDelta{ID: "c", Name: "edit", Arguments: `{"path":"a`, Done: true}}, nil, []string{"path"}},
		{"text: path arriving", Delta{Text: "<write_to_file>\n<path>a.g"}, []string{"path"}, nil},
		{"text: path's closing tag arriving", Delta{Text: "<write_to_file>\n<path>a.go</pa"}, []string{"path"}, nil},
		{"text: path closed", Delta{Text: "<write_to_file>\n<path>a.go</path>\n<content>x"}, []string{"content"}, []string{"path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(parse.New(parse.Config{}))
			require.NoError(t, s.Apply(tt.delta))
			blocks := s.Blocks()
			require.NotEmpty(t, blocks)
			b := blocks[len(blocks)-1]
			for _, p := range tt.streaming {
				assert.True(t, b.Streaming(p), "%s may still grow", p)
			}
			for _, p := range tt.whole {
				assert.False(t, b.Streaming(p), "%s is complete", p)
			}
		})
	}
}
