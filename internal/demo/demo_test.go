package demo

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunRejectsChunkZero(t *testing.T) {
	assert.ErrorContains(t, Run(context.Background(), io.Discard, Options{}), "chunk size")
}

func TestRunNarratesEveryEdit(t *testing.T) {
	var out strings.Builder
	require.NoError(t, Run(t.Context(), &out, Options{Chunk: 64, Version: "test"}))
	assert.Contains(t, out.String(), "server: assistant-ls test")
	assert.Contains(t, out.String(), `⇐ workspace/applyEdit "replace_in_file greet/greet.go"`)
	assert.Contains(t, out.String(), "create greet/greet_test.go")
	assert.Contains(t, out.String(), "+++ b/greet/greet_test.go")
}

// TestRunNarratesCleanly: a delta that ends inside a closing tag leaves its start in the
// partial value (as in Cline's parser), which the narration does not show, and an edit's error
// is told once, in the summary of where every edit ended up.
func TestRunNarratesCleanly(t *testing.T) {
	var out strings.Builder
	require.NoError(t, Run(t.Context(), &out, Options{Chunk: 40, Version: "test"}))
	assert.NotContains(t, out.String(), "</")
	assert.Equal(t, 1, strings.Count(out.String(), "outside the workspace folders"), out.String())
	assert.Contains(t, out.String(), "#5 write_to_file ../notes/greet-changes.md: refused (refused path")
}

func TestDescribePartialValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path    string
		partial bool
		want    string
	}{
		{"greet/greet.go</", true, "#1 write_to_file (partial) path=greet/greet.go"},
		{"greet/greet.go</pa", true, "#1 write_to_file (partial) path=greet/greet.go"},
		{"greet/greet.go<", true, "#1 write_to_file (partial) path=greet/greet.go"},
		{"a</b.go", true, "#1 write_to_file (partial) path=a</b.go"},
		{"odd</", false, "#1 write_to_file (complete) path=odd</"},
	} {
		b := ext.Block{Index: 1, Type: "tool_use", Name: "write_to_file", Partial: tt.partial, Params: map[string]string{"path": tt.path}}
		assert.Equal(t, tt.want, describe(b), tt.path)
	}
}
