package apply

import "strings"

// v1 holds the state of the reference's first applier while it walks the diff. Its fields
// mirror the reference's variables because its output depends on exactly when each is (and is
// not) reset: a SEARCH marker leaves inReplace, the match and the out-of-order flag alone, and a
// separator keeps the SEARCH text, so malformed diffs reuse stale values the way the reference
// does.
type v1 struct {
	diff, orig string
	final      bool
	idx        fileIndex

	result    strings.Builder // the streaming output; not built in final mode, which discards it
	lastIndex int             // the reference's lastProcessedIndex
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

	reps []Replacement
}

func constructV1(diff, orig string, final bool) (Result, error) {
	p := &v1{diff: diff, orig: orig, final: final, idx: fileIndex{src: orig}}
	p.search.diff, p.replace.diff = diff, diff
	lines := newDiffLines(diff, func(last string) bool {
		return startsLikeMarker(last) && !isSearchStart(last) && !isSeparator(last) && !isReplaceEnd(last)
	})
	if err := lines.each(p.line); err != nil {
		return Result{}, err
	}
	return p.finish(), nil
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
		if p.matched && !p.pending && !p.final {
			p.result.WriteString(line)
			p.result.WriteByte('\n')
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
		m, ok := p.idx.locate(search, p.lastIndex)
		if !ok {
			i := p.idx.exactFrom(search, 0)
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
	if !p.pending && !p.final {
		p.result.WriteString(slice(p.orig, p.lastIndex, p.cur.start))
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

func (p *v1) finish() Result {
	if !p.final {
		return Result{NewContent: p.result.String(), MatchIndices: starts(p.reps), Replacements: p.reps}
	}
	if p.inReplace && p.matched {
		p.complete()
	}
	sortByStart(p.reps)
	return Result{NewContent: ApplyReplacements(p.orig, p.reps), MatchIndices: starts(p.reps), Replacements: p.reps}
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
		e.Nearest = nearest(&p.idx, search)
	}
	return e
}
