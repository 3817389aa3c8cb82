package text

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

const (
	utf8Enc  = protocol.PositionEncodingKindUTF8
	utf16Enc = protocol.PositionEncodingKindUTF16
	utf32Enc = protocol.PositionEncodingKindUTF32
)

var allPositionEncodings = []protocol.PositionEncodingKind{utf8Enc, utf16Enc, utf32Enc}

// lspPos is shorthand for a protocol.Position in test tables.
func lspPos(line, char uint32) protocol.Position {
	return protocol.Position{Line: line, Character: char}
}

// TestMapperPosition checks offset → position in every encoding, one table row per (content,
// offset) with the expected position in utf-8, utf-16 and utf-32.
func TestMapperPosition(t *testing.T) {
	// "日" is 3 bytes, 1 utf-16 unit, 1 rune; "😀" is 4 bytes, 2 utf-16 units, 1 rune.
	tests := []struct {
		name                  string
		content               string
		off                   int
		want8, want16, want32 protocol.Position
	}{
		{"empty doc", "", 0, lspPos(0, 0), lspPos(0, 0), lspPos(0, 0)},
		{"ascii start", "abc\ndef", 0, lspPos(0, 0), lspPos(0, 0), lspPos(0, 0)},
		{"ascii mid", "abc\ndef", 2, lspPos(0, 2), lspPos(0, 2), lspPos(0, 2)},
		{"ascii line end", "abc\ndef", 3, lspPos(0, 3), lspPos(0, 3), lspPos(0, 3)},
		{"ascii second line", "abc\ndef", 5, lspPos(1, 1), lspPos(1, 1), lspPos(1, 1)},
		{"last line without newline end", "abc\ndef", 7, lspPos(1, 3), lspPos(1, 3), lspPos(1, 3)},
		{"trailing newline end", "abc\n", 4, lspPos(1, 0), lspPos(1, 0), lspPos(1, 0)},
		{"japanese after one rune", "日本語", 3, lspPos(0, 3), lspPos(0, 1), lspPos(0, 1)},
		{"japanese end", "日本語", 9, lspPos(0, 9), lspPos(0, 3), lspPos(0, 3)},
		{"japanese inside rune rounds down", "日本語", 4, lspPos(0, 3), lspPos(0, 1), lspPos(0, 1)},
		{"emoji after", "a😀b", 5, lspPos(0, 5), lspPos(0, 3), lspPos(0, 2)},
		{"emoji inside rounds down", "a😀b", 3, lspPos(0, 1), lspPos(0, 1), lspPos(0, 1)},
		{"emoji end", "a😀b", 6, lspPos(0, 6), lspPos(0, 4), lspPos(0, 3)},
		{"crlf second line", "ab\r\ncd", 4, lspPos(1, 0), lspPos(1, 0), lspPos(1, 0)},
		{"crlf before cr", "ab\r\ncd", 2, lspPos(0, 2), lspPos(0, 2), lspPos(0, 2)},
		{"crlf between cr and lf rounds down", "ab\r\ncd", 3, lspPos(0, 2), lspPos(0, 2), lspPos(0, 2)},
		{"lone cr", "ab\rcd", 3, lspPos(1, 0), lspPos(1, 0), lspPos(1, 0)},
		{"lf cr is two breaks", "a\n\rb", 3, lspPos(2, 0), lspPos(2, 0), lspPos(2, 0)},
		{"cr cr is two breaks", "a\r\rb", 2, lspPos(1, 0), lspPos(1, 0), lspPos(1, 0)},
		{"japanese on crlf line", "x\r\n日😀\r\n", 10, lspPos(1, 7), lspPos(1, 3), lspPos(1, 2)},
		{"invalid byte is one unit", "\xffa", 1, lspPos(0, 1), lspPos(0, 1), lspPos(0, 1)},
		{"truncated rune is one unit per byte", "\xe6\x97a", 2, lspPos(0, 2), lspPos(0, 2), lspPos(0, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMapper(tt.content)
			for enc, want := range map[protocol.PositionEncodingKind]protocol.Position{utf8Enc: tt.want8, utf16Enc: tt.want16, utf32Enc: tt.want32} {
				got, err := m.Position(tt.off, enc)
				require.NoError(t, err, enc)
				assert.Equal(t, want, got, enc)
			}
		})
	}
}

