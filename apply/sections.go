package apply

import "strings"

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
