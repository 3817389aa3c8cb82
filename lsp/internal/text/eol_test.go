package text

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLineEnding checks the dominant-style rule.
func TestLineEnding(t *testing.T) {
	tests := []struct{ content, want string }{
		{"", "\n"},
		{"no breaks", "\n"},
		{"a\nb\r\n", "\n"},
		{"a\r\nb\n", "\r\n"},
		{"a\rb", "\r"},
		{"a\r", "\r"},
		{"a\rb\r\n", "\r"},
		{"日本\r\n", "\r\n"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, LineEnding(tt.content), "%q", tt.content)
	}
}

// TestWithLineEnding checks that for \r\n only lone \n change, that for \r every break
// becomes \r, and that for \n nothing changes.
func TestWithLineEnding(t *testing.T) {
	tests := []struct{ text, eol, want string }{
		{"a\nb\n", "\r\n", "a\r\nb\r\n"},
		{"a\r\nb\n", "\r\n", "a\r\nb\r\n"},
		{"\n\n", "\r\n", "\r\n\r\n"},
		{"a\rb", "\r\n", "a\rb"},
		{"a\r\nb\n", "\n", "a\r\nb\n"},
		{"", "\r\n", ""},
		{"a\nb\r\nc", "\r", "a\rb\rc"},
		{"a\rb", "\r", "a\rb"},
		{"a\nb", "\n", "a\nb"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, WithLineEnding(tt.text, tt.eol), "%q %q", tt.text, tt.eol)
	}
}

// TestLoneCRToLF checks that only lone \r change and that offsets are kept.
func TestLoneCRToLF(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a\rb\r", "a\nb\n"},
		{"a\r\nb\r", "a\r\nb\n"},
		{"\r\r\n\r", "\n\r\n\n"},
		{"no breaks", "no breaks"},
	}
	for _, tt := range tests {
		got := LoneCRToLF(tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		assert.Len(t, got, len(tt.in))
	}
}

// TestLFOnly checks the loose form used to compare contents across line-break styles.
func TestLFOnly(t *testing.T) {
	assert.Equal(t, "a\nb\nc\n\n", LFOnly("a\r\nb\rc\n\r"))
	assert.Equal(t, "x", LFOnly("x"))
}
