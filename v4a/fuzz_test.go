package v4a

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParse checks that Parse never panics, is deterministic, and locates what it parsed within
// the text it was given.
func FuzzParse(f *testing.F) {
	for _, v := range loadVectors(f) {
		f.Add(v.Patch)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		q, err2 := Parse(text)
		require.Equal(t, err, err2)
		require.Equal(t, p, q)
		if err != nil {
			require.Nil(t, p)
			return
		}
		for _, op := range p.Ops {
			require.True(t, op.Offset >= 0 && op.Offset < len(text), "op offset %d", op.Offset)
			require.True(t, op.Line >= 1)
			for _, h := range op.Hunks {
				require.True(t, h.Offset >= op.Offset && h.Offset <= h.End && h.End <= len(text), "hunk %d-%d", h.Offset, h.End)
				require.True(t, h.Line > op.Line && h.Line <= h.EndLine)
				require.Equal(t, len(h.Old)+len(h.New)-h.context(), len(h.kinds))
			}
		}
	})
}

// FuzzApply checks that applying any patch to any file never panics, that a plan is
// deterministic, and that it is all or nothing: an error comes without a plan, and a plan
// reports every file as it was before.
func FuzzApply(f *testing.F) {
	for _, v := range loadVectors(f) {
		// Each vector's first file becomes "a", the file the fuzzed patch applies to.
		for p, c := range v.Files {
			f.Add(strings.ReplaceAll(v.Patch, p, "a"), c)
			break
		}
	}
	f.Fuzz(func(t *testing.T, patch, content string) {
		files := map[string]string{"a": content, "ab/c": content, "b": "x\r\ny\n"}
		plan, err := ApplyText(patch, folder(files))
		plan2, err2 := ApplyText(patch, folder(files))
		require.Equal(t, err, err2)
		require.Equal(t, plan, plan2)
		if err != nil {
			require.Nil(t, plan)
			require.NotEmpty(t, err.Error())
			return
		}
		require.True(t, strings.HasPrefix(plan.Summary, "Success."))
		for _, c := range plan.Changes {
			before, was := files[c.Path]
			require.Equal(t, was, c.Existed, c.Path)
			require.Equal(t, before, c.Before, c.Path)
			if c.Deleted {
				require.Empty(t, c.Content)
			}
		}
	})
}

// TestApplyRandomEdits is a property test: edits made to a file of distinct lines, written as a
// V4A patch with a line of context around each, give exactly the edited file.
func TestApplyRandomEdits(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for iter := range 300 {
		n := 1 + rng.Intn(40)
		lines := make([]string, n)
		for i := range lines {
			lines[i] = fmt.Sprintf("line %d of %d", i, iter)
		}
		crlf := rng.Intn(3) == 0
		var want []string
		var patch strings.Builder
		patch.WriteString("*** Begin Patch\n*** Update File: f.txt\n")
		plain := false // the next line stays as it is: it is the previous edit's context
		for i := 0; i < n; {
			if plain || rng.Intn(4) != 0 {
				plain = false
				want = append(want, lines[i])
				i++
				continue
			}
			// An edit: context before, some lines removed, some added, context after.
			patch.WriteString("@@\n")
			if i > 0 {
				patch.WriteString(" " + lines[i-1] + "\n")
			}
			del := rng.Intn(min(3, n-i) + 1)
			for _, l := range lines[i : i+del] {
				patch.WriteString("-" + l + "\n")
			}
			for k := range rng.Intn(3) {
				l := fmt.Sprintf("new %d.%d", i, k)
				patch.WriteString("+" + l + "\n")
				want = append(want, l)
			}
			i += del
			if i < n {
				patch.WriteString(" " + lines[i] + "\n")
				want = append(want, lines[i])
				i++
				plain = true
			}
		}
		patch.WriteString("*** End Patch\n")
		eol := "\n"
		if crlf {
			eol = "\r\n"
		}
		content := strings.Join(lines, eol) + eol
		plan, err := ApplyText(patch.String(), folder(map[string]string{"f.txt": content}))
		if !strings.Contains(patch.String(), "@@") {
			require.Error(t, err)
			continue
		}
		require.NoError(t, err, patch.String())
		wantContent := ""
		if len(want) > 0 {
			wantContent = strings.Join(want, eol) + eol
		}
		assert.Equal(t, wantContent, plan.Changes[0].Content, patch.String())
	}
}
