package demo

import (
	"context"
	"io"
	"regexp"
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
// partial value (as in Cline's parser), which the narration does not show, and each block's
// edit state is told once per change, with its error, however often pushes repeat it (issue 16
// item 21: "#5 … refused" was printed two or three times).
func TestRunNarratesCleanly(t *testing.T) {
	for _, chunk := range []int{40, 7} {
		var out strings.Builder
		require.NoError(t, Run(t.Context(), &out, Options{Chunk: chunk, Version: "test"}))
		got := out.String()
		assert.NotContains(t, got, "</")
		assert.Equal(t, 1, strings.Count(got, "outside the workspace folders"), got)
		assert.Equal(t, 1, strings.Count(got, "edit=refused"), got)
		assert.Contains(t, got, "#5 write_to_file (complete) path=../notes/greet-changes.md edit=refused (refused path")
		lines := 0
		for _, line := range strings.Split(got, "\n") {
			if strings.Contains(line, "refused") {
				lines++
			}
		}
		assert.Equal(t, 1, lines, "one line tells of the refusal: %s", got)
		told := map[string][]string{}
		for _, m := range editState.FindAllStringSubmatch(got, -1) {
			told[m[1]] = append(told[m[1]], m[2])
		}
		// Pushes coalesce, so which states a block passed through shows depends on timing;
		// that none is told twice in a row, and where each ended, does not.
		for index, want := range map[string]string{"1": "applied", "3": "applied", "5": "refused"} {
			states := told[index]
			require.NotEmpty(t, states, "#%s: %s", index, got)
			assert.Equal(t, want, states[len(states)-1], "#%s: %s", index, got)
			for i := 1; i < len(states); i++ {
				assert.NotEqual(t, states[i-1], states[i], "#%s told %s twice: %s", index, states[i], got)
			}
		}
	}
}

// editState finds the edit states the narration tells, by block index.
var editState = regexp.MustCompile(`#(\d+) \S+ \([a-z]+\).* edit=([a-z]+)`)

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
