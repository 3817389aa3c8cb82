package parse

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConfigNames covers names the conformance vectors barely reach: names holding '<' or '>',
// where two tags can end at the same index and the order of the name table decides, as the
// reference's Map iteration order does.
func TestConfigNames(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		msg  string
		want []Block
	}{
		{
			name: "name holding '<'",
			cfg:  Config{ExtraToolNames: []string{"a<b"}},
			msg:  "x <a<b>y</a<b> z",
			want: []Block{
				{Type: Text, Content: "x", Span: Span{0, 1}},
				{Type: ToolUse, Name: "a<b", Span: Span{2, 14}},
				{Type: Text, Content: "z", Partial: true, Span: Span{15, 16}},
			},
		},
		{
			name: "earlier name wins when two tags end at the same index",
			cfg:  Config{ExtraToolNames: []string{"b", "a<b"}},
			msg:  "x <a<b>y</a<b> z",
			want: []Block{
				{Type: Text, Content: "x <a", Span: Span{0, 4}},
				{Type: ToolUse, Name: "b", Partial: true, Span: Span{4, 16}},
			},
		},
		{
			name: "name holding '>'",
			cfg:  Config{ExtraToolNames: []string{"x>y"}},
			msg:  "<x>y>hi</x>y>",
			want: []Block{{Type: ToolUse, Name: "x>y", Span: Span{0, 13}}},
		},
		{
			name: "extra param name, trimmed; empty and duplicate names ignored",
			cfg:  Config{ExtraParamNames: []string{" note ", "", "  ", "path"}},
			msg:  "<read_file><note>n</note><path>p</path></read_file>",
			want: []Block{{
				Type: ToolUse, Name: "read_file", Span: Span{0, 51},
				Params:     map[string]string{"note": "n", "path": "p"},
				ParamSpans: map[string]Span{"note": {17, 18}, "path": {31, 32}},
			}},
		},
		{
			name: "extra names are per Parser",
			cfg:  Config{},
			msg:  "<note>n</note>",
			want: []Block{{Type: Text, Content: "<note>n</note>", Partial: true, Span: Span{0, 14}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.cfg)
			assert.Equal(t, tt.want, p.Parse(tt.msg))
			s := p.NewStream()
			for i := range len(tt.msg) {
				s.Append(tt.msg[i : i+1])
			}
			assert.Equal(t, tt.want, s.Blocks(), "stream")
		})
	}
}
