package apply

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/assistant-ls/assistant-ls/internal/ecma"
	"github.com/assistant-ls/assistant-ls/internal/eol"
)

// Index is one original text prepared for the applier. Build it once per document version and
// pass it to Index.Construct and Index.NewStream for every diff against that version: the tables
// the searches need (the line starts, the trimmed lines, a table of whole lines for the exact
// search) are built when first worth building and then reused by every later SEARCH text, edit
// and stream of the same Index.
//
// The reference splits and trims the whole file again for every fallback attempt; an Index does
// it once. An Index never changes what the applier returns: Index.Construct gives exactly what
// Construct gives for the same original. It is safe for concurrent use.
type Index struct {
	src string

	linesOnce sync.Once
	starts    []int // starts[i] is the offset of line i; lines are split on "\n"

	read       atomic.Int64 // bytes read by exact searches: past twice the file, anchor is built
	anchorOnce sync.Once
	anchor     atomic.Pointer[anchorTable]

	trimOnce sync.Once
	trimmed  []string // ecma.Trim of each line, sharing src's memory
}

// NewIndex returns an Index of original. It costs nothing until a diff needs it.
func NewIndex(original string) *Index { return &Index{src: original} }

// Original returns the text the Index was built from.
func (x *Index) Original() string { return x.src }

// lines builds the line table on first use and returns the number of lines (at least 1).
func (x *Index) lines() int {
	x.linesOnce.Do(func() {
		x.starts = eol.LFStarts(x.src)
	})
	return len(x.starts)
}

// line returns line i without its newline.
func (x *Index) line(i int) string {
	return x.src[x.starts[i] : x.next(i)-1]
}

// next returns the offset just past line i's newline, as the reference computes it: one past the
// end of the file for the last line, which has no newline.
func (x *Index) next(i int) int {
	if i+1 < len(x.starts) {
		return x.starts[i+1]
	}
	return len(x.src) + 1
}

// trim returns the trimmed lines, computing them on first use.
func (x *Index) trim() []string {
	x.trimOnce.Do(func() {
		n := x.lines()
		x.trimmed = make([]string, n)
		for i := range n {
			x.trimmed[i] = ecma.Trim(x.line(i))
		}
	})
	return x.trimmed
}

// firstLineFrom returns the first line starting at or after offset from, or the number of lines
// when there is none; this is where the reference's fallbacks begin to look.
func (x *Index) firstLineFrom(from int) int {
	x.lines()
	return sort.SearchInts(x.starts, from)
}

// searchLines splits SEARCH text (which always ends in "\n") into its trimmed lines, the way the
// fallbacks see it: the empty string after the final newline is not a line.
func searchLines(search string) []string {
	body := strings.TrimSuffix(search, "\n")
	out := make([]string, 0, strings.Count(body, "\n")+1)
	for {
		i := strings.IndexByte(body, '\n')
		if i < 0 {
			return append(out, ecma.Trim(body))
		}
		out = append(out, ecma.Trim(body[:i]))
		body = body[i+1:]
	}
}

// match is where a SEARCH text was located.
type match struct {
	start, end int
	tier       MatchTier
}

// replacement is the Replacement of m by content for section (its SEARCH marker on diffLine),
// with the end clamped to a file of length n: a line-trimmed match on a last line without a
// newline ends one past the file.
func (m match) replacement(content string, section, diffLine, n int) Replacement {
	return Replacement{Start: m.start, End: min(m.end, n), Content: content, Section: section, DiffLine: diffLine, Tier: m.tier}
}

// locate runs the in-order tiers of both versions for a non-empty search: exact from offset from,
// then line-trimmed, then block-anchor. ok is false when none matches.
func (x *Index) locate(search string, from int) (m match, ok bool) {
	if i := x.exactFrom(search, from); i >= 0 {
		return match{i, i + len(search), TierExact}, true
	}
	s := searchLines(search)
	if m, ok := x.lineTrimmed(s, from); ok {
		return m, true
	}
	return x.blockAnchor(s, from)
}

