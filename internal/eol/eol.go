// Package eol lets edits written with "\n" line breaks apply to texts of any break style: Text
// reads every break as "\n" and maps edits back (the edit tools), ToLF and Restore do so for
// texts whose lines all end in "\r\n" (the text formats); and it finds where the lines of a text
// begin.
package eol

import (
	"sort"
	"strings"
)

// ToLF returns s with every "\r\n" made "\n" and crlf true when s has at least one line break
// and every "\n" in it is preceded by "\r". Otherwise it returns s unchanged and false: a text
// with mixed or no CRLF line breaks is edited as it is.
func ToLF(s string) (lf string, crlf bool) {
	n := strings.Count(s, "\n")
	if n == 0 || strings.Count(s, "\r\n") != n {
		return s, false
	}
	return strings.ReplaceAll(s, "\r\n", "\n"), true
}

// Restore undoes ToLF on an edited text: when crlf is true every "\n" becomes "\r\n" (a "\r\n"
// already present, from edit text that carried its own, is kept as it is).
func Restore(s string, crlf bool) string {
	if !crlf {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// Offset maps an offset in the "\n" text made by ToLF back to the original "\r\n" text.
func Offset(lf string, off int, crlf bool) int {
	if !crlf {
		return off
	}
	return off + strings.Count(lf[:off], "\n")
}

// LFStarts returns the offsets at which the lines of s, split at "\n", begin: 0 first, then one
// past each "\n", so a text ending in "\n" has a last, empty line starting at len(s). It finds
// the breaks a line at a time at the speed of strings.IndexByte and allocates once.
func LFStarts(s string) []int {
	starts := make([]int, 1, strings.Count(s, "\n")+1)
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// Text is a text seen with every line break ("\r\n", a lone "\r", "\n") made "\n", so that edit
// text written with "\n" matches whatever breaks the text has, with the way back: offsets map
// to the original, and replacements are made in the original, where the lines they do not touch
// keep their own breaks and the breaks they write take the text's style (Break). Each break is
// one byte in the "\n" view, so line numbers are the same in both.
type Text struct {
	orig, lf string
	wide     []int // the offsets in lf of the "\n"s that stand for "\r\n", ascending
	brk      string
}

// NewText returns s seen with "\n" line breaks. A text without "\r" costs nothing to view.
func NewText(s string) Text {
	t := Text{orig: s, lf: s, brk: "\n"}
	i := strings.IndexByte(s, '\r')
	if i < 0 {
		return t
	}
	if j := strings.IndexAny(s, "\r\n"); s[j] == '\r' {
		t.brk = "\r"
		if strings.HasPrefix(s[j:], "\r\n") {
			t.brk = "\r\n"
		}
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c != '\r':
			b = append(b, c)
		case i+1 < len(s) && s[i+1] == '\n':
			t.wide = append(t.wide, len(b))
			b = append(b, '\n')
			i++
		default:
			b = append(b, '\n')
		}
	}
	t.lf = string(b)
	return t
}

// LF is the text with every line break made "\n".
func (t Text) LF() string { return t.lf }

// Original is the text as it was given.
func (t Text) Original() string { return t.orig }

// Break is the line break the text's new lines get: its first line break, "\n" for a text
// without one (editors that detect a file's style go by the first break too).
func (t Text) Break() string { return t.brk }

// Offset maps an offset in LF to the original.
func (t Text) Offset(off int) int {
	return off + sort.SearchInts(t.wide, off)
}

// Styled returns s, edit text, with its line breaks made the text's style: for "\r\n" every lone
// "\n" becomes "\r\n", for "\r" every "\r\n" and "\n" becomes "\r", and for "\n" s is returned
// as it is (a "\r\n" the model wrote into an LF text is its own choice).
func (t Text) Styled(s string) string {
	switch t.brk {
	case "\r":
		return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\r"), "\n", "\r")
	case "\r\n":
		return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	}
	return s
}

// Edit replaces LF[Start:End] with New, written with "\n" line breaks.
type Edit struct {
	Start, End int
	New        string
}

// Apply returns the original with edits made (offsets into LF, in ascending order and not
// overlapping): the text between them is the original's, breaks included, and each New is
// Styled.
func (t Text) Apply(edits ...Edit) string {
	var b strings.Builder
	prev := 0
	for _, e := range edits {
		start := t.Offset(e.Start)
		b.WriteString(t.orig[prev:start])
		b.WriteString(t.Styled(e.New))
		prev = t.Offset(e.End)
	}
	b.WriteString(t.orig[prev:])
	return b.String()
}

// Restore returns the original with the change that turned LF into edited: the common start
// and end of the two are the original's, and the part between is edited's, Styled. For one
// edit this is Apply; for several it restyles the original breaks between them (a change only
// in a text whose breaks are mixed).
func (t Text) Restore(edited string) string {
	if edited == t.lf {
		return t.orig
	}
	p := 0
	for p < len(edited) && p < len(t.lf) && edited[p] == t.lf[p] {
		p++
	}
	q := 0
	for q < len(edited)-p && q < len(t.lf)-p && edited[len(edited)-1-q] == t.lf[len(t.lf)-1-q] {
		q++
	}
	return t.Apply(Edit{Start: p, End: len(t.lf) - q, New: edited[p : len(edited)-q]})
}
