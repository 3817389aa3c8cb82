// Package apply computes the new content of a file from a SEARCH/REPLACE diff exactly as Cline's
// constructNewFileContent does (versions v1 and v2), while streaming and when final.
//
// The package reproduces the reference's output byte for byte, including its quirks (text
// duplicated by overlapping matches, the handling of unclosed sections, the partial output shown
// while a diff streams in). Offsets are byte offsets into the original; the reference counts
// UTF-16 code units, but every offset it produces lies on a line or substring boundary, so the
// two map one to one. Beyond the reference, failures carry a description a model can act on (see
// Error).
//
// Three entry points give the same results: Construct for one call; an Index, built once per
// version of a file, whose line tables serve every SEARCH text of every diff against it, so that
// the whitespace-tolerant fallbacks cost time linear in the file instead of a fresh split of the
// whole file per attempt; and a Stream, fed a diff's deltas as they arrive, which gives after
// each what Construct gives for the diff so far at a cost proportional to the delta.
package apply

import (
	"cmp"
	"slices"
	"strings"
)

// Version selects the applier's behaviour.
type Version string

// The two versions of the reference applier. V1 is the reference's default.
const (
	V1 Version = "v1"
	V2 Version = "v2"
)

// MatchTier says how a SEARCH section was located.
type MatchTier string

// Match tiers, in the order they are tried.
const (
	// TierEmpty: the SEARCH text was empty (an empty file, or in v2 the whole file).
	TierEmpty MatchTier = "empty"
	// TierExact: the SEARCH text occurs verbatim at or after the end of the previous match.
	TierExact MatchTier = "exact"
	// TierLineTrimmed: every line equals a file line once both are trimmed.
	TierLineTrimmed MatchTier = "line_trimmed"
	// TierBlockAnchor: the first and last lines equal, trimmed, the same distance apart.
	TierBlockAnchor MatchTier = "block_anchor"
	// TierWholeFile: (v1 only) the SEARCH text occurs verbatim before the previous match, so the
	// section is applied out of order.
	TierWholeFile MatchTier = "whole_file"
)

// Result is the outcome of Construct.
//
// NewContent is the reference's return value. With final false it is the partial text the
// reference shows while a diff streams in: the original up to each in-order match followed by the
// replacement lines seen so far, without the rest of the original.
//
// MatchIndices are the byte offsets at which the SEARCH sections matched, as the reference
// reports them: for v1 the starts of the completed replacements, in completion order while
// streaming and sorted (stably) when final; always empty for v2, whose reference reports none.
//
// Replacements lists the completed sections. When final it is sorted by Start (stably), which is
// the order in which they were applied, and for v1 Replacements[i].Start == MatchIndices[i];
// while streaming it is in completion order. In final mode, applying Replacements to the original
// with ApplyReplacements yields exactly NewContent, for both versions.
type Result struct {
	NewContent   string
	MatchIndices []int
	Replacements []Replacement
}

// Replacement is one matched section.
//
// Start and End delimit the replaced bytes of the original, 0 <= Start <= End <= len(original).
// (The reference can report an end one past the end of the file for a line-trimmed match on a
// last line without a newline; End is clamped, which changes no output.) Content is the new text,
// Section the 1-based number of the section in the diff, DiffLine the 0-based diff line holding
// that section's SEARCH marker (or its separator, for a v1 section that has no SEARCH marker), and
// Tier how it was located.
type Replacement struct {
	Start, End int
	Content    string
	Section    int
	DiffLine   int
	Tier       MatchTier
}

// Construct applies diff to original the way the reference's constructNewFileContent does with the
// same isFinal flag and version. An unknown version is treated as V1, the reference's default.
// Failures are returned as *Error; Construct never panics. It indexes original afresh; callers
// that apply several diffs to one text keep an Index and call Index.Construct instead.
func Construct(diff, original string, final bool, v Version) (Result, error) {
	return NewIndex(original).Construct(diff, final, v)
}

// Construct is the package-level Construct for the Index's original, reusing its tables.
func (x *Index) Construct(diff string, final bool, v Version) (Result, error) {
	out := &output{off: final && v != V2, size: len(x.src)} // v1's final result is rebuilt from the replacements
	p := newApplier(x, v, diff, out)
	lines := newDiffLines(diff, p.drop)
	if err := lines.each(p.line); err != nil {
		return Result{}, err
	}
	if final {
		return p.final(lines.n)
	}
	reps, starts := p.matches()
	return Result{NewContent: out.String(), MatchIndices: starts, Replacements: reps}, nil
}

