package apply

import "github.com/assistant-ls/assistant-ls/internal/ecma"

// v2 states, as in the reference: a SEARCH marker moves idle to search, a separator moves search
// to replace, a REPLACE marker returns to idle; any other move is an invalid transition.
const (
	stIdle = iota
	stSearch
	stReplace
)

// v2 holds the state of the reference's second applier while it walks the diff.
//
// Lines outside any section are held by the reference, which tries to repair the structure
// around them at the next marker. Its repairs look for marker-like lines among the held lines,
// but a held line is by construction not a marker, so every repair ends in an error; all that
// matters is whether a held line is blank (blank ones are dropped at the next SEARCH marker).
type v2 struct {
	diff, orig string
	x          *Index
	out        *output

	lastIndex int
	state     int
	search    accum
	replace   accum
	cur       match

	held        bool // a non-blank line is held outside any section
	heldLine    int  // the first such line
	section     int
	sectionLine int
	reps        []Replacement
}

func (p *v2) rebase(diff string) { p.diff, p.search.diff, p.replace.diff = diff, diff, diff }

func (p *v2) fork(out *output) applier {
	q := *p
	q.out = out
	return &q
}

// drop reports whether the reference leaves out last, the diff's last line: anything that may be
// a marker still arriving, unless it is exactly a canonical marker.
func (p *v2) drop(last string) bool {
	return startsLikeMarker(last) && last != searchMarker && last != sepMarker && last != replaceMarker
}

func (p *v2) writes() bool { return p.state == stReplace }

func (p *v2) matches() ([]Replacement, []int) { return p.reps, []int{} }

// final returns the reference's final result after a walk of n lines.
func (p *v2) final(n int) (Result, error) {
	if p.state != stIdle {
		return Result{}, &Error{Kind: ErrIncomplete, Section: p.section, DiffLine: p.sectionLine, At: n - 1, Search: p.search.String()}
	}
	if p.lastIndex < len(p.orig) {
		p.out.write(p.orig[p.lastIndex:])
	}
	return Result{NewContent: p.out.String(), MatchIndices: []int{}, Replacements: p.reps}, nil
}

func (p *v2) line(ls, le, num int) error {
	line := p.diff[ls:le]
	switch {
	case isSearchStart(line):
		if p.held {
			return p.strayLines(num)
		}
		if p.state != stIdle {
			return p.transition(num, "a SEARCH marker%s opens a new section before this one was closed by a REPLACE marker")
		}
		p.state = stSearch
		p.search.reset()
		p.section++
		p.sectionLine = num
	case isSeparator(line):
		switch p.state {
		case stIdle:
			return p.outside(num, "a separator%s appears outside any section (no SEARCH marker opened one)")
		case stReplace:
			return p.transition(num, "a second separator%s appears in this section")
		}
		p.state = stReplace
		return p.locate(num)
	case isReplaceEnd(line):
		if p.state != stReplace {
			if p.state == stSearch {
				return p.outside(num, "a REPLACE marker%s arrives before the separator (=======)")
			}
			return p.outside(num, "a REPLACE marker%s appears outside any section")
		}
		p.lastIndex = p.cur.end
		p.reps = append(p.reps, p.cur.replacement(p.replace.String(), p.section, p.sectionLine, len(p.orig)))
		p.state = stIdle
		p.search.reset()
		p.replace.reset()
	case p.state == stReplace:
		p.out.write(line)
		p.out.write("\n")
		p.replace.add(ls, le)
	case p.state == stSearch:
		p.search.add(ls, le)
	default:
		if !p.held && ecma.Trim(line) != "" {
			p.held = true
			p.heldLine = num
		}
	}
	return nil
}

// locate finds the current SEARCH text at a separator.
func (p *v2) locate(num int) error {
	search := p.search.String()
	switch {
	case search == "" && p.orig == "":
		p.cur = match{0, 0, TierEmpty}
	case search == "":
		p.cur = match{0, len(p.orig), TierEmpty}
	default:
		m, ok := p.x.locate(search, p.lastIndex)
		if !ok {
			return &Error{
				Kind: ErrNoMatch, Section: p.section, DiffLine: p.sectionLine, At: num, Search: search,
				Tried:   []MatchTier{TierExact, TierLineTrimmed, TierBlockAnchor},
				Nearest: nearest(p.x, search), From: p.lastIndex,
			}
		}
		p.cur = m
	}
	if p.cur.start < p.lastIndex {
		return &Error{
			Kind: ErrOutOfOrder, Section: p.section, DiffLine: p.sectionLine, At: num, Search: search,
			Nearest: p.matchedRegion(), From: p.lastIndex,
		}
	}
	p.out.write(slice(p.orig, p.lastIndex, p.cur.start))
	return nil
}

// matchedRegion describes the current match as a Candidate.
func (p *v2) matchedRegion() *Candidate {
	x := p.x
	first := x.firstLineFrom(p.cur.start + 1)
	last := x.firstLineFrom(max(p.cur.end, p.cur.start+1))
	return &Candidate{
		StartLine:  first,
		EndLine:    max(first, last),
		Start:      p.cur.start,
		End:        min(p.cur.end, len(p.orig)),
		Similarity: 1,
	}
}

// transition reports a marker the state machine does not accept; what is a sentence with a %s
// for the location.
func (p *v2) transition(num int, what string) error {
	return &Error{Kind: ErrInvalidTransition, Section: p.section, DiffLine: p.sectionLine, At: num, Search: p.search.String(), what: what}
}

// strayLines reports text held outside any section when the next SEARCH marker arrives.
func (p *v2) strayLines(num int) error {
	return &Error{Kind: ErrMalformedBlock, Section: p.section + 1, DiffLine: num, At: p.heldLine, what: strayText}
}

// outside reports a separator or REPLACE marker that no open section accepts; what is as for
// transition.
func (p *v2) outside(num int, what string) error {
	e := &Error{Kind: ErrMalformedBlock, Section: p.section, DiffLine: p.sectionLine, At: num, what: what}
	if p.state == stIdle {
		e.Section, e.DiffLine = 0, num
	} else {
		e.Search = p.search.String()
	}
	return e
}
