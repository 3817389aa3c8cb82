// Package ecma reproduces the white-space rules of ECMAScript's String.prototype.trim, which the
// reference implementations run on, for the packages that must match them byte for byte.
package ecma

import "unicode/utf8"

// Trim returns s without leading and trailing white space as ECMAScript's
// String.prototype.trim defines it: TAB, VT, FF, SP, NBSP, U+FEFF, every other Unicode Zs space
// and the line terminators LF, CR, U+2028 and U+2029. Unlike strings.TrimSpace it removes U+FEFF
// and keeps U+0085. Invalid UTF-8 is never white space. The result is a slice of s.
func Trim(s string) string {
	start, end := TrimBounds(s)
	return s[start:end]
}

// TrimBounds returns the offsets of Trim(s) within s: Trim(s) == s[start:end], start <= end.
func TrimBounds(s string) (start, end int) {
	for start < len(s) {
		r, n := rune(s[start]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[start:])
		}
		if !IsSpace(r) {
			break
		}
		start += n
	}
	end = len(s)
	for end > start {
		r, n := rune(s[end-1]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeLastRuneInString(s[start:end])
		}
		if !IsSpace(r) {
			break
		}
		end -= n
	}
	return start, end
}

// IsSpace reports whether ECMAScript's trim removes r: exactly the Unicode Zs category plus TAB,
// LF, VT, FF, CR, U+FEFF, U+2028 and U+2029.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}
