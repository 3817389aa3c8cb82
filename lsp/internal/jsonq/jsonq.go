// Package jsonq quotes JSON strings as the server's protocol codec does, and counts the bytes
// beforehand, so that a long payload can be encoded into one buffer of its size.
package jsonq

import "unicode/utf8"

// QuotedLen is the length of AppendQuoted(nil, s).
func QuotedLen(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20:
				n += 5
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += len("\ufffd") - 1
		}
		i += size
	}
	return n
}

// AppendQuoted appends s as a JSON string, quoted as the protocol codec (encoding/json/v2 with
// invalid UTF-8 allowed, no HTML escaping) quotes it: '"', '\\' and control characters escaped
// (with the short forms \b \f \n \r \t), each byte of invalid UTF-8 replaced by U+FFFD, everything
// else as it is.
func AppendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is still to be copied
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			start = i + 1
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
