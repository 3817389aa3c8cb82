package demo

import (
	"context"
	"io"
	"strings"
	"testing"

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
