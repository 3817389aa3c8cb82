package apply

import "strings"

// Stream applies one diff to one original while the diff streams in. After every Append,
// Partial gives what Construct(diff so far, original, false, v) gives, and Final what
// Construct(diff so far, original, true, v) gives, error for error.
//
// Lines that are complete (followed by "\n") are walked once, when their newline arrives; the
// unfinished last line is looked at again on each call, without walking anything before it. So
// an Append costs time proportional to the delta plus the SEARCH sections whose separator it
// completes, and Partial costs a constant, except when the last line is an unfinished separator,
// whose SEARCH text it locates once. Neither depends on the size of the original or of the diff
// so far; Final costs what the final step of Construct costs.
//
// Create one with NewStream or Index.NewStream. A Stream is not safe for concurrent use; several
// Streams may share one Index.
type Stream struct {
	x   *Index
	v   Version
	buf strings.Builder // the diff so far
	p   applier         // the walk of the complete lines
	out *output         // p's output

	lineStart int   // where the unfinished last line starts
	num       int   // its number, which is the number of complete lines
	settled   int   // bytes of the last line already in out: text that is written whatever follows
	searches  int   // complete lines that are SEARCH markers
	err       error // the failure of a complete line, which every longer diff shares

	// The last Partial computed for a marker as the last line, valid while num stays the same:
	// the kind of a marker follows from its first byte, and what it does does not depend on the
	// rest of its spelling.
	tailOK  bool
	tailNum int
	tail    Partial
	tailErr error
	tailOut output
}

// NewStream starts a stream of a diff against original, applied as version v does (an unknown
// version is V1). See Index.NewStream to reuse an Index.
func NewStream(original string, v Version) *Stream { return NewIndex(original).NewStream(v) }

// NewStream starts a stream of a diff against the Index's original, applied as version v does.
func (x *Index) NewStream(v Version) *Stream {
	s := &Stream{x: x, v: v}
	s.Reset()
	return s
}

// Reset empties the stream, to start over with another diff against the same original.
func (s *Stream) Reset() {
	s.buf.Reset()
	s.out = &output{size: len(s.x.src)}
	s.p = newApplier(s.x, s.v, "", s.out)
	s.lineStart, s.num, s.settled, s.searches, s.err = 0, 0, 0, 0, nil
	s.tailOK = false
}

// Diff returns the diff appended so far.
func (s *Stream) Diff() string { return s.buf.String() }

// Searches returns the number of lines of the diff so far, the unfinished last line included,
// that are SEARCH markers (three or more '-' or '<', " SEARCH", an optional '>'): the sections
// the diff has begun, for progress reports, without a walk of the diff.
func (s *Stream) Searches() int {
	n := s.searches
	if isSearchStart(s.buf.String()[s.lineStart:]) {
		n++
	}
	return n
}

// Append adds delta to the diff. A delta may end anywhere, inside a marker or inside a UTF-8
// sequence.
func (s *Stream) Append(delta string) {
	if delta == "" {
		return
	}
	// Grow doubles the buffer where a plain append grows a large one by a quarter, copying the
	// diff more often.
	s.buf.Grow(len(delta))
	s.buf.WriteString(delta)
	d := s.buf.String()
	if s.err == nil {
		s.p.rebase(d)
	}
	for from := len(d) - len(delta); ; {
		i := strings.IndexByte(d[from:], '\n')
		if i < 0 {
			break
		}
		le := from + i
		if isSearchStart(d[s.lineStart:le]) {
			s.searches++
		}
		if s.err == nil {
			s.out.skip = s.settled
			s.err = s.p.line(s.lineStart, le, s.num)
			s.out.skip, s.settled = 0, 0
		}
		s.num++
		s.lineStart, from = le+1, le+1
	}
	if s.err != nil {
		return
	}
	// A last line that cannot become a marker is text; in a section's REPLACE part it is
	// written out whatever follows, so it goes into the output now and is not built again.
	if last := d[s.lineStart:]; s.p.writes() && !startsLikeMarker(last) {
		s.out.write(last[s.settled:])
		s.settled = len(last)
	}
}

// Partial returns what Construct(s.Diff(), original, false, v) returns, as a Partial.
//
// Head and Tail are never modified and stay valid forever. MatchIndices and Replacements share
// memory with the Stream and stay valid only until the next Append or Reset; copy them to keep
// them longer. The caller must not modify them.
func (s *Stream) Partial() (Partial, error) {
	if s.err != nil {
		return Partial{}, s.err
	}
	d := s.buf.String()
	last := d[s.lineStart:]
	reps, starts := s.p.matches()
	part := Partial{Head: s.out.b.String(), MatchIndices: starts[:len(starts):len(starts)], Replacements: reps[:len(reps):len(reps)]}
	if s.p.drop(last) {
		return part, nil
	}
	if !startsLikeMarker(last) {
		// Text: the reference writes it and a newline; the text is in Head already.
		if s.p.writes() {
			part.Tail = "\n"
		}
		return part, nil
	}
	// A marker: the last line that starts like one and is not dropped.
	if s.tailOK && s.tailNum == s.num {
		return s.tail, s.tailErr
	}
	s.tailOut = output{forked: true, pieces: s.tailOut.pieces[:0]}
	f := s.p.fork(&s.tailOut)
	err := f.line(s.lineStart, len(d), s.num)
	if err != nil {
		part = Partial{}
	} else {
		reps, starts = f.matches()
		// A marker writes at most one piece: the original up to a separator's match.
		part.Tail = strings.Join(s.tailOut.pieces, "")
		part.MatchIndices, part.Replacements = starts[:len(starts):len(starts)], reps[:len(reps):len(reps)]
	}
	s.tailOK, s.tailNum, s.tail, s.tailErr = true, s.num, part, err
	return part, err
}

// Final returns what Construct(s.Diff(), original, true, v) returns. It leaves the stream as it
// was, so more may be appended after it.
func (s *Stream) Final() (Result, error) {
	if s.err != nil {
		return Result{}, s.err
	}
	d := s.buf.String()
	out := &output{forked: true, off: s.v != V2, head: s.out.b.String(), skip: s.settled}
	f := s.p.fork(out)
	n := s.num
	if !f.drop(d[s.lineStart:]) {
		if err := f.line(s.lineStart, len(d), s.num); err != nil {
			return Result{}, err
		}
		n++
	}
	return f.final(n)
}

// Partial is what Construct returns for a diff that is still streaming, in a form that is cheap
// to produce on every delta: the new content is Head followed by Tail, where Head only grows from
// one delta to the next and Tail is short (empty, a newline, or the original between the last
// match and the one an unfinished separator just found).
type Partial struct {
	Head, Tail   string
	MatchIndices []int
	Replacements []Replacement
}

// NewContent returns Head + Tail, Construct's NewContent. It copies the text when Tail is not
// empty; a caller that writes the content out can write Head and Tail one after the other.
func (p Partial) NewContent() string { return p.Head + p.Tail }

// Result returns the Partial as Construct returns it.
func (p Partial) Result() Result {
	return Result{NewContent: p.NewContent(), MatchIndices: p.MatchIndices, Replacements: p.Replacements}
}
