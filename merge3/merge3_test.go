package merge3

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMerge(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	tests := []struct {
		name, ours, theirs, want string
		conflicts                []Conflict
	}{
		{name: "only the model changed", ours: base, theirs: "a\nB\nc\nd\ne\n", want: "a\nB\nc\nd\ne\n"},
		{name: "only the user changed", ours: "a\nb\nC\nd\ne\n", theirs: base, want: "a\nb\nC\nd\ne\n"},
		{name: "separate lines", ours: "A\nb\nc\nd\ne\n", theirs: "a\nb\nc\nd\nE\n", want: "A\nb\nc\nd\nE\n"},
		{name: "adjacent lines", ours: "a\nB\nc\nd\ne\n", theirs: "a\nb\nC\nd\ne\n", want: "a\nB\nC\nd\ne\n"},
		{name: "identical change", ours: "a\nX\nc\nd\ne\n", theirs: "a\nX\nc\nd\nE\n", want: "a\nX\nc\nd\nE\n"},
		{name: "user insertion and model deletion elsewhere", ours: "a\nnew\nb\nc\nd\ne\n", theirs: "a\nb\nc\ne\n", want: "a\nnew\nb\nc\ne\n"},
		{name: "insertions at different points", ours: "u\na\nb\nc\nd\ne\n", theirs: "a\nb\nc\nd\ne\nm\n", want: "u\na\nb\nc\nd\ne\nm\n"},
		{name: "same line changed differently", ours: "a\nb\nUSER\nd\ne\n", theirs: "a\nb\nMODEL\nMODEL2\nd\ne\n",
			conflicts: []Conflict{{Base: Lines{3, 3}, Ours: Lines{3, 3}, Theirs: Lines{3, 4}, OursText: "USER\n", TheirsText: "MODEL\nMODEL2\n"}}},
		{name: "insertions at one point", ours: "a\nb\nuser\nc\nd\ne\n", theirs: "a\nb\nmodel\nc\nd\ne\n",
			conflicts: []Conflict{{Base: Lines{3, 2}, Ours: Lines{3, 3}, Theirs: Lines{3, 3}, OursText: "user\n", TheirsText: "model\n"}}},
		{name: "user deleted what the model changed", ours: "a\nb\nd\ne\n", theirs: "a\nb\nC\nd\ne\n",
			conflicts: []Conflict{{Base: Lines{3, 3}, Ours: Lines{3, 2}, Theirs: Lines{3, 3}, OursText: "", TheirsText: "C\n"}}},
		{name: "no final line break", ours: "a\nb\nc\nd\ne", theirs: "A\nb\nc\nd\ne\n", want: "A\nb\nc\nd\ne"},
		{name: "conflict after a shifted region", ours: "0\na\nb\nc\nD\ne\n", theirs: "a\nb\nc\nd2\ne\n",
			conflicts: []Conflict{{Base: Lines{4, 4}, Ours: Lines{5, 5}, Theirs: Lines{4, 4}, OursText: "D\n", TheirsText: "d2\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Merge(base, tt.ours, tt.theirs)
			if tt.conflicts == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			var ce *ConflictError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.conflicts, ce.Conflicts)
			assert.Contains(t, err.Error(), "Nothing was written")
		})
	}
}

func TestConflictMessageNamesLines(t *testing.T) {
	_, err := Merge("a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n")
	require.Error(t, err)
	assert.Equal(t, "the document was changed while the new content was written, and the changes overlap: "+
		"the document's line 2 and the new content's line 2 (line 2 of the original) were both changed. "+
		"Nothing was written; read the document again and write it with those lines as they now are.", err.Error())
}

// TestGolden runs testdata/*.txtar: sections base, ours, theirs and want, where want is the
// merged text or "conflict: " followed by the conflicting base ranges.
func TestGolden(t *testing.T) {
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c golden.Case) {
		sec := c.Raw
		got, err := Merge(sec["base"], sec["ours"], sec["theirs"])
		if want, ok := strings.CutPrefix(sec["want"], "conflict: "); ok {
			var ce *ConflictError
			require.ErrorAs(t, err, &ce)
			var ranges []string
			for _, c := range ce.Conflicts {
				ranges = append(ranges, c.Base.String())
			}
			assert.Equal(t, strings.TrimSpace(want), strings.Join(ranges, ", "))
			return
		}
		require.NoError(t, err)
		assert.Equal(t, sec["want"], got)
	})
}

// change replaces base lines [s, e) with lines.
type change struct {
	s, e  int
	lines []string
}

// randomChanges picks disjoint changes of n base lines, each separated from the next by at
// least one untouched line, with new lines unique to tag so that a line diff recovers exactly
// these changes.
func randomChanges(r *rand.Rand, n int, tag string) []change {
	var out []change
	for i := 0; i < n; {
		i += r.IntN(4)
		if i > n {
			break
		}
		c := change{s: i, e: min(n, i+r.IntN(3))}
		for k := range r.IntN(3) {
			c.lines = append(c.lines, fmt.Sprintf("%s%d.%d", tag, i, k))
		}
		if c.s == c.e && len(c.lines) == 0 {
			i++
			continue
		}
		out = append(out, c)
		i = c.e + 1
	}
	return out
}

