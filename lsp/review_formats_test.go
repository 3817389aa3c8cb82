package lsp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/textformat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckResponseTextFormats: a response document's edits written in text (an Aider block,
// a unified diff) are diagnosed like tool uses: a section of the block's first file that
// matches only through a tier of its format's applier is a hint naming the tier, and a block
// that does not apply as a whole (its diff's hunk matches nothing) an error.
func TestCheckResponseTextFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() int {\n\treturn 1\n}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	answer := "Aider style:\n\na.go\n```go\n<<<<<<< SEARCH\n\treturn 1  \n=======\n\treturn 2\n>>>>>>> REPLACE\n```\n\n" +
		"<thinking>and a diff</thinking>\n" +
		"```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-ONE\n+1\n two\n```\n"
	findings, err := CheckResponse(dir, filepath.Join(dir, "x.assistant.md"), answer)
	require.NoError(t, err)
	require.Len(t, findings, 2, "%+v", findings)
	assert.Equal(t, Finding{Line: 5, Column: 1, Severity: "hint",
		Message: "SEARCH section 1 matches line 4 of a.go only with trailing white space set aside too (its lines differ from the file's at their ends, which Aider itself does not accept)"}, findings[0])
	assert.Equal(t, "error", findings[1].Severity)
	assert.Equal(t, 1, findings[1].Line, "the block's first line: its first file is a.go")
	assert.Contains(t, findings[1].Message, "b.txt")
}

// reviewFormatsFile is the target of TestCheckResponseByFormat.
const reviewFormatsFile = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"

// TestCheckResponseByFormat: each section or hunk of a text-format edit in a response document
// is reviewed as its format's own applier applies it (Aider's tiers for an Aider block, git
// apply's for a hunk), so that what the review says is what applying does: the tier words, the
// applier's error with the region it suggests, and the change already standing as the format's
// reference sees it.
func TestCheckResponseByFormat(t *testing.T) {
	aider := func(search, replace string) string {
		return "a.go\n```go\n<<<<<<< SEARCH\n" + search + "=======\n" + replace + ">>>>>>> REPLACE\n```\n"
	}
	diff := func(hunks string) string { return "```diff\n--- a/a.go\n+++ b/a.go\n" + hunks + "```\n" }
	hint := func(what, lines string, tier apply.MatchTier) string {
		return what + " matches " + lines + " of a.go only " + tierWords[tier]
	}
	tests := []struct {
		name, answer string
		want         []Finding
	}{
		{
			// Cline's exact substring match would take "return 1" inside "\treturn 1": Aider
			// matches whole lines, so the block applies only with its indentation set aside.
			name:   "aider block matching only with leading white space",
			answer: aider("return 1\n", "return 10\n"),
			want:   []Finding{{Line: 3, Column: 1, Severity: "hint", Message: hint("SEARCH section 1", "line 4", textformat.TierLeadingWhitespace)}},
		},
		{
			name:   "aider leading blank line",
			answer: aider("\n  \nfunc B() int {\n", "\nfunc B() int64 {\n"),
			want:   []Finding{{Line: 3, Column: 1, Severity: "hint", Message: hint("SEARCH section 1", "lines 6-7", textformat.TierLeadingBlankLine)}},
		},
		{
			name:   "aider elision",
			answer: aider("func A() int {\n...\n\treturn 1\n}\n", "func A() int64 {\n...\n\treturn 1\n}\n"),
			want:   []Finding{{Line: 3, Column: 1, Severity: "hint", Message: hint("SEARCH section 1", "lines 3-5", textformat.TierElision)}},
		},
		{
			name:   "aider block failing with Aider's hint",
			answer: aider("func B() int {\n\treturn 3\n}\n", "func B() int {\n\treturn 30\n}\n"),
			want: []Finding{{Line: 3, Column: 1, Severity: "error",
				Message: "SEARCH section 1 failed to exactly match lines in a.go; did you mean lines 7-9? (66% similar)",
				Notes:   []Note{{Line: 7, Message: "the nearest region of a.go (66% similar)"}}}},
		},
		{
			name:   "aider block already applied",
			answer: aider("\treturn 0\n", "\treturn 1\n"),
			want:   []Finding{{Line: 1, Column: 1, Severity: "information", Message: "already applied: aider a.go is in place"}},
		},
		{
			name:   "hunk at an offset",
			answer: diff("@@ -1,3 +1,3 @@\n func B() int {\n-\treturn 2\n+\treturn 20\n }\n"),
			want: []Finding{{Line: 4, Column: 1, Severity: "hint",
				Message: "hunk 1 matches lines 7-9 of a.go only 6 lines below the line its @@ header names (the file's lines moved since the diff was made)"}},
		},
		{
			name:   "hunk with white space set aside",
			answer: diff("@@ -4,1 +4,1 @@\n-    return 1\n+\treturn 10\n"),
			want:   []Finding{{Line: 4, Column: 1, Severity: "hint", Message: hint("hunk 1", "line 4", textformat.TierWhitespace)}},
		},
		{
			name:   "hunk placed by its line number",
			answer: diff("@@ -5,0 +6,1 @@\n+// end of A\n"),
			want:   []Finding{{Line: 4, Column: 1, Severity: "hint", Message: hint("hunk 1", "line 6", textformat.TierLineNumber)}},
		},
		{
			name:   "ambiguous hunk",
			answer: diff("@@ @@\n }\n+\n"),
			want: []Finding{{Line: 4, Column: 1, Severity: "error",
				Message: "hunk 1 (@@ @@) of a.go: its context and removed lines match at lines 5 and 9, and it has no line numbers to tell which is meant; add context lines that tell them apart, or give the hunk's @@ -line,count +line,count @@ numbers.",
				Notes:   []Note{{Line: 5, Message: "hunk 1 matches at line 5 of a.go"}, {Line: 9, Message: "hunk 1 matches at line 9 of a.go"}}}},
		},
		{
			name:   "hunk already applied, another not",
			answer: diff("@@ -4,1 +4,1 @@\n-\treturn 0\n+\treturn 1\n@@ -8,1 +8,1 @@\n-\treturn 3\n+\treturn 30\n"),
			want: []Finding{
				{Line: 4, Column: 1, Severity: "information", Message: "hunk 1 is already applied: reversed, it applies to a.go"},
				{Line: 7, Column: 1, Severity: "error", Message: "hunk 2 (@@ -8,1 +8,1 @@) of a.go: its context and removed lines match nothing in the file, at line 8 or elsewhere, even with white space set aside. The most similar region is line 4 (87% similar); copy those lines exactly as context.",
					Notes: []Note{{Line: 4, Message: "the nearest region of a.go (87% similar)"}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte(reviewFormatsFile), 0o644))
			findings, err := CheckResponse(dir, filepath.Join(dir, "x.assistant.md"), tt.answer)
			require.NoError(t, err)
			for i := range findings {
				for j := range findings[i].Notes {
					assert.Equal(t, filepath.Join(dir, "a.go"), findings[i].Notes[j].Path)
					findings[i].Notes[j].Path = ""
				}
			}
			assert.Equal(t, tt.want, findings)
		})
	}
}

