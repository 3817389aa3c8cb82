package textformat

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const aiderBlock = "a.go\n```go\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n"

func TestFindAiderLayouts(t *testing.T) {
	tests := []struct {
		name, text string
		paths      []string
	}{
		{name: "path line then fence", text: aiderBlock, paths: []string{"a.go"}},
		{name: "path inside the fence", text: "```go\nb/c.go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n", paths: []string{"b/c.go"}},
		{name: "decorated path", text: "**`a.go`**:\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n", paths: []string{"a.go"}},
		{name: "heading path", text: "### a.go\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n", paths: []string{"a.go"}},
		{name: "path, closed fence, new fence", text: "```python\nw.py\n```\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n", paths: []string{"w.py"}},
		{name: "fence without a path reuses the previous path", text: aiderBlock + "\nthen:\n```go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n", paths: []string{"a.go", "a.go"}},
		{name: "marker variants", text: "a.go\n```\n  <<<<<<<<< SEARCH>\nx\n=====\ny\n>>>>> REPLACE  \n```\n", paths: []string{"a.go"}},
		{name: "CRLF text", text: strings.ReplaceAll(aiderBlock, "\n", "\r\n"), paths: []string{"a.go"}},
		{name: "no fence", text: "a.go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", paths: []string{"a.go"}},
		{name: "no fence, prose above", text: "Change it like this:\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"},
		{name: "no fence, a closed fence above", text: "```\na.go\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", paths: []string{"a.go"}},
		{name: "no fence, no name", text: "```\na.go\n```\n\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"},
		{name: "path in the info string", text: "```src/a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n", paths: []string{"src/a.py"}},
		{name: "prose between blocks of one fence", text: "```\na.go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\nand then\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\nb.go\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n```\n", paths: []string{"a.go", "b.go"}},
		{name: "Cline XML after an Aider block", text: aiderBlock + "<replace_in_file>\n<path>a.go</path>\n<diff>\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>\n", paths: []string{"a.go"}},
		{name: "a shell fence is a command", text: "a.sh\n```bash\n# comment\n# another\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"},
		{name: "prose above the fence", text: "Change it like this:\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"},
		{name: "Cline XML", text: "<replace_in_file>\n<path>a.go</path>\n<diff>\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>\n"},
		{name: "Cline markers", text: "a.go\n```\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n```\n"},
		{name: "four markers are too few", text: "a.go\n```\n<<<< SEARCH\nx\n====\ny\n>>>> REPLACE\n```\n"},
		{name: "still streaming", text: "a.go\n```go\n<<<<<<< SEARCH\nold\n=======\nne"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths []string
			for _, e := range FindAider(tt.text) {
				for _, f := range e.Files {
					paths = append(paths, f.Path)
				}
				checkSpans(t, tt.text, e)
			}
			assert.Equal(t, tt.paths, paths)
		})
	}
}

func TestAiderSections(t *testing.T) {
	text := "Intro.\n" + aiderBlock + "Outro.\n"
	es := FindAider(text)
	require.Len(t, es, 1)
	e := es[0]
	assert.Equal(t, aiderBlock[:len(aiderBlock)-1], text[e.Span.Start:e.Span.End])
	s := e.Files[0].Sections[0]
	assert.Equal(t, "<<<<<<< SEARCH\nold\n=======", text[s.Span.Start:s.Span.End])
	assert.Equal(t, "old\n", s.Search)
	assert.Equal(t, "new\n", s.Replace)
	// A streaming block appears once its REPLACE marker has arrived.
	end := strings.Index(text, ">>>>>>> REPLACE")
	assert.Empty(t, FindAider(text[:end+len(">>>>>>> REPL")]))
	assert.Len(t, FindAider(text[:end+len(">>>>>>> REPLACE")]), 1)
}

