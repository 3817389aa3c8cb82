// Package v4a parses and applies V4A patches, the apply_patch format of OpenAI's Codex CLI and
// the Responses API, with the results of Codex's own apply_patch (the released @openai/codex
// 0.171.0 binary; testdata/conformance/v4a.jsonl holds its outcomes).
//
// It departs from Codex in two ways on purpose. A patch is all or nothing: Apply returns a Plan
// of every change, or an error and no plan, where Codex keeps the operations before a failing
// one. And a patch wrapped in a Markdown fence, a shell heredoc or prose, which Codex refuses, is
// unwrapped first (Patch.Unwrapped says so).
//
// The package is pure: file contents come from the caller (Files), and nothing is written.
package v4a

import (
	"fmt"
	"strings"
	"unicode"
)

// The patch grammar's markers.
const (
	beginMarker   = "*** Begin Patch"
	endMarker     = "*** End Patch"
	addMarker     = "*** Add File: "
	deleteMarker  = "*** Delete File: "
	updateMarker  = "*** Update File: "
	moveMarker    = "*** Move to: "
	eofMarker     = "*** End of File"
	contextMarker = "@@ "
	bareContext   = "@@"
	// envMarker starts the line naming the environment a patch is for, which current Codex
	// writes before the first operation; the environment is Codex's to choose, not ours.
	envMarker = "*** Environment ID:"
)

// OpKind is what an operation does to its file.
type OpKind string

// Operation kinds.
const (
	// AddFile creates a file (overwriting one that exists, as Codex does).
	AddFile OpKind = "add"
	// DeleteFile removes an existing file.
	DeleteFile OpKind = "delete"
	// UpdateFile edits an existing file, optionally moving it (Op.MoveTo).
	UpdateFile OpKind = "update"
)

// Patch is a parsed patch: its operations in patch order.
type Patch struct {
	Ops []Op
	// Unwrapped is true when the patch was taken out of a Markdown fence, a heredoc Codex does
	// not accept, or surrounding prose.
	Unwrapped bool
}

// Op is one file operation. Path and MoveTo are as written in the patch (Codex trims the header
// line, so a path keeps inner and leading spaces after the marker's own space). Line is the
// 1-based line of the header in the text given to Parse, Offset its byte offset there.
type Op struct {
	Kind    OpKind
	Path    string
	MoveTo  string // UpdateFile only; "" when the file stays where it is
	Content string // AddFile only: the new file's content, each '+' line followed by "\n"
	Hunks   []Hunk // UpdateFile only; never empty
	Line    int
	Offset  int
}

// Hunk is one change of an UpdateFile operation: the lines Old to find (context and '-' lines)
// and the lines New to put in their place (context and '+' lines).
//
// Context is the text of an "@@ text" header, which must be found (on one line) before Old;
// HasContext tells an "@@ " header with empty text from a bare "@@" or none. EOF marks a hunk
// ended by "*** End of File": Old must then be the file's last lines.
//
// Line and EndLine are the 1-based first and last lines of the hunk (its "@@" line included) in
// the text given to Parse; Offset and End are the byte range of those lines there.
type Hunk struct {
	Context    string
	HasContext bool
	Old, New   []string
	EOF        bool
	Line       int
	EndLine    int
	Offset     int
	End        int

	// kinds holds, for each line of the hunk in order, ' ' (a context line, in Old and New),
	// '-' (in Old only) or '+' (in New only).
	kinds []byte
}

// line is one line of the patch text: its content without the line break, where it starts in
// the text given to Parse, and its 1-based number there.
type line struct {
	text   string
	offset int
	num    int
}

// Parse parses a V4A patch as Codex does, lenient where Codex is lenient: markers may carry
// surrounding white space, the whole text may be a heredoc body (<<EOF, <<'EOF' or <<"EOF" on
// the first line, a last line ending in EOF), blank lines between hunks are skipped, and the
// first hunk may omit its "@@" line. When Codex would refuse the envelope, a patch inside a
// Markdown fence, another heredoc or prose is unwrapped and parsed instead. A failure is an
// *Error of kind ErrInvalidPatch or ErrInvalidHunk worded as Codex words it.
func Parse(text string) (*Patch, error) {
	ops, err := parseCodex(text, 0, 0)
	if err == nil {
		return &Patch{Ops: ops}, nil
	}
	if err.Kind != ErrInvalidPatch {
		return nil, err
	}
	w, uerr := unwrap(text)
	if uerr != nil {
		return nil, uerr
	}
	if w == nil {
		return nil, err
	}
	if ops, err = parseCodex(w.text, w.offset, w.line); err != nil {
		return nil, err
	}
	return &Patch{Ops: ops, Unwrapped: true}, nil
}

