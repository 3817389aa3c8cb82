package parse

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const conformancePath = "../testdata/conformance/parse.jsonl"

// vector is one line of the conformance file.
type vector struct {
	ID             string   `json:"id"`
	Category       string   `json:"category"`
	ExtraToolNames []string `json:"extraToolNames"`
	Input          string   `json:"input"`
	Blocks         []Block  `json:"blocks"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open(conformancePath)
	require.NoError(t, err)
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<26)
	for sc.Scan() {
		var v vector
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v))
		vs = append(vs, v)
	}
	require.NoError(t, sc.Err())
	return vs
}

// withoutSpans strips what the vectors do not carry (spans) and maps an empty params object to nil,
// since the vectors write {} where this package leaves Params nil.
func withoutSpans(bs []Block) []Block {
	out := make([]Block, len(bs))
	for i, b := range bs {
		b.Span, b.ParamSpans = Span{}, nil
		if len(b.Params) == 0 {
			b.Params = nil
		}
		out[i] = b
	}
	return out
}

func TestConformance(t *testing.T) {
	vs := loadVectors(t)
	require.Len(t, vs, 7352, "the conformance file changed size")
	for _, v := range vs {
		t.Run(v.ID, func(t *testing.T) {
			got := New(Config{ExtraToolNames: v.ExtraToolNames}).Parse(v.Input)
			assert.Equal(t, withoutSpans(v.Blocks), withoutSpans(got), "category %s", v.Category)
		})
	}
}
