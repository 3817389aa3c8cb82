package text

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// referenceApply is the applier's final-mode algorithm, written independently of edits.go: copy
// the original up to each replacement's Start (if ahead of pos), emit its Content, move pos to its
// End (even backwards); offsets are clamped to the content.
func referenceApply(original string, reps []Edit) string {
	clamp := func(off int) int { return max(0, min(off, len(original))) }
	out, pos := "", 0
	for _, r := range reps {
		if start := clamp(r.Start); start > pos {
			out += original[pos:start]
		}
		out += r.NewText
		pos = clamp(r.End)
	}
	if pos < len(original) {
		out += original[pos:]
	}
	return out
}

// TestReplacementEdits checks the merged, shrunk edits for hand-picked replacement sets.
func TestReplacementEdits(t *testing.T) {
	tests := []struct {
		name     string
		original string
		reps     []Edit
		want     []Edit
	}{
		{"none", "abc", nil, []Edit{}},
		{"one line", "a\nb\nc\n", []Edit{{Start: 2, End: 4, NewText: "B\n"}}, []Edit{{2, 4, "B\n"}}},
		{"whole content shrinks to changed line", "a\nb\nc\n", []Edit{{Start: 0, End: 6, NewText: "a\nB\nc\n"}}, []Edit{{2, 4, "B\n"}}},
		{"crlf shrinks at line starts only", "a\r\nb\r\n", []Edit{{Start: 0, End: 6, NewText: "a\r\nB\r\n"}}, []Edit{{3, 6, "B\r\n"}}},
		{"partial line kept as is", "foo bar\n", []Edit{{Start: 0, End: 7, NewText: "foo baz"}}, []Edit{{0, 7, "foo baz"}}},
		{"overlapping merge", "abcdef", []Edit{{Start: 0, End: 3, NewText: "X"}, {Start: 1, End: 4, NewText: "Y"}}, []Edit{{0, 4, "XY"}}},
		{"touching merge", "abcdef", []Edit{{Start: 0, End: 2, NewText: "X"}, {Start: 2, End: 4, NewText: "Y"}}, []Edit{{0, 4, "XY"}}},
		{"separate", "abcdef", []Edit{{Start: 0, End: 1, NewText: "X"}, {Start: 3, End: 4, NewText: "Y"}}, []Edit{{0, 1, "X"}, {3, 4, "Y"}}},
		{"backwards duplicates text", "abcdef", []Edit{{Start: 4, End: 1, NewText: "Z"}}, []Edit{{4, 4, "Zbcd"}}},
		{"duplicated replacement", "abc", []Edit{{Start: 1, End: 2, NewText: "X"}, {Start: 1, End: 2, NewText: "X"}}, []Edit{{1, 2, "XX"}}},
		{"end one past content", "abc", []Edit{{Start: 3, End: 4, NewText: "Z"}}, []Edit{{3, 3, "Z"}}},
		{"no-op dropped", "abc", []Edit{{Start: 1, End: 2, NewText: "b"}}, []Edit{}},
		{"delete", "a\nb\nc\n", []Edit{{Start: 2, End: 4, NewText: ""}}, []Edit{{2, 4, ""}}},
		{"japanese line", "日本\n語\n", []Edit{{Start: 0, End: 11, NewText: "日本\n😀\n"}}, []Edit{{7, 11, "😀\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReplacementEdits(tt.original, tt.reps)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, referenceApply(tt.original, tt.reps), Apply(tt.original, got))
		})
	}
}

// randomReplacements returns up to 5 replacements of a content of length n, sorted stably by
// Start as the applier does, including overlapping, backwards, duplicated, empty and
// past-the-end ones.
func randomReplacements(rng *rand.Rand, n int) []Edit {
	reps := make([]Edit, rng.IntN(6))
	for i := range reps {
		start := rng.IntN(n + 2)
		end := start + rng.IntN(6) - 1
		if rng.IntN(8) == 0 {
			end = rng.IntN(n + 2)
		}
		reps[i] = Edit{Start: start, End: end, NewText: randomDocText(rng, rng.IntN(4))}
		if i > 0 && rng.IntN(6) == 0 {
			reps[i] = reps[i-1]
		}
	}
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].Start < reps[j].Start })
	return reps
}

