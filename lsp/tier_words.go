package lsp

import (
	"fmt"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/edittool"
	"github.com/assistant-ls/assistant-ls/textformat"
	"github.com/assistant-ls/assistant-ls/v4a"
)

// tierWords says to a user how a section, hunk or edit was located when its text did not stand
// verbatim in the file: for every tier of every format (EditState.tiers names them), the words
// that follow "located only" or "matches line 4 of a.go only". The tiers that find the text as
// it was written (exact, empty, V4A's append) have none: they need no hint. TestTierWords checks
// that every tier constant of the appliers is here or is one of those.
var tierWords = map[apply.MatchTier]string{
	// replace_in_file (Cline).
	apply.TierLineTrimmed: "through line-trimmed matching (its lines differ from the file's in leading or trailing white space)",
	apply.TierBlockAnchor: "through block-anchor matching (only its first and last lines match the file's)",
	apply.TierWholeFile:   "through whole-file matching (it matches before the previous section, out of order)",
	// Unified diffs (git apply). The offset's count is given where it is known (offsetWords).
	textformat.TierOffset:     "away from the line its @@ header names (the file's lines moved since the diff was made)",
	textformat.TierWhitespace: "with white space set aside (its lines differ from the file's in white space)",
	textformat.TierLineNumber: "by its @@ header's line number (it only adds lines, so it has no lines to match)",
	// Aider SEARCH/REPLACE blocks (Aider's editblock coder).
	textformat.TierLeadingWhitespace:  "with leading white space set aside (its lines are indented differently from the file's; the REPLACE lines get the file's indentation)",
	textformat.TierLeadingBlankLine:   "without its first, blank line (the file has no blank line there)",
	textformat.TierElision:            `piece by piece between its "..." lines (each piece stands once in the file)`,
	textformat.TierTrailingWhitespace: "with trailing white space set aside too (its lines differ from the file's at their ends, which Aider itself does not accept)",
	// V4A patches (Codex's apply_patch); its "whitespace" is the unified diffs' words.
	apply.MatchTier(v4a.TierTrailingSpace): "with trailing white space set aside (its lines differ from the file's at their ends)",
	apply.MatchTier(v4a.TierPunctuation):   "with typographic dashes, quotes and spaces read as plain ones",
	// Claude Code's Edit.
	edittool.TierQuotes: "with curly quotes read as straight ones",
}

// offsetWords are tierWords[textformat.TierOffset] for a hunk that matched away lines below the
// line its header names (above when negative).
func offsetWords(away int) string {
	n, where := away, "below"
	if away < 0 {
		n, where = -away, "above"
	}
	lines := "lines"
	if n == 1 {
		lines = "line"
	}
	return fmt.Sprintf("%d %s %s the line its @@ header names (the file's lines moved since the diff was made)", n, lines, where)
}

// sectionNoun is what the sections of tool's edits are called: a unified diff's are hunks.
func sectionNoun(tool string) string {
	if tool == string(textformat.UDiff) {
		return "hunk"
	}
	return "section"
}
