package apply

import (
	"fmt"
	"sort"
	"strings"
)

// ErrorKind classifies an Error. The kind always equals the reference's failure on the same
// input (testdata/conformance/diff.jsonl holds its outcomes); only the wording of the message is
// this package's own.
type ErrorKind string

// Error kinds.
const (
	// ErrNoMatch: a SEARCH section matches nothing in the file.
	ErrNoMatch ErrorKind = "no_match"
	// ErrEmptySearch: (v1) an empty SEARCH section on a non-empty file.
	ErrEmptySearch ErrorKind = "empty_search"
	// ErrMalformed: (v1) a REPLACE marker closed a section whose SEARCH text was never matched.
	ErrMalformed ErrorKind = "malformed"
	// ErrOutOfOrder: (v2) a SEARCH section matched before the end of the previous match.
	ErrOutOfOrder ErrorKind = "out_of_order"
	// ErrInvalidTransition: (v2) a SEARCH marker inside an open section, or a second separator.
	ErrInvalidTransition ErrorKind = "invalid_transition"
	// ErrIncomplete: (v2) the final call ended inside a section.
	ErrIncomplete ErrorKind = "incomplete"
	// ErrMalformedBlock: (v2) text outside any section, or a separator or REPLACE marker that no
	// open section accepts.
	ErrMalformedBlock ErrorKind = "malformed_block"
)

// Error is returned (as *Error) when a diff does not apply.
//
// Section is the 1-based number of the section concerned, 0 when the failure lies outside any
// section (a stray marker). DiffLine is the 0-based diff line of that section's SEARCH marker, or
// the line of the failure when there is no section; At is the 0-based diff line where the failure
// was detected. Search is the section's SEARCH text as the applier saw it (each line followed by
// "\n"). Tried lists the tiers attempted, for ErrNoMatch. Nearest is, for ErrNoMatch, the region
// of the file most similar to the SEARCH text when one is similar enough to be worth naming, and
// for ErrOutOfOrder the region that did match; From is the offset in the original after which the
// section had to match (the end of the previous in-order match).
type Error struct {
	Kind     ErrorKind
	Section  int
	DiffLine int
	At       int
	Search   string
	Tried    []MatchTier
	Nearest  *Candidate
	From     int

	what           string // for the transition and structure kinds: what went wrong, %s marking where
	noSearchMarker bool   // the section began at its separator (DiffLine): its SEARCH marker is missing
}

// Candidate is a region of the original. StartLine and EndLine are 1-based and inclusive, as a
// reader numbers lines; Start and End are the byte range; Similarity is in [0, 1], 1 for an
// identical region (ignoring leading and trailing white space on each line).
type Candidate struct {
	StartLine, EndLine int
	Start, End         int
	Similarity         float64
}

// Error describes the failure in terms a model can act on: which section failed, why, what
// was tried and, when a similar region exists, where it is. Line numbers in the text are 1-based.
func (e *Error) Error() string {
	var b strings.Builder
	at := "" // where the failure was detected, when the header does not already say it
	switch {
	case e.Section > 0 && e.noSearchMarker:
		fmt.Fprintf(&b, "SEARCH/REPLACE section %d (its separator on diff line %d has no SEARCH marker before it; "+
			"add ------- SEARCH above the lines to find): ", e.Section, e.DiffLine+1)
		at = fmt.Sprintf(" on diff line %d", e.At+1)
	case e.Section > 0:
		fmt.Fprintf(&b, "SEARCH/REPLACE section %d (SEARCH marker on diff line %d): ", e.Section, e.DiffLine+1)
		at = fmt.Sprintf(" on diff line %d", e.At+1)
	default:
		fmt.Fprintf(&b, "diff line %d: ", e.At+1)
	}
	const shape = "each section must be a SEARCH marker, the lines to find, one separator (=======), the new lines, then a REPLACE marker."
	switch e.Kind {
	case ErrNoMatch:
		b.WriteString("the SEARCH text matches nothing in the file")
		if len(e.Tried) > 0 {
			names := make([]string, len(e.Tried))
			for i, t := range e.Tried {
				names[i] = strings.ReplaceAll(string(t), "_", "-")
			}
			fmt.Fprintf(&b, " (tried %s matching)", strings.Join(names, ", "))
		}
		b.WriteString(".")
		writeSearchHead(&b, e.Search)
		if c := e.Nearest; c != nil {
			fmt.Fprintf(&b, "\ndid you mean %s? (%d%% similar)", lineRange(c), percent(c.Similarity))
			if c.End <= e.From && e.From > 0 {
				b.WriteString(" It lies before the previous section's match: sections must follow the order of the file.")
			} else {
				b.WriteString(" Copy them exactly into SEARCH.")
			}
		} else {
			b.WriteString("\nNo similar region found; read the file again and copy the lines to change exactly.")
		}
	case ErrEmptySearch:
		b.WriteString("the SEARCH text is empty but the file is not. An empty SEARCH only creates a new file; " +
			"put the lines to replace between the SEARCH marker and the separator (=======).")
	case ErrMalformed:
		fmt.Fprintf(&b, "the REPLACE marker%s closes a section whose SEARCH text was never matched (is the separator missing?); %s", at, shape)
		writeSearchHead(&b, e.Search)
	case ErrOutOfOrder:
		if e.Search == "" {
			b.WriteString("an empty SEARCH stands for the whole file, which begins before the end of the previous section's match; " +
				"use an empty SEARCH only as the first and only section.")
			break
		}
		b.WriteString("the SEARCH text matches")
		if c := e.Nearest; c != nil {
			fmt.Fprintf(&b, " %s,", lineRange(c))
		}
		b.WriteString(" before the end of the previous section's match; list sections in the order they appear in the file.")
		writeSearchHead(&b, e.Search)
	case ErrInvalidTransition:
		b.WriteString(e.detail("a marker%s stands where the section does not allow it", at))
		b.WriteString("; " + shape)
	case ErrIncomplete:
		b.WriteString("the diff ended inside this section; close it with a REPLACE marker (+++++++ REPLACE).")
	case ErrMalformedBlock:
		if e.what == strayText {
			fmt.Fprintf(&b, "diff line %d holds text outside any section; only blank lines may stand between sections.", e.At+1)
		} else {
			b.WriteString(e.detail("a marker%s stands outside any section", at))
			b.WriteString("; " + shape)
		}
	default:
		b.WriteString(string(e.Kind))
	}
	return b.String()
}

