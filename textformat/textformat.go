// Package textformat recognises file edits written inside an assistant's plain text: Aider
// SEARCH/REPLACE blocks, V4A patch envelopes and unified diffs, and applies the first and last
// of these to a file's content.
//
// Recognition is conservative. A format's markers must appear in the exact arrangement the format
// prescribes (an Aider block needs its three markers and a one-word file name, a unified diff its
// ---, +++ and @@ lines in a row), so prose, Markdown and Cline's XML tool uses are never taken
// for an edit, and text without a format's marker is rejected after one substring scan. Only
// complete edits are reported: a block still streaming in is recognised once its last marker has
// arrived.
package textformat

import (
	"sort"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
)

// Format names a text format, as the textFormats setting spells it.
type Format string

// The formats this package recognises.
const (
	Aider Format = "aider"
	V4A   Format = "v4a"
	UDiff Format = "udiff"
)

// Span is the byte range [Start, End) of something in the text it was recognised in.
type Span struct {
	Start, End int
}

// Op says what an edit does to its file.
type Op string

// File operations.
const (
	// OpModify changes an existing file. (An Aider block with an empty SEARCH section creates
	// the file when it does not exist; see File.Apply.)
	OpModify Op = "modify"
	// OpCreate creates a file (a unified diff from /dev/null).
	OpCreate Op = "create"
	// OpDelete deletes a file (a unified diff to /dev/null).
	OpDelete Op = "delete"
)

// Edit is one recognised edit. Span covers it whole, including the code fence around it when it
// is the fence's whole content. Files lists the files an Aider block or unified diff changes;
// a V4A edit has no Files but its Patch, the envelope from "*** Begin Patch" to "*** End Patch"
// inclusive, for a V4A parser.
//
// Partial reports a unified diff that may still be growing while the text streams: its last hunk
// has fewer lines than its header counts, or has no counts and ends the text. Aider blocks and V4A
// envelopes are reported only once complete, so they are never partial.
type Edit struct {
	Format  Format
	Span    Span
	Files   []File
	Patch   string
	Partial bool
}

// File is the part of an edit that concerns one file. Path is the path as written (a unified
// diff's a/ and b/ prefixes removed); OldPath is the source path of a unified diff that renames
// the file ("rename from"): Apply is then given OldPath's content and the caller moves the file
// to Path. Span covers the file's part of the text.
type File struct {
	Format   Format
	Path     string
	OldPath  string
	Op       Op
	Span     Span
	Sections []Section
}

// Section is one Aider SEARCH/REPLACE section or one unified diff hunk.
//
// Span runs, for an Aider section, from the start of its SEARCH marker line to the end of its
// separator line; for a hunk it is the @@ line. Search is the text to find and Replace its
// replacement, every line ending in "\n" (a "\r" before it dropped), except that a hunk's line
// marked "\ No newline at end of file" has none. OldStart is a hunk's first old line
// from its header (-1 when the header has no numbers; 0 in "@@ -0,0 ..."), Header a hunk's @@ line.
// A hunk's lines, each with its own line break as the diff gives it, are what Apply applies.
type Section struct {
	Span     Span
	Search   string
	Replace  string
	OldStart int
	Header   string

	hunk *hunk // a unified diff hunk's lines
}

// Find returns the edits of the given formats in text, in text order. Where edits of different
// formats overlap, the one that starts first is kept.
func Find(text string, formats ...Format) []Edit {
	var all []Edit
	for _, f := range formats {
		switch f {
		case Aider:
			all = append(all, FindAider(text)...)
		case V4A:
			all = append(all, FindV4A(text)...)
		case UDiff:
			all = append(all, FindUDiff(text)...)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Span.Start < all[j].Span.Start })
	out := all[:0]
	end := -1
	for _, e := range all {
		if e.Span.Start >= end {
			out = append(out, e)
			end = e.Span.End
		}
	}
	return out
}

// line is one line of a text: text[start:end] without its line break, next the offset after it.
type line struct {
	start, end, next int
}

// splitLines returns the lines of text; a "\r" before "\n" is left out of the line.
func splitLines(text string) []line {
	out := make([]line, 0, strings.Count(text, "\n")+1)
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			out = append(out, line{i, len(text), len(text)})
			break
		}
		e := i + j
		if e > i && text[e-1] == '\r' {
			e--
		}
		out = append(out, line{i, e, i + j + 1})
		i += j + 1
	}
	return out
}

// fence returns the backtick run that opens a Markdown code fence on l (three or more, after at
// most three spaces of indentation), or "" when l is not a fence line.
func fence(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == '`' {
		n++
	}
	if n < 3 || strings.ContainsRune(t[n:], '`') {
		return ""
	}
	return t[:n]
}

// closesFence reports whether l closes a fence opened by open: at least as many backticks and
// nothing else but spaces.
func closesFence(l, open string) bool {
	t := strings.TrimSpace(l)
	return len(t) >= len(open) && strings.Trim(t, "`") == ""
}

// TierLineNumber is the tier of a unified diff hunk that only adds lines: it has no old lines to
// find, so it is placed by its header's line number.
const TierLineNumber apply.MatchTier = "line_number"
