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

// referenceReplace is Replace written with the Mapper over the whole content, the semantics the
// Rope must keep.
func referenceReplace(content string, start, end protocol.Position, enc protocol.PositionEncodingKind, text string) (string, bool) {
	m := NewMapper(content)
	s, e := m.Offset(start, enc), m.Offset(end, enc)
	if e < s {
		return content, false
	}
	return content[:s] + text + content[e:], true
}

// checkRope fails unless r holds want and keeps its chunk invariants.
func checkRope(t *testing.T, r *Rope, want string) {
	t.Helper()
	chunks := r.snapshot()
	var b strings.Builder
	for i, c := range chunks {
		require.NotEmpty(t, c.s, "chunk %d is empty", i)
		if i > 0 {
			require.True(t, canSplit(chunks[i-1].s, c.s), "chunk %d starts inside a rune or a \\r\\n", i)
		}
		require.Equal(t, newChunk(c.s), c, "chunk %d counts", i)
		b.WriteString(c.s)
	}
	require.Equal(t, want, b.String())
	require.Equal(t, len(want), r.Len())
	require.Equal(t, len(LFOnly(want)), r.lfLen)
	require.Equal(t, len(NewMapper(want).lineStarts), r.lines)
}

// randomPosition returns a position near or past the content's lines and line ends, so that
// clamping is exercised too.
func randomPosition(rng *rand.Rand, lines int) protocol.Position {
	line := rng.IntN(lines + 2)
	if rng.IntN(3) == 0 {
		line = lines - 1 - rng.IntN(min(lines, 3))
	}
	return protocol.Position{Line: uint32(max(0, line)), Character: uint32(rng.IntN(12))}
}

// TestRopeReplaceProperty checks random changes to documents of one and of many chunks against
// the Mapper: same content after every change, in every encoding, and the chunks stay well
// formed.
func TestRopeReplaceProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := []struct{ pieces, changes, docs int }{{10, 40, 300}, {40000, 150, 4}}
	for _, size := range sizes {
		for range size.docs {
			content := randomDocText(rng, rng.IntN(size.pieces))
			r := NewRope(content)
			checkRope(t, r, content)
			for i := range size.changes {
				enc := allPositionEncodings[rng.IntN(3)]
				lines := len(NewMapper(content).lineStarts)
				start, end := randomPosition(rng, lines), randomPosition(rng, lines)
				var text string
				switch rng.IntN(4) {
				case 0:
				case 1:
					text = randomDocText(rng, rng.IntN(size.pieces/4+2))
				default:
					text = randomDocText(rng, rng.IntN(3))
				}
				want, ok := referenceReplace(content, start, end, enc, text)
				next, edit, err := r.Replace(start, end, enc, text)
				if !ok {
					require.Error(t, err, "change %d", i)
					continue
				}
				require.NoError(t, err, "change %d", i)
				checkRope(t, next, want)
				require.Equal(t, want, Apply(content, []Edit{edit}), "the edit Replace reports, change %d", i)
				if i%7 == 0 {
					require.Equal(t, want, next.String())
					checkRope(t, next, want)
				}
				r, content = next, want
			}
		}
	}
}

// TestRopeReplaceJoinsAtBoundaries checks changes that would leave a \r\n or a rune across a
// chunk boundary.
func TestRopeReplaceJoinsAtBoundaries(t *testing.T) {
	line := strings.Repeat("x", 99) + "\r"
	content := strings.Repeat(line, 1000) // 100 kB of lone-\r lines: several chunks
	r := NewRope(content)
	require.Greater(t, len(r.snapshot()), 2)
	// Put a \n after every \r at the starts of the chunks 1..n-1, and an accent in front of them.
	want := content
	for i := 1; i < len(r.snapshot()); i++ {
		chunks := r.snapshot()
		off := 0
		for _, c := range chunks[:i] {
			off += len(c.s)
		}
		p, err := NewMapper(want).Position(off, protocol.PositionEncodingKindUTF8)
		require.NoError(t, err)
		next, _, err := r.Replace(p, p, protocol.PositionEncodingKindUTF8, "\n\u0301")
		require.NoError(t, err)
		want = want[:off] + "\n\u0301" + want[off:]
		checkRope(t, next, want)
		r = next
	}
}

// TestRopeEqual checks the comparisons that never build the content.
func TestRopeEqual(t *testing.T) {
	big := strings.Repeat("line one\r\nline two\n", 5000)
	tests := []struct {
		name, content, other string
		equal, equalLF       bool
	}{
		{"same", "a\r\nb", "a\r\nb", true, true},
		{"line breaks differ", "a\r\nb\rc", "a\nb\nc", false, true},
		{"text differs", "a\r\nb", "a\nc", false, false},
		{"empty", "", "", true, true},
		{"big same", big, big, true, true},
		{"big last byte", big, big[:len(big)-1] + "x", false, false},
		{"big lf", big, LFOnly(big), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRope(tt.content)
			assert.Equal(t, tt.equal, r.Equal(tt.other))
			assert.Equal(t, tt.equalLF, r.EqualLF(LFOnly(tt.other)))
		})
	}
}

// TestRopeStringShares checks that String keeps the chunks valid and holds the content once.
func TestRopeStringShares(t *testing.T) {
	content := strings.Repeat("日本語 text\n", 10000)
	r := NewRope(content + "tail")
	s := r.String()
	assert.Equal(t, content+"tail", s)
	chunks := r.snapshot()
	assert.True(t, utf8.ValidString(chunks[len(chunks)-1].s))
	assert.Equal(t, len(s), r.Len())
}

// TestRopeLongLines checks positions far along lines that span many chunks, where the walk
// skips whole chunks by their unit counts.
func TestRopeLongLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	noBreaks := strings.NewReplacer("\n", "", "\r", "")
	content := noBreaks.Replace(randomDocText(rng, 60000)) + "\r\n" + noBreaks.Replace(randomDocText(rng, 30000)) + "\r" + "tail"
	r := NewRope(content)
	require.Greater(t, len(r.snapshot()), 4)
	// Positions at, just before and just after the chunk boundaries of the first line.
	for _, enc := range allPositionEncodings {
		var cum int64
		for _, c := range r.snapshot() {
			if c.breaks > 0 {
				break
			}
			cum += c.units(enc)
			for _, ch := range []int64{cum - 1, cum, cum + 1} {
				p := protocol.Position{Character: uint32(ch)}
				want, _ := referenceReplace(content, p, p, enc, "|")
				got, _, err := r.Replace(p, p, enc, "|")
				require.NoError(t, err)
				require.Equal(t, want, got.String(), "enc %s character %d", enc, ch)
			}
		}
	}
	for i := range 300 {
		enc := allPositionEncodings[rng.IntN(3)]
		start := protocol.Position{Line: uint32(rng.IntN(3)), Character: uint32(rng.IntN(75000))}
		end := start
		if rng.IntN(2) == 0 {
			end.Character += uint32(rng.IntN(50))
		}
		text := randomDocText(rng, rng.IntN(3))
		want, ok := referenceReplace(content, start, end, enc, text)
		next, _, err := r.Replace(start, end, enc, text)
		require.Equal(t, ok, err == nil, "change %d", i)
		if !ok {
			continue
		}
		checkRope(t, next, want)
		r, content = next, want
	}
}
