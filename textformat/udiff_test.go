package textformat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// applyOne recognises the single-file diff in text and applies it to file.
func applyOne(t *testing.T, text, file string, exists bool) (File, Result, error) {
	t.Helper()
	es := FindUDiff(text)
	require.Len(t, es, 1, "one edit in %q", text)
	require.Len(t, es[0].Files, 1)
	f := es[0].Files[0]
	res, err := f.Apply(file, exists)
	return f, res, err
}

// repeated is a Go test file whose test functions all end alike, so that a hunk appending
// after the last one has the same context as after every other one.
func repeated(n int) string {
	var b strings.Builder
	b.WriteString("package x\n\nimport \"testing\"\n")
	for i := range n {
		fmt.Fprintf(&b, "\nfunc Test%d(t *testing.T) {\n\tcheck(t)\n}\n", i)
	}
	return b.String()
}

// TestUDiffPlacement: a hunk goes to its @@ line when it matches there, else to the nearest
// match searching outward from it as git does; only where the line number cannot decide does
// the edit fail, naming the candidates.
func TestUDiffPlacement(t *testing.T) {
	file := repeated(300) // 3 header lines, then 4 lines per test: Test<i> starts on line 5+4i
	test := func(i int) string { return fmt.Sprintf("func Test%d(t *testing.T) {\n\tcheck(t)\n}\n", i) }
	after := func(i int, added string) string { return strings.Replace(file, test(i), test(i)+added, 1) }
	newTest := "\nfunc TestNew(t *testing.T) {\n\tcheck(t)\n}\n"
	tests := []struct {
		name, hunks, want string
		tier              apply.MatchTier
		kind              ErrorKind
		msg               string
	}{
		{name: "appended after the last of 300 alike tests", hunks: "@@ -1202,2 +1202,6 @@\n \tcheck(t)\n }\n+\n+func TestNew(t *testing.T) {\n+\tcheck(t)\n+}\n",
			want: file + newTest, tier: apply.TierExact},
		{name: "a wrong line number: the nearest match", hunks: "@@ -599,3 +599,4 @@\n \tcheck(t)\n }\n+// after\n \n",
			want: after(148, "// after\n"), tier: TierOffset},
		{name: "two matches as near: ambiguous", hunks: "@@ -600,3 +600,4 @@\n \tcheck(t)\n }\n+// after\n \n", kind: ErrAmbiguous,
			msg: "hunk 1 (@@ -600,3 +600,4 @@) of x_test.go: its context and removed lines match at lines 598 and 602, and they are as near to line 600 of its header; add context lines that tell them apart, or give the hunk's @@ -line,count +line,count @@ numbers."},
		{name: "no line numbers, many matches: ambiguous", hunks: "@@ ... @@\n \tcheck(t)\n }\n+// after\n \n", kind: ErrAmbiguous},
		{name: "no line numbers, one match", hunks: "@@ ... @@\n func Test7(t *testing.T) {\n-\tcheck(t)\n+\tcheck(t) // 7\n",
			want: strings.Replace(file, "Test7(t *testing.T) {\n\tcheck(t)", "Test7(t *testing.T) {\n\tcheck(t) // 7", 1), tier: apply.TierExact},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := applyOne(t, "--- a/x_test.go\n+++ b/x_test.go\n"+tt.hunks, file, true)
			if tt.kind != "" {
				var fe *Error
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tt.kind, fe.Kind)
				if tt.msg != "" {
					assert.Equal(t, tt.msg, err.Error())
				}
				assert.GreaterOrEqual(t, len(fe.Lines), 2, "the candidates are named")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.tier, res.Tiers[len(res.Tiers)-1])
			assert.Equal(t, tt.want, res.Content)
		})
	}
}

// TestUDiffInOrder: without line numbers, the one match after the previous hunk is taken
// before any earlier one.
func TestUDiffInOrder(t *testing.T) {
	_, res, err := applyOne(t, "--- f\n+++ f\n@@ ... @@\n-b\n+B\n@@ ... @@\n-x\n+X\n", "a\nx\nb\nx\n", true)
	require.NoError(t, err)
	assert.Equal(t, "a\nx\nB\nX\n", res.Content)
	_, _, err = applyOne(t, "--- f\n+++ f\n@@ ... @@\n-a\n+A\n@@ ... @@\n-x\n+X\n", "a\nx\nb\nx\n", true)
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, []int{2, 4}, fe.Lines)
}

