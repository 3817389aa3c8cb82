package ecma

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

func TestTrim(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"ascii white space", " \t\n\v\f\rx \t\n\v\f\r", "x"},
		{"NBSP trimmed", "\u00a0x\u00a0", "x"},
		{"BOM trimmed", "\ufeffx\ufeff", "x"},
		{"ideographic space trimmed", "\u3000x\u3000", "x"},
		{"line separator trimmed", "\u2028x\u2028", "x"},
		{"paragraph separator trimmed", "\u2029x\u2029", "x"},
		{"Zs spaces trimmed", "\u1680\u2000\u200a\u202f\u205fx\u205f", "x"},
		{"NEL kept", "\u0085x\u0085", "\u0085x\u0085"},
		{"zero width space kept", "\u200bx\u200b", "\u200bx\u200b"},
		{"mongolian vowel separator kept", "\u180ex\u180e", "\u180ex\u180e"},
		{"information separators kept", "\x1cx\x1f", "\x1cx\x1f"},
		{"inner space kept", " a \u3000 b ", "a \u3000 b"},
		{"only spaces", " \u3000\ufeff\n", ""},
		{"invalid UTF-8 is not space", " \xff \xe3\x80 ", "\xff \xe3\x80"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Trim(tt.in))
		})
	}
}

// TestIsSpace pins IsSpace to its definition: the Unicode Zs category plus the ECMAScript
// WhiteSpace and LineTerminator code points outside it.
func TestIsSpace(t *testing.T) {
	extra := map[rune]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, 0xFEFF: true, 0x2028: true, 0x2029: true}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.Is(unicode.Zs, r) || extra[r]
		if IsSpace(r) != want {
			assert.Failf(t, "IsSpace disagrees", "IsSpace(%U) = %v, want %v", r, !want, want)
		}
	}
}

func TestTrimMatchesTrimFunc(t *testing.T) {
	for _, s := range []string{"\u00a0 a\u0085 ", "\ufeff\u3000", "a", "  \u2028b\u2029c\u200b "} {
		assert.Equal(t, strings.TrimFunc(s, IsSpace), Trim(s), "%q", s)
	}
}
