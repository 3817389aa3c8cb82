package textformat

import (
	"fmt"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
)

// Result is a file's content after an edit.
//
// Content is the new content (empty for a deletion); Create reports that the file did not exist
// and is created, Delete that it is deleted. Tiers[i] says how section i was located and
// Matches[i] is the offset in the original content where it matched (for an insertion, where it
// inserts); Spans[i] are the original content's bytes it replaced (empty for an insertion).
type Result struct {
	Content        string
	Create, Delete bool
	Tiers          []apply.MatchTier
	Matches        []int
	Spans          []Span
}

// Apply applies f to a file's current content; exists says whether the file exists.
//
// Each format is applied as its reference applies it: a unified diff as git apply does (hunks
// in order, each at its @@ line or the nearest place that matches; see applyUDiff), an Aider
// block as Aider's editblock coder does (see applyAider). Failures are *Error.
func (f File) Apply(content string, exists bool) (Result, error) {
	switch f.Format {
	case UDiff:
		return f.applyUDiff(content, exists, nil)
	case Aider:
		return f.applyAider(content, exists, nil)
	}
	return Result{}, fmt.Errorf("textformat: %s edits are not applied file by file; apply the V4A patch whole", f.Format)
}

// Outcome is how one section of a File fared when Check applied it.
type Outcome struct {
	// Tier says how the section was located, as Result.Tiers does; "" when it matched nothing.
	Tier apply.MatchTier
	// Start and End are the bytes of the original content the section matched (for a section
	// that only inserts, Start == End is where it inserts); StartLine and EndLine are the first
	// and last of those lines, 1-based (for an insertion, the line it inserts before).
	Start, End         int
	StartLine, EndLine int
	// Away is, for a unified diff hunk of tier TierOffset, how many lines below the line its
	// header names it matched (negative: above).
	Away int
	// Err says why the section matched nothing (nil when it matched), with Nearest where the
	// format's reference names the most similar lines (git apply names none; ours are named
	// anyway).
	Err *Error
	// Applied reports a section that matched nothing because its change already stands, as the
	// format's reference would see it: for an Aider section, its REPLACE text is in the file
	// (Aider's "The REPLACE lines are already in", which looks for it verbatim; here it is also
	// found as Aider finds a SEARCH text, so that a REPLACE text indented as the file is found);
	// for a hunk, the hunk reversed applies (git apply --reverse --check).
	Applied bool
}

// Check applies f to content as Apply does and reports each section's outcome, in order. Apply
// is all or nothing; Check goes on past a section that matches nothing, applying the next ones
// to what the sections before it left, so that each section's outcome is known. (git apply
// stops at a failed hunk, and Aider reports every failed block: past a failure, a hunk's
// outcome is what git apply would find once the failed hunk was fixed.) err is a failure of
// the file as a whole (it is missing, a diff deletes other content than it holds): then there
// are no outcomes.
func (f File) Check(content string, exists bool) (out []Outcome, err error) {
	out = make([]Outcome, len(f.Sections))
	switch f.Format {
	case UDiff:
		_, err = f.applyUDiff(content, exists, out)
	case Aider:
		_, err = f.applyAider(content, exists, out)
	default:
		_, err = f.Apply(content, exists)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// matched records that the section matched bytes [start, end) of content, the original.
func (o *Outcome) matched(tier apply.MatchTier, content string, start, end int) {
	o.Tier, o.Start, o.End = tier, start, end
	o.StartLine = strings.Count(content[:start], "\n") + 1
	o.EndLine = o.StartLine
	if end > start {
		o.EndLine = strings.Count(content[:end-1], "\n") + 1
	}
}

func (f File) fail(kind ErrorKind, section int, search string) *Error {
	e := &Error{Kind: kind, Format: f.Format, Path: f.Path, Section: section, Search: search}
	if section > 0 {
		e.Span, e.Header = f.Sections[section-1].Span, f.Sections[section-1].Header
	}
	return e
}

// ErrorKind classifies an Error.
type ErrorKind string

// Error kinds.
const (
	// ErrNoMatch: a section's SEARCH text (a hunk's context and removed lines) is nowhere in the file.
	ErrNoMatch ErrorKind = "no_match"
	// ErrOverlap: a section matched text that an earlier section of the same edit also matched.
	ErrOverlap ErrorKind = "overlap"
	// ErrFileExists: a diff from /dev/null names a file that exists and is not empty.
	ErrFileExists ErrorKind = "file_exists"
	// ErrFileMissing: the edit changes or deletes a file that does not exist.
	ErrFileMissing ErrorKind = "file_missing"
	// ErrBadLine: a hunk that only adds lines names a line past the end of the file.
	ErrBadLine ErrorKind = "bad_line"
)

// Error is returned (as *Error) by File.Apply. Section is the 1-based section or hunk concerned
// (0 for the whole file) with its Span and, for a hunk, its Header; Search is its SEARCH text;
// Nearest, for ErrNoMatch, the most similar region of the file when one is similar enough to
// name; Other, for ErrOverlap, the earlier section overlapped; Line, for a hunk, the line its
// header names (-1 when it names none); Lines, for ErrAmbiguous, the lines where it matches.
type Error struct {
	Kind    ErrorKind
	Format  Format
	Path    string
	Section int
	Span    Span
	Header  string
	Search  string
	Nearest *apply.Candidate
	Other   int
	Line    int
	Lines   []int

	msg string // the whole message, where the format's reference words it (Aider's report)
}

// Error says what failed in words a model can act on.
func (e *Error) Error() string {
	if e.msg != "" {
		return e.msg
	}
	if e.Format == UDiff {
		return e.udiffMessage()
	}
	what, search := fmt.Sprintf("SEARCH/REPLACE block %d for %s", e.Section, e.Path), "its SEARCH section"
	switch e.Kind {
	case ErrNoMatch:
		msg := fmt.Sprintf("%s: %s match nothing in the file (tried exact, line-trimmed and block-anchor matching).", what, search)
		if c := e.Nearest; c != nil {
			lines := fmt.Sprintf("lines %d-%d", c.StartLine, c.EndLine)
			if c.StartLine == c.EndLine {
				lines = fmt.Sprintf("line %d", c.StartLine)
			}
			return msg + fmt.Sprintf(" The most similar region is %s (%d%% similar); copy those lines exactly.", lines, int(c.Similarity*100))
		}
		return msg + " No similar region was found; read the file again and copy the lines to change exactly."
	case ErrOverlap:
		return fmt.Sprintf("%s: it matches text that block %d already changes; merge the two into one.", what, e.Other)
	case ErrFileMissing:
		return fmt.Sprintf("%s does not exist; to create it, use one block with an empty SEARCH section and the whole content as the replacement.", e.Path)
	}
	return string(e.Kind)
}