func applyChanges(base []string, cs []change) string {
	var out []string
	pos := 0
	for _, c := range cs {
		out = append(out, base[pos:c.s]...)
		out = append(out, c.lines...)
		pos = c.e
	}
	out = append(out, base[pos:]...)
	return joinLines(out)
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func touches(a, b change) bool { return overlaps(a.s, a.e, b.s, b.e) }

// TestMergeProperty checks, over random user and model changes of a base: when no change of
// one side touches a change of the other (identical changes aside), the merge succeeds and
// equals the base with both sides' changes; every touching pair makes it fail, and the failure
// names that pair's base lines. Identical changes on both sides never conflict.
func TestMergeProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		n := r.IntN(12)
		base := make([]string, n)
		for i := range base {
			base[i] = fmt.Sprintf("base%d", i)
		}
		user := randomChanges(r, n, "u")
		model := randomChanges(r, n, "m")
		if r.IntN(4) == 0 && len(user) > 0 {
			// The model makes one of the user's changes too, and nothing that touches the others.
			model = []change{user[r.IntN(len(user))]}
		}
		ours, theirs := applyChanges(base, user), applyChanges(base, model)
		var clash [][2]change
		for _, u := range user {
			for _, m := range model {
				same := u.s == m.s && u.e == m.e && slices.Equal(u.lines, m.lines)
				if !same && touches(u, m) {
					clash = append(clash, [2]change{u, m})
				}
			}
		}
		got, err := Merge(joinLines(base), ours, theirs)
		msg := fmt.Sprintf("iteration %d: base %q\nuser %v\nmodel %v", iter, base, user, model)
		if len(clash) == 0 {
			require.NoError(t, err, msg)
			both := mergeChanges(user, model)
			require.Equal(t, applyChanges(base, both), got, msg)
			continue
		}
		var ce *ConflictError
		require.True(t, errors.As(err, &ce), msg)
		for _, p := range clash {
			covered := false
			for _, c := range ce.Conflicts {
				if c.Base.Start-1 <= min(p[0].s, p[1].s) && max(p[0].e, p[1].e) <= c.Base.End {
					covered = true
				}
			}
			require.True(t, covered, "%s\nclash %v not named in %v", msg, p, ce.Conflicts)
		}
	}
}

// mergeChanges combines two non-touching change lists, taking identical changes once; at an
// equal start the insertion goes first, as Merge orders them.
func mergeChanges(a, b []change) []change {
	all := append(slices.Clone(a), b...)
	slices.SortStableFunc(all, func(x, y change) int {
		if x.s != y.s {
			return x.s - y.s
		}
		return x.e - y.e
	})
	return slices.CompactFunc(all, func(x, y change) bool {
		return x.s == y.s && x.e == y.e && slices.Equal(x.lines, y.lines)
	})
}

// TestMergeRandomLines merges random edits over a small alphabet of lines, where line diffs are
// ambiguous: the merge never panics, and it is symmetric: swapping the sides gives the same
// result or conflicts over the same base lines.
func TestMergeRandomLines(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	randText := func() string {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString([]string{"a\n", "b\n", "c\n", "\n", "a"}[r.IntN(5)])
		}
		return b.String()
	}
	bases := func(err error) []Lines {
		var ce *ConflictError
		require.ErrorAs(t, err, &ce)
		var out []Lines
		for _, c := range ce.Conflicts {
			out = append(out, c.Base)
		}
		return out
	}
	for range 5000 {
		base, ours, theirs := randText(), randText(), randText()
		got1, err1 := Merge(base, ours, theirs)
		got2, err2 := Merge(base, theirs, ours)
		msg := fmt.Sprintf("base %q ours %q theirs %q", base, ours, theirs)
		require.Equal(t, err1 == nil, err2 == nil, msg)
		if err1 == nil {
			require.Equal(t, got1, got2, msg)
			continue
		}
		require.Equal(t, bases(err1), bases(err2), msg)
	}
}

// BenchmarkMerge10k merges a user's edit near the top of a 10,000-line file with a model's
// rewrite that changes lines near the bottom.
func BenchmarkMerge10k(b *testing.B) {
	data, err := os.ReadFile("../testdata/perf/file_10k.go.txt")
	require.NoError(b, err)
	base := string(data)
	lines := strings.SplitAfter(base, "\n")
	ours := strings.Join(slices.Concat(lines[:100], []string{"// typed by the user\n"}, lines[100:]), "")
	theirs := strings.Join(slices.Concat(lines[:9000], []string{"// written by the model\n"}, lines[9001:]), "")
	b.SetBytes(int64(len(base)))
	for b.Loop() {
		if _, err := Merge(base, ours, theirs); err != nil {
			b.Fatal(err)
		}
	}
}
