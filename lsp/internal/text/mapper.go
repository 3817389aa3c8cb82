package text

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/internal/eol"
	"go.lsp.dev/protocol"
)

// Mapper converts between byte offsets into one document content and LSP positions in the
// utf-8, utf-16 and utf-32 encodings, with LSP line breaks (\n, \r\n, \r). It is the only place
// in the server that knows about position encodings.
//
// Units: in utf-8 a character is a byte, in utf-16 a UTF-16 code unit (2 for a rune above
// U+FFFF), in utf-32 a rune. Every byte that is not part of valid UTF-8 counts as one unit in
// every encoding (it stands for one U+FFFD, which is one code unit everywhere).
//
// Out-of-range and in-between input, chosen so that the server never fails on a client's
// slightly stale or sloppy position:
//   - offset: a character past the end of its line clamps to the line's end (before its line
//     break), as the LSP specification asks; a line past the last line clamps to the end of the
//     content; a character inside a rune (the middle of a surrogate pair in utf-16, the middle of a
//     multi-byte sequence in utf-8) rounds down to the rune's start.
//   - position: an offset inside a rune rounds down to the rune's start, and an offset between the
//     \r and the \n of a \r\n rounds down to the \r, so a position never splits either. Only a
//     negative offset or one past len(content) is an error.
//
// An encoding other than utf-8 and utf-32 (including "") is treated as utf-16, the LSP default
// that every client supports.
//
// A Mapper is immutable after NewMapper and safe for concurrent use.
type Mapper struct {
	content string
	// lineStarts holds the byte offset at which each line begins; lineStarts[0] is 0 and a
	// content ending in a line break has a last, empty line starting at len(content).
	lineStarts []int
}

// Content returns the content m maps.
func (m *Mapper) Content() string { return m.content }

// NewMapper indexes the line starts of content once, so that each later conversion costs a
// binary search plus a walk of one line.
func NewMapper(content string) *Mapper {
	if strings.IndexByte(content, '\r') >= 0 {
		return &Mapper{content: content, lineStarts: crlfStarts(content)}
	}
	// Without CR every break is one \n.
	return &Mapper{content: content, lineStarts: eol.LFStarts(content)}
}

// crlfStarts returns the line starts of content whose breaks may be \n, \r\n or a lone \r.
func crlfStarts(content string) []int {
	starts := make([]int, 1, strings.Count(content, "\n")+strings.Count(content, "\r")+1)
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(content) && content[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineEnd returns the offset of the end of line i (0 <= i < len(lineStarts)) before its line
// break, so that positions can never address the inside of a break.
func (m *Mapper) lineEnd(i int) int {
	if i+1 >= len(m.lineStarts) {
		return len(m.content)
	}
	next := m.lineStarts[i+1]
	if next-2 >= m.lineStarts[i] && m.content[next-2:next] == "\r\n" {
		return next - 2
	}
	return next - 1
}

// runeUnits reports how many units of enc the rune r, encoded in size bytes, occupies.
// An invalid byte (r == utf8.RuneError with size 1) counts as one unit, like the U+FFFD that
// replaces it.
func runeUnits(r rune, size int, enc protocol.PositionEncodingKind) int {
	switch enc {
	case protocol.PositionEncodingKindUTF8:
		return size
	case protocol.PositionEncodingKindUTF32:
		return 1
	default:
		if r >= 0x10000 {
			return 2
		}
		return 1
	}
}

// Position returns the position of byte offset off. An offset inside a rune or between \r and
// \n rounds down (see Mapper); an offset outside [0, len(content)] is an error.
func (m *Mapper) Position(off int, enc protocol.PositionEncodingKind) (protocol.Position, error) {
	if off < 0 || off > len(m.content) {
		return protocol.Position{}, fmt.Errorf("offset %d is outside the document (length %d)", off, len(m.content))
	}
	// The last line whose start is <= off.
	line := sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > off }) - 1
	start := m.lineStarts[line]
	if end := m.lineEnd(line); off > end {
		off = end
	}
	chars := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRuneInString(m.content[i:])
		if i+size > off {
			break
		}
		chars += runeUnits(r, size, enc)
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(chars)}, nil
}

