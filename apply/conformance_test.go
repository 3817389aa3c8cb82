package apply

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type vector struct {
	ID           string  `json:"id"`
	Category     string  `json:"category"`
	Version      Version `json:"version"`
	IsFinal      bool    `json:"isFinal"`
	Original     string  `json:"original"`
	Diff         string  `json:"diff"`
	OK           bool    `json:"ok"`
	NewContent   string  `json:"newContent"`
	MatchIndices []int   `json:"matchIndicesBytes"`
	ErrorKind    string  `json:"errorKind"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open("../testdata/conformance/diff.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var out []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var v vector
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v))
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestConformance(t *testing.T) {
	vs := loadVectors(t)
	require.Len(t, vs, 3108)
	// One Index per distinct original, kept across the vectors that share it, as a server keeps
	// one per document version: reuse must not change any result.
	indexes := map[string]*Index{}
	for _, v := range vs {
		t.Run(v.ID, func(t *testing.T) {
			res, err := Construct(v.Diff, v.Original, v.IsFinal, v.Version)
			x := indexes[v.Original]
			if x == nil {
				x = NewIndex(v.Original)
				indexes[v.Original] = x
			}
			kept, keptErr := x.Construct(v.Diff, v.IsFinal, v.Version)
			require.Equal(t, res, kept, "with a kept Index")
			require.Equal(t, err, keptErr, "with a kept Index")
			if !v.OK {
				var e *Error
				require.True(t, errors.As(err, &e), "want error %s, got %v", v.ErrorKind, err)
				assert.Equal(t, v.ErrorKind, string(e.Kind))
				assert.NotEmpty(t, e.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, v.NewContent, res.NewContent)
			if v.Version == V1 {
				assert.Equal(t, v.MatchIndices, res.MatchIndices)
			} else {
				assert.Empty(t, res.MatchIndices)
			}
			if v.IsFinal {
				assert.Equal(t, res.NewContent, ApplyReplacements(v.Original, res.Replacements))
			}
		})
	}
}
