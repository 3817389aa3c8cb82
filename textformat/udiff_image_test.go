package textformat

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImageModel: an image edited by random replacements of original lines, anywhere and in
// any order, reads as the same edits of a plain slice of lines.
func TestImageModel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for c := range 300 {
		var src strings.Builder
		for i := range rng.IntN(30) {
			fmt.Fprintf(&src, "o%d\n", i)
		}
		s := src.String()
		if rng.IntN(4) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		im := newImage(s)
		type mline struct {
			text string
			orig int
		}
		var model []mline
		for i, l := range strings.SplitAfter(s, "\n") {
			if l != "" {
				model = append(model, mline{l, i})
			}
		}
		for op := range rng.IntN(8) {
			at := rng.IntN(len(model) + 1)
			m := 0
			for at+m < len(model) && model[at+m].orig >= 0 && rng.IntN(3) > 0 {
				m++
			}
			var post []string
			var mpost []mline
			for j := range rng.IntN(3) {
				l := fmt.Sprintf("h%d.%d\n", op, j)
				post, mpost = append(post, l), append(mpost, mline{l, -1})
			}
			im.replace(at, m, post)
			model = append(model[:at], append(mpost, model[at+m:]...)...)
			require.Equal(t, len(model), im.len(), "case %d op %d", c, op)
			var want strings.Builder
			for i, l := range model {
				require.Equal(t, l.text, im.at(i), "case %d op %d line %d", c, op, i)
				require.Equal(t, l.orig, im.orig(i), "case %d op %d line %d", c, op, i)
				want.WriteString(l.text)
				if i+1 < len(model) && !strings.HasSuffix(l.text, "\n") {
					want.WriteByte('\n')
				}
			}
			require.Equal(t, want.String(), im.String(), "case %d op %d", c, op)
			require.LessOrEqual(t, im.size, len(im.String()), "the size hint counts every byte but added line breaks")
		}
	}
}