// checkWellFormed fails unless edits are sorted, non-overlapping, within original and each
// changes something.
func checkWellFormed(t *testing.T, original string, edits []Edit) {
	t.Helper()
	prev := 0
	for _, e := range edits {
		require.LessOrEqual(t, prev, e.Start, "edits overlap or are unsorted: %v", edits)
		require.LessOrEqual(t, e.Start, e.End, "%v", edits)
		require.LessOrEqual(t, e.End, len(original), "%v", edits)
		require.NotEqual(t, original[e.Start:e.End], e.NewText, "edit changes nothing: %v", edits)
		prev = e.End
	}
}

// TestReplacementEditsProperty checks that the edits reproduce the applier's output exactly.
func TestReplacementEditsProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 3000 {
		original := randomDocText(rng, rng.IntN(25))
		reps := randomReplacements(rng, len(original))
		edits := ReplacementEdits(original, reps)
		checkWellFormed(t, original, edits)
		require.Equal(t, referenceApply(original, reps), Apply(original, edits), "iter %d original %q reps %+v edits %+v", iter, original, reps, edits)
	}
}

// TestContentEdits checks hand-picked diffs.
func TestContentEdits(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []Edit
	}{
		{"equal", "a\nb\n", "a\nb\n", nil},
		{"one line", "a\nb\nc\n", "a\nB\nc\n", []Edit{{2, 4, "B\n"}}},
		{"insert line", "a\nc\n", "a\nb\nc\n", []Edit{{2, 2, "b\n"}}},
		{"add trailing newline", "a\nb", "a\nb\n", []Edit{{2, 3, "b\n"}}},
		{"crlf line", "a\r\nb\r\n", "a\r\nX\r\n", []Edit{{3, 6, "X\r\n"}}},
		{"cr line", "a\rb\rc\r", "a\rX\rc\r", []Edit{{2, 4, "X\r"}}},
		{"cr insert", "a\rc\r", "a\rb\rc\r", []Edit{{2, 2, "b\r"}}},
		{"from empty", "", "x\n", []Edit{{0, 0, "x\n"}}},
		{"to empty", "x\n", "", []Edit{{0, 2, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.old, tt.new)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.new, Apply(tt.old, got))
		})
	}
}

// TestDiffWholeContentCopiesNothing checks that a new file, or a file emptied, is one edit
// whose text is the new content itself, and applying it costs no copy: a write_to_file of a new
// file of 32 MiB cost its server hundreds of megabytes in line splits (issue 16, item 14).
func TestDiffWholeContentCopiesNothing(t *testing.T) {
	content := strings.Repeat("line of text\n", 1<<16)
	var edits []Edit
	allocs := testing.AllocsPerRun(5, func() { edits = Diff("", content) })
	assert.LessOrEqual(t, allocs, 1.0)
	require.Equal(t, []Edit{{0, 0, content}}, edits)
	assert.Equal(t, unsafe.StringData(content), unsafe.StringData(Apply("", edits)))
	assert.Equal(t, []Edit{{0, len(content), ""}}, Diff(content, ""))
}

// TestContentEditsProperty checks Apply(old, Diff(old, new)) == new, with new
// derived from old by line changes so the diff has common lines to find.
func TestContentEditsProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 2000 {
		old := randomDocText(rng, rng.IntN(30))
		var new string
		if rng.IntN(3) == 0 {
			new = randomDocText(rng, rng.IntN(30))
		} else {
			lines := strings.SplitAfter(old, "\n")
			for i := range lines {
				switch rng.IntN(5) {
				case 0:
					lines[i] = randomDocText(rng, rng.IntN(4))
				case 1:
					lines[i] += randomDocText(rng, 2) + "\r\n"
				}
			}
			new = strings.Join(lines, "")
		}
		if iter%4 == 0 { // CR-only documents, split at \r
			old, new = WithLineEnding(LFOnly(old), "\r"), WithLineEnding(LFOnly(new), "\r")
		}
		edits := Diff(old, new)
		checkWellFormed(t, old, edits)
		require.Equal(t, new, Apply(old, edits), "iter %d old %q new %q edits %+v", iter, old, new, edits)
		for _, e := range edits {
			require.True(t, isLineStart(old, e.Start) && (isLineStart(old, e.End) || e.End == len(old)), "iter %d: edit %+v of %q is not a line edit", iter, e, old)
		}
	}
}

