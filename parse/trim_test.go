package parse

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/ecma"
	"github.com/stretchr/testify/require"
)

// TestTailTrim grows random messages of white space, other runes and broken UTF-8 a few bytes at
// a time and requires the cached bounds to equal a fresh trim after every step.
func TestTailTrim(t *testing.T) {
	pieces := []string{" ", "\u3000", "\u00a0", "\ufeff", "\u2028", "\u0085", "x", "日", "\xe3", "\x80", "\xff", "\n"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(30) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		full := sb.String()
		start := rng.IntN(len(full) + 1)
		var tt tailTrim
		for end := start; end <= len(full); end += 1 + rng.IntN(3) {
			msg := full[:end]
			a, z := tt.bounds(msg, start)
			wa, wz := ecma.TrimBounds(msg[start:])
			require.Equal(t, [2]int{start + wa, start + wz}, [2]int{a, z}, "%q from %d", msg, start)
		}
	}
}
