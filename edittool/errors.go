package edittool

import (
	"fmt"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/internal/eol"
)

// Code classifies an Error, for callers that branch on it.
type Code string

// Error codes.
const (
	// ErrNoMatch: the text to replace is not in the file.
	ErrNoMatch Code = "no_match"
	// ErrAmbiguous: the text to replace occurs more than once (Error.Count times).
	ErrAmbiguous Code = "ambiguous"
	// ErrFileExists: the call creates a file that already exists.
	ErrFileExists Code = "file_exists"
	// ErrFileMissing: the call edits a file that does not exist.
	ErrFileMissing Code = "file_missing"
	// ErrNoChange: the call would leave the file as it is (Claude Code refuses such edits).
	ErrNoChange Code = "no_change"
	// ErrBadInput: the call's input is missing a field, has one of the wrong type, or is
	// otherwise not a valid call of the tool.
	ErrBadInput Code = "bad_input"
	// ErrUnsupported: the command cannot be carried out here (undo_edit: no edit history).
	ErrUnsupported Code = "unsupported"
	// ErrNotebook: the file is a Jupyter notebook, which the tool does not edit as text.
	ErrNotebook Code = "notebook"
)

// Error is a failed call. Its message is the reference tool's own result for the failure, then,
// where it helps the model, a hint of this package's: the region nearest to text that did not
// match, or the lines of each occurrence of ambiguous text.
//
// Count and Lines give, for ErrAmbiguous, the number of occurrences and the 1-based line where
// each starts. Edit is the 1-based MultiEdit edit concerned (0 otherwise). Nearest is, for
// ErrNoMatch, the region most like the text sought, when one is similar enough to name. Err is
// the underlying error where there is one (replace_in_file's *apply.Error).
type Error struct {
	Code    Code
	Tool    string
	Path    string
	Count   int
	Lines   []int
	Edit    int
	Nearest *apply.Candidate
	Err     error

	msg  string // the reference tool's wording
	hint string
}

func (e *Error) Error() string {
	if e.hint == "" {
		return e.msg
	}
	return e.msg + "\n" + e.hint
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }

// noMatch builds an ErrNoMatch error for old, sought in content, with a hint naming the nearest
// region: one that matches once white space at line ends is ignored, else the most similar one.
// old is sought in doc's LF view; the hint's offsets are the original's.
func noMatch(c *Call, msg string, doc eol.Text, old string) *Error {
	content := doc.LF()
	e := &Error{Code: ErrNoMatch, Tool: c.Tool, Path: c.Path, msg: msg}
	search := old
	if !strings.HasSuffix(search, "\n") {
		search += "\n"
	}
	if strings.TrimSpace(old) == "" {
		return e
	}
	if start, end, tier, ok := apply.Locate(content, search, 0); ok && tier != apply.TierExact {
		first := strings.Count(content[:start], "\n") + 1
		last := first + strings.Count(strings.TrimSuffix(content[start:end], "\n"), "\n")
		e.Nearest = &apply.Candidate{StartLine: first, EndLine: last, Start: doc.Offset(start), End: doc.Offset(end), Similarity: 1}
		if tier == apply.TierLineTrimmed {
			e.hint = fmt.Sprintf("The file's %s match once leading and trailing white space is ignored; copy them exactly, indentation included.", lineRange(first, last))
		} else {
			e.hint = fmt.Sprintf("The file's %s begin and end with the same lines but differ inside; copy them exactly.", lineRange(first, last))
		}
		return e
	}
	if n := apply.Nearest(content, search); n != nil {
		n.Start, n.End = doc.Offset(n.Start), doc.Offset(n.End)
		e.Nearest = n
		e.hint = fmt.Sprintf("The most similar region of the file is %s (%d%% similar); copy it exactly.", lineRange(n.StartLine, n.EndLine), int(n.Similarity*100))
		return e
	}
	e.hint = "No similar text was found; read the file again before editing it."
	return e
}

func lineRange(first, last int) string {
	if first == last {
		return fmt.Sprintf("line %d", first)
	}
	return fmt.Sprintf("lines %d-%d", first, last)
}

// occurrences returns the offset of each non-overlapping occurrence of s in content, left to
// right, as a search that resumes after each match finds them; s is not empty.
func occurrences(content, s string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(content[i:], s)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + len(s)
	}
}

// lineNumbers returns the 1-based line of each offset.
func lineNumbers(content string, offs []int) []int {
	out := make([]int, len(offs))
	line, pos := 1, 0
	for i, o := range offs {
		line += strings.Count(content[pos:o], "\n")
		pos = o
		out[i] = line
	}
	return out
}