// parseCodex parses text as Codex's lenient parser does. off and lineOff are added to every
// offset and line number reported, for text cut out of a larger one.
func parseCodex(text string, off, lineOff int) ([]Op, *Error) {
	all := splitPatchLines(text, off, lineOff)
	body, err := boundaries(all)
	if err != nil {
		return nil, err
	}
	// The operations end at the first "*** End Patch" line, or where an operation would start
	// with a (padded) one; only blank lines may follow it before the last line.
	end := len(body)
	for i, l := range body {
		if l.text == endMarker {
			end = i
			break
		}
	}
	var ops []Op
	num := 2 // Codex numbers the line after "*** Begin Patch" 2, whatever came before it
	at := 0  // the first body line not yet parsed
	if at < end {
		n, err := environmentLine(body[:end])
		if err != nil {
			return nil, err
		}
		num, at = num+n, at+n
	}
	for at < end && trimSpace(body[at].text) != endMarker {
		op, n, err := parseOp(body[at:end], num)
		if err != nil {
			if err.Kind == ErrInvalidHunk {
				err.Op = len(ops)
			}
			return nil, err
		}
		ops = append(ops, op)
		num += n
		at += n
	}
	if at < len(body) {
		for _, l := range body[at+1:] {
			if trimSpace(l.text) != "" {
				return nil, invalidPatch("The last line of the patch must be '*** End Patch'")
			}
		}
	}
	return ops, nil
}

// environmentLine returns 1 when the first body line is an "*** Environment ID: id" line,
// which Codex reads before the first operation and which selects nothing here, so it is skipped;
// 0 otherwise. Like Codex, it refuses an empty id, and a second such line before the first
// operation.
func environmentLine(body []line) (int, *Error) {
	id, ok := strings.CutPrefix(strings.TrimLeftFunc(body[0].text, unicode.IsSpace), envMarker)
	if !ok {
		return 0, nil
	}
	if trimSpace(id) == "" {
		return 0, invalidPatch("apply_patch environment_id cannot be empty")
	}
	if len(body) > 1 && strings.HasPrefix(strings.TrimLeftFunc(body[1].text, unicode.IsSpace), envMarker) {
		return 0, invalidPatch("apply_patch environment_id cannot be specified more than once")
	}
	return 1, nil
}

// splitPatchLines trims text as Rust's str::trim does and splits it on "\n", dropping every
// "\r" before it, as Codex does.
func splitPatchLines(text string, off, lineOff int) []line {
	start := len(text) - len(strings.TrimLeftFunc(text, unicode.IsSpace))
	trimmed := strings.TrimRightFunc(text[start:], unicode.IsSpace)
	num := lineOff + 1 + strings.Count(text[:start], "\n")
	var out []line
	pos := 0
	for pos < len(trimmed) {
		end := strings.IndexByte(trimmed[pos:], '\n')
		next := len(trimmed)
		if end < 0 {
			end = len(trimmed)
		} else {
			end += pos
			next = end + 1
		}
		s := trimmed[pos:end]
		if end < len(trimmed) {
			s = strings.TrimRight(s, "\r")
		}
		out = append(out, line{text: s, offset: off + start + pos, num: num})
		num++
		pos = next
	}
	return out
}

// boundaries checks the first and last lines and returns the lines between them. The body ends
// at the first "*** End Patch": an end marker before the last line is reported as Codex reports
// it, as a last line that is not the end marker.
func boundaries(lines []line) ([]line, *Error) {
	body, err := strictBoundaries(lines)
	if err == nil {
		return body, nil
	}
	if n := len(lines); n >= 4 {
		first, last := lines[0].text, lines[n-1].text
		if (first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"`) && strings.HasSuffix(last, "EOF") {
			return strictBoundaries(lines[1 : n-1])
		}
	}
	return nil, err
}

func strictBoundaries(lines []line) ([]line, *Error) {
	if len(lines) == 0 || trimSpace(lines[0].text) != beginMarker {
		if len(lines) == 0 {
			return nil, invalidPatch("The last line of the patch must be '*** End Patch'")
		}
		return nil, invalidPatch("The first line of the patch must be '*** Begin Patch'")
	}
	if len(lines) < 2 || trimSpace(lines[len(lines)-1].text) != endMarker {
		return nil, invalidPatch("The last line of the patch must be '*** End Patch'")
	}
	return lines[1 : len(lines)-1], nil
}

func invalidPatch(msg string) *Error {
	return &Error{Kind: ErrInvalidPatch, Op: -1, Hunk: -1, Message: "Invalid patch: " + msg}
}

func invalidHunk(num int, l line, op, hunk int, format string, args ...any) *Error {
	return &Error{
		Kind: ErrInvalidHunk, Op: op, Hunk: hunk, Line: num, PatchLine: l.num, Offset: l.offset,
		Message: fmt.Sprintf("Invalid patch hunk on line %d: ", num) + fmt.Sprintf(format, args...),
	}
}

const validHeaders = "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"

