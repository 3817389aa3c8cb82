package v4a

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApplyPlan(t *testing.T) {
	files := folder(map[string]string{
		"src/a.go": "package a\n\nfunc f() {\n\treturn 1  \n}\n",
		"b.txt":    "He said “hi”.\n",
		"gone.txt": "bye\n",
	})
	patch := "*** Begin Patch\n" +
		"*** Update File: src/a.go\n*** Move to: lib/a.go\n@@ func f() {\n-\treturn 1\n+\treturn 2\n" +
		"*** Update File: ./b.txt\n@@\n-He said \"hi\".\n+He said \"hello\".\n@@\n+tail\n" +
		"*** Delete File: gone.txt\n*** Add File: new/n.txt\n+n\n" +
		"*** End Patch\n"
	plan, err := ApplyText(patch, files)
	require.NoError(t, err)
	assert.Equal(t, []Change{
		{Path: "lib/a.go", Content: "package a\n\nfunc f() {\n\treturn 2\n}\n"},
		{Path: "src/a.go", Existed: true, Before: "package a\n\nfunc f() {\n\treturn 1  \n}\n", Deleted: true},
		{Path: "b.txt", Existed: true, Before: "He said “hi”.\n", Content: "He said \"hello\".\ntail\n"},
		{Path: "gone.txt", Existed: true, Before: "bye\n", Deleted: true},
		{Path: "new/n.txt", Content: "n\n"},
	}, plan.Changes)
	assert.Equal(t, []Move{{From: "src/a.go", To: "lib/a.go"}}, plan.Moves)
	assert.Equal(t, []HunkMatch{
		{Op: 0, Hunk: 0, Path: "src/a.go", Line: 4, Tier: TierTrailingSpace, ContextTier: TierExact},
		{Op: 1, Hunk: 0, Path: "b.txt", Line: 1, Tier: TierPunctuation},
		{Op: 1, Hunk: 1, Path: "b.txt", Line: 2, Tier: TierAppend},
	}, plan.Hunks)
	assert.Equal(t, "Success. Updated the following files:\nA new/n.txt\nM lib/a.go\nM ./b.txt\nD gone.txt\n", plan.Summary)
}

func TestApplyTiers(t *testing.T) {
	for _, tc := range []struct {
		name, file, old string
		tier            Tier
	}{
		{"exact", "\tx := 1\n", "\tx := 1", TierExact},
		{"trailing white space", "\tx := 1 \t\n", "\tx := 1", TierTrailingSpace},
		{"indentation", "    x := 1\n", "\tx := 1", TierSpace},
		{"dash", "a – b\n", "a - b", TierPunctuation},
		{"no-break space", "a\u00a0b\n", "a b", TierPunctuation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := ApplyText("*** Begin Patch\n*** Update File: f\n@@\n-"+tc.old+"\n+new\n*** End Patch", folder(map[string]string{"f": tc.file}))
			require.NoError(t, err)
			assert.Equal(t, tc.tier, plan.Hunks[0].Tier)
			assert.Equal(t, "new\n", plan.Changes[0].Content)
		})
	}
}

func TestApplyNearest(t *testing.T) {
	file := "package p\n\nfunc a() {\n\tprintln(\"alpha\")\n\treturn\n}\n\nfunc b() {\n\tprintln(\"beta\")\n}\n"
	patch := "*** Begin Patch\n*** Update File: p.go\n@@\n func b() {\n-\tprintln(\"bet\")\n+\tprintln(\"gamma\")\n }\n*** End Patch"
	plan, err := ApplyText(patch, folder(map[string]string{"p.go": file}))
	require.Nil(t, plan)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, ErrLines, e.Kind)
	assert.Equal(t, 0, e.Op)
	assert.Equal(t, 0, e.Hunk)
	require.NotNil(t, e.Nearest)
	assert.Equal(t, 8, e.Nearest.StartLine)
	assert.Equal(t, 10, e.Nearest.EndLine)
	assert.Equal(t, "func b() {\n\tprintln(\"beta\")\n}\n", file[e.Nearest.Start:e.Nearest.End])
	assert.Equal(t, "Failed to find expected lines in p.go:\nfunc b() {\n\tprintln(\"bet\")\n}\n"+
		"(hunk 1 of the update to p.go; tried: exact, trailing-whitespace, whitespace, unicode-punctuation)\n"+
		"did you mean lines 8-10? (97% similar)", e.Error())

	_, err = ApplyText("*** Begin Patch\n*** Update File: p.go\n@@ zzzzzzzzzzzz\n-q\n*** End Patch", folder(map[string]string{"p.go": file}))
	require.True(t, errors.As(err, &e))
	assert.Equal(t, ErrContext, e.Kind)
	assert.Nil(t, e.Nearest)
	assert.Contains(t, e.Error(), "No similar region found")
}

