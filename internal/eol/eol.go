// Package eol converts a text whose lines all end in "\r\n" to "\n" line breaks and back, so that
// edits written with "\n" apply to CRLF files and leave them CRLF.
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
