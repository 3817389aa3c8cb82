package lsp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/textformat"
	"github.com/stretchr/testify/assert"
)

// TestNearestHint: the user's "did you mean" comes from the candidate an applier's error
// carries, whatever its message says: Aider's report words it its own way, and a message that
// merely quotes "did you mean" names no region.
func TestNearestHint(t *testing.T) {
	t.Parallel()
	cand := &apply.Candidate{StartLine: 3, EndLine: 4, Similarity: 0.937}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"apply", &apply.Error{Kind: apply.ErrNoMatch, Section: 1, Search: "x\n", Nearest: cand}, "did you mean lines 3-4? (93% similar)"},
		{"apply wrapped", fmt.Errorf("computing: %w", &apply.Error{Kind: apply.ErrNoMatch, Section: 1, Search: "x\n",
			Nearest: &apply.Candidate{StartLine: 15, EndLine: 15, Similarity: 0.9}}), "did you mean line 15? (90% similar)"},
		{"apply without candidate", &apply.Error{Kind: apply.ErrNoMatch, Section: 1, Search: "x\n"}, ""},
		{"textformat", &textformat.Error{Kind: textformat.ErrNoMatch, Format: textformat.Aider, Path: "a.go", Section: 2, Nearest: cand},
			"did you mean lines 3-4? (93% similar)"},
		{"textformat without candidate", &textformat.Error{Kind: textformat.ErrNoMatch, Format: textformat.Aider, Path: "a.go", Section: 2}, ""},
		{"untyped text", errors.New("the file changed\ndid you mean line 9? (99% similar)"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, nearestHint(tt.err))
		})
	}
}