// exactFrom is JavaScript's src.indexOf(search, from) for SEARCH text, which always ends in
// "\n". It takes the cheapest of three ways that give the same answer:
//   - scan: jump between the occurrences of the search's rarest byte. On a fresh document whose
//     sections match in order, the scans of a whole diff read the file about once, at the speed
//     of strings.IndexByte, which is cheaper than finding every line of the file even once.
//   - walk: step from line end to line end, comparing the lengths of the line after. A scan hands
//     over to it when its byte proves common in this file.
//   - anchored: look up one whole line of the search in a table keyed by line. The table is built
//     once the scans and walks of the Index have read the file twice over (failing searches read
//     to its end), and then serves every later search of two lines or more.
//
// Each way checks the candidate places in increasing order, so each finds the first occurrence.
func (x *Index) exactFrom(search string, from int) int {
	if from > len(x.src) || !strings.HasSuffix(search, "\n") {
		return -1
	}
	first, rest, multi := strings.Cut(search[:len(search)-1], "\n")
	if t := x.anchor.Load(); t != nil && multi {
		return x.anchored(t, first, rest, from)
	}
	p, at, done := x.scan(search, from)
	if !done {
		if multi {
			p, at = x.walk(first, rest, at)
		} else {
			p, at = x.lineEndFrom(first, at)
		}
	}
	if x.read.Add(int64(at-from)) > 2*int64(len(x.src)) {
		x.anchors()
	}
	return p
}

// scan looks for search at or after from by the occurrences of its rarest byte, until they prove
// too many. It returns the first occurrence (or -1) and the offset it read to, with done true;
// or, with done false, the offset before which search does not begin, for a walk to go on from.
func (x *Index) scan(search string, from int) (p, at int, done bool) {
	k := rarest(search)
	c := search[k]
	hits := 0
	for at = from; at+len(search) <= len(x.src); at++ {
		j := strings.IndexByte(x.src[at+k:len(x.src)-len(search)+k+1], c)
		if j < 0 {
			break
		}
		at += j
		if x.src[at:at+len(search)] == search {
			return at, at + len(search), true
		}
		// A false hit costs about as much as a walk's step over a line of 32 bytes: past one
		// hit per 32 bytes read, the walk is the cheaper way.
		if hits++; hits > 16+(at-from)/32 {
			return -1, at + 1, false
		}
	}
	return -1, len(x.src), true
}

// rarest returns the offset in s of its byte that is rarest in source code, by byteRank, looking
// at no more than its first 256 bytes and stopping at the first byte ranked below rareEnough:
// on the benchmark inputs, looking further for a rarer one cost more than the hits it saved.
// The scan costs the same wherever in s that byte is.
func rarest(s string) int {
	const rareEnough = 60 // the ranks of '~' … '9', the rarer printable bytes, below 'B'
	k := 0
	for i := 1; i < min(len(s), 256) && byteRank[s[k]] >= rareEnough; i++ {
		if byteRank[s[i]] < byteRank[s[k]] {
			k = i
		}
	}
	return k
}

// walk is exactFrom by stepping from line end to line end, for a search of two lines or more:
// first, the text before its first newline, and rest, the text between that newline and the
// final one. It returns the first occurrence at or after from (or -1) and the offset it read to.
func (x *Index) walk(first, rest string, from int) (p, at int) {
	n := x.lines()
	next, _, _ := strings.Cut(rest, "\n") // the line after first: a cheap length filter
	for k := x.lineOf(from); k < n-1; k++ {
		nl := x.starts[k+1] - 1 // the newline ending line k
		if x.next(k+1)-1-x.starts[k+1] != len(next) {
			continue
		}
		if q := nl - len(first); q >= from && q >= x.starts[k] && x.matchesAt(nl, first, rest) {
			return q, nl + 1 + len(rest)
		}
	}
	return -1, len(x.src)
}

// lineOf returns the line holding offset off.
func (x *Index) lineOf(off int) int {
	x.lines()
	return sort.SearchInts(x.starts, off+1) - 1
}

// matchesAt reports whether first ends at nl, the newline ending a line, and rest followed by a
// newline starts after it.
func (x *Index) matchesAt(nl int, first, rest string) bool {
	q := nl + 1 + len(rest)
	return q < len(x.src) && x.src[q] == '\n' && x.src[nl-len(first):nl] == first && x.src[nl+1:q] == rest
}

