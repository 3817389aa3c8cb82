package apply

import (
	"fmt"
	"strings"
	"sync"
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

// TestIndexConcurrentUse runs diffs against one fresh Index from several goroutines, so that the
// race detector sees the tables being built while they are read.
func TestIndexConcurrentUse(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "line %d\n\tbody %d\n", i%50, i)
	}
	orig := b.String()
	diffs := []string{
		section("line 3\n\tbody 3\n", "X\n") + section("line 7\n\tbody 57\n", "Y\n"),
		section("  line 9\n  body 9\n", "Z\n"),
		section("no\nsuch\n", "W\n"),
	}
	x := NewIndex(orig)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				d := diffs[(g+i)%len(diffs)]
				want, wantErr := Construct(d, orig, true, V1)
				got, err := x.Construct(d, true, V1)
				assert.Equal(t, want, got)
				assert.Equal(t, wantErr, err)
			}
		})
	}
	wg.Wait()
}
