package apply

// Locate finds search in original the way a SEARCH section is found: exact from offset from,
// then line-trimmed, then block-anchor, each starting at or after from. It returns the byte range
// matched and the tier; ok is false when no tier matches. search is SEARCH text: non-empty, each
// line followed by "\n". The range may end one past a last line without a line break, as the
// reference computes it; end is clamped to len(original).
func Locate(original, search string, from int) (start, end int, tier MatchTier, ok bool) {
	if search == "" {
		return 0, 0, "", false
	}
	m, ok := NewIndex(original).locate(search, max(0, from))
	if !ok {
		return 0, 0, "", false
	}
	return m.start, min(m.end, len(original)), m.tier, true
}

// Nearest returns the region of original, as many lines long as search, most similar to it line
// by line (ignoring leading and trailing white space), or nil when none is similar enough to be
// worth naming. It is the hint a failed SEARCH section carries in Error.Nearest, and costs at most
// a bounded number of line comparisons.
func Nearest(original, search string) *Candidate {
	if search == "" {
		return nil
	}
	return nearest(NewIndex(original), search)
}
