package text

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Chunk sizes of a Rope. A change rebuilds the chunks it touches, so their size bounds the cost
// of a small change; their number bounds the cost of finding a line (a walk of the chunk
// headers) and of copying the header slice. 16 KiB gives 3,200 chunks for 50 MiB: both costs
// stay in the tens of microseconds.
const (
	chunkTarget = 16 << 10 // size the chunks of a rebuilt piece are cut to
	chunkMax    = 32 << 10 // a rebuilt piece longer than this is cut
	chunkMin    = 2 << 10  // a rebuilt piece shorter than this absorbs its right neighbour
)

// chunk is one piece of a Rope's content with its line-break counts.
type chunk struct {
	s      string
	breaks int // line breaks in s; a \r\n counts once (chunks never split one)
	crlf   int // \r\n pairs in s
	// Without line breaks, the chunk lies inside one line, and a position's walk along that
	// line skips it whole by its length in utf-16 and utf-32 units (utf-8: len(s)). So a change
	// in a document of very long lines (minified code) costs no walk of the line.
	units16, units32 int
}

func newChunk(s string) chunk {
	crlf := strings.Count(s, "\r\n")
	c := chunk{s: s, breaks: strings.Count(s, "\n") + strings.Count(s, "\r") - crlf, crlf: crlf}
	if c.breaks == 0 {
		for i := 0; i < len(s); {
			r, size := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
			c.units16 += runeUnits(r, size, protocol.PositionEncodingKindUTF16)
			c.units32++
			i += size
		}
	}
	return c
}

// units returns the chunk's length in units of enc; only meaningful when it has no line break.
func (c chunk) units(enc protocol.PositionEncodingKind) int64 {
	switch enc {
	case protocol.PositionEncodingKindUTF8:
		return int64(len(c.s))
	case protocol.PositionEncodingKindUTF32:
		return int64(c.units32)
	default:
		return int64(c.units16)
	}
}

// Rope is one version of a document's content, held in chunks so that a small change costs its
// own length plus one chunk and a walk of the chunk headers, not the length of the document.
//
// Positions follow exactly the Mapper's rules (line breaks \n, \r\n and \r; clamping past a
// line's end or the last line; rounding down inside a rune), so a Rope and a Mapper of the same
// content agree on every offset.
//
// A Rope is immutable: Replace returns a new Rope sharing the unchanged chunks. It is safe for
// concurrent use.
type Rope struct {
	n     int // length in bytes
	lfLen int // length of LFOnly(content)
	lines int // line count: line breaks + 1

	mu     sync.Mutex
	chunks []chunk // never split a \r\n or a valid UTF-8 sequence
	str    string  // the whole content once String built it
	built  bool
}

// NewRope returns the Rope of s. It costs a few fast passes over s and shares s's memory.
func NewRope(s string) *Rope {
	return newRope(cut(s, nil))
}

func newRope(chunks []chunk) *Rope {
	r := &Rope{chunks: chunks, lines: 1}
	for _, c := range chunks {
		r.n += len(c.s)
		r.lfLen += len(c.s) - c.crlf
		r.lines += c.breaks
	}
	return r
}

// Len returns the content's length in bytes.
func (r *Rope) Len() int { return r.n }

// String returns the whole content. The first call costs O(length) and the result is kept, so
// later calls are free; the chunks are re-pointed into it so the content is held only once.
func (r *Rope) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.built {
		return r.str
	}
	var b strings.Builder
	b.Grow(r.n)
	for _, c := range r.chunks {
		b.WriteString(c.s)
	}
	r.str, r.built = b.String(), true
	// A fresh header slice: callers of snapshot may still be reading the old one.
	repointed := make([]chunk, len(r.chunks))
	off := 0
	for i, c := range r.chunks {
		c.s = r.str[off : off+len(c.s)]
		repointed[i] = c
		off += len(c.s)
	}
	r.chunks = repointed
	return r.str
}

// Equal reports whether the content is s. A different length answers at once; otherwise the
// chunks are compared in place, stopping at the first difference, without building the content.
func (r *Rope) Equal(s string) bool {
	if len(s) != r.n {
		return false
	}
	off := 0
	for _, c := range r.snapshot() {
		if s[off:off+len(c.s)] != c.s {
			return false
		}
		off += len(c.s)
	}
	return true
}

// EqualLF reports whether LFOnly of the content is lf, which must itself be LF-only (LFOnly of
// some text). Like Equal it answers at once when the lengths differ and never builds the content.
func (r *Rope) EqualLF(lf string) bool {
	if len(lf) != r.lfLen {
		return false
	}
	j := 0
	for _, c := range r.snapshot() {
		s := c.s
		for i := 0; i < len(s); i++ {
			b := s[i]
			if b == '\r' {
				if i+1 < len(s) && s[i+1] == '\n' {
					continue
				}
				b = '\n'
			}
			if lf[j] != b {
				return false
			}
			j++
		}
	}
	return true
}

