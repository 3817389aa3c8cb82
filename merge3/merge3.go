// Package merge3 merges two line-based edits of one text three ways.
//
// Base is the text both sides started from, ours the text as the user left it, theirs the text a
// model wrote in full. Changes that do not overlap are combined; changes to the same lines are
// conflicts, reported with the lines involved on each side, and never resolved by dropping either
// side's text. Lines end at "\n" (a "\r\n" line keeps its "\r"), and a last line without a line
// break is a line.
package merge3

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Lines is a range of lines, numbered from 1 as a reader numbers them. End is inclusive; an
// empty range (End == Start-1) stands for the point before line Start.
type Lines struct {
	Start, End int
}

// Empty reports whether the range holds no line.
func (l Lines) Empty() bool { return l.End < l.Start }

func (l Lines) String() string {
	switch {
	case l.Empty():
		return fmt.Sprintf("before line %d", l.Start)
	case l.Start == l.End:
		return fmt.Sprintf("line %d", l.Start)
	}
	return fmt.Sprintf("lines %d-%d", l.Start, l.End)
}

// Conflict is one region of base that the two sides changed differently. Base, Ours and Theirs
// are its lines in each text; OursText and TheirsText are the region's text in ours and theirs.
type Conflict struct {
	Base, Ours, Theirs   Lines
	OursText, TheirsText string
}

// ConflictError is returned when the sides overlap. It lists every conflict, in order.
type ConflictError struct {
	Conflicts []Conflict
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	b.WriteString("the document was changed while the new content was written, and the changes overlap: ")
	for i, c := range e.Conflicts {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "the document's %s and the new content's %s (%s of the original) were both changed", c.Ours, c.Theirs, c.Base)
	}
	b.WriteString(". Nothing was written; read the document again and write it with those lines as they now are.")
	return b.String()
}

// Merge returns base with the changes of both ours and theirs, or a *ConflictError naming every
// region both changed differently. A change made identically on both sides is taken once. Two
// insertions at the same point conflict unless equal; a change that ends where the other side's
// begins does not conflict.
func Merge(base, ours, theirs string) (string, error) {
	switch {
	case ours == base || ours == theirs:
		return theirs, nil
	case theirs == base:
		return ours, nil
	}
	starts := lineStarts(base)
	hunks := append(toHunks(udiff.Lines(base, ours), starts, sideOurs), toHunks(udiff.Lines(base, theirs), starts, sideTheirs)...)
	sort.SliceStable(hunks, func(i, j int) bool {
		if hunks[i].s != hunks[j].s {
			return hunks[i].s < hunks[j].s
		}
		return hunks[i].e < hunks[j].e
	})

	var out strings.Builder
	out.Grow(max(len(ours), len(theirs)))
	var conflicts []Conflict
	pos := 0          // base line copied up to
	delta := [2]int{} // lines added minus removed by each side before the current group
	for i := 0; i < len(hunks); {
		g := group{s: hunks[i].s, e: hunks[i].e}
		j := i
		for ; j < len(hunks) && (j == i || overlaps(g.s, g.e, hunks[j].s, hunks[j].e)); j++ {
			g.e = max(g.e, hunks[j].e)
			g.sides |= 1 << hunks[j].side
		}
		members := hunks[i:j]
		i = j
		out.WriteString(base[starts[pos]:starts[g.s]])
		pos = g.e
		region := [2]string{rebuild(base, starts, g, members, sideOurs), rebuild(base, starts, g, members, sideTheirs)}
		if g.sides == 3 && region[0] != region[1] {
			conflicts = append(conflicts, Conflict{
				Base:       Lines{g.s + 1, g.e},
				Ours:       Lines{g.s + delta[0] + 1, g.s + delta[0] + countLines(region[0])},
				Theirs:     Lines{g.s + delta[1] + 1, g.s + delta[1] + countLines(region[1])},
				OursText:   region[0],
				TheirsText: region[1],
			})
		}
		if g.sides&1 != 0 {
			out.WriteString(region[0])
		} else {
			out.WriteString(region[1])
		}
		for k := range delta {
			delta[k] += countLines(region[k]) - (g.e - g.s)
		}
	}
	if len(conflicts) > 0 {
		return "", &ConflictError{Conflicts: conflicts}
	}
	out.WriteString(base[starts[pos]:])
	return out.String(), nil
}

const (
	sideOurs   = 0
	sideTheirs = 1
)

// hunk replaces base lines [s, e) with text, on one side.
type hunk struct {
	s, e int
	text string
	side int
}

// group is a run of overlapping hunks over base lines [s, e); sides has bit 0 set for ours and
// bit 1 for theirs.
type group struct {
	s, e  int
	sides int
}

// overlaps reports whether a change of base lines [s1, e1) and one of [s2, e2) touch the same
// text. An insertion (s == e) overlaps an equal insertion and any change that spans its point.
func overlaps(s1, e1, s2, e2 int) bool {
	switch {
	case s1 == e1 && s2 == e2:
		return s1 == s2
	case s1 == e1:
		return s2 < s1 && s1 < e2
	case s2 == e2:
		return s1 < s2 && s2 < e1
	}
	return s1 < e2 && s2 < e1
}

// rebuild returns the region of g as side leaves it: base lines with that side's hunks applied.
func rebuild(base string, starts []int, g group, members []hunk, side int) string {
	var b strings.Builder
	pos := g.s
	for _, h := range members {
		if h.side != side {
			continue
		}
		b.WriteString(base[starts[pos]:starts[h.s]])
		b.WriteString(h.text)
		pos = h.e
	}
	b.WriteString(base[starts[pos]:starts[g.e]])
	return b.String()
}

// lineStarts returns the offset of each line of s and, last, len(s); a final line without a
// line break counts.
func lineStarts(s string) []int {
	out := make([]int, 1, strings.Count(s, "\n")+2)
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		out = append(out, i)
	}
	if out[len(out)-1] != len(s) {
		out = append(out, len(s))
	}
	return out
}

// toHunks converts line edits of base (their offsets are line starts) to line-indexed hunks.
func toHunks(edits []udiff.Edit, starts []int, side int) []hunk {
	out := make([]hunk, 0, len(edits))
	for _, e := range edits {
		out = append(out, hunk{s: sort.SearchInts(starts, e.Start), e: sort.SearchInts(starts, e.End), text: e.New, side: side})
	}
	return out
}

// countLines counts the lines of s, a final line without a line break included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
