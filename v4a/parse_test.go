package v4a

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePositions(t *testing.T) {
	text := "\n*** Begin Patch\n*** Add File: n.txt\n+hi\n*** Update File: a.go\n*** Move to: b.go\n@@ func f() {\n-x\n+y\n@@\n z\n*** End of File\n*** Delete File: c.go\n*** End Patch\n"
	p, err := Parse(text)
	require.NoError(t, err)
	require.Len(t, p.Ops, 3)
	assert.False(t, p.Unwrapped)

	add, up, del := p.Ops[0], p.Ops[1], p.Ops[2]
	assert.Equal(t, Op{Kind: AddFile, Path: "n.txt", Content: "hi\n", Line: 3, Offset: 17}, add)
	assert.Equal(t, DeleteFile, del.Kind)
	assert.Equal(t, "c.go", del.Path)
	assert.Equal(t, 13, del.Line)

	assert.Equal(t, UpdateFile, up.Kind)
	assert.Equal(t, "a.go", up.Path)
	assert.Equal(t, "b.go", up.MoveTo)
	require.Len(t, up.Hunks, 2)
	h := up.Hunks[0]
	assert.Equal(t, "func f() {", h.Context)
	assert.True(t, h.HasContext)
	assert.Equal(t, []string{"x"}, h.Old)
	assert.Equal(t, []string{"y"}, h.New)
	assert.Equal(t, 7, h.Line)
	assert.Equal(t, 9, h.EndLine)
	assert.Equal(t, "@@ func f() {\n-x\n+y", text[h.Offset:h.End])
	h = up.Hunks[1]
	assert.False(t, h.HasContext)
	assert.True(t, h.EOF)
	assert.Equal(t, []string{"z"}, h.Old)
	assert.Equal(t, "@@\n z\n*** End of File", text[h.Offset:h.End])
}

func TestParseEnvelopes(t *testing.T) {
	body := "*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch"
	for _, tc := range []struct {
		name, text string
		unwrapped  bool
	}{
		{"bare", body, false},
		{"padded markers", "  *** Begin Patch  \n*** Add File: n.txt\n+hi\n\t*** End Patch\t\n", false},
		{"crlf", "*** Begin Patch\r\n*** Add File: n.txt\r\n+hi\r\n*** End Patch\r\n", false},
		{"heredoc", "<<'EOF'\n" + body + "\nEOF\n", false},
		{"heredoc unquoted", "<<EOF\n" + body + "\nEOF", false},
		{"heredoc double-quoted", "<<\"EOF\"\n" + body + "\nEOF", false},
		{"shell heredoc", "apply_patch <<'PATCH'\n" + body + "\nPATCH\n", true},
		{"bash cell", "%%bash\napply_patch <<\"EOF\"\n" + body + "\nEOF\n", true},
		{"fence", "```\n" + body + "\n```\n", true},
		{"fence with language and prose", "Sure:\n\n```diff\n" + body + "\n```\nDone.", true},
		{"end marker twice", body + "\n*** End Patch", false},
		{"blank line between end markers", body + "\n\n*** End Patch", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.text)
			require.NoError(t, err)
			assert.Equal(t, tc.unwrapped, p.Unwrapped)
			require.Len(t, p.Ops, 1)
			assert.Equal(t, "hi\n", p.Ops[0].Content)
			assert.Equal(t, "*** Add File: n.txt", tc.text[p.Ops[0].Offset:p.Ops[0].Offset+19])
		})
	}
}

func TestParseErrors(t *testing.T) {
	body := "*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch"
	for _, tc := range []struct {
		name, text string
		kind       ErrorKind
		msg        string
		line       int
	}{
		{"empty", "  \n", ErrInvalidPatch, "Invalid patch: The last line of the patch must be '*** End Patch'", 0},
		{"no begin", "*** Add File: n.txt\n+hi\n*** End Patch", ErrInvalidPatch, "Invalid patch: The first line of the patch must be '*** Begin Patch'", 0},
		{"no end", "*** Begin Patch\n*** Add File: n.txt\n+hi", ErrInvalidPatch, "Invalid patch: The last line of the patch must be '*** End Patch'", 0},
		{"end before the last line", body + "\n*** Add File: m.txt\n+x\n*** End Patch", ErrInvalidPatch, "Invalid patch: The last line of the patch must be '*** End Patch'", 0},
		{"bad header", "*** Begin Patch\n*** Rename File: a\n*** End Patch", ErrInvalidHunk,
			"Invalid patch hunk on line 2: '*** Rename File: a' is not a valid hunk header. " + validHeaders, 2},
		{"empty update", "*** Begin Patch\n*** Update File: a\n*** End Patch", ErrInvalidHunk,
			"Invalid patch hunk on line 2: Update file hunk for path 'a' is empty", 2},
		{"bare @@ alone", "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch", ErrInvalidHunk,
			"Invalid patch hunk on line 4: Update hunk does not contain any lines", 4},
		{"second hunk without @@", "*** Begin Patch\n*** Update File: a\n@@\n-x\n#y\n*** End Patch", ErrInvalidHunk,
			"Invalid patch hunk on line 5: Expected update hunk to start with a @@ context marker, got: '#y'", 5},
		{"two patches", "```\n" + body + "\n```\n```\n" + body + "\n```", ErrInvalidPatch,
			"Invalid patch: the text holds more than one patch; send one patch per apply_patch call", 0},
		{"cd first", "cd src && apply_patch <<'PATCH'\n" + body + "\nPATCH", ErrInvalidPatch,
			"Invalid patch: the patch is run after a cd command; give the paths relative to the workspace and send the patch alone", 0},
		{"marker after the end is not prose", body + "\n*** Add File: late.txt\n+x", ErrInvalidPatch,
			"Invalid patch: The last line of the patch must be '*** End Patch'", 0},
		{"begin with text", "*** Begin Patch: edits\n*** Add File: n.txt\n+hi\n*** End Patch", ErrInvalidPatch,
			"Invalid patch: The first line of the patch must be '*** Begin Patch'", 0},
		{"three end markers", body + "\n*** End Patch\n*** End Patch", ErrInvalidPatch,
			"Invalid patch: The last line of the patch must be '*** End Patch'", 0},
		{"end marker right after @@", "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch\n-x\n*** End Patch", ErrInvalidHunk,
			"Invalid patch hunk on line 4: Update hunk does not contain any lines", 4},
		{"indented header after a hunk", "*** Begin Patch\n*** Update File: a\n@@\n-x\n\t*** Delete File: b\n*** End Patch", ErrInvalidHunk,
			"Invalid patch hunk on line 5: Expected update hunk to start with a @@ context marker, got: '\t*** Delete File: b'", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.text)
			assert.Nil(t, p)
			var e *Error
			require.True(t, errors.As(err, &e), "got %v", err)
			assert.Equal(t, tc.kind, e.Kind)
			assert.Equal(t, tc.msg, e.Message)
			assert.Equal(t, tc.msg, e.Error())
			assert.Equal(t, tc.line, e.Line)
		})
	}
}

func TestParseErrorLocatesTheLine(t *testing.T) {
	text := "Patch:\n```\n*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n@@ g\nbad\n*** End Patch\n```\n"
	_, err := Parse(text)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, 7, e.Line, "Codex's numbering starts at the Begin line")
	assert.Equal(t, 9, e.PatchLine)
	assert.Equal(t, "bad\n", text[e.Offset:e.Offset+4])
	assert.Equal(t, 0, e.Op)
	assert.Equal(t, 1, e.Hunk)
	assert.Equal(t, "a.go", e.Path)
}