// TestMapperOffset checks position → offset in every encoding, including the clamping contract.
func TestMapperOffset(t *testing.T) {
	tests := []struct {
		name    string
		content string
		enc     protocol.PositionEncodingKind
		p       protocol.Position
		want    int
	}{
		{"empty doc", "", utf16Enc, lspPos(0, 0), 0},
		{"empty doc past end", "", utf16Enc, lspPos(3, 7), 0},
		{"ascii", "abc\ndef", utf16Enc, lspPos(1, 2), 6},
		{"char past line end clamps to line end", "abc\ndef", utf16Enc, lspPos(0, 99), 3},
		{"line past last clamps to content end", "abc\ndef", utf16Enc, lspPos(5, 0), 7},
		{"last line without newline clamps", "abc\ndef", utf32Enc, lspPos(1, 99), 7},
		{"trailing newline empty last line", "abc\n", utf16Enc, lspPos(1, 0), 4},
		{"utf8 japanese", "日本語", utf8Enc, lspPos(0, 6), 6},
		{"utf8 inside rune rounds down", "日本語", utf8Enc, lspPos(0, 4), 3},
		{"utf16 japanese", "日本語", utf16Enc, lspPos(0, 2), 6},
		{"utf32 japanese", "日本語", utf32Enc, lspPos(0, 2), 6},
		{"utf16 after emoji", "a😀b", utf16Enc, lspPos(0, 3), 5},
		{"utf16 inside surrogate pair rounds down", "a😀b", utf16Enc, lspPos(0, 2), 1},
		{"utf32 after emoji", "a😀b", utf32Enc, lspPos(0, 2), 5},
		{"utf8 after emoji", "a😀b", utf8Enc, lspPos(0, 5), 5},
		{"crlf clamps before cr", "ab\r\ncd", utf16Enc, lspPos(0, 3), 2},
		{"crlf second line", "ab\r\ncd", utf16Enc, lspPos(1, 1), 5},
		{"lone cr second line", "ab\rcd", utf16Enc, lspPos(1, 1), 4},
		{"lone cr clamps before cr", "ab\rcd", utf16Enc, lspPos(0, 9), 2},
		{"empty line between crlfs", "a\r\n\r\nb", utf16Enc, lspPos(1, 5), 3},
		{"invalid bytes count one each", "\xff\xfeab", utf16Enc, lspPos(0, 3), 3},
		{"empty encoding is utf16", "a😀b", "", lspPos(0, 3), 5},
		{"max line", "abc", utf16Enc, lspPos(^uint32(0), ^uint32(0)), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, NewMapper(tt.content).Offset(tt.p, tt.enc))
		})
	}
}

// TestMapperErrors checks that offsets outside the content are rejected.
func TestMapperErrors(t *testing.T) {
	m := NewMapper("abc")
	for _, off := range []int{-1, 4, 1 << 40} {
		_, err := m.Position(off, utf16Enc)
		assert.Error(t, err, off)
	}
	_, err := m.Range(2, 1, utf16Enc)
	assert.ErrorContains(t, err, "before its start")
	_, err = m.Range(0, 9, utf16Enc)
	assert.ErrorContains(t, err, "range end")
	_, err = m.Range(-1, 1, utf16Enc)
	assert.ErrorContains(t, err, "range start")
}

// TestMapperRangeOf checks a range spanning lines and encodings.
func TestMapperRangeOf(t *testing.T) {
	m := NewMapper("a😀\r\nb日c")
	got, err := m.Range(1, 11, utf16Enc)
	require.NoError(t, err)
	assert.Equal(t, protocol.Range{Start: lspPos(0, 1), End: lspPos(1, 2)}, got)
	got, err = m.Range(1, 11, utf8Enc)
	require.NoError(t, err)
	assert.Equal(t, protocol.Range{Start: lspPos(0, 1), End: lspPos(1, 4)}, got)
}

// randomDocText returns a random string built from pieces that exercise every encoding and line
// break rule: ASCII, Japanese, astral emoji, \n, \r\n, lone \r and invalid UTF-8.
func randomDocText(rng *rand.Rand, n int) string {
	pieces := []string{"a", "b", "xyz", " ", "日", "本語", "😀", "🎉", "\n", "\r\n", "\r", "\xff", "é"}
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// TestMapperRoundTripProperty checks offset(position(off)) == off for every offset that is a
// rune boundary and not inside a \r\n, in every encoding, and that the other offsets round down.
func TestMapperRoundTripProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 500 {
		content := randomDocText(rng, rng.IntN(30))
		m := NewMapper(content)
		for _, enc := range allPositionEncodings {
			for off := 0; off <= len(content); off++ {
				p, err := m.Position(off, enc)
				require.NoError(t, err)
				back := m.Offset(p, enc)
				want := off
				for want > 0 && want < len(content) && !utf8.RuneStart(content[want]) && validRuneAround(content, want) {
					want--
				}
				if want > 0 && want < len(content) && content[want-1] == '\r' && content[want] == '\n' {
					want--
				}
				require.Equal(t, want, back, "iter %d enc %s content %q off %d pos %v", iter, enc, content, off, p)
			}
		}
	}
}

// validRuneAround reports whether offset off lies inside a valid multi-byte rune of s, i.e.
// whether some rune starting before off decodes validly past off.
func validRuneAround(s string, off int) bool {
	for start := off - 1; start >= 0 && start >= off-3; start-- {
		if utf8.RuneStart(s[start]) {
			r, size := utf8.DecodeRuneInString(s[start:])
			return r != utf8.RuneError && start+size > off
		}
	}
	return false
}

// TestMapperLineStartsProperty checks the line starts of texts without CR, found a line at a
// time, against the byte-by-byte scan that texts with CR take.
func TestMapperLineStartsProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		content := strings.ReplaceAll(randomDocText(rng, rng.IntN(30)), "\r", "")
		require.Equal(t, crlfStarts(content), NewMapper(content).lineStarts, "content %q", content)
	}
}