// TestUDiffGitAnchors: a hunk from line 1, or without trailing context, is first tried at the
// file's start or end only, as git does; elsewhere only when it matches nowhere there.
func TestUDiffGitAnchors(t *testing.T) {
	file := "x\ny\nz\nq\nx\ny\n"
	tests := []struct{ name, hunks, want string }{
		{"from line 1: the start, not line 5", "@@ -1,2 +1,2 @@\n x\n-y\n+Y\n", "x\nY\nz\nq\nx\ny\n"},
		{"no trailing context: the end, though line 1 is nearer", "@@ -2,2 +2,2 @@\n x\n-y\n+Y\n", "x\ny\nz\nq\nx\nY\n"},
		{"from line 1 but not at the start: the nearest", "@@ -1,2 +1,2 @@\n-z\n+Z\n q\n", "x\ny\nZ\nq\nx\ny\n"},
		{"no context at all: its own line, not the end", "@@ -2 +2 @@\n-y\n+Y\n", "x\nY\nz\nq\nx\ny\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := applyOne(t, "--- a/f\n+++ b/f\n"+tt.hunks, file, true)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Content)
		})
	}
}

// TestUDiffModelVariants: the diffs models write instead of git's (contract section 4b), each
// applied where the result is unambiguous.
func TestUDiffModelVariants(t *testing.T) {
	file := "package main\n\nfunc main() {\n\tfmt.Println(\"hi\")\n\treturn\n}\n"
	want := "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\treturn\n}\n"
	tests := []struct {
		name, text, want string
		tier             apply.MatchTier
	}{
		{name: "git's own", text: "--- a/m.go\n+++ b/m.go\n@@ -3,3 +3,3 @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n", tier: apply.TierExact},
		{name: "no a/ and b/ prefixes", text: "--- m.go\n+++ m.go\n@@ -3,3 +3,3 @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n", tier: apply.TierExact},
		{name: "wrong line numbers", text: "--- m.go\n+++ m.go\n@@ -30,3 +30,3 @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n", tier: TierOffset},
		{name: "@@ ... @@", text: "--- m.go\n+++ m.go\n@@ ... @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n", tier: apply.TierExact},
		{name: "bare @@", text: "--- m.go\n+++ m.go\n@@\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n", tier: apply.TierExact},
		{name: "counts too small, recounted", text: "--- m.go\n+++ m.go\n@@ -3,1 +3,1 @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n", tier: apply.TierExact},
		{name: "counts too large, recounted", text: "--- m.go\n+++ m.go\n@@ -3,9 +3,9 @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n\nThat is all.", tier: apply.TierExact},
		{name: "in a fence with prose around", text: "Change it:\n\n```diff\n--- a/m.go\n+++ b/m.go\n@@ -3,3 +3,3 @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n```\n\nDone.", tier: apply.TierExact},
		{name: "prose right after, no blank line", text: "--- m.go\n+++ m.go\n@@ ... @@\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\nThis prints hello.", tier: apply.TierExact},
		{name: "a blank line, then a bullet of prose (no counts)", text: "--- m.go\n+++ m.go\n@@ ... @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n\n- It now says hello.\n- Nothing else changes.\n", tier: apply.TierExact},
		{name: "a blank line, then a bullet of prose (counts too large)", text: "--- m.go\n+++ m.go\n@@ -3,4 +3,4 @@\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n\n- It now says hello.\n", tier: apply.TierExact},
		{name: "a blank line is an empty context line when the hunk goes on", text: "--- m.go\n+++ m.go\n@@ ... @@\n package main\n\n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n", tier: apply.TierExact},
		{name: "spaces for the file's tabs: the file's lines are kept", text: "--- m.go\n+++ m.go\n@@ -3,4 +3,4 @@\n func main() {\n-    fmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n     return\n }\n", tier: TierWhitespace},
		{name: "context without indentation", text: "--- m.go\n+++ m.go\n@@ -3,4 +3,4 @@\n func main() {\n-fmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n return\n }\n", tier: TierWhitespace},
		{name: "the counts claim an empty line the file lacks", text: "--- m.go\n+++ m.go\n@@ -4,4 +4,4 @@\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n \treturn\n }\n\n\nThat's it.", tier: apply.TierExact},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, res, err := applyOne(t, tt.text, file, true)
			require.NoError(t, err)
			assert.Equal(t, "m.go", f.Path)
			assert.Equal(t, want, res.Content)
			assert.Equal(t, []apply.MatchTier{tt.tier}, res.Tiers)
		})
	}
}

