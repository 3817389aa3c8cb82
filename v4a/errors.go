package v4a

import (
	"errors"
	"fmt"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
)

// ErrorKind classifies an Error.
type ErrorKind string

// Error kinds.
const (
	// ErrInvalidPatch: the envelope is wrong (the first or last line, or several patches in one
	// text).
	ErrInvalidPatch ErrorKind = "invalid_patch"
	// ErrInvalidHunk: a line of the patch breaks the grammar; Line says where.
	ErrInvalidHunk ErrorKind = "invalid_hunk"
	// ErrNoFiles: the patch holds no operation.
	ErrNoFiles ErrorKind = "no_files"
	// ErrRead: a file to update or delete does not exist, or is not a regular file.
	ErrRead ErrorKind = "read"
	// ErrWrite: a file cannot be created where the patch puts it (a directory is in the way).
	ErrWrite ErrorKind = "write"
	// ErrContext: a hunk's "@@ text" header line was not found.
	ErrContext ErrorKind = "context_not_found"
	// ErrLines: a hunk's context and '-' lines were not found.
	ErrLines ErrorKind = "lines_not_found"
)

// ErrNotFile is what a Files function returns (possibly wrapped) for a path that exists but is
// not a regular file, such as a directory.
var ErrNotFile = errors.New("not a regular file")

// Error is a patch that cannot be parsed or applied.
//
// Message is Codex's own wording for the failure (its stderr). Op and Hunk are the 0-based
// operation and hunk concerned, -1 when none; Path is the operation's path as written. For
// ErrInvalidHunk, Line is the line number Codex reports (the "*** Begin Patch" line is 1) and
// PatchLine and Offset locate the offending line in the text given to Parse. Tried lists the
// tiers attempted for ErrContext and ErrLines, and Nearest is then the region of the file most
// like what was sought (lines 1-based, in the file as the hunk saw it), when one is similar
// enough to name.
type Error struct {
	Kind      ErrorKind
	Message   string
	Op, Hunk  int
	Path      string
	Line      int
	PatchLine int
	Offset    int
	Tried     []Tier
	Nearest   *apply.Candidate
	// Reason says why a file could not be deleted or written, where Codex's Message does not.
	Reason string
}

// Error returns Message followed by Reason when there is one, or, for a hunk that did not match,
// by which hunk it was, what was tried and the nearest region.
func (e *Error) Error() string {
	if e.Reason != "" {
		return e.Message + ": " + e.Reason
	}
	if e.Kind != ErrContext && e.Kind != ErrLines {
		return e.Message
	}
	var b strings.Builder
	b.WriteString(e.Message)
	fmt.Fprintf(&b, "\n(hunk %d of the update to %s; tried:", e.Hunk+1, e.Path)
	for i, t := range e.Tried {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(' ')
		b.WriteString(string(t))
	}
	b.WriteString(")")
	if c := e.Nearest; c != nil {
		span := fmt.Sprintf("lines %d-%d", c.StartLine, c.EndLine)
		if c.StartLine == c.EndLine {
			span = fmt.Sprintf("line %d", c.StartLine)
		}
		fmt.Fprintf(&b, "\ndid you mean %s? (%d%% similar)", span, int(c.Similarity*100))
	} else {
		b.WriteString("\nNo similar region found; read the file again and copy the lines to change exactly.")
	}
	return b.String()
}
