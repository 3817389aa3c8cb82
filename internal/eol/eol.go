// Package eol converts a text whose lines all end in "\r\n" to "\n" line breaks and back, so that
// edits written with "\n" apply to CRLF files and leave them CRLF, and finds where the lines of a
// text begin.
package eol

import "strings"

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
