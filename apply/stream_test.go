package apply

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamDiff feeds diff to a Stream in the pieces cuts delimits (increasing offsets, the last
// being len(diff)) and returns a description of the first step at which the stream differs from
// Construct of the same prefix, or "" when every step and the final result agree.
func streamDiff(x *Index, diff string, v Version, cuts []int) string {
	s := x.NewStream(v)
	at := 0
	head := ""
	for _, c := range cuts {
		s.Append(diff[at:c])
		at = c
		want, wantErr := Construct(diff[:c], x.Original(), false, v)
		part, err := s.Partial()
		if got := part.Result(); !reflect.DeepEqual(want, got) || !reflect.DeepEqual(wantErr, err) {
			return describe("partial", diff[:c], want, got, wantErr, err)
		}
		if got, want := s.Searches(), countSearches(diff[:c]); got != want {
			return fmt.Sprintf("on prefix %q: %d SEARCH markers, want %d", diff[:c], got, want)
		}
		if err == nil {
			if !strings.HasPrefix(part.Head, head) {
				return fmt.Sprintf("on prefix %q: Head %q does not extend the previous Head %q", diff[:c], part.Head, head)
			}
			head = part.Head
		}
	}
	want, wantErr := Construct(diff, x.Original(), true, v)
	got, err := s.Final()
	if !reflect.DeepEqual(want, got) || !reflect.DeepEqual(wantErr, err) {
		return describe("final", diff, want, got, wantErr, err)
	}
	return ""
}

// countSearches counts the SEARCH marker lines of diff by splitting it.
func countSearches(diff string) int {
	n := 0
	for _, l := range strings.Split(diff, "\n") {
		if isSearchStart(l) {
			n++
		}
	}
	return n
}

func describe(step, prefix string, want, got Result, wantErr, err error) string {
	return fmt.Sprintf("at the %s step on prefix %q:\nwant %+v, %v\ngot  %+v, %v", step, prefix, want, wantErr, got, err)
}

// randomCuts splits n bytes into pieces of 1 to maxLen bytes.
func randomCuts(rng *rand.Rand, n, maxLen int) []int {
	var cuts []int
	for at := 0; at < n; {
		at = min(n, at+1+rng.IntN(maxLen))
		cuts = append(cuts, at)
	}
	if len(cuts) == 0 {
		cuts = []int{0}
	}
	return cuts
}

// TestStreamMatchesConstruct is the Stream's defining property: for every conformance vector
// and several chunkings of its diff (byte by byte for short diffs, so every split inside a
// marker and inside a UTF-8 sequence occurs), every partial step equals Construct of the prefix
// and the final result equals Construct of the whole diff, errors included.
func TestStreamMatchesConstruct(t *testing.T) {
	vs := loadVectors(t)
	rng := rand.New(rand.NewPCG(12, 1))
	for _, v := range vs {
		x := NewIndex(v.Original)
		var chunkings [][]int
		if len(v.Diff) <= 600 && !testing.Short() {
			every := make([]int, len(v.Diff))
			for i := range every {
				every[i] = i + 1
			}
			chunkings = append(chunkings, every)
		}
		chunkings = append(chunkings, randomCuts(rng, len(v.Diff), 8), randomCuts(rng, len(v.Diff), 60))
		for _, cuts := range chunkings {
			if msg := streamDiff(x, v.Diff, v.Version, cuts); msg != "" {
				require.Failf(t, "stream differs from Construct", "vector %s (%s): %s", v.ID, v.Version, msg)
			}
		}
	}
}

func TestStreamReset(t *testing.T) {
	orig := "a\nb\nc\n"
	for _, v := range []Version{V1, V2} {
		s := NewStream(orig, v)
		s.Append("------- SEARCH\nx\n=======\n")
		_, err := s.Partial()
		require.Error(t, err)
		s.Reset()
		assert.Empty(t, s.Diff())
		s.Append(section("b\n", "B\n"))
		got, err := s.Final()
		require.NoError(t, err)
		assert.Equal(t, "a\nB\nc\n", got.NewContent)
		// Final leaves the stream as it was.
		s.Append(section("c\n", "C\n"))
		got, err = s.Final()
		require.NoError(t, err)
		assert.Equal(t, "a\nB\nC\n", got.NewContent)
	}
}

// TestPartialPieces pins where the partial content stands: settled text in Head, and only the
// reference's trailing newline, or the original up to a separator's match, in Tail.
func TestPartialPieces(t *testing.T) {
	orig := "a\nb\nc\n"
	tests := []struct {
		diff, head, tail string
	}{
		{"------- SEARCH\nb\n", "", ""},
		{"------- SEARCH\nb\n===", "", "a\n"},
		{"------- SEARCH\nb\n=======\nB", "a\nB", "\n"},
		{"------- SEARCH\nb\n=======\nB\n+++", "a\nB\n", ""},
		{"------- SEARCH\nb\n=======\nB\n", "a\nB\n", "\n"},
	}
	for _, tt := range tests {
		s := NewStream(orig, V1)
		for i := range len(tt.diff) {
			s.Append(tt.diff[i : i+1])
		}
		p, err := s.Partial()
		require.NoError(t, err)
		assert.Equal(t, [2]string{tt.head, tt.tail}, [2]string{p.Head, p.Tail}, "%q", tt.diff)
	}
}

// FuzzStream checks the Stream against Construct for arbitrary diffs, originals and chunkings.
func FuzzStream(f *testing.F) {
	f.Add("------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n", "a\nb\nc\n", uint64(1), false)
	f.Add("------- SEARCH\n日本\n=======\n語\n+++++++ REPLACE", "前\n日本\n後", uint64(2), true)
	f.Add("------- SEARCH\nc\n=======\nC\n+++++++ REPLACE\n------- SEARCH\na\n=======\nA\n+++++++ REPLACE\n", "a\nb\nc\n", uint64(3), false)
	f.Add("stray\n------- SEARCH\nb\n===\n=======\nB\n>>>>>>> REPLACE\n", "a\nb\n", uint64(4), true)
	f.Add("<<<<<<< SEARCH\n  b\n=======\n\u3000B\n+++++++ REPLACE\n", "a\n b\n", uint64(5), false)
	f.Fuzz(func(t *testing.T, diff, orig string, seed uint64, useV2 bool) {
		v := V1
		if useV2 {
			v = V2
		}
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		if msg := streamDiff(NewIndex(orig), diff, v, randomCuts(rng, len(diff), 1+int(seed%16))); msg != "" {
			t.Fatal(msg)
		}
	})
}
