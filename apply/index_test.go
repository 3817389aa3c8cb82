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

// checkExactFrom checks every way of the exact search, and exactFrom that picks among them,
// against indexOf: a scan that gives up must leave no occurrence before the offset it hands
// over.
func checkExactFrom(t *testing.T, src, search string, from int) {
	t.Helper()
	want := indexOf(src, search, from)
	fresh, anchored := NewIndex(src), NewIndex(src)
	anchored.anchors()
	if got := fresh.exactFrom(search, from); got != want {
		t.Fatalf("exactFrom(%q, %d) in %q = %d, want %d", search, from, src, got, want)
	}
	if got := anchored.exactFrom(search, from); got != want {
		t.Fatalf("anchored: exactFrom(%q, %d) in %q = %d, want %d", search, from, src, got, want)
	}
	if from > len(src) {
		return
	}
	if p, at, done := fresh.scan(search, from); done && p != want || !done && want >= 0 && want < at {
		t.Fatalf("scan(%q, %d) in %q = %d, %d, %v; want %d", search, from, src, p, at, done, want)
	}
	first, rest, multi := strings.Cut(search[:len(search)-1], "\n")
	var got int
	if multi {
		got, _ = fresh.walk(first, rest, from)
	} else {
		got, _ = fresh.lineEndFrom(first, from)
	}
	if got != want {
		t.Fatalf("walk: exactFrom(%q, %d) in %q = %d, want %d", search, from, src, got, want)
	}
}

func TestExactFrom(t *testing.T) {
	srcs := []string{"ab\nab\n\nc\nab\nabc\n\n", strings.Repeat("a\n", 40) + "ab\nb\n"}
	searches := []string{"b\n", "ab\n", "\n", "\n\n", "b\nab\n", "ab\n\nc\n", "c\n\n", "abc\n\n", "x\n", "b\n\nc\nab\nabc\n\n", "\nab\n", "a\nab\nb\n"}
	for _, src := range srcs {
		for _, s := range searches {
			for from := 0; from <= len(src)+1; from++ {
				checkExactFrom(t, src, s, from)
			}
		}
	}
}

// TestScanGivesUp checks that a scan whose byte proves common hands over to a walk, and that a
// scan of a rare byte does not.
func TestScanGivesUp(t *testing.T) {
	src := strings.Repeat("q\n", 1000) + "qq\n\x01\n"
	x := NewIndex(src)
	_, _, done := x.scan("q\nqq\n", 0)
	assert.False(t, done, "q is on every line")
	assert.Equal(t, 1998, x.exactFrom("q\nqq\n", 0))
	p, _, done := x.scan("\n\x01\n", 0)
	assert.True(t, done, "\\x01 is in one place")
	assert.Equal(t, 2002, p)
}

// TestAnchorsBuiltAfterReading checks that failing searches build the anchor table once they
// have read the file twice over, and not before.
func TestAnchorsBuiltAfterReading(t *testing.T) {
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

// FuzzExactFrom checks every way of the exact search against strings.Index.
func FuzzExactFrom(f *testing.F) {
	f.Add("a\nb\nc\n", "b\nc", 0)
	f.Add("a\nb\nb\n", "b", 3)
	f.Add("\n\n\n", "", 1)
	f.Add("x\ny", "x\ny", 0)
	f.Add(strings.Repeat("a\n", 100)+"a\nb\n", "a\nb", 7)
	f.Fuzz(func(t *testing.T, src, body string, from int) {
		if from < 0 || from > len(src)+2 {
			return
		}
		checkExactFrom(t, src, body+"\n", from)
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
