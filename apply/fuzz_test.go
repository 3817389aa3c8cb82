package apply

import (
	"errors"
	"strings"
	"testing"
)

// FuzzConstruct checks that Construct never panics, that failures are *Error with a known kind
// and a message, and that in final mode the reported replacements rebuild the new content.
func FuzzConstruct(f *testing.F) {
	seeds := []struct {
		diff, orig string
	}{
		{"------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n", "a\nb\nc\n"},
		{"------- SEARCH\n  b\n=======\nB\n+++++++ REPLACE", "a\nb"},
		{"<<<<<<< SEARCH\na\nx\nc\n=======\nA\n>>>>>>> REPLACE\n", "a\nb\nc\n"},
		{"------- SEARCH\nc\n=======\nC\n+++++++ REPLACE\n------- SEARCH\na\n=======\nA\n+++++++ REPLACE\n", "a\nb\nc\n"},
		{"------- SEARCH\n=======\nnew\n+++++++ REPLACE\n", ""},
		{"------- SEARCH\n=======\nnew\n+++++++ REPLACE\n", "old\n"},
		{"------- SEARCH\nb\n=======\nB\n=======\nBB\n+++++++ REPLACE\n", "a\nb\nb\n"},
		{"stray\n------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n", "a\nb\n"},
		{"------- SEARCH\r\nb\r\n=======\r\nB\r\n+++++++ REPLACE\r\n", "a\r\nb\r\n"},
		{"------- SEARCH\nb\n=======\nB\n+++", "a\nb\n"},
		{"------- SEARCH\n\n=======\nX\n+++++++ REPLACE\n------- SEARCH\n\n=======\nY\n+++++++ REPLACE\n", ""},
		{"------- SEARCH\nb\nc\n=======\n+++++++ REPLACE\n------- SEARCH\nc\n=======\nZ\n+++++++ REPLACE\n", "a\nb\nc"},
		{"+++++++ REPLACE\n", "x"},
		{"------- SEARCH\n日本\n=======\n語\n+++++++ REPLACE\n", "前\n日本\n後"},
	}
	for _, s := range seeds {
		for _, final := range []bool{true, false} {
			f.Add(s.diff, s.orig, final, false)
			f.Add(s.diff, s.orig, final, true)
		}
	}
	kinds := map[ErrorKind]bool{
		ErrNoMatch: true, ErrEmptySearch: true, ErrMalformed: true, ErrOutOfOrder: true,
		ErrInvalidTransition: true, ErrIncomplete: true, ErrMalformedBlock: true,
	}
	f.Fuzz(func(t *testing.T, diff, orig string, final, useV2 bool) {
		v := V1
		if useV2 {
			v = V2
		}
		res, err := Construct(diff, orig, final, v)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !kinds[e.Kind] || strings.Contains(e.Error(), "%!") {
				t.Fatalf("bad error %#v", err)
			}
			if e.Nearest != nil && (e.Nearest.Start < 0 || e.Nearest.End > len(orig) || e.Nearest.Start > e.Nearest.End) {
				t.Fatalf("candidate out of range: %+v", *e.Nearest)
			}
			return
		}
		for _, r := range res.Replacements {
			if r.Start < 0 || r.Start > r.End || r.End > len(orig) || r.Section < 0 {
				t.Fatalf("replacement out of range: %+v (len %d)", r, len(orig))
			}
		}
		if v == V1 {
			if len(res.MatchIndices) != len(res.Replacements) {
				t.Fatalf("%d indices for %d replacements", len(res.MatchIndices), len(res.Replacements))
			}
			for i, r := range res.Replacements {
				if res.MatchIndices[i] != r.Start {
					t.Fatalf("index %d is %d, replacement starts at %d", i, res.MatchIndices[i], r.Start)
				}
			}
		} else if len(res.MatchIndices) != 0 {
			t.Fatalf("v2 reported match indices %v", res.MatchIndices)
		}
		if final {
			if got := ApplyReplacements(orig, res.Replacements); got != res.NewContent {
				t.Fatalf("replacements rebuild %q, want %q", got, res.NewContent)
			}
		}
	})
}
