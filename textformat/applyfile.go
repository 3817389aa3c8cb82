package textformat

import (
	"fmt"
	"sort"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/internal/eol"
)

// Result is a file's content after an edit.
//
// Content is the new content (empty for a deletion); Create reports that the file did not exist
// and is created, Delete that it is deleted. Tiers[i] says how section i was located and
// Matches[i] is the offset in the original content where it matched (for an insertion, where it
// inserts).
type Result struct {
	Content        string
	Create, Delete bool
	Tiers          []apply.MatchTier
	Matches        []int
}

// Apply applies f to a file's current content; exists says whether the file exists.
//
// An Aider block is applied as Aider applies it (see applyAider). For a unified diff, every section is located in the original content with the tiers of Cline's v1 applier (exact,
// line-trimmed, block-anchor), starting after the previous section's match and, failing that,
// anywhere in the file (tier whole_file); sections must not overlap, though insertions at one
// point are made in section order, and an insertion where a replaced range begins goes before
// it. A hunk that only adds lines
// is placed after the old line its header names (tier line_number). A file whose lines all end in "\r\n" is matched as if they ended in "\n" and keeps its
// "\r\n" line breaks. Failures are *Error.
func (f File) Apply(content string, exists bool) (Result, error) {
	if f.Format == Aider {
		return f.applyAider(content, exists)
	}
	switch f.Op {
	case OpCreate:
		if exists && content != "" {
			return Result{}, f.fail(ErrFileExists, 0, "")
		}
		var b strings.Builder
		for _, s := range f.Sections {
			b.WriteString(s.Replace)
		}
		tiers := make([]apply.MatchTier, len(f.Sections))
		for i := range tiers {
			tiers[i] = apply.TierEmpty
		}
		return Result{Content: b.String(), Create: !exists, Tiers: tiers, Matches: make([]int, len(f.Sections))}, nil
	case OpDelete:
		if !exists {
			return Result{}, f.fail(ErrFileMissing, 0, "")
		}
		return Result{Delete: true}, nil
	}
	if !exists {
		return Result{}, f.fail(ErrFileMissing, 0, "")
	}
	lf, crlf := eol.ToLF(content)
	type rep struct {
		start, end int
		text       string
	}
	reps := make([]rep, 0, len(f.Sections))
	res := Result{Tiers: make([]apply.MatchTier, len(f.Sections)), Matches: make([]int, len(f.Sections))}
	from := 0
	for i, s := range f.Sections {
		var start, end int
		var tier apply.MatchTier
		switch {
		case strings.TrimSpace(s.Search) == "":
			at, ok := lineOffset(lf, s.OldStart)
			if !ok {
				e := f.fail(ErrBadLine, i+1, "")
				e.Line = s.OldStart
				return Result{}, e
			}
			start, end, tier = at, at, TierLineNumber
		default:
			var ok bool
			start, end, tier, ok = apply.Locate(lf, s.Search, from)
			if !ok {
				if start, end, _, ok = apply.Locate(lf, s.Search, 0); ok {
					tier = apply.TierWholeFile
				}
			}
			if !ok {
				e := f.fail(ErrNoMatch, i+1, s.Search)
				if c := apply.Nearest(lf, s.Search); c != nil {
					c.Start, c.End = eol.Offset(lf, c.Start, crlf), eol.Offset(lf, c.End, crlf)
					e.Nearest = c
				}
				return Result{}, e
			}
		}
		for k, r := range reps {
			if start < r.end && r.start < end || start == end && r.start < start && start < r.end {
				e := f.fail(ErrOverlap, i+1, s.Search)
				e.Other = k + 1
				return Result{}, e
			}
		}
		reps = append(reps, rep{start, end, s.Replace})
		res.Tiers[i], res.Matches[i] = tier, eol.Offset(lf, start, crlf)
		from = end
	}
	// An insertion at the start of a replaced range goes before it.
	sort.SliceStable(reps, func(a, b int) bool {
		if reps[a].start != reps[b].start {
			return reps[a].start < reps[b].start
		}
		return reps[a].end < reps[b].end
	})
	var b strings.Builder
	pos := 0
	for _, r := range reps {
		b.WriteString(lf[pos:r.start])
		b.WriteString(r.text)
		pos = r.end
	}
	b.WriteString(lf[pos:])
	res.Content = eol.Restore(b.String(), crlf)
	return res, nil
}

// lineOffset returns the offset just after line n (1-based) of s, 0 for n == 0; ok is false past
// the last line.
func lineOffset(s string, n int) (int, bool) {
	if n < 0 {
		return 0, false
	}
	off := 0
	for range n {
		if off >= len(s) {
			return 0, false
		}
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			off = len(s)
			continue
		}
		off += i + 1
	}
	return off, true
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
// name; Other, for ErrOverlap, the earlier section overlapped; Line, for ErrBadLine, the line
// the hunk's header names (-1 when it names none).
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

	msg string // the whole message, where the format's reference words it (Aider's report)
}

// Error says what failed in words a model can act on.
func (e *Error) Error() string {
	if e.msg != "" {
		return e.msg
	}
	what, search := fmt.Sprintf("SEARCH/REPLACE block %d for %s", e.Section, e.Path), "its SEARCH section"
	if e.Format == UDiff {
		what, search = fmt.Sprintf("hunk %d (%s) of %s", e.Section, e.Header, e.Path), "its context and removed lines"
	}
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
		unit := "block"
		if e.Format == UDiff {
			unit = "hunk"
		}
		return fmt.Sprintf("%s: it matches text that %s %d already changes; merge the two into one.", what, unit, e.Other)
	case ErrFileExists:
		return fmt.Sprintf("the diff creates %s from /dev/null, but the file already exists and is not empty; write a diff against its current content.", e.Path)
	case ErrFileMissing:
		if e.Format == Aider {
			return fmt.Sprintf("%s does not exist; to create it, use one block with an empty SEARCH section and the whole content as the replacement.", e.Path)
		}
		return fmt.Sprintf("%s does not exist; a new file's diff starts with --- /dev/null.", e.Path)
	case ErrBadLine:
		if e.Line < 0 {
			return fmt.Sprintf("%s: the hunk only adds lines and its header has no line numbers, so there is nothing to place it by; add context lines or an @@ -l,0 +l,n @@ header.", what)
		}
		return fmt.Sprintf("%s: the hunk only adds lines, and the file has no line %d to add them after; check the line numbers in the @@ header.", what, e.Line)
	}
	return string(e.Kind)
}
