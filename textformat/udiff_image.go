package textformat

import (
	"slices"
	"sort"
	"strings"

	"github.com/assistant-ls/assistant-ls/internal/eol"
)

// image is a file's content as lines while a diff's hunks are applied to it one after the
// other: pieces (runs of original lines, and the lines hunks wrote) make up its first lines,
// the original lines from cur on follow. A hunk costs about its own lines, wherever it goes.
type image struct {
	src    string
	starts []int // eol.LFStarts(src)
	n0     int   // original lines
	cur    int
	pieces []piece
	outLen int // lines in pieces
	size   int // the content's length in bytes
}

// piece is n image lines from line start: original lines from orig, or, when lines is not
// nil, lines a hunk wrote.
type piece struct {
	start, n int
	orig     int
	lines    []string
}

func newImage(src string) *image {
	starts := eol.LFStarts(src)
	n0 := len(starts)
	if starts[n0-1] == len(src) {
		n0--
	}
	return &image{src: src, starts: starts, n0: n0, size: len(src)}
}

func (im *image) len() int { return im.outLen + im.n0 - im.cur }

// origEnd is the offset after original line k-1: where line k starts, or the content's end.
func (im *image) origEnd(k int) int {
	if k < len(im.starts) {
		return im.starts[k]
	}
	return len(im.src)
}

// origLine returns original line k with its line break.
func (im *image) origLine(k int) string { return im.src[im.starts[k]:im.origEnd(k+1)] }

// piece returns the index of the piece holding image line i < outLen.
func (im *image) piece(i int) int {
	return sort.Search(len(im.pieces), func(k int) bool { return im.pieces[k].start+im.pieces[k].n > i })
}

// at returns image line i.
func (im *image) at(i int) string {
	if i >= im.outLen {
		return im.origLine(im.cur + i - im.outLen)
	}
	p := &im.pieces[im.piece(i)]
	if p.lines != nil {
		return p.lines[i-p.start]
	}
	return im.origLine(p.orig + i - p.start)
}

// orig returns the original line image line i is, or -1 for a line a hunk wrote.
func (im *image) orig(i int) int {
	if i >= im.outLen {
		return im.cur + i - im.outLen
	}
	p := &im.pieces[im.piece(i)]
	if p.lines != nil {
		return -1
	}
	return p.orig + i - p.start
}

// offset is the byte offset in the original content of image line i, or of the first original
// line after it when a hunk wrote it; len(src) past the last.
func (im *image) offset(i int) int {
	if i < im.outLen {
		for k := im.piece(i); k < len(im.pieces); k++ {
			if p := im.pieces[k]; p.lines == nil {
				return im.starts[p.orig+max(0, i-p.start)]
			}
		}
		i = im.outLen
	}
	return im.origEnd(im.cur + i - im.outLen)
}

// replace puts post in place of the m image lines from at.
func (im *image) replace(at, m int, post []string) {
	if n := at + m - im.outLen; n > 0 { // take the original lines up to the end of the range
		if k := len(im.pieces) - 1; k >= 0 && im.pieces[k].lines == nil && im.pieces[k].orig+im.pieces[k].n == im.cur {
			im.pieces[k].n += n
		} else {
			im.pieces = append(im.pieces, piece{start: im.outLen, n: n, orig: im.cur})
		}
		im.cur += n
		im.outLen += n
	}
	a, b := im.split(at), im.split(at+m)
	for _, p := range im.pieces[a:b] {
		im.size -= im.origEnd(p.orig+p.n) - im.starts[p.orig] // only original lines are replaced
	}
	for _, l := range post {
		im.size += len(l)
	}
	im.pieces = slices.Replace(im.pieces, a, b, piece{start: at, n: len(post), lines: post})
	if len(post) == 0 {
		im.pieces = slices.Delete(im.pieces, a, a+1)
	}
	for k := a; k < len(im.pieces); k++ {
		im.pieces[k].start = 0
		if k > 0 {
			im.pieces[k].start = im.pieces[k-1].start + im.pieces[k-1].n
		}
	}
	im.outLen += len(post) - m
}

// split makes image line i <= outLen start a piece, and returns that piece's index.
func (im *image) split(i int) int {
	if i == im.outLen {
		return len(im.pieces)
	}
	k := im.piece(i)
	p := im.pieces[k]
	if p.start == i {
		return k
	}
	d := i - p.start
	first, second := p, p
	first.n, second.start, second.n = d, i, p.n-d
	if p.lines != nil {
		first.lines, second.lines = p.lines[:d], p.lines[d:]
	} else {
		second.orig += d
	}
	im.pieces = slices.Insert(im.pieces, k+1, second)
	im.pieces[k] = first
	return k + 1
}

// String returns the content: a line without a line break that is not the last (a hunk's
// "\ No newline" line, or the file's last line with lines added after it) gets "\n".
func (im *image) String() string {
	if im.cur == 0 && len(im.pieces) == 0 {
		return im.src
	}
	var b strings.Builder
	b.Grow(im.size + 8)
	write := func(s string, last bool) {
		b.WriteString(s)
		if !last && s != "" && s[len(s)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	for k, p := range im.pieces {
		last := k == len(im.pieces)-1 && im.cur == im.n0
		if p.lines == nil {
			write(im.src[im.starts[p.orig]:im.origEnd(p.orig+p.n)], last)
			continue
		}
		for j, l := range p.lines {
			write(l, last && j == len(p.lines)-1)
		}
	}
	b.WriteString(im.src[im.origEnd(im.cur):])
	return b.String()
}
