package text

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// FuzzRopeReplace applies one change to a content of several chunks and compares with the
// Mapper over the whole content: same result or the same refusal, and well-formed chunks.
func FuzzRopeReplace(f *testing.F) {
	f.Add("a\r\nb\rc\n日本😀\xff", uint32(1), uint32(0), uint32(2), uint32(1), "X\r", uint8(1), uint16(300))
	f.Fuzz(func(t *testing.T, unit string, sl, sc, el, ec uint32, text string, enc uint8, copies uint16) {
		if len(unit) == 0 || len(unit)*int(copies) > 1<<20 {
			return
		}
		content := ""
		for range copies {
			content += unit
		}
		e := []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16, protocol.PositionEncodingKindUTF32}[enc%3]
		start, end := protocol.Position{Line: sl, Character: sc}, protocol.Position{Line: el, Character: ec}
		want, ok := referenceReplace(content, start, end, e, text)
		got, edit, err := NewRope(content).Replace(start, end, e, text)
		if !ok {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		checkRope(t, got, want)
		require.Equal(t, want, Apply(content, []Edit{edit}), "the edit Replace reports")
	})
}