// Offset returns the byte offset of p. Every position has one: positions past a line's end,
// past the last line or inside a rune are clamped or rounded down as described on Mapper.
func (m *Mapper) Offset(p protocol.Position, enc protocol.PositionEncodingKind) int {
	if int64(p.Line) >= int64(len(m.lineStarts)) {
		return len(m.content)
	}
	line := int(p.Line)
	i, end := m.lineStarts[line], m.lineEnd(line)
	want := int64(p.Character)
	var chars int64
	for i < end && chars < want {
		r, size := utf8.DecodeRuneInString(m.content[i:end])
		units := int64(runeUnits(r, size, enc))
		if chars+units > want {
			break
		}
		chars += units
		i += size
	}
	return i
}

// Range returns the range of bytes [start, end). It is an error if either offset is outside
// the content or end < start.
func (m *Mapper) Range(start, end int, enc protocol.PositionEncodingKind) (protocol.Range, error) {
	if end < start {
		return protocol.Range{}, fmt.Errorf("range end %d is before its start %d", end, start)
	}
	s, err := m.Position(start, enc)
	if err != nil {
		return protocol.Range{}, fmt.Errorf("range start: %w", err)
	}
	e, err := m.Position(end, enc)
	if err != nil {
		return protocol.Range{}, fmt.Errorf("range end: %w", err)
	}
	return protocol.Range{Start: s, End: e}, nil
}

// TextEdits converts edits of m's content to LSP text edits in enc.
//
// edits must be sorted and non-overlapping and lie within the content. An offset that no LSP
// position can name (inside a rune or between \r and \n) is widened to the nearest ones that can,
// carrying the covered bytes into NewText, so the text edits still produce exactly the same
// content; edits that touch after widening are merged.
func (m *Mapper) TextEdits(edits []Edit, enc protocol.PositionEncodingKind) ([]protocol.TextEdit, error) {
	// merged holds the edits before widening; an edit is merged into the previous one when their
	// widened ranges would overlap, so widening never has to split text between two edits.
	merged := make([]Edit, 0, len(edits))
	prevEnd := 0
	for i, e := range edits {
		if e.Start < prevEnd || e.End < e.Start || e.End > len(m.content) {
			return nil, fmt.Errorf("edit %d [%d, %d) is out of order or outside the document (length %d)", i, e.Start, e.End, len(m.content))
		}
		prevEnd = e.End
		if n := len(merged); n > 0 && m.roundUp(merged[n-1].End) > m.roundDown(e.Start) {
			last := merged[n-1]
			merged[n-1] = Edit{Start: last.Start, End: e.End, NewText: last.NewText + m.content[last.End:e.Start] + e.NewText}
			continue
		}
		merged = append(merged, e)
	}
	widened := make([]Edit, len(merged))
	for i, e := range merged {
		start, end := m.roundDown(e.Start), m.roundUp(e.End)
		widened[i] = Edit{Start: start, End: end, NewText: m.content[start:e.Start] + e.NewText + m.content[e.End:end]}
	}
	out := make([]protocol.TextEdit, 0, len(widened))
	for i, e := range widened {
		r, err := m.Range(e.Start, e.End, enc)
		if err != nil {
			return nil, fmt.Errorf("edit %d: %w", i, err)
		}
		out = append(out, protocol.TextEdit{Range: r, NewText: e.NewText})
	}
	return out, nil
}

// roundDown returns the largest offset <= off (0 <= off <= len) that a position names exactly.
func (m *Mapper) roundDown(off int) int {
	p, err := m.Position(off, protocol.PositionEncodingKindUTF8)
	if err != nil {
		return off
	}
	return m.Offset(p, protocol.PositionEncodingKindUTF8)
}

// roundUp returns the smallest offset >= off (0 <= off <= len) that a position names exactly.
// Such an offset is at most a rune (4 bytes) away, and len(content) always qualifies.
func (m *Mapper) roundUp(off int) int {
	for k := off; k < len(m.content); k++ {
		if m.roundDown(k) == k {
			return k
		}
	}
	return len(m.content)
}