// TestUDiffWhitespaceKeepsFile: a hunk matched with white space set aside changes only its
// removed and added lines; the context lines stay exactly as the file has them.
func TestUDiffWhitespaceKeepsFile(t *testing.T) {
	file := "if x {\n\t\ta()  \n\t\tb()\n\t\tc()\n}\n"
	_, res, err := applyOne(t, "--- f\n+++ f\n@@ -2,3 +2,3 @@\n   a()\n-  b()\n+\t\tB()\n   c()\n", file, true)
	require.NoError(t, err)
	assert.Equal(t, "if x {\n\t\ta()  \n\t\tB()\n\t\tc()\n}\n", res.Content)
}

// TestUDiffFiles: renames, creations, deletions, mode lines and the end of file marker.
func TestUDiffFiles(t *testing.T) {
	tests := []struct {
		name, text   string
		file         string
		exists       bool
		op           Op
		path, old    string
		want         string
		deleted      bool
		kind         ErrorKind
		sections     int
		wantSections bool
	}{
		{name: "pure rename", text: "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n",
			file: "x\n", exists: true, op: OpModify, path: "b.txt", old: "a.txt", want: "x\n"},
		{name: "rename with changes", text: "diff --git a/a.txt b/b.txt\nsimilarity index 50%\nrename from a.txt\nrename to b.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n",
			file: "x\ny\n", exists: true, op: OpModify, path: "b.txt", old: "a.txt", want: "x\nY\n", sections: 1},
		{name: "rename of a missing file", text: "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n",
			op: OpModify, path: "b.txt", old: "a.txt", kind: ErrFileMissing},
		{name: "quoted paths with spaces", text: "diff --git \"a/my file.txt\" \"b/my file.txt\"\n--- \"a/my file.txt\"\n+++ \"b/my file.txt\"\n@@ -1 +1 @@\n-x\n+y\n",
			file: "x\n", exists: true, op: OpModify, path: "my file.txt", want: "y\n", sections: 1},
		{name: "an empty new file", text: "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
			op: OpCreate, path: "e", want: ""},
		{name: "a new file keeps its CRLF lines", text: "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+one\r\n+two\r\n",
			op: OpCreate, path: "n", want: "one\r\ntwo\r\n", sections: 1},
		{name: "a new file without a final line break", text: "--- /dev/null\n+++ n\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n",
			op: OpCreate, path: "n", want: "one\ntwo", sections: 1},
		{name: "creation over an existing file", text: "--- /dev/null\n+++ n\n@@ -0,0 +1 @@\n+one\n",
			file: "x\n", exists: true, op: OpCreate, path: "n", kind: ErrFileExists, sections: 1},
		{name: "deletion", text: "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
			file: "x\ny\n", exists: true, op: OpDelete, path: "d", deleted: true, sections: 1},
		{name: "deletion of a file that holds more", text: "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
			file: "x\ny\nz\n", exists: true, op: OpDelete, path: "d", kind: ErrDeleteMismatch, sections: 1},
		{name: "deletion of a file that holds other lines", text: "--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
			file: "x\nq\n", exists: true, op: OpDelete, path: "d", kind: ErrDeleteMismatch, sections: 1},
		{name: "deletion with white space differences is refused", text: "--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n- y\n",
			file: "x\ny\n", exists: true, op: OpDelete, path: "d", kind: ErrDeleteMismatch, sections: 1},
		{name: "deletion of an empty file", text: "diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n",
			exists: true, op: OpDelete, path: "e", deleted: true},
		{name: "deletion of an empty file that is not empty", text: "diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n",
			file: "x\n", exists: true, op: OpDelete, path: "e", kind: ErrDeleteMismatch},
		{name: "mode lines", text: "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\nindex 1..2\n--- a/s.sh\n+++ b/s.sh\n@@ -1 +1 @@\n-echo\n+echo hi\n",
			file: "echo\n", exists: true, op: OpModify, path: "s.sh", want: "echo hi\n", sections: 1},
		{name: "adding the final line break", text: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
			file: "a\nb", exists: true, op: OpModify, path: "f", want: "a\nb\n", sections: 1},
		{name: "removing the final line break", text: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
			file: "a\nb\n", exists: true, op: OpModify, path: "f", want: "a\nb", sections: 1},
		{name: "a CRLF line made LF", text: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+b\n",
			file: "a\r\nb\r\n", exists: true, op: OpModify, path: "f", want: "a\r\nb\n", sections: 1},
		{name: "an LF diff on a CRLF file stays CRLF", text: "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n+B\n+c\n",
			file: "a\r\nb\r\n", exists: true, op: OpModify, path: "f", want: "a\r\nB\r\nc\r\n", sections: 1},
		{name: "a CRLF diff on an LF file stays LF", text: "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n",
			file: "a\nb\n", exists: true, op: OpModify, path: "f", want: "a\nB\n", sections: 1},
		{name: "a mail signature ends the diff", text: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n",
			file: "a\n", exists: true, op: OpModify, path: "f", want: "b\n", sections: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, res, err := applyOne(t, tt.text, tt.file, tt.exists)
			assert.Equal(t, tt.op, f.Op)
			assert.Equal(t, tt.path, f.Path)
			assert.Equal(t, tt.old, f.OldPath)
			assert.Len(t, f.Sections, tt.sections)
			if tt.kind != "" {
				var fe *Error
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tt.kind, fe.Kind)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.deleted, res.Delete)
			assert.Equal(t, tt.want, res.Content)
		})
	}
}

