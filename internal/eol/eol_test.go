package eol

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
