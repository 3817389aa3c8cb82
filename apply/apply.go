// Package apply computes the new content of a file from a SEARCH/REPLACE diff exactly as Cline's
// constructNewFileContent does (versions v1 and v2), while streaming and when final.
package apply

// Version selects the applier's behaviour.
type Version string

// The two versions of the reference applier.
const (
	V1 Version = "v1"
	V2 Version = "v2"
)

// MatchTier says how a SEARCH section was located.
type MatchTier string

// Match tiers, in the order they are tried.
const (
	TierEmpty       MatchTier = "empty"
	TierExact       MatchTier = "exact"
	TierLineTrimmed MatchTier = "line_trimmed"
	TierBlockAnchor MatchTier = "block_anchor"
	TierWholeFile   MatchTier = "whole_file"
)

// Result is the outcome of Construct.
type Result struct {
	NewContent   string
	MatchIndices []int
	Replacements []Replacement
}

// Replacement is one matched section.
type Replacement struct {
	Start, End int
	Content    string
	Section    int
	DiffLine   int
	Tier       MatchTier
}

// ErrorKind classifies an Error.
type ErrorKind string

// Error kinds.
const (
	ErrNoMatch           ErrorKind = "no_match"
	ErrEmptySearch       ErrorKind = "empty_search"
	ErrMalformed         ErrorKind = "malformed"
	ErrOutOfOrder        ErrorKind = "out_of_order"
	ErrInvalidTransition ErrorKind = "invalid_transition"
	ErrIncomplete        ErrorKind = "incomplete"
	ErrMalformedBlock    ErrorKind = "malformed_block"
)

// Error is returned when a diff does not apply.
type Error struct {
	Kind     ErrorKind
	Section  int
	DiffLine int
}

func (e *Error) Error() string { return string(e.Kind) }

// Construct applies diff to original.
func Construct(diff, original string, final bool, v Version) (Result, error) {
	return Result{NewContent: original}, nil
}

// FixModelContent undoes HTML escaping by non-Claude models.
func FixModelContent(text, modelID, path string) string { return text }

// CleanWriteContent strips code fences around write_to_file content.
func CleanWriteContent(content string) string { return content }
