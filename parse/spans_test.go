package parse

import (
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/ecma"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpans(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		msg   string
		want  []Block
	}{
		{
			name: "text span is the trimmed text",
			msg:  "  hi  ",
			want: []Block{{Type: Text, Content: "hi", Partial: true, Span: Span{2, 4}}},
		},
		{
			name: "text, tool, text",
			msg:  "a <read_file><path> x </path></read_file> b",
			want: []Block{
				{Type: Text, Content: "a", Span: Span{0, 1}},
				{
					Type: ToolUse, Name: "read_file", Span: Span{2, 41},
					Params: map[string]string{"path": "x"}, ParamSpans: map[string]Span{"path": {19, 22}},
				},
				{Type: Text, Content: "b", Partial: true, Span: Span{42, 43}},
			},
		},
		{
			name: "partial tool and param run to the end",
			msg:  "<read_file><path>src/ma",
			want: []Block{{
				Type: ToolUse, Name: "read_file", Partial: true, Span: Span{0, 23},
				Params: map[string]string{"path": "src/ma"}, ParamSpans: map[string]Span{"path": {17, 23}},
			}},
		},
		{
			name: "partial tool without params",
			msg:  "<read_file>",
			want: []Block{{Type: ToolUse, Name: "read_file", Partial: true, Span: Span{0, 11}}},
		},
		{
			name: "write_to_file content runs from the first open to the last close tag",
			msg:  "<write_to_file><path>f</path><content>a</content>b</content></write_to_file>",
			want: []Block{{
				Type: ToolUse, Name: "write_to_file", Span: Span{0, 76},
				Params:     map[string]string{"path": "f", "content": "a</content>b"},
				ParamSpans: map[string]Span{"path": {21, 22}, "content": {38, 50}},
			}},
		},
		{
			name: "empty param has an empty span after its open tag",
			msg:  "<execute_command><command></command></execute_command>",
			want: []Block{{
				Type: ToolUse, Name: "execute_command", Span: Span{0, 54},
				Params: map[string]string{"command": ""}, ParamSpans: map[string]Span{"command": {26, 26}},
			}},
		},
		{
			name: "repeated param keeps the later span",
			msg:  "<read_file><path>a</path><path>bb</path></read_file>",
			want: []Block{{
				Type: ToolUse, Name: "read_file", Span: Span{0, 52},
				Params: map[string]string{"path": "bb"}, ParamSpans: map[string]Span{"path": {31, 33}},
			}},
		},
		{
			name:  "a tool named like a param closes with the param",
			extra: []string{" path "},
			msg:   "<path><path> p </path>",
			want: []Block{{
				Type: ToolUse, Name: "path", Span: Span{0, 22},
				Params: map[string]string{"path": "p"}, ParamSpans: map[string]Span{"path": {12, 15}},
			}},
		},
		{
			name: "offsets are bytes, and trailing U+3000 is trimmed away",
			msg:  "日本 <read_file>\n<path>ä</path>\n</read_file>\u3000",
			want: []Block{
				{Type: Text, Content: "日本", Span: Span{0, 6}},
				{
					Type: ToolUse, Name: "read_file", Span: Span{7, 47},
					Params: map[string]string{"path": "ä"}, ParamSpans: map[string]Span{"path": {25, 27}},
				},
			},
		},
		{
			name: "a stray close tag is text",
			msg:  "x</read_file>",
			want: []Block{{Type: Text, Content: "x</read_file>", Partial: true, Span: Span{0, 13}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Config{ExtraToolNames: tt.extra})
			assert.Equal(t, tt.want, p.Parse(tt.msg))
			s := p.NewStream()
			for _, r := range tt.msg {
				s.Append(string(r))
			}
			assert.Equal(t, tt.want, s.Blocks(), "stream")
		})
	}
}

// checkSpans verifies the documented relation between every span and what it points at.
func checkSpans(t *testing.T, msg string, blocks []Block) {
	t.Helper()
	prevEnd := 0
	for i, b := range blocks {
		if !strings.Contains(b.Name, ">") {
			// Only a name holding '>' can have its open tag begin inside the tag before it.
			require.LessOrEqual(t, prevEnd, b.Span.Start, "block %d overlaps the one before", i)
		}
		require.LessOrEqual(t, b.Span.Start, b.Span.End, "block %d", i)
		require.LessOrEqual(t, b.Span.End, len(msg), "block %d", i)
		prevEnd = b.Span.End
		if b.Type == Text {
			require.Equal(t, b.Content, msg[b.Span.Start:b.Span.End], "block %d", i)
			require.Nil(t, b.ParamSpans, "block %d", i)
			continue
		}
		require.True(t, strings.HasPrefix(msg[b.Span.Start:], "<"+b.Name+">"), "block %d", i)
		if b.Partial {
			require.Equal(t, len(msg), b.Span.End, "block %d", i)
		} else {
			require.True(t, strings.HasSuffix(msg[:b.Span.End], "</"+b.Name+">"), "block %d", i)
		}
		require.Len(t, b.ParamSpans, len(b.Params), "block %d", i)
		for k, v := range b.Params {
			ps, ok := b.ParamSpans[k]
			require.True(t, ok, "block %d param %s has no span", i, k)
			require.LessOrEqual(t, b.Span.Start, ps.Start, "block %d param %s", i, k)
			require.LessOrEqual(t, ps.Start, ps.End, "block %d param %s", i, k)
			require.LessOrEqual(t, ps.End, b.Span.End, "block %d param %s", i, k)
			require.Equal(t, v, ecma.Trim(msg[ps.Start:ps.End]), "block %d param %s", i, k)
		}
	}
}

func TestSpansOfConformanceInputs(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.ID, func(t *testing.T) {
			checkSpans(t, v.Input, New(Config{ExtraToolNames: v.ExtraToolNames}).Parse(v.Input))
		})
	}
}
