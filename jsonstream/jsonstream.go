// Package jsonstream parses one JSON value incrementally, as a language model streams the
// arguments of a tool call: fragment by fragment, each split wherever the provider split it,
// including inside a string, an escape, a \uXXXX or a UTF-16 surrogate pair written as two
// escapes.
//
// A fragment costs time proportional to its own length: the text is never scanned again, and it
// is not even kept. While the value streams, the top-level fields of an object are exposed as
// far as they have arrived (see Parser.Params); at the end, Parser.End gives the whole value,
// equal to what encoding/json's Unmarshal gives for the same text, or an error.
package jsonstream

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SyntaxError says where and why the text cannot be JSON.
type SyntaxError struct {
	// Offset is the byte offset, from the start of the text, of the first byte that cannot be
	// part of a JSON value; for a text that ended too early it is the text's length.
	Offset int64
	// Msg says what was expected there.
	Msg string
}

// Error returns the message with the offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// maxDepth is encoding/json's nesting limit, so that both accept the same texts.
const maxDepth = 10000

// state says what the next byte may be.
type state uint8

const (
	sValue        state = iota // a value
	sValueOrClose              // a value or ']', just after '['
	sKeyOrClose                // a key or '}', just after '{'
	sKey                       // a key, after ','
	sColon                     // ':' after a key
	sAfterValue                // ',' or the container's close
	sEnd                       // white space after the top-level value
	sString                    // inside a string
	sNumber                    // inside a number
	sLiteral                   // inside true, false or null
)

// role says what a string is for, which decides where its bytes go.
type role uint8

const (
	roleRaw   role = iota // part of a value kept as compact JSON text
	roleKey               // a top-level key, decoded
	roleField             // a top-level string field, decoded
)

// escape states inside a string: escNone, escBackslash, then escHex+k after k hex digits.
const (
	escNone      = 0
	escBackslash = 1
	escHex       = 2
)

// number states, as in the JSON grammar.
const (
	nMinus   = iota // after '-'
	nZero           // a leading 0
	nInt            // in the integer digits
	nDot            // after '.'
	nFrac           // in the fraction digits
	nExp            // after 'e' or 'E'
	nExpSign        // after the exponent's sign
	nExpDig         // in the exponent digits
)

// member is one top-level field of an object, in text order.
type member struct {
	key string
	str *strings.Builder // the decoded value of a string field
	raw string           // the compact text of any other field
}

// Parser parses one JSON value fed in fragments. The zero value is ready to use. A Parser is
// not safe for concurrent use.
type Parser struct {
	off   int64 // bytes consumed by earlier fragments
	err   *SyntaxError
	state state
	stack []byte // '{' or '[' of each open container

	// The top level: whether it is an object, whose fields are tracked one by one.
	started, object bool

	// The string being read.
	role    role
	isKey   bool
	esc     uint8
	hex     rune
	high    rune    // a high surrogate waiting for its low half; 0 when none
	pend    [4]byte // an incomplete UTF-8 sequence at the end of the last fragment
	pendLen int

	num  uint8  // number state
	lit  string // the literal being read
	litI int

	// Compact text of the value being kept whole: a non-string field, or the whole value
	// when it is not an object.
	raw   []byte
	rawOn bool

	key     strings.Builder // the top-level key being read
	curKey  string          // the key of the field being read
	field   *strings.Builder
	shown   int // length of field last published in params
	members []member
	params  map[string]string

	ended bool
	value any
	vErr  error
}

// Append feeds the next fragment of the text. It reports whether Params changed. After a syntax
// error the rest of the text is ignored; Err reports the error.
func (p *Parser) Append(fragment string) bool {
	if p.err != nil || p.ended {
		return false
	}
	changed := false
	i := 0
	if p.pendLen > 0 {
		i = p.finishRune(fragment)
	}
	for i < len(fragment) && p.err == nil {
		if p.state == sString {
			var closed bool
			i, closed = p.scanString(fragment, i)
			if closed {
				changed = p.endString() || changed
			}
			continue
		}
		c := fragment[i]
		if p.state == sNumber {
			if p.numberByte(c, i) {
				i++
				continue
			}
			if p.err != nil {
				break
			}
			changed = p.endValue() || changed
			continue // c is read again after the number
		}
		if p.state == sLiteral {
			if c != p.lit[p.litI] {
				p.fail(i, fmt.Sprintf("invalid character %s in literal %s (expecting %q)", quoteByte(c), p.lit, p.lit[p.litI]))
				break
			}
			p.rawByte(c)
			p.litI++
			i++
			if p.litI == len(p.lit) {
				changed = p.endValue() || changed
			}
			continue
		}
		i++
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		changed = p.structural(c, i-1) || changed
	}
	if p.field != nil && p.field.Len() != p.shown {
		p.shown = p.field.Len()
		p.params[p.curKey] = p.field.String()
		changed = true
	}
	p.off += int64(len(fragment))
	return changed
}

