package lsp

import (
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/stretchr/testify/assert"
)

func TestHoldsEdit(t *testing.T) {
	const base = "one\ntwo\nthree\nfour\nfive\n"
	// two -> TWO, four deleted.
	edits := []text.Edit{{Start: 4, End: 8, NewText: "TWO\n"}, {Start: 14, End: 19, NewText: ""}}
	intended := text.Apply(base, edits)
	tests := []struct {
		name    string
		content string
		want    bool
	}{
		{"exactly intended", intended, true},
		{"user typed in another line", "one!\nTWO\nthree\nfive\nsix\n", true},
		{"user typed on the line after the deletion", "one\nTWO\nthree\nfive and more\n", true},
		{"user typed right after the written line", "one\nTWO\nthree 3\nfive\n", true},
		{"edit not applied", base, false},
		{"edit not applied, user typed elsewhere", "one!\ntwo\nthree\nfour\nfive\n", false},
		{"only the first change applied", "one\nTWO\nthree\nfour\nfive\n", false},
		{"user changed the written line", "one\nTWO2\nthree\nfive\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, holdsEdit(intended, edits, tt.content))
		})
	}
}
