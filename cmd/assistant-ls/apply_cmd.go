package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/assistant-ls/assistant-ls/apply"
)

// runApply applies a SEARCH/REPLACE diff to a file and prints the new content (or JSON). The file
// itself is never written.
func runApply(e env) int {
	fs := newFlags(e, "apply")
	file := fs.String("file", "", "the file the diff applies to (required)")
	diffName := fs.String("diff", "-", "the diff: a `FILE`, or - for standard input")
	partial := fs.Bool("partial", false, "treat the diff as still streaming (the applier's partial mode)")
	ver := fs.String("diff-version", string(apply.V1), "applier version: v1 or v2")
	asJSON := fs.Bool("json", false, "print newContent, matchIndices and replacements as JSON")
	if code := parseFlags(fs, e); code >= 0 {
		return code
	}
	v := apply.Version(*ver)
	if *file == "" || fs.NArg() > 0 || (v != apply.V1 && v != apply.V2) {
		return usageError(e, "apply")
	}
	original, err := os.ReadFile(*file)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	diff, err := readInput(e, *diffName)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	// A final diff is an edit someone asked for: one with no SEARCH/REPLACE block fails (Edit);
	// a partial one is a stream's prefix, which may not have reached its first block yet.
	var res apply.Result
	if *partial {
		res, err = apply.Construct(diff, string(original), false, v)
	} else {
		res, err = apply.Edit(diff, string(original), v)
	}
	if err != nil {
		return fail(e, 1, "%s: %v", *file, err)
	}
	if !*asJSON {
		if _, err := fmt.Fprint(e.stdout, res.NewContent); err != nil {
			return fail(e, 1, "writing output: %v", err)
		}
		return 0
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	return encodeOrFail(e, enc, applyJSON(res))
}

// applyOutput is the --json form of an apply.Result.
type applyOutput struct {
	NewContent   string            `json:"newContent"`
	MatchIndices []int             `json:"matchIndices"`
	Replacements []replacementJSON `json:"replacements"`
}

// replacementJSON is the --json form of an apply.Replacement.
type replacementJSON struct {
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Content  string `json:"content"`
	Section  int    `json:"section"`
	DiffLine int    `json:"diffLine"`
	Tier     string `json:"tier"`
}

// applyJSON converts res, with empty lists printed as [].
func applyJSON(res apply.Result) applyOutput {
	out := applyOutput{NewContent: res.NewContent, MatchIndices: res.MatchIndices, Replacements: []replacementJSON{}}
	if out.MatchIndices == nil {
		out.MatchIndices = []int{}
	}
	for _, r := range res.Replacements {
		out.Replacements = append(out.Replacements, replacementJSON{
			Start: r.Start, End: r.End, Content: r.Content, Section: r.Section, DiffLine: r.DiffLine, Tier: string(r.Tier),
		})
	}
	return out
}