func TestApplyFileErrors(t *testing.T) {
	files := folder(map[string]string{"dir/f": "x\n", "bad": "\xff\n", "file": "x\n"})
	for _, tc := range []struct {
		name, patch string
		kind        ErrorKind
		msg         string
	}{
		{"empty", "*** Begin Patch\n*** End Patch", ErrNoFiles, "No files were modified."},
		{"update missing", "*** Begin Patch\n*** Update File: nope\n@@\n-x\n*** End Patch", ErrRead,
			"Failed to read file to update nope: No such file or directory (os error 2)"},
		{"update folder", "*** Begin Patch\n*** Update File: dir\n@@\n-x\n*** End Patch", ErrRead,
			"Failed to read file to update dir: path `dir` is not a file"},
		{"update not UTF-8", "*** Begin Patch\n*** Update File: bad\n@@\n-x\n*** End Patch", ErrRead,
			"Failed to read file to update bad: stream did not contain valid UTF-8"},
		{"delete folder", "*** Begin Patch\n*** Delete File: dir\n*** End Patch", ErrRead,
			"Failed to delete file dir: Is a directory (os error 21)"},
		{"delete twice", "*** Begin Patch\n*** Delete File: file\n*** Delete File: file\n*** End Patch", ErrRead,
			"Failed to delete file file: No such file or directory (os error 2)"},
		{"add onto a folder", "*** Begin Patch\n*** Add File: dir\n+x\n*** End Patch", ErrWrite,
			"Failed to write file dir: Is a directory (os error 21)"},
		{"add under a file", "*** Begin Patch\n*** Add File: file/x\n+x\n*** End Patch", ErrWrite,
			"Failed to write file file/x: its folder file is a file"},
		{"update a created folder", "*** Begin Patch\n*** Add File: new/x\n+x\n*** Update File: new\n@@\n-x\n*** End Patch", ErrRead,
			"Failed to read file to update new: path `new` is not a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := ApplyText(tc.patch, files)
			assert.Nil(t, plan)
			var e *Error
			require.True(t, errors.As(err, &e), "got %v", err)
			assert.Equal(t, tc.kind, e.Kind)
			assert.Equal(t, tc.msg, e.Error())
			if e.Reason != "" {
				assert.Equal(t, tc.msg, e.Message+": "+e.Reason, "Codex's message gives no reason")
			}
		})
	}
}

func TestApplyReadError(t *testing.T) {
	denied := errors.New("permission denied")
	_, err := ApplyText("*** Begin Patch\n*** Update File: f\n@@\n-x\n*** End Patch", func(string) (string, error) { return "", denied })
	assert.EqualError(t, err, "Failed to read file to update f: permission denied")

	// What cannot be looked at cannot be created either.
	_, err = ApplyText("*** Begin Patch\n*** Add File: link/x\n+x\n*** End Patch", func(string) (string, error) { return "", denied })
	assert.EqualError(t, err, "Failed to write file link/x: permission denied")

	// A file the patch deletes and re-creates is read from the patch's own state afterwards.
	calls := 0
	plan, err := ApplyText("*** Begin Patch\n*** Delete File: f\n*** Add File: f\n+y\n*** Update File: f\n@@\n-y\n+z\n*** End Patch",
		func(p string) (string, error) {
			calls++
			if p == "f" {
				return "x\n", nil
			}
			return "", fs.ErrNotExist
		})
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
	assert.Equal(t, []Change{{Path: "f", Existed: true, Before: "x\n", Content: "z\n"}}, plan.Changes)
}

func TestApplyBuiltPatch(t *testing.T) {
	// A patch built by hand (not parsed) replaces its Old lines with its New lines as written.
	p := &Patch{Ops: []Op{{Kind: UpdateFile, Path: "f", Hunks: []Hunk{{Old: []string{"a", "b"}, New: []string{"a", "B"}}}}}}
	plan, err := Apply(p, folder(map[string]string{"f": "  a\nb\n"}))
	require.NoError(t, err)
	assert.Equal(t, "a\nB\n", plan.Changes[0].Content)
	assert.Equal(t, TierSpace, plan.Hunks[0].Tier)
}