// structural handles a byte outside strings, numbers and literals at index i of the fragment.
func (p *Parser) structural(c byte, i int) bool {
	switch p.state {
	case sEnd:
		p.fail(i, fmt.Sprintf("invalid character %s after the top-level value", quoteByte(c)))
		return false
	case sColon:
		if c != ':' {
			p.fail(i, fmt.Sprintf("invalid character %s after object key (expecting ':')", quoteByte(c)))
			return false
		}
		p.rawByte(c)
		p.state = sValue
		return false
	case sKey, sKeyOrClose:
		switch {
		case c == '"':
			p.beginString(true)
		case c == '}' && p.state == sKeyOrClose:
			return p.closeContainer(c)
		default:
			p.fail(i, fmt.Sprintf("invalid character %s looking for the beginning of an object key string", quoteByte(c)))
		}
		return false
	case sAfterValue:
		top := p.stack[len(p.stack)-1]
		switch {
		case c == ',':
			p.rawByte(c)
			if top == '{' {
				p.state = sKey
			} else {
				p.state = sValue
			}
		case c == '}' && top == '{', c == ']' && top == '[':
			return p.closeContainer(c)
		case top == '{':
			p.fail(i, fmt.Sprintf("invalid character %s after object key:value pair (expecting ',' or '}')", quoteByte(c)))
		default:
			p.fail(i, fmt.Sprintf("invalid character %s after array element (expecting ',' or ']')", quoteByte(c)))
		}
		return false
	}
	// sValue or sValueOrClose.
	if c == ']' && p.state == sValueOrClose {
		return p.closeContainer(c)
	}
	p.beginValue(c)
	switch {
	case c == '{' || c == '[':
		if len(p.stack) >= maxDepth {
			p.fail(i, fmt.Sprintf("exceeded max depth of %d nested objects and arrays", maxDepth))
			return false
		}
		p.rawByte(c)
		p.stack = append(p.stack, c)
		if c == '{' {
			p.state = sKeyOrClose
		} else {
			p.state = sValueOrClose
		}
	case c == '"':
		p.beginString(false)
	case c == '-' || c >= '0' && c <= '9':
		p.rawByte(c)
		p.state, p.num = sNumber, nInt
		if c == '-' {
			p.num = nMinus
		} else if c == '0' {
			p.num = nZero
		}
	case c == 't' || c == 'f' || c == 'n':
		p.rawByte(c)
		p.state, p.litI = sLiteral, 1
		p.lit = literalFor(c)
	default:
		p.fail(i, fmt.Sprintf("invalid character %s looking for the beginning of a value", quoteByte(c)))
	}
	return false
}

// beginValue notes where a value starts: the top-level value, or a field of the top-level
// object, whose compact text is kept unless it is a string.
func (p *Parser) beginValue(c byte) {
	switch {
	case !p.started:
		p.started = true
		p.object = c == '{'
		p.rawOn = !p.object
	case p.object && len(p.stack) == 1 && c != '"':
		p.rawOn = true
	}
}

// beginString starts a string; key says it is an object key.
func (p *Parser) beginString(key bool) {
	p.state, p.esc, p.high, p.isKey = sString, escNone, 0, key
	switch {
	case p.object && len(p.stack) == 1 && key:
		p.role = roleKey
		p.key = strings.Builder{}
	case p.object && len(p.stack) == 1:
		p.role = roleField
		b := &strings.Builder{}
		p.members = append(p.members, member{key: p.curKey, str: b})
		if p.params == nil {
			p.params = make(map[string]string)
		}
		p.params[p.curKey] = ""
		p.field, p.shown = b, -1 // published, and reported as a change, by Append
	default:
		p.role = roleRaw
		p.rawByte('"')
	}
}

// endString finishes the string just closed and reports whether Params changed.
func (p *Parser) endString() bool {
	switch {
	case p.role == roleKey:
		p.curKey = p.key.String()
		p.state = sColon
		return false
	case p.isKey:
		p.state = sColon
		return false
	case p.role == roleField:
		changed := p.field.Len() != p.shown
		p.params[p.curKey] = p.field.String()
		p.field = nil
		p.endValue()
		return changed
	}
	return p.endValue()
}

// closeContainer closes the innermost container with c and reports whether Params changed.
func (p *Parser) closeContainer(c byte) bool {
	p.stack = p.stack[:len(p.stack)-1]
	p.rawByte(c)
	return p.endValue()
}

// endValue moves on after a complete value and reports whether Params changed: it did when the
// value was a non-string field of the top-level object.
func (p *Parser) endValue() bool {
	switch {
	case len(p.stack) == 0:
		p.state = sEnd
		return false
	case p.object && len(p.stack) == 1 && p.rawOn:
		raw := string(p.raw)
		p.raw, p.rawOn = p.raw[:0], false
		p.members = append(p.members, member{key: p.curKey, raw: raw})
		if p.params == nil {
			p.params = make(map[string]string)
		}
		p.params[p.curKey] = raw
		p.state = sAfterValue
		return true
	}
	p.state = sAfterValue
	return false
}

