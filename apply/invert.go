package apply

import "strings"

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
// current marker style and without the text outside sections, under the same marker rules as
// Construct. Applying the inverse to a file that already holds the edit finds every REPLACE
// text, which is how an edit applied before is recognised. ok is false when diff is not a
// sequence of complete sections, or when a section's REPLACE text is empty (a deletion leaves
// nothing to find).
func Invert(diff string) (inverse string, ok bool) {
	const (
		outside = iota
		inSearch
		inReplace
	)
	var (
		out             strings.Builder
		search, replace []string
		state           = outside
	)
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case state == outside && isSearchStart(line):
			state, search, replace = inSearch, nil, nil
		case state == inSearch && isSeparator(line):
			state = inReplace
		case state == inReplace && isReplaceEnd(line):
			if len(replace) == 0 {
				return "", false
			}
			out.WriteString(searchMarker + "\n")
			for _, l := range replace {
				out.WriteString(l + "\n")
			}
			out.WriteString(sepMarker + "\n")
			for _, l := range search {
				out.WriteString(l + "\n")
			}
			out.WriteString(replaceMarker + "\n")
			state = outside
		case state == inSearch:
			search = append(search, line)
		case state == inReplace:
			replace = append(replace, line)
		}
	}
	return out.String(), state == outside && out.Len() > 0
}