// parseOp parses the operation at the start of lines, whose first line Codex numbers num, and
// returns it with the number of lines it spans.
func parseOp(lines []line, num int) (Op, int, *Error) {
	head := lines[0]
	first := trimSpace(head.text)
	op := Op{Line: head.num, Offset: head.offset}
	switch {
	case strings.HasPrefix(first, addMarker):
		op.Kind, op.Path = AddFile, first[len(addMarker):]
		n := 1
		var b strings.Builder
		for _, l := range lines[1:] {
			s, ok := strings.CutPrefix(l.text, "+")
			if !ok {
				break
			}
			b.WriteString(s)
			b.WriteByte('\n')
			n++
		}
		op.Content = b.String()
		return op, n, nil
	case strings.HasPrefix(first, deleteMarker):
		op.Kind, op.Path = DeleteFile, first[len(deleteMarker):]
		return op, 1, nil
	case strings.HasPrefix(first, updateMarker):
		op.Kind, op.Path = UpdateFile, first[len(updateMarker):]
		n := 1
		for n < len(lines) {
			l := lines[n]
			if len(op.Hunks) == 0 {
				// Before the first hunk Codex skips end-of-file markers and takes the move.
				if trimRight(l.text) == eofMarker {
					n++
					continue
				}
				if to, ok := strings.CutPrefix(l.text, moveMarker); ok && op.MoveTo == "" {
					op.MoveTo = trimRight(to)
					n++
					continue
				}
			}
			if len(op.Hunks) > 0 && op.Hunks[len(op.Hunks)-1].EOF && trimSpace(l.text) == "" {
				// Blank lines after a hunk ended by an end-of-file marker are skipped
				// (elsewhere a blank line is an empty context line, or an error where a hunk
				// must start with "@@").
				n++
				continue
			}
			if isOpBoundary(l.text) {
				break
			}
			h, used, err := parseHunk(lines[n:], num+n, len(op.Hunks) == 0)
			if err != nil {
				err.Hunk, err.Path = len(op.Hunks), op.Path
				return op, 0, err
			}
			op.Hunks = append(op.Hunks, h)
			n += used
		}
		if len(op.Hunks) == 0 {
			return op, 0, invalidHunk(num, head, -1, -1, "Update file hunk for path '%s' is empty", op.Path)
		}
		return op, n, nil
	}
	return op, 0, invalidHunk(num, head, -1, -1, "'%s' is not a valid hunk header. %s", first, validHeaders)
}

// isOpBoundary reports whether a line ends an Update File section: it starts (unpadded) the
// header of another operation.
func isOpBoundary(l string) bool {
	return strings.HasPrefix(l, addMarker) || strings.HasPrefix(l, deleteMarker) || strings.HasPrefix(l, updateMarker)
}

// parseHunk parses the hunk at the start of lines, whose first line Codex numbers num. Only the
// first hunk of a section may start without an "@@" line.
func parseHunk(lines []line, num int, first bool) (Hunk, int, *Error) {
	h := Hunk{Line: lines[0].num, Offset: lines[0].offset}
	start := 0
	switch l := trimRight(lines[0].text); {
	case l == bareContext:
		// "@@", also with trailing white space: no header to seek.
		start = 1
	case strings.HasPrefix(l, contextMarker):
		h.Context, h.HasContext, start = l[len(contextMarker):], true, 1
	case !first:
		return h, 0, invalidHunk(num, lines[0], -1, -1, "Expected update hunk to start with a @@ context marker, got: '%s'", lines[0].text)
	}
	if start >= len(lines) {
		return h, 0, invalidHunk(num+start, lines[0], -1, -1, "Update hunk does not contain any lines")
	}
	n := 0
body:
	for _, l := range lines[start:] {
		if trimRight(l.text) == eofMarker {
			if n == 0 {
				return h, 0, invalidHunk(num+start, l, -1, -1, "Update hunk does not contain any lines")
			}
			h.EOF = true
			n++
			break
		}
		if l.text == "" {
			h.Old, h.New = append(h.Old, ""), append(h.New, "")
			h.kinds = append(h.kinds, ' ')
		} else {
			switch rest := l.text[1:]; l.text[0] {
			case ' ':
				h.Old, h.New = append(h.Old, rest), append(h.New, rest)
				h.kinds = append(h.kinds, ' ')
			case '+':
				h.New = append(h.New, rest)
				h.kinds = append(h.kinds, '+')
			case '-':
				h.Old = append(h.Old, rest)
				h.kinds = append(h.kinds, '-')
			default:
				if n == 0 {
					return h, 0, invalidHunk(num+start, l, -1, -1, "Unexpected line found in update hunk: '%s'. "+
						"Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", l.text)
				}
				break body
			}
		}
		n++
	}
	last := lines[start+n-1]
	h.EndLine, h.End = last.num, last.offset+len(last.text)
	return h, start + n, nil
}

// trimSpace trims Unicode white space from both ends, as Rust's str::trim does (Go's
// unicode.IsSpace is the same White_Space property).
func trimSpace(s string) string { return strings.TrimFunc(s, unicode.IsSpace) }

// trimRight trims Unicode white space from the end, as Rust's str::trim_end does.
func trimRight(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }
