package textformat

import (
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outcome is what TestCheck compares of an Outcome.
type outcome struct {
	Tier               apply.MatchTier
	StartLine, EndLine int
	Away               int
	Err                ErrorKind
	Lines              []int // Err.Lines
	Nearest            int   // Err.Nearest.StartLine, 0 when none
	Applied            bool
}

const checkFile = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"

// TestCheck: each section's outcome is what the format's own applier finds for it (Aider's
// tiers for an Aider block, git apply's for a hunk), a failed section does not hide the ones
// after it, and a section whose change already stands says so as its reference would.
func TestCheck(t *testing.T) {
	aider := func(secs ...string) string {
		var b strings.Builder
		b.WriteString("a.go\n```go\n")
		for i := 0; i < len(secs); i += 2 {
			b.WriteString("<<<<<<< SEARCH\n" + secs[i] + "=======\n" + secs[i+1] + ">>>>>>> REPLACE\n")
		}
		b.WriteString("```\n")
		return b.String()
	}
	diff := func(hunks string) string { return "--- a/a.go\n+++ b/a.go\n" + hunks }
	tests := []struct {
		name, edit, content string
		want                []outcome
	}{
		{name: "aider exact", edit: aider("\treturn 1\n", "\treturn 10\n"),
			want: []outcome{{Tier: apply.TierExact, StartLine: 4, EndLine: 4}}},
		{name: "aider leading white space", edit: aider("return 2\n", "return 20\n"),
			want: []outcome{{Tier: TierLeadingWhitespace, StartLine: 8, EndLine: 8}}},
		{name: "aider leading blank line", edit: aider("\nfunc B() int {\n\treturn 2\n", "\nfunc B() int {\n\treturn 20\n"),
			want: []outcome{{Tier: apply.TierExact, StartLine: 6, EndLine: 8}}},
		{name: "aider trailing white space", edit: aider("\treturn 1  \n", "\treturn 10\n"),
			want: []outcome{{Tier: TierTrailingWhitespace, StartLine: 4, EndLine: 4}}},
		{name: "aider elision", edit: aider("func A() int {\n...\n\treturn 1\n}\n", "func A() int64 {\n...\n\treturn 1\n}\n"),
			want: []outcome{{Tier: TierElision, StartLine: 3, EndLine: 5}}},
		{name: "aider failure between matches, with Aider's hint", edit: aider("\treturn 1\n", "\treturn 10\n", "func B() int {\n\treturn 3\n}\n", "x\n", "\treturn 2\n", "\treturn 20\n"),
			want: []outcome{{Tier: apply.TierExact, StartLine: 4, EndLine: 4}, {Err: ErrNoMatch, Nearest: 7}, {Tier: apply.TierExact, StartLine: 8, EndLine: 8}}},
		{name: "aider already applied", edit: aider("\treturn 0\n", "\treturn 1\n"),
			want: []outcome{{Err: ErrNoMatch, Applied: true}}},
		{name: "aider already applied with the file's indentation", edit: aider("if x {\n\treturn 0\n}\n", "if x {\n\treturn 1\n}\n"),
			content: "func A() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
			want:    []outcome{{Err: ErrNoMatch, Applied: true}}},
		{name: "aider on CRLF", edit: aider("\treturn 2\n", "\treturn 20\n"), content: strings.ReplaceAll(checkFile, "\n", "\r\n"),
			want: []outcome{{Tier: apply.TierExact, StartLine: 8, EndLine: 8}}},
		{name: "hunk at its line", edit: diff("@@ -4,1 +4,1 @@\n-\treturn 1\n+\treturn 10\n"),
			want: []outcome{{Tier: apply.TierExact, StartLine: 4, EndLine: 4}}},
		{name: "hunk at an offset", edit: diff("@@ -1,3 +1,3 @@\n func B() int {\n-\treturn 2\n+\treturn 20\n }\n"),
			want: []outcome{{Tier: TierOffset, StartLine: 7, EndLine: 9, Away: 6}}},
		{name: "hunk above its line", edit: diff("@@ -8,2 +8,2 @@\n func A() int {\n-\treturn 1\n+\treturn 10\n"),
			want: []outcome{{Tier: TierOffset, StartLine: 3, EndLine: 4, Away: -5}}},
		{name: "hunk with white space set aside", edit: diff("@@ -4,1 +4,1 @@\n-    return 1\n+\treturn 10\n"),
			want: []outcome{{Tier: TierWhitespace, StartLine: 4, EndLine: 4}}},
		{name: "hunk that only adds", edit: diff("@@ -5,0 +6,1 @@\n+// end of A\n"),
			want: []outcome{{Tier: TierLineNumber, StartLine: 6, EndLine: 6}}},
		{name: "ambiguous hunk", edit: diff("@@ @@\n }\n+\n"),
			want: []outcome{{Err: ErrAmbiguous, Lines: []int{5, 9}}}},
		{name: "failed hunk, then one that matches", edit: diff("@@ -4,1 +4,1 @@\n-\treturn 3\n+\treturn 30\n@@ -8,1 +8,1 @@\n-\treturn 2\n+\treturn 20\n"),
			want: []outcome{{Err: ErrNoMatch, Nearest: 4}, {Tier: apply.TierExact, StartLine: 8, EndLine: 8}}},
		{name: "hunk already applied", edit: diff("@@ -4,1 +4,1 @@\n-\treturn 0\n+\treturn 1\n"),
			want: []outcome{{Err: ErrNoMatch, Nearest: 4, Applied: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			content := tt.content
			if content == "" {
				content = checkFile
			}
			es := Find(tt.edit, Aider, UDiff)
			require.Len(t, es, 1)
			require.Len(t, es[0].Files, 1)
			f := es[0].Files[0]
			out, err := f.Check(content, true)
			require.NoError(t, err)
			got := make([]outcome, len(out))
			failed := false
			for i, o := range out {
				got[i] = outcome{Tier: o.Tier, StartLine: o.StartLine, EndLine: o.EndLine, Away: o.Away, Applied: o.Applied}
				if o.Err != nil {
					failed = true
					got[i].Err, got[i].Lines = o.Err.Kind, o.Err.Lines
					if o.Err.Nearest != nil {
						got[i].Nearest = o.Err.Nearest.StartLine
					}
					continue
				}
				lines := strings.Split(content, "\n")
				region := content[o.Start:o.End]
				if o.Start < o.End {
					assert.Equal(t, strings.Join(lines[o.StartLine-1:o.EndLine], "\n")+"\n", region, "Start and End are the lines matched")
				}
			}
			assert.Equal(t, tt.want, got)

			// Check is Apply section by section: where every section matches, Apply gives the
			// same tiers and places; where one fails, Apply fails.
			res, err := f.Apply(content, true)
			if failed {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			for i, o := range out {
				assert.Equal(t, res.Tiers[i], o.Tier)
				assert.Equal(t, res.Matches[i], o.Start)
				assert.Equal(t, Span{o.Start, o.End}, res.Spans[i])
			}
		})
	}
}

// TestCheckWholeFile: a failure of the file as a whole is Check's error, as it is Apply's.
func TestCheckWholeFile(t *testing.T) {
	f := Find("a.go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", Aider)[0].Files[0]
	out, err := f.Check("", false)
	assert.Nil(t, out)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ErrFileMissing, e.Kind)
	f = Find("--- a/a.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", UDiff)[0].Files[0]
	_, err = f.Check("y\n", true)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ErrDeleteMismatch, e.Kind)
}