// TestApplyEdits checks plain application and that malformed edits do not panic.
func TestApplyEdits(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		edits []Edit
		want  string
	}{
		{"none", "abc", nil, "abc"},
		{"several", "abcdef", []Edit{{0, 1, "X"}, {2, 2, "+"}, {4, 6, ""}}, "Xb+cd"},
		{"at end", "abc", []Edit{{3, 3, "!"}}, "abc!"},
		{"out of range clamps", "abc", []Edit{{-5, 1, "X"}, {2, 99, "Y"}}, "XbY"},
		{"overlap starts at previous end", "abcdef", []Edit{{0, 3, "X"}, {1, 4, "Y"}}, "XYef"},
		{"end before start", "abc", []Edit{{2, 1, "X"}}, "abXc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Apply(tt.s, tt.edits))
		})
	}
}

// testOffset converts p to a byte offset of text by walking the text itself (independently of
// mapper). It fails unless p names an exact character boundary within its line, because the
// server's text edits must never rely on a client's clamping.
func testOffset(text string, p protocol.Position, enc protocol.PositionEncodingKind) (int, error) {
	i := 0
	for line := uint32(0); line < p.Line; line++ {
		j := strings.IndexAny(text[i:], "\r\n")
		if j < 0 {
			return 0, fmt.Errorf("line %d does not exist", p.Line)
		}
		i += j + 1
		if text[i-1] == '\r' && i < len(text) && text[i] == '\n' {
			i++
		}
	}
	units := uint32(0)
	for units < p.Character {
		if i >= len(text) || text[i] == '\n' || text[i] == '\r' {
			return 0, fmt.Errorf("character %d is past the end of line %d", p.Character, p.Line)
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch enc {
		case protocol.PositionEncodingKindUTF8:
			units += uint32(size)
		case protocol.PositionEncodingKindUTF32:
			units++
		default:
			units += uint32(len(utf16.Encode([]rune{r})))
		}
		i += size
	}
	if units != p.Character {
		return 0, fmt.Errorf("character %d of line %d is inside a character", p.Character, p.Line)
	}
	return i, nil
}

// testApplyTextEdits applies LSP text edits to text the way a client does: all ranges refer to
// the original text, converted by testOffset.
func testApplyTextEdits(text string, edits []protocol.TextEdit, enc protocol.PositionEncodingKind) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		start, err := testOffset(text, e.Range.Start, enc)
		if err != nil {
			return "", err
		}
		end, err := testOffset(text, e.Range.End, enc)
		if err != nil {
			return "", err
		}
		if end < start {
			return "", fmt.Errorf("range %v is reversed", e.Range)
		}
		spans = append(spans, span{start, end, e.NewText})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s.start < pos {
			return "", fmt.Errorf("text edits overlap at offset %d", s.start)
		}
		b.WriteString(text[pos:s.start])
		b.WriteString(s.text)
		pos = s.end
	}
	b.WriteString(text[pos:])
	return b.String(), nil
}