// snapshot returns the chunk headers. A header slice is never modified once published: String
// replaces it with one pointing into the built content.
func (r *Rope) snapshot() []chunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chunks
}

// Replace returns the Rope with the range [start, end) replaced by text, positions in enc
// converted with the Mapper's clamping, and the replacement as a byte edit of the content. It is
// an error if end lies before start.
func (r *Rope) Replace(start, end protocol.Position, enc protocol.PositionEncodingKind, text string) (*Rope, Edit, error) {
	chunks := r.snapshot()
	sk, so := r.locate(chunks, start, enc)
	ek, eo := r.locate(chunks, end, enc)
	if ek < sk || (ek == sk && eo < so) {
		return nil, Edit{}, fmt.Errorf("range end %d:%d is before its start %d:%d", end.Line, end.Character, start.Line, start.Character)
	}
	edit := Edit{Start: so, End: eo, NewText: text}
	for i, c := range chunks[:ek] {
		if i < sk {
			edit.Start += len(c.s)
		}
		edit.End += len(c.s)
	}
	// The piece to rebuild runs from the start of chunk lo to the end of chunk hi-1.
	lo, hi := sk, ek+1
	var piece string
	switch {
	case sk == len(chunks): // both at the end of the content
		piece, hi = text, sk
	case ek == len(chunks):
		piece, hi = chunks[sk].s[:so]+text, len(chunks)
	default:
		piece = chunks[sk].s[:so] + text + chunks[ek].s[eo:]
	}
	// Keep the chunk invariant at both ends of the piece, and keep chunks from getting tiny.
	// The right end goes first: absorbing on the right changes the start of an empty piece.
	for hi < len(chunks) && (len(piece) < chunkMin || !canSplit(piece, chunks[hi].s)) {
		piece += chunks[hi].s
		hi++
	}
	for lo > 0 && !canSplit(chunks[lo-1].s, piece) {
		lo--
		piece = chunks[lo].s + piece
	}
	out := make([]chunk, 0, len(chunks)-(hi-lo)+len(piece)/chunkTarget+1)
	out = append(out, chunks[:lo]...)
	out = cut(piece, out)
	out = append(out, chunks[hi:]...)
	return newRope(out), edit, nil
}

// canSplit reports whether a chunk boundary may lie between a and b: not inside a \r\n and not
// before a UTF-8 continuation byte, so no rune and no line break spans two chunks. An empty side
// is always fine: the neighbour beyond it decides.
func canSplit(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	return !(a[len(a)-1] == '\r' && b[0] == '\n') && utf8.RuneStart(b[0])
}

// cut appends s to out in chunks of about chunkTarget bytes, or one chunk if s is at most
// chunkMax long, cutting only where canSplit allows.
func cut(s string, out []chunk) []chunk {
	for len(s) > chunkMax {
		k := chunkTarget
		for k < len(s) && !canSplit(s[:k], s[k:]) {
			k++
		}
		out = append(out, newChunk(s[:k]))
		s = s[k:]
	}
	if s != "" {
		out = append(out, newChunk(s))
	}
	return out
}

// locate returns where position p lies, as a chunk index and an offset in that chunk; the end
// of the content is (len(chunks), 0). It follows Mapper.Offset's rules.
func (r *Rope) locate(chunks []chunk, p protocol.Position, enc protocol.PositionEncodingKind) (int, int) {
	if int64(p.Line) >= int64(r.lines) {
		return len(chunks), 0
	}
	// Find the chunk holding the start of line p.Line: just after its p.Line-th break.
	k, off := 0, 0
	if p.Line > 0 {
		need := int(p.Line)
		for ; k < len(chunks) && chunks[k].breaks < need; k++ {
			need -= chunks[k].breaks
		}
		s := chunks[k].s
		for {
			j := strings.IndexAny(s[off:], "\r\n")
			off += j + 1
			if s[off-1] == '\r' && off < len(s) && s[off] == '\n' {
				off++
			}
			if need--; need == 0 {
				break
			}
		}
		if off == len(s) {
			k, off = k+1, 0
		}
	}
	// Walk the line from its start until the character, the line's end or the content's end.
	want := int64(p.Character)
	var chars int64
	for k < len(chunks) {
		if off == 0 && chunks[k].breaks == 0 && chars+chunks[k].units(enc) <= want {
			chars += chunks[k].units(enc)
			k++
			continue
		}
		s := chunks[k].s
		for off < len(s) {
			if chars >= want || s[off] == '\n' || s[off] == '\r' {
				return k, off
			}
			r, size := utf8.DecodeRuneInString(s[off:])
			units := int64(runeUnits(r, size, enc))
			if chars+units > want {
				return k, off
			}
			chars += units
			off += size
		}
		k, off = k+1, 0
	}
	return len(chunks), 0
}