// TestTierWords: every tier constant of the appliers (apply, textformat, v4a, edittool) has
// words, but for those that find the text as written, so that a new tier cannot reach users
// unexplained. The constants are read from the packages' sources.
func TestTierWords(t *testing.T) {
	t.Parallel()
	unworded := map[string]bool{"exact": true, "empty": true, "append": true}
	tiers := tierConstants(t, map[string]string{"../apply": "MatchTier", "../textformat": "apply.MatchTier",
		"../edittool": "apply.MatchTier", "../v4a": "Tier"})
	require.GreaterOrEqual(t, len(tiers), 15, "the tier constants were found: %v", tiers)
	for name, value := range tiers {
		if unworded[value] {
			assert.NotContains(t, tierWords, apply.MatchTier(value), "%s finds the text as written: no hint", name)
			continue
		}
		assert.NotEmpty(t, tierWords[apply.MatchTier(value)], "%s (%q) has no words in tierWords", name, value)
	}
	for tier, words := range tierWords {
		assert.False(t, strings.HasSuffix(words, "."), "%s: the words end a sentence that goes on", tier)
	}
	assert.Equal(t, "1 line above the line its @@ header names (the file's lines moved since the diff was made)", offsetWords(-1))
}

// tierConstants returns the string constants of the given types declared in the non-test Go
// files of each directory (dir → type as written there), by qualified name.
func tierConstants(t *testing.T, typeOf map[string]string) map[string]string {
	out := map[string]string{}
	for dir, typ := range typeOf {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			require.NoError(t, err)
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					if vs.Type == nil || types.ExprString(vs.Type) != typ {
						continue
					}
					for i, n := range vs.Names {
						lit, ok := vs.Values[i].(*ast.BasicLit)
						require.True(t, ok, "%s: a tier constant is a string literal", n.Name)
						v, err := strconv.Unquote(lit.Value)
						require.NoError(t, err)
						out[filepath.Base(dir)+"."+n.Name] = v
					}
				}
			}
		}
	}
	return out
}