// TestTextEdits checks conversion of hand-picked edits, including widening of offsets that no
// position can name.
func TestTextEdits(t *testing.T) {
	rng := func(sl, sc, el, ec uint32) protocol.Range {
		return protocol.Range{Start: lspPos(sl, sc), End: lspPos(el, ec)}
	}
	tests := []struct {
		name    string
		content string
		edits   []Edit
		enc     protocol.PositionEncodingKind
		want    []protocol.TextEdit
	}{
		{"utf16 after emoji", "😀a\r\nb", []Edit{{4, 5, "X"}}, utf16Enc, []protocol.TextEdit{{Range: rng(0, 2, 0, 3), NewText: "X"}}},
		{"utf32 after emoji", "😀a\r\nb", []Edit{{4, 5, "X"}}, utf32Enc, []protocol.TextEdit{{Range: rng(0, 1, 0, 2), NewText: "X"}}},
		{"utf8 second line", "😀a\r\nb", []Edit{{7, 8, "Y"}}, utf8Enc, []protocol.TextEdit{{Range: rng(1, 0, 1, 1), NewText: "Y"}}},
		{"inside crlf widens", "a\r\nb", []Edit{{2, 2, "X"}}, utf16Enc, []protocol.TextEdit{{Range: rng(0, 1, 1, 0), NewText: "\rX\n"}}},
		{"inside rune widens", "日本", []Edit{{1, 4, "X"}}, utf16Enc, []protocol.TextEdit{{Range: rng(0, 0, 0, 2), NewText: "\xe6X\x9c\xac"}}},
		{"widened neighbours merge", "日本", []Edit{{1, 1, "X"}, {2, 2, "Y"}}, utf32Enc, []protocol.TextEdit{{Range: rng(0, 0, 0, 1), NewText: "\xe6X\x97Y\xa5"}}},
		{"none", "abc", nil, utf16Enc, []protocol.TextEdit{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewMapper(tt.content).TextEdits(tt.edits, tt.enc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestTextEditsErrors checks that malformed byte edits are refused.
func TestTextEditsErrors(t *testing.T) {
	m := NewMapper("abc")
	for _, edits := range [][]Edit{{{2, 1, ""}}, {{0, 4, ""}}, {{-1, 1, ""}}, {{1, 2, ""}, {0, 1, ""}}} {
		_, err := m.TextEdits(edits, utf16Enc)
		assert.Error(t, err, "%v", edits)
	}
}

// randomByteEdits returns sorted, non-overlapping edits of a content of length n at arbitrary
// byte offsets, including ones inside runes and inside \r\n.
func randomByteEdits(rng *rand.Rand, n int) []Edit {
	offs := make([]int, 2*rng.IntN(4))
	for i := range offs {
		offs[i] = rng.IntN(n + 1)
	}
	slices.Sort(offs)
	edits := make([]Edit, 0, len(offs)/2)
	for i := 0; i < len(offs); i += 2 {
		edits = append(edits, Edit{Start: offs[i], End: offs[i+1], NewText: randomDocText(rng, rng.IntN(3))})
	}
	return edits
}

// TestTextEditsProperty is the end-to-end property: for every encoding and for LF, CRLF and
// mixed originals with Japanese and emoji text, byte edits (from replacements, from a content
// diff, and at arbitrary offsets) converted by textEdits and applied by position with an
// independent applier give exactly the intended content.
func TestTextEditsProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	styles := map[string]func(string) string{
		"lf": func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n") },
		"crlf": func(s string) string {
			return WithLineEnding(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"), "\r\n")
		},
		"mixed": func(s string) string { return s },
	}
	for name, style := range styles {
		for _, enc := range allPositionEncodings {
			t.Run(fmt.Sprintf("%s/%s", name, enc), func(t *testing.T) {
				for iter := range 700 {
					original := style(randomDocText(rng, rng.IntN(25)))
					var edits []Edit
					switch iter % 3 {
					case 0:
						edits = ReplacementEdits(original, randomReplacements(rng, len(original)))
					case 1:
						edits = Diff(original, style(randomDocText(rng, rng.IntN(25))))
					default:
						edits = randomByteEdits(rng, len(original))
					}
					want := Apply(original, edits)
					textEdits, err := NewMapper(original).TextEdits(edits, enc)
					require.NoError(t, err)
					got, err := testApplyTextEdits(original, textEdits, enc)
					require.NoError(t, err, "original %q edits %+v text edits %+v", original, edits, textEdits)
					require.Equal(t, want, got, "original %q edits %+v text edits %+v", original, edits, textEdits)
				}
			})
		}
	}
}

// TestKeepBOM checks that a file's BOM survives a rewrite and is never doubled.
func TestKeepBOM(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"\uFEFFold", "new", "\uFEFFnew"},
		{"\uFEFFold", "\uFEFFnew", "\uFEFFnew"},
		{"old", "new", "new"},
		{"old", "\uFEFFnew", "\uFEFFnew"},
		{"\uFEFF", "", "\uFEFF"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, KeepBOM(tt.old, tt.new), "%q %q", tt.old, tt.new)
	}
}