// anchored is exactFrom through the anchor table: the longest whole line of the search, the
// likeliest to be rare, is looked up, and each line equal to it, in increasing order, is checked
// as a place of the whole search.
func (x *Index) anchored(t *anchorTable, first, rest string, from int) int {
	k0 := x.lineOf(from)
	anchor, a := "", 0 // a: the anchor's line number within the search
	for i, r := 1, rest; ; i++ {
		l, more, ok := strings.Cut(r, "\n")
		if i == 1 || len(l) > len(anchor) {
			anchor, a = l, i
		}
		if !ok {
			break
		}
		r = more
	}
	h := lineKey(anchor)
	for j := t.slot[h&t.mask]; j != 0; j = t.next[j-1] {
		k := int(j-1) - a // the line the match would start in
		if t.key[j-1] != h || k < k0 {
			continue
		}
		nl := x.starts[k+1] - 1
		if p := nl - len(first); p >= from && p >= x.starts[k] && x.matchesAt(nl, first, rest) {
			return p
		}
	}
	return -1
}

// lineEndFrom returns the first offset at or after from where first ends a line followed by a
// newline (or -1), and the offset it read to.
func (x *Index) lineEndFrom(first string, from int) (p, at int) {
	n := x.lines()
	for k := x.lineOf(from); k < n-1; k++ {
		nl := x.starts[k+1] - 1
		if p := nl - len(first); p >= from && p >= x.starts[k] && x.src[p:nl] == first {
			return p, nl + 1
		}
	}
	return -1, len(x.src)
}

// anchorTable finds the lines of the original equal to a given line, in increasing order, by a
// key of their length and their first and last eight bytes. Only lines followed by a newline are
// in it: the whole lines of a SEARCH text are always followed by one.
type anchorTable struct {
	key  []uint64 // key[i] is lineKey of line i
	next []int32  // next[i]-1 is the next line after i in the same slot; 0 ends the chain
	slot []int32  // slot[k&mask]-1 is the first line whose key falls in that slot
	mask uint64
}

// anchors builds the anchor table, once.
func (x *Index) anchors() {
	x.anchorOnce.Do(func() {
		n := x.lines() - 1 // the last line has no newline
		size := 1
		for size < 2*n {
			size <<= 1
		}
		t := &anchorTable{key: make([]uint64, n), next: make([]int32, n), slot: make([]int32, size), mask: uint64(size - 1)}
		// Walking backwards leaves every chain in increasing order.
		for i := n - 1; i >= 0; i-- {
			h := lineKey(x.src[x.starts[i] : x.starts[i+1]-1])
			t.key[i] = h
			s := h & t.mask
			t.next[i] = t.slot[s]
			t.slot[s] = int32(i + 1)
		}
		x.anchor.Store(t)
	})
}

// lineKey mixes a line's length with its first and last eight bytes. It reads a constant number
// of bytes, so that keying every line of the file costs no more than finding the lines; equal
// keys are confirmed by comparing the text.
func lineKey(l string) uint64 {
	var head, tail uint64
	if len(l) >= 8 {
		head = le64(l)
		tail = le64(l[len(l)-8:])
	} else {
		for i := 0; i < len(l); i++ {
			head |= uint64(l[i]) << (8 * i)
		}
	}
	h := uint64(len(l))*0x9E3779B97F4A7C15 ^ head
	h = (h ^ h>>29) * 0xBF58476D1CE4E5B9
	h ^= tail
	h = (h ^ h>>32) * 0x94D049BB133111EB
	return h ^ h>>31
}

// le64 reads the first eight bytes of s as a little-endian number.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// lineTrimmed finds the first run of file lines, starting at or after offset from, equal to s
// line by line once trimmed.
func (x *Index) lineTrimmed(s []string, from int) (match, bool) {
	t := x.trim()
	n, m := len(t), len(s)
	for i := x.firstLineFrom(from); i <= n-m; i++ {
		if t[i] != s[0] {
			continue
		}
		j := 1
		for j < m && t[i+j] == s[j] {
			j++
		}
		if j == m {
			return match{x.starts[i], x.next(i + m - 1), TierLineTrimmed}, true
		}
	}
	return match{}, false
}

// blockAnchor finds the first run of as many file lines as s, starting at or after offset from,
// whose first and last lines equal s's once trimmed. Like the reference's "three lines or more"
// test, which counts the empty string after the final newline, it accepts two-line sections.
func (x *Index) blockAnchor(s []string, from int) (match, bool) {
	m := len(s)
	if m < 2 {
		return match{}, false
	}
	t := x.trim()
	first, last := s[0], s[m-1]
	for i := x.firstLineFrom(from); i <= len(t)-m; i++ {
		if t[i] == first && t[i+m-1] == last {
			return match{x.starts[i], x.next(i + m - 1), TierBlockAnchor}, true
		}
	}
	return match{}, false
}
