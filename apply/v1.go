package apply

import "slices"

// v1 holds the state of the reference's first applier while it walks the diff. Its fields
// mirror the reference's variables because its output depends on exactly when each is (and is
// not) reset: a SEARCH marker leaves inReplace, the match and the out-of-order flag alone, and a
// separator keeps the SEARCH text, so malformed diffs reuse stale values the way the reference
// does.
type v1 struct {
	diff, orig string
	x          *Index
	out        *output // the streaming output; discarded in final mode

	lastIndex int // the reference's lastProcessedIndex
	search    accum
	replace   accum
	inSearch  bool
	inReplace bool
	pending   bool // the current section matched before lastIndex (out of order)
	matched   bool // the reference's searchMatchIndex != -1
	cur       match

	// Section bookkeeping, for Replacement and Error.
	section     int  // number of the section being read
	sectionLine int  // its SEARCH marker's diff line
	open        bool // a section has begun and not been closed by a REPLACE marker
	markerless  bool // the open section began at its separator: its SEARCH marker is missing
	curSection  int  // section and line the current match belongs to
	curLine     int

	reps   []Replacement
	starts []int // the Start of each of reps, in completion order, as far as matches has needed
	forked bool  // reps is shared with the walk this one was forked from
}

func (p *v1) rebase(diff string) { p.diff, p.search.diff, p.replace.diff = diff, diff, diff }

func (p *v1) fork(out *output) applier {
	q := *p
	q.out, q.forked = out, true
	return &q
}

// drop reports whether the reference leaves out last, the diff's last line: a marker still
// arriving.
func (p *v1) drop(last string) bool {
	return startsLikeMarker(last) && !isSearchStart(last) && !isSeparator(last) && !isReplaceEnd(last)
}

// writes reports whether a line that is not a marker would be written to the output now.
func (p *v1) writes() bool { return !p.inSearch && p.inReplace && p.matched && !p.pending }

func (p *v1) matches() ([]Replacement, []int) {
	if len(p.reps) == 0 {
		return p.reps, []int{}
	}
	for len(p.starts) < len(p.reps) {
		p.starts = append(p.starts, p.reps[len(p.starts)].Start)
	}
	return p.reps, p.starts
}

func (p *v1) line(ls, le, num int) error {
	line := p.diff[ls:le]
	switch {
	case isSearchStart(line):
		p.inSearch = true
		p.search.reset()
		p.replace.reset()
		p.section++
		p.sectionLine = num
		p.open, p.markerless = true, false
	case isSeparator(line):
		return p.separator(num)
	case isReplaceEnd(line):
		if !p.matched {
			return p.malformed(num)
		}
		p.complete()
	case p.inSearch:
		p.search.add(ls, le)
	case p.inReplace:
		p.replace.add(ls, le)
		if p.matched && !p.pending {
			p.out.write(line)
			p.out.write("\n")
		}
	}
	return nil
}

func (p *v1) separator(num int) error {
	p.inSearch = false
	p.inReplace = true
	if !p.open {
		p.section++
		p.sectionLine = num
		p.open, p.markerless = true, true
	}
	search := p.search.String()
	switch {
	case search == "" && p.orig == "":
		p.cur = match{0, 0, TierEmpty}
	case search == "":
		return p.fail(ErrEmptySearch, num, search, nil)
	default:
		m, ok := p.x.locate(search, p.lastIndex)
		if !ok {
			i := p.x.exactFrom(search, 0)
			if i < 0 {
				return p.fail(ErrNoMatch, num, search, []MatchTier{TierExact, TierLineTrimmed, TierBlockAnchor, TierWholeFile})
			}
			m = match{i, i + len(search), TierWholeFile}
		}
		p.cur = m
	}
	p.matched = true
	p.curSection, p.curLine = p.section, p.sectionLine
	if p.cur.start < p.lastIndex {
		p.pending = true
	}
	if !p.pending {
		p.out.write(slice(p.orig, p.lastIndex, p.cur.start))
	}
	return nil
}

// complete records the current section as a replacement, as a REPLACE marker (or, when final,
// the end of the diff) does.
func (p *v1) complete() {
	p.reps = append(p.reps, p.cur.replacement(p.replace.String(), p.curSection, p.curLine, len(p.orig)))
	if !p.pending {
		p.lastIndex = p.cur.end
	}
	p.inSearch, p.inReplace = false, false
	p.search.reset()
	p.replace.reset()
	p.matched, p.pending = false, false
	p.open = false
}

// final returns the reference's final result, after the walk. A fork's replacements are copied
// before they are sorted: the walk it was forked from shares them.
func (p *v1) final(int) (Result, error) {
	if p.inReplace && p.matched {
		p.complete()
	}
	reps := p.reps
	if p.forked {
		reps = slices.Clone(reps)
	}
	sortByStart(reps)
	return Result{NewContent: ApplyReplacements(p.orig, reps), MatchIndices: starts(reps), Replacements: reps}, nil
}

func starts(reps []Replacement) []int {
	out := make([]int, len(reps))
	for i, r := range reps {
		out[i] = r.Start
	}
	return out
}

func (p *v1) malformed(num int) error {
	e := &Error{Kind: ErrMalformed, Section: p.section, DiffLine: num, At: num, Search: p.search.String()}
	if p.open {
		e.DiffLine = p.sectionLine
	} else {
		e.Section = 0
	}
	return e
}

func (p *v1) fail(kind ErrorKind, at int, search string, tried []MatchTier) error {
	e := &Error{Kind: kind, Section: p.section, DiffLine: p.sectionLine, At: at, Search: search, Tried: tried, From: p.lastIndex,
		noSearchMarker: p.markerless}
	if kind == ErrNoMatch {
		e.Nearest = nearest(p.x, search)
	}
	return e
}