func TestFindUDiff(t *testing.T) {
	tests := []struct {
		name, text string
		files      []string // op:path
		sections   int
	}{
		{name: "bare", text: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", files: []string{"modify:x"}, sections: 1},
		{name: "Aider's headers without numbers", text: "--- x\n+++ x\n@@ ... @@\n-a\n+b\n context\n", files: []string{"modify:x"}, sections: 1},
		{name: "timestamps and a rename", text: "--- old.txt\t2024-01-01\n+++ new.txt\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n", files: []string{"modify:new.txt"}, sections: 1},
		{name: "two hunks then prose", text: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\nThat is the change.\n", files: []string{"modify:x"}, sections: 2},
		{name: "separate diffs", text: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\nand\n\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", files: []string{"modify:x", "modify:y"}, sections: 1},
		{name: "a removed line that starts with dashes", text: "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- comment\n select 1;\n", files: []string{"modify:q.sql"}, sections: 1},
		{name: "no hunk", text: "--- a/x\n+++ b/x\nprose\n"},
		{name: "horizontal rules", text: "---\n+++\n@@\n"},
		{name: "Cline markers", text: "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []string
			for _, e := range FindUDiff(tt.text) {
				checkSpans(t, tt.text, e)
				for _, f := range e.Files {
					files = append(files, string(f.Op)+":"+f.Path)
					assert.Len(t, f.Sections, tt.sections)
				}
			}
			assert.Equal(t, tt.files, files)
		})
	}
}

func TestUDiffHunkText(t *testing.T) {
	text := "--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n\n c\n\\ No newline at end of file\n\nprose\n"
	es := FindUDiff(text)
	require.Len(t, es, 1)
	s := es[0].Files[0].Sections[0]
	assert.Equal(t, "@@ -1,4 +1,4 @@", text[s.Span.Start:s.Span.End])
	assert.Equal(t, "a\nb\n\nc", s.Search, "the marker after a context line: neither side has the line break")
	assert.Equal(t, "a\nB\n\nc", s.Replace)
	assert.Equal(t, 1, s.OldStart)
}

func TestApplyErrors(t *testing.T) {
	file := "alpha\nbeta\ngamma\ndelta\n"
	tests := []struct {
		name, text string
		exists     bool
		kind       ErrorKind
		msg        string
	}{
		{name: "no match with a hint", text: "--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n beta\n-gamma!\n+GAMMA\n", exists: true, kind: ErrNoMatch,
			msg: "hunk 1 (@@ -2,2 +2,2 @@) of f: its context and removed lines match nothing in the file, at line 2 or elsewhere, even with white space set aside. The most similar region is lines 2-3 (91% similar); copy those lines exactly as context."},
		{name: "overlap", text: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-beta\n+b\n@@ -1 +1 @@\n-beta\n+c\n", exists: true, kind: ErrOverlap,
			msg: "hunk 2 (@@ -1 +1 @@) of f: it matches only lines that hunk 1 already changes; merge the two hunks into one."},
		{name: "missing", text: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-beta\n+b\n", kind: ErrFileMissing,
			msg: "f does not exist; check the path, or start a new file's diff with --- /dev/null."},
		{name: "exists", text: "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n", exists: true, kind: ErrFileExists},
		{name: "insertion past the end", text: "--- a/f\n+++ b/f\n@@ -9,0 +10,1 @@\n+x\n", exists: true, kind: ErrBadLine,
			msg: "hunk 1 (@@ -9,0 +10,1 @@) of f: the hunk only adds lines, and the file has no line 9 to add them after; check the line numbers in the @@ header."},
		{name: "aider missing", text: "f\n```\n<<<<<<< SEARCH\nbeta\n=======\nb\n>>>>>>> REPLACE\n```\n", kind: ErrFileMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := Find(tt.text, Aider, UDiff)
			require.Len(t, es, 1)
			_, err := es[0].Files[0].Apply(file, tt.exists)
			var fe *Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.kind, fe.Kind)
			if tt.msg != "" {
				assert.Equal(t, tt.msg, err.Error())
			}
		})
	}
}

func TestAiderAppendsAndMatches(t *testing.T) {
	text := "f\n```\n<<<<<<< SEARCH\ngamma\n=======\nGAMMA\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n=======\nepsilon\n>>>>>>> REPLACE\n```\n"
	es := FindAider(text)
	require.Len(t, es, 1)
	res, err := es[0].Files[0].Apply("alpha\r\ngamma\r\n", true)
	require.NoError(t, err)
	assert.Equal(t, "alpha\r\nGAMMA\r\nepsilon\r\n", res.Content)
	assert.Equal(t, []int{7, 14}, res.Matches)
}

// checkSpans asserts the span invariants: within the text, sections inside their file's span,
// in order, and each section's span the marker or header line it names.
func checkSpans(t *testing.T, text string, e Edit) {
	t.Helper()
	require.True(t, 0 <= e.Span.Start && e.Span.Start <= e.Span.End && e.Span.End <= len(text), "edit span %v", e.Span)
	for _, f := range e.Files {
		require.True(t, e.Span.Start <= f.Span.Start && f.Span.Start <= f.Span.End && f.Span.End <= e.Span.End, "file span %v in %v", f.Span, e.Span)
		prev := f.Span.Start
		for _, s := range f.Sections {
			require.True(t, prev <= s.Span.Start && s.Span.Start <= s.Span.End && s.Span.End <= f.Span.End, "section span %v", s.Span)
			prev = s.Span.End
		}
	}
}

func BenchmarkFindProse(b *testing.B) {
	msg, err := os.ReadFile("../testdata/perf/msg_1mb.txt")
	require.NoError(b, err)
	text := string(msg)
	for _, f := range []Format{Aider, UDiff, V4A} {
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Find(text, f)
			}
		})
	}
}

func BenchmarkFindAiderBlocks(b *testing.B) {
	text := strings.Repeat("Some prose about the change.\n\n"+aiderBlock+"\n", 2000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		FindAider(text)
	}
}

func TestUDiffPartial(t *testing.T) {
	tests := []struct {
		text    string
		partial bool
	}{
		{"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n", true},
		{"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", false},
		{"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-p\n", true},
		{"--- x\n+++ x\n@@ ... @@\n-a\n+b\n", true},
		{"--- x\n+++ x\n@@ ... @@\n-a\n+b\nDone.\n", false},
	}
	for _, tt := range tests {
		es := FindUDiff(tt.text)
		require.Len(t, es, 1, tt.text)
		assert.Equal(t, tt.partial, es[0].Partial, tt.text)
	}
}

// An insertion placed by line number at the start of another hunk's match goes before it.
func TestUDiffInsertionBeforeMatch(t *testing.T) {
	text := "--- a/f\n+++ b/f\n@@ -2,1 +2,1 @@\n-b\n+B\n@@ -1,0 +2,1 @@\n+new\n"
	es := FindUDiff(text)
	require.Len(t, es, 1)
	res, err := es[0].Files[0].Apply("a\nb\nc\n", true)
	require.NoError(t, err)
	assert.Equal(t, "a\nnew\nB\nc\n", res.Content)
}

// Two Aider sections with an empty SEARCH both append, in order.
func TestAiderTwoAppends(t *testing.T) {
	text := "f\n```\n<<<<<<< SEARCH\n=======\none\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n=======\ntwo\n>>>>>>> REPLACE\n```\n"
	es := FindAider(text)
	require.Len(t, es, 1)
	res, err := es[0].Files[0].Apply("zero\n", true)
	require.NoError(t, err)
	assert.Equal(t, "zero\none\ntwo\n", res.Content)
}
