package textformat

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// aider50 writes the 50 sections of testdata/perf/diff_exact_50.txt (the edits of v4a's
// patch_50.txt) as 50 Aider blocks of file_10k.go in one fence, as an Aider reply holds them.
func aider50(tb testing.TB) string {
	secs, complete := apply.Sections(readPerf(tb, "diff_exact_50.txt"))
	require.True(tb, complete)
	require.Len(tb, secs, 50)
	var b strings.Builder
	b.WriteString("Here are the changes.\n\nfile_10k.go\n```go\n")
	for _, s := range secs {
		b.WriteString("<<<<<<< SEARCH\n" + s.Search + "=======\n" + s.Replace + ">>>>>>> REPLACE\n\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// TestAider50 checks the 50 blocks of aider50 against Aider: its result (from Aider's own
// find_original_update_blocks and replace_most_similar_chunk, run on the same reply and file) has
// the SHA-256 aider50Want. It is the v1 applier's result on the same edits but for the one trailing
// blank line that Aider drops from each SEARCH and REPLACE text.
func TestAider50(t *testing.T) {
	t.Parallel()
	file := readPerf(t, "file_10k.go.txt")
	es := FindAider(aider50(t))
	require.Len(t, es, 1)
	require.Len(t, es[0].Files, 1)
	require.Len(t, es[0].Files[0].Sections, 50)
	res, err := es[0].Files[0].Apply(file, true)
	require.NoError(t, err)
	assert.Equal(t, aider50Want, fmt.Sprintf("%x", sha256.Sum256([]byte(res.Content))))
	for _, tier := range res.Tiers {
		require.Equal(t, apply.TierExact, tier)
	}
}

const aider50Want = "a03739a4f983bf1780277e87e2fb537eba5149822207a914dcee88be5ddc2ce8"

// BenchmarkAider50 reads and applies the 50 blocks of aider50 to file_10k.go; compare
// v4a.BenchmarkApplyPatch50, the same 50 edits as a V4A patch.
func BenchmarkAider50(b *testing.B) {
	file := readPerf(b, "file_10k.go.txt")
	text := aider50(b)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range FindAider(text) {
			if _, err := e.Files[0].Apply(file, true); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestAiderDocMatchesStrings checks the invariant that lets applyAider keep its content in an
// aiderDoc: applying sections through it gives what applying each to the whole content as a
// string gives (aiderLocate, which is Aider's replace_most_similar_chunk). Files of few distinct
// lines make SEARCH texts match at several places, and across what earlier sections replaced.
func TestAiderDocMatchesStrings(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a\n", "b\n", "c\n", "  a\n", "\n", "d\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	lines := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for iter := range 3000 {
		content := lines(rng.IntN(30))
		var secs []Section
		cur := content
		for range 1 + rng.IntN(5) {
			search := lines(1 + rng.IntN(3))
			if ls := splitKeep(cur); len(ls) > 0 && rng.IntN(4) > 0 {
				i := rng.IntN(len(ls))
				search = strings.Join(ls[i:min(len(ls), i+1+rng.IntN(4))], "")
			}
			secs = append(secs, Section{Search: search, Replace: lines(rng.IntN(4))})
			if out, ok := applyNaive(content, secs); ok {
				cur = out
			}
		}
		want, ok := applyNaive(content, secs)
		res, err := File{Format: Aider, Path: "f", Sections: secs}.Apply(content, true)
		require.Equal(t, ok, err == nil, "iteration %d: %q %+v", iter, content, secs)
		if ok {
			require.Equal(t, want, res.Content, "iteration %d: %q %+v", iter, content, secs)
		}
	}
}

// applyNaive applies secs to content one after the other as strings.
func applyNaive(content string, secs []Section) (string, bool) {
	cur := withEOL(content)
	for _, s := range secs {
		search, repl := unwrapAider(s.Search, "f"), unwrapAider(s.Replace, "f")
		if strings.TrimSpace(search) == "" {
			cur += repl
			continue
		}
		out, _, _, ok := aiderLocate(cur, search, repl)
		if !ok {
			return "", false
		}
		cur = out
	}
	return cur, true
}

// FuzzAiderDoc checks the invariant of TestAiderDocMatchesStrings on any content and two
// sections, the second of which may match what the first wrote.
func FuzzAiderDoc(f *testing.F) {
	f.Add("a\nb\na\nb\n", "a\n", "x\na\n", "a\nb\n", "y\n")
	f.Add("  a\n\n  b\n", "\na\n", "c\n", "b\n", "")
	f.Add("a\nb\nc\n", "a\n...\nc\n", "A\n...\nC\n", "b", "B")
	f.Fuzz(func(t *testing.T, content, s1, r1, s2, r2 string) {
		secs := []Section{{Search: withEOL(s1), Replace: withEOL(r1)}, {Search: withEOL(s2), Replace: withEOL(r2)}}
		want, ok := applyNaive(content, secs)
		res, err := File{Format: Aider, Path: "f", Sections: secs}.Apply(content, true)
		if strings.Contains(content, "\r") {
			return // CRLF content is converted first; applyNaive does not
		}
		require.Equal(t, ok, err == nil)
		if ok {
			require.Equal(t, want, res.Content)
		}
	})
}
