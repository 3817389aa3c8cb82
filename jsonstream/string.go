package jsonstream

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// plain marks the ASCII bytes that stand for themselves inside a string: all but '"', '\\' and
// the control characters, which JSON does not allow unescaped.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString reads string bytes from s[i:] and returns where it stopped and whether the string
// closed there. It stops early only on a syntax error.
func (p *Parser) scanString(s string, i int) (int, bool) {
	for i < len(s) {
		if p.esc != escNone {
			if !p.escapeByte(s[i], i) {
				return i, false
			}
			i++
			continue
		}
		c := s[i]
		if p.high != 0 && c != '\\' {
			// encoding/json replaces a high surrogate that no low one follows.
			p.dst().WriteRune(utf8.RuneError)
			p.high = 0
		}
		switch {
		case c == '"':
			if p.role == roleRaw {
				p.raw = append(p.raw, c)
			}
			return i + 1, true
		case c == '\\':
			if p.role == roleRaw {
				p.raw = append(p.raw, c)
			}
			p.esc = escBackslash
			i++
		case c < 0x20:
			p.fail(i, "invalid control character "+quoteByte(c)+" in string literal (write it as an escape such as \\n or \\u0000)")
			return i, false
		default:
			i = p.run(s, i)
		}
	}
	return i, false
}

// run copies the longest run of literal string bytes from s[i:] and returns where it ends. When
// decoding, invalid UTF-8 becomes U+FFFD as with encoding/json, and a sequence cut by the end of
// the fragment is held back until the next one completes it.
func (p *Parser) run(s string, i int) int {
	start := i
	if p.role == roleRaw {
		for i < len(s) && (s[i] >= utf8.RuneSelf || plain[s[i]]) {
			i++
		}
		p.raw = append(p.raw, s[start:i]...)
		return i
	}
	dst := p.dst()
	dst.Grow(len(s) - i)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !plain[c] {
				break
			}
			i++
			continue
		}
		if !utf8.FullRuneInString(s[i:]) {
			dst.WriteString(s[start:i])
			p.pendLen = copy(p.pend[:], s[i:])
			return len(s)
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst.WriteString(s[start:i])
			dst.WriteRune(utf8.RuneError)
			i++
			start = i
			continue
		}
		i += size
	}
	dst.WriteString(s[start:i])
	return i
}

// finishRune completes the UTF-8 sequence held back from the last fragment with the first bytes
// of s and returns how many bytes of s it used.
func (p *Parser) finishRune(s string) int {
	i := 0
	for i < len(s) && !utf8.FullRune(p.pend[:p.pendLen]) {
		p.pend[p.pendLen] = s[i]
		p.pendLen++
		i++
	}
	if !utf8.FullRune(p.pend[:p.pendLen]) {
		return i
	}
	dst := p.dst()
	if r, size := utf8.DecodeRune(p.pend[:p.pendLen]); r != utf8.RuneError || size > 1 {
		dst.Write(p.pend[:size])
		p.pendLen = 0
		return i
	}
	// Invalid: the bytes held back were a lead byte and continuation bytes, each of which
	// decodes alone as U+FFFD; the bytes taken from s are read again as string bytes.
	for range p.pendLen - i {
		dst.WriteRune(utf8.RuneError)
	}
	p.pendLen = 0
	return 0
}

// escapeByte reads c, at index i of the fragment, as the next byte of an escape.
func (p *Parser) escapeByte(c byte, i int) bool {
	if p.role == roleRaw {
		p.raw = append(p.raw, c)
	}
	if p.esc == escBackslash {
		if c == 'u' {
			p.esc, p.hex = escHex, 0
			return true
		}
		b, ok := unescape(c)
		if !ok {
			p.fail(i, "invalid escape "+quoteByte(c)+" in string literal (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
			return false
		}
		p.esc = escNone
		if p.role != roleRaw {
			dst := p.dst()
			if p.high != 0 {
				dst.WriteRune(utf8.RuneError)
				p.high = 0
			}
			dst.WriteByte(b)
		}
		return true
	}
	h, ok := hexDigit(c)
	if !ok {
		p.fail(i, "invalid character "+quoteByte(c)+" in \\u escape (expecting a hexadecimal digit)")
		return false
	}
	p.hex = p.hex<<4 | h
	p.esc++
	if p.esc == escHex+4 {
		p.esc = escNone
		if p.role != roleRaw {
			p.unicode(p.hex)
		}
	}
	return true
}

// unicode writes the code unit of a complete \uXXXX escape as encoding/json decodes it: a high
// surrogate waits for the next escape, which pairs with it only if it is a low surrogate; any
// surrogate left unpaired becomes U+FFFD.
func (p *Parser) unicode(r rune) {
	dst := p.dst()
	if p.high != 0 {
		h := p.high
		p.high = 0
		if r >= 0xDC00 && r <= 0xDFFF {
			dst.WriteRune(utf16.DecodeRune(h, r))
			return
		}
		dst.WriteRune(utf8.RuneError)
	}
	switch {
	case r >= 0xD800 && r <= 0xDBFF:
		p.high = r
	case r >= 0xDC00 && r <= 0xDFFF:
		dst.WriteRune(utf8.RuneError)
	default:
		dst.WriteRune(r)
	}
}

// dst is where the decoded string goes; only for the decoded roles.
func (p *Parser) dst() *strings.Builder {
	if p.role == roleKey {
		return &p.key
	}
	return p.field
}

// unescape returns the byte a one-letter escape stands for.
func unescape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hexDigit returns the value of a hexadecimal digit.
func hexDigit(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}
