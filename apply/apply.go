// Package apply computes the new content of a file from a SEARCH/REPLACE diff exactly as Cline's
// constructNewFileContent does (versions v1 and v2), while streaming and when final.
//
// The package reproduces the reference's output byte for byte, including its quirks (text
// duplicated by overlapping matches, the handling of unclosed sections, the partial output shown
// while a diff streams in). Offsets are byte offsets into the original; the reference counts
// UTF-16 code units, but every offset it produces lies on a line or substring boundary, so the
// two map one to one. Beyond the reference, failures carry a description a model can act on (see
// Error), and the original is indexed once per call so that the whitespace-tolerant fallbacks cost
// time linear in the file instead of a fresh split of the whole file per attempt.
package apply

import (
	"sort"
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
// Failures are returned as *Error; Construct never panics.
func Construct(diff, original string, final bool, v Version) (Result, error) {
	if v == V2 {
		return constructV2(diff, original, final)
	}
	return constructV1(diff, original, final)
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
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].Start < reps[j].Start })
}
