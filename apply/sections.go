package apply

import (
	"errors"
	"strings"
)

// Section is one complete SEARCH/REPLACE section of a diff, as Construct reads it. Lines are
// 0-based diff lines (split on "\n"): Marker holds the SEARCH marker, Separator the separator,
// End the REPLACE marker. Search and Replace are the texts between them, each line ending in
// "\n".
type Section struct {
	Marker, Separator, End int
	Search, Replace        string
}

// Sections returns the complete sections of diff in order, under the same marker rules as
// Construct (current and legacy markers). Text outside sections is left out, and so is a last
// section without its REPLACE marker: complete is false then.
func Sections(diff string) (sections []Section, complete bool) {
	const (
		outside = iota
		inSearch
		inReplace
	)
	var (
		cur             Section
		search, replace strings.Builder
		state           = outside
	)
	n := 0
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case state == outside && isSearchStart(line):
			state, cur = inSearch, Section{Marker: n}
			search.Reset()
			replace.Reset()
		case state == inSearch && isSeparator(line):
			state, cur.Separator = inReplace, n
		case state == inReplace && isReplaceEnd(line):
			cur.End, cur.Search, cur.Replace = n, search.String(), replace.String()
			sections = append(sections, cur)
			state = outside
		case state == inSearch:
			search.WriteString(line + "\n")
		case state == inReplace:
			replace.WriteString(line + "\n")
		}
		n++
	}
	return sections, state == outside
}

// Diff returns the section as a diff of its own, in the current marker style.
func (s Section) Diff() string {
	return searchMarker + "\n" + s.Search + sepMarker + "\n" + s.Replace + replaceMarker + "\n"
}

// CountSections returns the number of SEARCH markers (current and legacy forms) in diff, with
// the same marker rules as Construct, so that "k of n sections matched" counts what the
// applier counts.
func CountSections(diff string) int {
	n := 0
	for line := range strings.SplitSeq(diff, "\n") {
		if isSearchStart(line) {
			n++
		}
	}
	return n
}

// Invert returns diff with the SEARCH and REPLACE texts of every section exchanged, in the
// current marker style and without the text outside sections. Applying the inverse to a file
// that already holds the edit finds every REPLACE text, which is how an edit applied before is
// recognised. ok is false when diff has no sections, leaves one open, or has a section whose
// REPLACE text is empty (a deletion leaves nothing to find).
func Invert(diff string) (inverse string, ok bool) {
	sections, complete := Sections(diff)
	if !complete || len(sections) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, s := range sections {
		if s.Replace == "" {
			return "", false
		}
		b.WriteString(Section{Search: s.Replace, Replace: s.Search}.Diff())
	}
	return b.String(), true
}

// ErrNoSections is what Edit's error is (errors.Is) for a diff without a single marker line.
var ErrNoSections = errors.New("the diff holds no SEARCH/REPLACE block")

// checkSections reports a diff that holds no marker line at all (no SEARCH marker, separator
// nor REPLACE marker), empty or not, with an error that is ErrNoSections and says what a diff
// looks like. A diff with any marker is left to Construct, which reports its faults itself.
func checkSections(diff string) error {
	for line := range strings.SplitSeq(diff, "\n") {
		if isSearchStart(line) || isSeparator(line) || isReplaceEnd(line) {
			return nil
		}
	}
	return noSectionsError{empty: strings.TrimSpace(diff) == ""}
}

// noSectionsError is checkSections's error.
type noSectionsError struct{ empty bool }

func (e noSectionsError) Error() string {
	what := ErrNoSections.Error()
	if e.empty {
		what = "the diff is empty"
	}
	return what + ", so it changes nothing; a diff is one or more SEARCH/REPLACE blocks, each:\n" +
		searchMarker + "\n[the exact lines of the file to change]\n" + sepMarker + "\n[the lines to put in their place]\n" + replaceMarker
}

// Is makes the error ErrNoSections.
func (noSectionsError) Is(target error) bool { return target == ErrNoSections }