// numberByte reads c as part of a number and reports whether it was; a byte that ends a
// complete number is not, and one that cannot follow is an error.
func (p *Parser) numberByte(c byte, i int) bool {
	digit := c >= '0' && c <= '9'
	next := p.num
	switch p.num {
	case nMinus:
		switch {
		case c == '0':
			next = nZero
		case digit:
			next = nInt
		default:
			p.fail(i, "invalid character "+quoteByte(c)+" in numeric literal (expecting a digit after '-')")
			return false
		}
	case nZero, nInt:
		switch {
		case digit && p.num == nInt:
			next = nInt
		case c == '.':
			next = nDot
		case c == 'e' || c == 'E':
			next = nExp
		default:
			return false
		}
	case nDot:
		if !digit {
			p.fail(i, "invalid character "+quoteByte(c)+" after decimal point in numeric literal (expecting a digit)")
			return false
		}
		next = nFrac
	case nFrac:
		switch {
		case digit:
		case c == 'e' || c == 'E':
			next = nExp
		default:
			return false
		}
	case nExp:
		switch {
		case c == '+' || c == '-':
			next = nExpSign
		case digit:
			next = nExpDig
		default:
			p.fail(i, "invalid character "+quoteByte(c)+" in exponent of numeric literal (expecting a sign or a digit)")
			return false
		}
	case nExpSign:
		if !digit {
			p.fail(i, "invalid character "+quoteByte(c)+" in exponent of numeric literal (expecting a digit)")
			return false
		}
		next = nExpDig
	case nExpDig:
		if !digit {
			return false
		}
	}
	p.num = next
	p.rawByte(c)
	return true
}

// numberComplete reports whether the number read so far may end here.
func (p *Parser) numberComplete() bool {
	return p.num == nZero || p.num == nInt || p.num == nFrac || p.num == nExpDig
}

// rawByte keeps c in the compact text when a value is being kept whole.
func (p *Parser) rawByte(c byte) {
	if p.rawOn {
		p.raw = append(p.raw, c)
	}
}

// fail records a syntax error at index i of the current fragment.
func (p *Parser) fail(i int, msg string) {
	p.err = &SyntaxError{Offset: p.off + int64(i), Msg: msg}
}

// Err returns the syntax error found so far, a *SyntaxError, or nil while the text read so far
// can still begin a JSON value.
func (p *Parser) Err() error {
	if p.err == nil {
		return nil
	}
	return p.err
}

// Params returns the top-level fields of an object read so far, by key: a string field's value
// decoded as far as it has arrived (an escape, a surrogate pair or a UTF-8 sequence split
// across fragments appears only once whole), any other field's compact JSON text once it is
// complete. A string field appears, empty, as soon as its opening quote arrives. When a key
// repeats, its latest value wins, as with encoding/json. Params is nil until the first field
// appears, and for values that are not objects.
//
// The map is the Parser's own: Append updates it in place, and the caller must not modify it.
// Copy it to keep a version. Its values are never modified, so they may be kept.
func (p *Parser) Params() map[string]string { return p.params }

// Open returns the key of the top-level string field whose value is still arriving, with ok
// true, or ok false when no value is: its value in Params may still grow, while every other
// entry of Params is final until its key repeats. The keys of an object come in no set order,
// so this, not a later key's arrival, tells that a value is whole.
func (p *Parser) Open() (key string, ok bool) {
	if p.field == nil {
		return "", false
	}
	return p.curKey, true
}

// End marks the end of the text and returns the whole value: what json.Unmarshal into an any
// returns for the text (a map[string]any for an object). The error is a *SyntaxError when the
// text is not JSON, and otherwise whatever json.Unmarshal reports (a number out of the range of
// float64). Calls after the first return the same; Append after End does nothing.
func (p *Parser) End() (any, error) {
	if p.ended {
		return p.value, p.vErr
	}
	p.ended = true
	if p.err == nil && p.state == sNumber && len(p.stack) == 0 && p.numberComplete() {
		p.state = sEnd
	}
	if p.err == nil && p.state != sEnd {
		p.err = &SyntaxError{Offset: p.off, Msg: "unexpected end of JSON input: the value is not complete"}
	}
	if p.err != nil {
		p.vErr = p.err
		return nil, p.vErr
	}
	if !p.object {
		p.vErr = json.Unmarshal(p.raw, &p.value)
		return p.value, p.vErr
	}
	m := make(map[string]any, len(p.members))
	for _, f := range p.members {
		if f.str != nil {
			m[f.key] = f.str.String()
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(f.raw), &v); err != nil {
			p.vErr = fmt.Errorf("field %q: %w", f.key, err)
			return nil, p.vErr
		}
		m[f.key] = v
	}
	p.value = m
	return m, nil
}

// quoteByte formats c for an error message.
func quoteByte(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := fmt.Sprintf("%q", string([]byte{c}))
	return "'" + s[1:len(s)-1] + "'"
}

// literalFor returns the literal that starts with c, one of 't', 'f' and 'n'.
func literalFor(c byte) string {
	switch c {
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return "null"
}
