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
			x := NewIndex(src)
			assert.Equal(t, indexOf(src, s, from), x.exactFrom(s, from), "search %q from %d", s, from)
		}
	}
}

// FuzzExactFrom checks the line-walking exact search against strings.Index.
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
		x := NewIndex(src)
		if got, want := x.exactFrom(search, from), indexOf(src, search, from); got != want {
			t.Fatalf("exactFrom(%q, %d) in %q = %d, want %d", search, from, src, got, want)
		}
	})
}
