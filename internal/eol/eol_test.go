package eol

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToLFRestore(t *testing.T) {
	tests := []struct {
		in, lf string
		crlf   bool
	}{
		{"a\r\nb\r\n", "a\nb\n", true},
		{"a\r\nb", "a\nb", true},
		{"a\nb\r\n", "a\nb\r\n", false},
		{"a\nb\n", "a\nb\n", false},
		{"no line break\r", "no line break\r", false},
		{"", "", false},
	}
	for _, tt := range tests {
		lf, crlf := ToLF(tt.in)
		assert.Equal(t, tt.lf, lf, tt.in)
		assert.Equal(t, tt.crlf, crlf, tt.in)
		assert.Equal(t, tt.in, Restore(lf, crlf), tt.in)
	}
	assert.Equal(t, "x\r\ny\r\n", Restore("x\ny\r\n", true))
	assert.Equal(t, 4, Offset("a\nb\nc", 3, true))
	assert.Equal(t, 6, Offset("a\nb\nc", 4, true))
	assert.Equal(t, 3, Offset("a\nb\nc", 3, false))
}

func TestLFStarts(t *testing.T) {
	tests := []struct {
		s    string
		want []int
	}{
		{"", []int{0}},
		{"a", []int{0}},
		{"\n", []int{0, 1}},
		{"ab\ncd", []int{0, 3}},
		{"ab\ncd\n", []int{0, 3, 6}},
		{"\n\nx\r\n", []int{0, 1, 2, 5}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, LFStarts(tt.s), "%q", tt.s)
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name, in, lf, brk string
		offsets           map[int]int // LF offset → original offset
	}{
		{"empty", "", "", "\n", map[int]int{0: 0}},
		{"LF", "a\nb\n", "a\nb\n", "\n", map[int]int{2: 2, 4: 4}},
		{"CRLF", "a\r\nb\r\n", "a\nb\n", "\r\n", map[int]int{1: 1, 2: 3, 3: 4, 4: 6}},
		{"CR", "a\rb\r", "a\nb\n", "\r", map[int]int{2: 2, 4: 4}},
		{"mixed", "a\nb\r\nc\rd", "a\nb\nc\nd", "\n", map[int]int{2: 2, 3: 3, 4: 5, 6: 7, 7: 8}},
		{"CR first", "a\rb\r\nc", "a\nb\nc", "\r", map[int]int{2: 2, 4: 5}},
		{"CR at the end", "x\r", "x\n", "\r", map[int]int{2: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := NewText(tt.in)
			assert.Equal(t, tt.lf, doc.LF())
			assert.Equal(t, tt.in, doc.Original())
			assert.Equal(t, tt.brk, doc.Break())
			for lf, orig := range tt.offsets {
				assert.Equal(t, orig, doc.Offset(lf), "offset %d", lf)
			}
			assert.Equal(t, tt.in, doc.Apply(), "no edit")
			assert.Equal(t, tt.in, doc.Restore(doc.LF()), "nothing changed")
		})
	}
}

func TestTextApply(t *testing.T) {
	const mixed = "one\r\ntwo\nthree\rfour\r\n"
	doc := NewText(mixed)
	require.Equal(t, "one\ntwo\nthree\nfour\n", doc.LF())
	// The lines between edits keep their own breaks; written breaks take the first one's style.
	assert.Equal(t, "1\r\n1.5\r\ntwo\nthree\r4\r\n",
		doc.Apply(Edit{Start: 0, End: 3, New: "1\n1.5"}, Edit{Start: 14, End: 18, New: "4"}))
	// Restore does one region: the breaks inside it take the style.
	assert.Equal(t, "1\r\n1.5\r\ntwo\r\nthree\r\n4\r\n", doc.Restore("1\n1.5\ntwo\nthree\n4\n"))
	assert.Equal(t, "one\r\nthree\rfour\r\n", doc.Restore("one\nthree\nfour\n"), "a deleted line takes its break with it")
	for _, tt := range []struct{ brk, in, want string }{
		{"\n", "a\r\nb\nc", "a\r\nb\nc"},
		{"\r\n", "a\r\nb\nc", "a\r\nb\r\nc"},
		{"\r", "a\r\nb\nc", "a\rb\rc"},
	} {
		assert.Equal(t, tt.want, NewText("x"+tt.brk).Styled(tt.in), "%q", tt.brk)
	}
}
