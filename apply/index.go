package apply

import (
	"sort"
	"strings"
	"sync"

	"github.com/assistant-ls/assistant-ls/internal/ecma"
)

// Index is one original text prepared for the applier. Build it once per document version and
// pass it to Index.Construct and Index.NewStream for every diff against that version: the line
// tables the searches need are built on first use and then reused by every later SEARCH text,
// edit and stream of the same Index.
//
// The reference splits and trims the whole file again for every fallback attempt; an Index does
// it once. An Index never changes what the applier returns: Index.Construct gives exactly what
// Construct gives for the same original. It is safe for concurrent use.
type Index struct {
	src string

	linesOnce sync.Once
	starts    []int // starts[i] is the offset of line i; lines are split on "\n"

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
		x.starts = make([]int, 1, strings.Count(x.src, "\n")+1)
		for i := 0; ; {
			j := strings.IndexByte(x.src[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			x.starts = append(x.starts, i)
		}
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
// "\n". Such an occurrence is the tail of one line of the file followed by the rest of the text
// starting on the next line, so it is found by walking lines, where a failing strings.Index scan
// would crawl through every byte after from, once per fallback section.
func (x *Index) exactFrom(search string, from int) int {
	if from > len(x.src) || !strings.HasSuffix(search, "\n") {
		return -1
	}
	n := x.lines()
	first, rest, multi := strings.Cut(search[:len(search)-1], "\n")
	next := "" // the line after first, when there is one: a cheap length filter
	if multi {
		next, _, _ = strings.Cut(rest, "\n")
	}
	k := sort.SearchInts(x.starts, from+1) - 1 // the line holding offset from
	for ; k < n-1; k++ {
		nl := x.starts[k+1] - 1 // the newline ending line k
		if multi && x.next(k+1)-1-x.starts[k+1] != len(next) {
			continue
		}
		p := nl - len(first)
		if p < from || p < x.starts[k] || x.src[p:nl] != first {
			continue
		}
		if multi {
			q := nl + 1 + len(rest)
			if q >= len(x.src) {
				return -1
			}
			if x.src[q] != '\n' || x.src[nl+1:q] != rest {
				continue
			}
		}
		return p
	}
	return -1
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