const strayText = "text outside any section"

// detail returns what went wrong for the transition and structure kinds, with at (where it was
// detected) in place of %s; def stands in for an Error built outside this package.
func (e *Error) detail(def, at string) string {
	if e.what == "" {
		return fmt.Sprintf(def, at)
	}
	return fmt.Sprintf(e.what, at)
}

// writeSearchHead quotes the first lines of search, which identify the section to the model.
func writeSearchHead(b *strings.Builder, search string) {
	const max = 3
	if search == "" {
		return
	}
	lines := strings.Split(strings.TrimSuffix(search, "\n"), "\n")
	b.WriteString("\nThe SEARCH text begins:")
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(b, "\n    … (%d more lines)", len(lines)-max)
			break
		}
		b.WriteString("\n    ")
		b.WriteString(l)
	}
}

func lineRange(c *Candidate) string {
	if c.StartLine == c.EndLine {
		return fmt.Sprintf("line %d", c.StartLine)
	}
	return fmt.Sprintf("lines %d-%d", c.StartLine, c.EndLine)
}

// percent rounds down, so that only an identical region reads as 100%.
func percent(f float64) int { return int(f * 100) }

// Bounds on the similarity search, which runs only on the error path: at most pairBudget line
// comparisons, each looking at no more than lineCap bytes from either end of the two lines.
const (
	pairBudget    = 1 << 18
	lineCap       = 256
	minSimilarity = 0.5
)

// nearest returns the window of the original, as many lines long as search, most similar to it
// line by line, or nil when none reaches minSimilarity.
func nearest(x *Index, search string) *Candidate {
	s := searchLines(search)
	t := x.trim()
	n, m := len(t), len(s)
	w := min(n, m)
	windows := n - w + 1
	score := func(i int) float64 {
		sum := 0.0
		for j := range w {
			sum += lineSimilarity(s[j], t[i+j])
		}
		return sum / float64(m)
	}
	best, bestScore := -1, -1.0
	try := func(i int) {
		if i < 0 || i >= windows {
			return
		}
		if sc := score(i); sc > bestScore || (sc == bestScore && i < best) {
			best, bestScore = i, sc
		}
	}
	switch {
	case windows*w <= pairBudget:
		for i := range windows {
			try(i)
		}
	default:
		cands := anchoredWindows(s, t, w, windows)
		for _, i := range cands {
			try(i)
		}
		if best < 0 {
			// No line of the search occurs in the file: sample windows evenly, then look
			// around the best sample.
			stride := (windows*w + pairBudget - 1) / pairBudget
			for i := 0; i < windows; i += stride {
				try(i)
			}
			center, radius := best, min(stride, max(1, pairBudget/(2*w)))
			for i := center - radius; i <= center+radius; i++ {
				try(i)
			}
		}
	}
	if best < 0 || bestScore < minSimilarity {
		return nil
	}
	return &Candidate{
		StartLine:  best + 1,
		EndLine:    best + w,
		Start:      x.starts[best],
		End:        min(x.next(best+w-1), len(x.src)),
		Similarity: bestScore,
	}
}

// anchoredWindows returns the starts of windows in which some non-blank search line falls on an
// equal file line, most such lines first, as many as the budget allows.
func anchoredWindows(s, t []string, w, windows int) []int {
	at := make(map[string][]int, len(s))
	for j, l := range s {
		if l != "" && j < w {
			at[l] = append(at[l], j)
		}
	}
	hits := make(map[int]int)
	work := 0
	for k, l := range t {
		for _, j := range at[l] {
			if i := k - j; i >= 0 && i < windows {
				hits[i]++
			}
			work++
		}
		if work > pairBudget {
			break
		}
	}
	out := make([]int, 0, len(hits))
	for i := range hits {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool {
		if hits[out[a]] != hits[out[b]] {
			return hits[out[a]] > hits[out[b]]
		}
		return out[a] < out[b]
	})
	return out[:min(len(out), max(1, pairBudget/w))]
}

// lineSimilarity is a cheap similarity of two trimmed lines: the share of the longer one covered
// by their common prefix and suffix. It is 1 for equal lines and ignores the middle of long ones.
func lineSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	lim := min(la, lb, lineCap)
	p := 0
	for p < lim && a[p] == b[p] {
		p++
	}
	lim = min(la-p, lb-p, lineCap)
	q := 0
	for q < lim && a[la-1-q] == b[lb-1-q] {
		q++
	}
	return float64(p+q) / float64(max(la, lb))
}