// TestFindUDiffNot: what is not a unified diff an editor can apply.
func TestFindUDiffNot(t *testing.T) {
	for _, text := range []string{
		"diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n",                                                          // a mode change alone
		"diff --git a/i.png b/i.png\nnew file mode 100644\nindex 0000000..1234567\nBinary files /dev/null and b/i.png differ\n", // binary
		"diff --git a/x b/x\nindex 1..2 100644\n",
		"Use @@ to mark hunks.",
	} {
		assert.Empty(t, FindUDiff(text), text)
	}
}

// TestUDiffErrors: the messages of failed hunks say what to do.
func TestUDiffErrors(t *testing.T) {
	file := "alpha\nbeta\ngamma\n"
	tests := []struct{ name, hunks, msg string }{
		{"no match, no line number", "@@ ... @@\n-delta\n+DELTA\n",
			"hunk 1 (@@ ... @@) of f: its context and removed lines match nothing in the file, even with white space set aside. No similar region was found; read the file again and copy the lines to change exactly."},
		{"context lines without their space", "@@ ... @@\nalpha\n-beta\n+BETA\n",
			"hunk 1 (@@ ... @@) of f: the hunk has no lines; every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added), the line after its @@ line too."},
		{"an insertion without line numbers", "@@ ... @@\n+x\n",
			"hunk 1 (@@ ... @@) of f: the hunk only adds lines and its header has no line numbers, so there is nothing to place it by; add context lines or an @@ -l,0 +l,n @@ header."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := applyOne(t, "--- a/f\n+++ b/f\n"+tt.hunks, file, true)
			require.Error(t, err)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
	_, _, err := applyOne(t, "--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", "y\n", true)
	assert.EqualError(t, err, "the diff deletes d, but the file holds other lines than the diff removes; read the file again, or leave it if it is to stay.")
	_, _, err = applyOne(t, "diff --git a/a b/b\nrename from a\nrename to b\n", "", false)
	assert.EqualError(t, err, "a does not exist; check the path, or start a new file's diff with --- /dev/null.")
}
