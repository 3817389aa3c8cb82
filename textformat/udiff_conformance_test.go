package textformat

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"
)

// udiffVector is one line of testdata/conformance/udiff-real.jsonl.xz: a per-file patch from
// real history (git diff-tree -p -M) with the file before (pre, at old) and after (post, at
// new) as git apply leaves it.
type udiffVector struct {
	Repo, Parent, Commit string
	Status               string // M, A, D or Rnnn
	Old, New             string
	Patch                string
	Pre, Post            *string
}

func readUDiffVectors(t *testing.T) []udiffVector {
	t.Helper()
	f, err := os.Open("../testdata/conformance/udiff-real.jsonl.xz")
	require.NoError(t, err)
	defer f.Close()
	r, err := xz.NewReader(bufio.NewReader(f))
	require.NoError(t, err)
	var out []udiffVector
	dec := json.NewDecoder(r)
	for dec.More() {
		var v udiffVector
		require.NoError(t, dec.Decode(&v))
		out = append(out, v)
	}
	return out
}

// TestUDiffConformance applies every real patch as git apply does: the file at new must be
// post, a rename must name old as its source, a deletion must delete.
func TestUDiffConformance(t *testing.T) {
	t.Parallel()
	vs := readUDiffVectors(t)
	require.Len(t, vs, 779)
	pass := 0
	for _, v := range vs {
		name := v.Commit[:8] + ":" + v.New
		if !assert.True(t, check(t, v), name) {
			continue
		}
		pass++
	}
	t.Logf("%d of %d vectors give what git apply gives", pass, len(vs))
}

// check applies v's patch and reports whether the result is what git apply gave.
func check(t *testing.T, v udiffVector) bool {
	es := FindUDiff(v.Patch)
	if !assert.Len(t, es, 1) || !assert.Len(t, es[0].Files, 1) {
		return false
	}
	f := es[0].Files[0]
	content, exists := "", v.Pre != nil
	if exists {
		content = *v.Pre
	}
	res, err := f.Apply(content, exists)
	if !assert.NoError(t, err) {
		return false
	}
	switch v.Status[0] {
	case 'D':
		return assert.Equal(t, OpDelete, f.Op) && assert.Equal(t, v.Old, f.Path) && assert.True(t, res.Delete)
	case 'R':
		if !assert.Equal(t, v.Old, f.OldPath) {
			return false
		}
	case 'A':
		if !assert.Equal(t, OpCreate, f.Op) {
			return false
		}
	default:
		if !assert.Empty(t, f.OldPath) {
			return false
		}
	}
	return assert.Equal(t, v.New, f.Path) && assert.False(t, res.Delete) && assert.Equal(t, *v.Post, res.Content)
}
