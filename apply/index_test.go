package apply

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// indexOf is JavaScript's s.indexOf(needle, from) for a non-empty needle, by brute force.
func indexOf(s, needle string, from int) int {
	if from > len(s) {
		return -1
	}
	i := strings.Index(s[max(from, 0):], needle)
	if i < 0 {
		return -1
	}
	return max(from, 0) + i
}

func TestExactFrom(t *testing.T) {
	src := "ab\nab\n\nc\nab\nabc\n\n"
	searches := []string{"b\n", "ab\n", "\n", "\n\n", "b\nab\n", "ab\n\nc\n", "c\n\n", "abc\n\n", "x\n", "b\n\nc\nab\nabc\n\n", "\nab\n"}
	for _, s := range searches {
		for from := 0; from <= len(src)+1; from++ {
			walk, anchored := NewIndex(src), NewIndex(src)
			anchored.anchors()
			assert.Equal(t, indexOf(src, s, from), walk.exactFrom(s, from), "walk: search %q from %d", s, from)
			assert.Equal(t, indexOf(src, s, from), anchored.exactFrom(s, from), "anchored: search %q from %d", s, from)
		}
	}
}

// TestAnchorsBuiltAfterWalking checks that failing walks build the anchor table once they have
// cost twice the number of lines, and not before.
func TestAnchorsBuiltAfterWalking(t *testing.T) {
	src := strings.Repeat("line\n", 100)
	x := NewIndex(src)
	for range 2 {
		assert.Equal(t, -1, x.exactFrom("no\nsuch\n", 0))
		assert.Nil(t, x.anchor.Load())
	}
	assert.Equal(t, -1, x.exactFrom("no\nsuch\n", 0))
	assert.NotNil(t, x.anchor.Load())
	assert.Equal(t, 5, x.exactFrom("line\nline\n", 1))
}

// FuzzExactFrom checks both ways of the exact search, walking and anchored, against
// strings.Index.
func FuzzExactFrom(f *testing.F) {
	f.Add("a\nb\nc\n", "b\nc", 0)
	f.Add("a\nb\nb\n", "b", 3)
	f.Add("\n\n\n", "", 1)
	f.Add("x\ny", "x\ny", 0)
	f.Fuzz(func(t *testing.T, src, body string, from int) {
		if from < 0 || from > len(src)+2 {
			return
		}
		search := body + "\n"
		walk, anchored := NewIndex(src), NewIndex(src)
		anchored.anchors()
		want := indexOf(src, search, from)
		if got := walk.exactFrom(search, from); got != want {
			t.Fatalf("walk: exactFrom(%q, %d) in %q = %d, want %d", search, from, src, got, want)
		}
		if got := anchored.exactFrom(search, from); got != want {
			t.Fatalf("anchored: exactFrom(%q, %d) in %q = %d, want %d", search, from, src, got, want)
		}
	})
}
