package lsp

import (
	"fmt"
	"strings"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/aymanbagabas/go-udiff"
)

// This file words EditState.toolResult: the text an agent sends back to the model as the tool
// call's result (section 3). On success it says what changed, as a short unified diff of each
// document as it now stands (user changes made meanwhile included, and said so); on failure it
// is the error, which for a SEARCH that matched nothing names the nearest region.

// maxResultLines bounds the diff of a result, so that a large rewrite does not flood the
// model's context: what is left out is counted.
const maxResultLines = 200

// toolResult returns the result of an edit that ended with st; plan is the edit last sent
// (nil when none was), and now reads a document's content as it stands.
func toolResult(req editRequest, st ext.EditState, plan *plannedEdit, now func(target) (string, bool)) string {
	what := req.Tool.name + " " + targetsOf(req)
	switch st.Status {
	case ext.StatusApplied:
		if plan == nil {
			return fmt.Sprintf("%s: the file already held this edit; nothing was changed.", what)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s was applied.", what)
		for _, f := range plan.Files {
			if f.Message != "" {
				// The tool's own words, which its model was trained on.
				b.WriteString(" " + f.Message)
			}
			for _, l := range f.Located {
				if words, ok := tierWords[l.Tier]; ok {
					// The model's SEARCH text is not what the file held: it should know.
					what := "SEARCH section"
					if sectionNoun(req.Tool.name) == "hunk" {
						what = "hunk"
					}
					fmt.Fprintf(&b, " %s %d of %s was located only %s.", what, l.Section, f.Target.Rel, words)
				}
			}
			content, ok := now(f.Target)
			if !ok {
				content = f.Intended
			}
			if content != f.Intended {
				fmt.Fprintf(&b, " The user also changed %s meanwhile; the diff below shows the file as it now stands, their changes included.", f.Target.Rel)
			}
			diff := udiff.Unified("a/"+f.Target.Rel, "b/"+f.Target.Rel, f.Base.Content, content)
			if diff == "" {
				continue
			}
			b.WriteString("\n\n")
			b.WriteString(capLines(diff, maxResultLines))
		}
		return b.String()
	case ext.StatusRejected:
		return fmt.Sprintf("The user rejected %s (%s). The file is unchanged; ask the user before trying again.", what, st.Error)
	case ext.StatusFailed, ext.StatusRefused:
		return fmt.Sprintf("%s %s: %s", what, st.Status, st.Error)
	}
	return ""
}

// targetsOf names the files of req for the model.
func targetsOf(req editRequest) string {
	if len(req.Targets) == 0 {
		return strings.Join(req.Tool.paths(req.Params), ", ")
	}
	names := make([]string, len(req.Targets))
	for i, t := range req.Targets {
		names[i] = t.Rel
	}
	return strings.Join(names, ", ")
}

// capLines returns s cut to its first n lines, saying how many were left out.
func capLines(s string, n int) string {
	i := 0
	for k := 0; k < n; k++ {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	if i == len(s) {
		return s
	}
	return s[:i] + fmt.Sprintf("… (%d more lines of diff)\n", strings.Count(s[i:], "\n"))
}