// Edit applies diff to original as an edit a model asked for: Construct in final mode, except
// that a diff holding no marker line at all fails with an error that is ErrNoSections and says
// what a diff looks like. Construct keeps the reference's answer for such a diff (the file
// unchanged, no error), which its conformance vectors pin; every caller that reports an edit to
// a model or a user calls Edit, so that a diff which can change nothing never counts as applied.
func Edit(diff, original string, v Version) (Result, error) {
	return NewIndex(original).Edit(diff, v)
}

// Edit is the package-level Edit for the Index's original, reusing its tables.
func (x *Index) Edit(diff string, v Version) (Result, error) {
	if err := checkSections(diff); err != nil {
		return Result{}, err
	}
	return x.Construct(diff, true, v)
}

// applier is one version of the reference's line walk over a diff.
type applier interface {
	// line handles the diff line diff[ls:le], numbered num from 0.
	line(ls, le, num int) error
	// drop reports whether the walk leaves out last, the diff's last line.
	drop(last string) bool
	// writes reports whether a line that is not a marker would be written to the output now.
	writes() bool
	// matches returns the replacements so far and, for v1, their starts (never nil).
	matches() ([]Replacement, []int)
	// final returns the final result once the walk of n lines is over.
	final(n int) (Result, error)
	// rebase points the walk at diff, a longer text that begins with the one walked so far.
	rebase(diff string)
	// fork returns a copy that writes to out. The copy shares the replacements and the collected
	// SEARCH and REPLACE text with the original and may append to them, which the original, whose
	// slices keep their lengths, never sees.
	fork(out *output) applier
}

func newApplier(x *Index, v Version, diff string, out *output) applier {
	if v == V2 {
		p := &v2{orig: x.src, x: x, out: out}
		p.rebase(diff)
		return p
	}
	p := &v1{orig: x.src, x: x, out: out}
	p.rebase(diff)
	return p
}

// output collects the streaming output of a walk. A fork's output holds only what the fork adds
// after head, its parent's text, as pieces, so that forking copies no text.
type output struct {
	b      strings.Builder
	off    bool     // nothing is collected
	skip   int      // the first skip bytes of the next write are collected already
	size   int      // the expected length, reserved at the first write: growing by doubling costs twice as much
	forked bool     // collect into pieces after head
	head   string   // for a fork: the parent's text
	pieces []string // for a fork: what it wrote
}

func (o *output) write(s string) {
	if o.skip > 0 {
		n := min(o.skip, len(s))
		s, o.skip = s[n:], o.skip-n
	}
	switch {
	case o.off || s == "":
	case o.forked:
		o.pieces = append(o.pieces, s)
	default:
		if o.b.Cap() == 0 {
			o.b.Grow(max(o.size, len(s)))
		}
		o.b.WriteString(s)
	}
}

// String returns the text collected, head first for a fork.
func (o *output) String() string {
	if !o.forked {
		return o.b.String()
	}
	n := len(o.head)
	for _, p := range o.pieces {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(o.head)
	for _, p := range o.pieces {
		b.WriteString(p)
	}
	return b.String()
}

// ApplyReplacements rebuilds a file from original and reps the way the reference's final pass
// does: a read position starts at 0; for each replacement in order it copies the original from the
// position to the replacement's start (nothing when the start lies behind the position), then the
// content, then moves the position to the replacement's end, even backwards; the rest of the
// original follows. Out-of-range bounds are clamped, so it never panics. For a final Result r,
// ApplyReplacements(original, r.Replacements) == r.NewContent.
func ApplyReplacements(original string, reps []Replacement) string {
	n := 0
	for _, r := range reps {
		n += len(r.Content)
	}
	var b strings.Builder
	b.Grow(len(original) + n)
	pos := 0
	for _, r := range reps {
		b.WriteString(slice(original, pos, r.Start))
		b.WriteString(r.Content)
		pos = r.End
	}
	b.WriteString(slice(original, pos, len(original)))
	return b.String()
}

// slice returns s[from:to] with the bounds clamped to s and an empty result when from >= to,
// which is what JavaScript's String.prototype.slice does for non-negative arguments.
func slice(s string, from, to int) string {
	from = max(0, min(from, len(s)))
	to = max(0, min(to, len(s)))
	if from >= to {
		return ""
	}
	return s[from:to]
}

// sortByStart orders reps by Start, keeping the order of equal starts as JavaScript's stable
// Array.prototype.sort does.
func sortByStart(reps []Replacement) {
	byStart := func(a, b Replacement) int { return cmp.Compare(a.Start, b.Start) }
	// Sections in file order, the usual case, are sorted already.
	if !slices.IsSortedFunc(reps, byStart) {
		slices.SortStableFunc(reps, byStart)
	}
}
