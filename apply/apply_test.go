package apply

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// section builds one well-formed SEARCH/REPLACE section.
func section(search, replace string) string {
	return "------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n"
}

func TestTiers(t *testing.T) {
	tests := []struct {
		name       string
		v          Version
		orig, diff string
		want       string
		reps       []Replacement
	}{
		{
			name: "exact", v: V1,
			orig: "a\nb\nc\n", diff: section("b\n", "B\n"),
			want: "a\nB\nc\n",
			reps: []Replacement{{Start: 2, End: 4, Content: "B\n", Section: 1, DiffLine: 0, Tier: TierExact}},
		},
		{
			name: "line trimmed", v: V1,
			orig: "a\n\t b\nc\n", diff: section("b  \n", "B\n"),
			want: "a\nB\nc\n",
			reps: []Replacement{{Start: 2, End: 6, Content: "B\n", Section: 1, Tier: TierLineTrimmed}},
		},
		{
			name: "line trimmed uses ECMAScript trim (NBSP, U+FEFF)", v: V2,
			orig: "a\n\u00a0b\ufeff\nc\n", diff: section("b\n", "B\n"),
			want: "a\nB\nc\n",
			reps: []Replacement{{Start: 2, End: 9, Content: "B\n", Section: 1, Tier: TierLineTrimmed}},
		},
		{
			name: "block anchor", v: V1,
			orig: "x\nfunc f() {\n\treturn 1\n}\n", diff: section("func f() {\n\treturn 2\n}\n", "func f() {}\n"),
			want: "x\nfunc f() {}\n",
			reps: []Replacement{{Start: 2, End: 25, Content: "func f() {}\n", Section: 1, Tier: TierBlockAnchor}},
		},
		{
			name: "whole file: v1 applies a section that lies before the previous one", v: V1,
			orig: "a\nb\nc\n", diff: section("c\n", "C\n") + section("a\n", "A\n"),
			want: "A\nb\nC\n",
			reps: []Replacement{
				{Start: 0, End: 2, Content: "A\n", Section: 2, DiffLine: 5, Tier: TierWholeFile},
				{Start: 4, End: 6, Content: "C\n", Section: 1, DiffLine: 0, Tier: TierExact},
			},
		},
		{
			name: "empty search on an empty file", v: V1,
			orig: "", diff: section("", "new\n"),
			want: "new\n",
			reps: []Replacement{{Start: 0, End: 0, Content: "new\n", Section: 1, Tier: TierEmpty}},
		},
		{
			name: "v2 empty search replaces the whole file", v: V2,
			orig: "old\nfile", diff: section("", "new\n"),
			want: "new\n",
			reps: []Replacement{{Start: 0, End: 8, Content: "new\n", Section: 1, Tier: TierEmpty}},
		},
		{
			name: "line-trimmed match on a last line without newline ends past the file", v: V1,
			orig: "a\nb", diff: section(" b\n", "B\n"),
			want: "a\nB\n",
			reps: []Replacement{{Start: 2, End: 3, Content: "B\n", Section: 1, Tier: TierLineTrimmed}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Construct(tt.diff, tt.orig, true, tt.v)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.NewContent)
			assert.Equal(t, tt.reps, res.Replacements)
			assert.Equal(t, tt.want, ApplyReplacements(tt.orig, res.Replacements))
		})
	}
}

func TestMarkers(t *testing.T) {
	tests := []struct {
		line                     string
		search, sep, replaceMark bool
	}{
		{line: "------- SEARCH", search: true},
		{line: "--- SEARCH", search: true},
		{line: "------- SEARCH>", search: true},
		{line: "<<<<<<< SEARCH", search: true},
		{line: "<<< SEARCH>", search: true},
		{line: "-- SEARCH"},
		{line: "------- SEARCH>>"},
		{line: "-------SEARCH"},
		{line: "------- SEARCH "},
		{line: " ------- SEARCH"},
		{line: "------- SEARCH\r"},
		{line: "<<<--- SEARCH"},
		{line: "------- search"},
		{line: "===", sep: true},
		{line: "==========", sep: true},
		{line: "=="},
		{line: "=======\r"},
		{line: "======= "},
		{line: "+++++++ REPLACE", replaceMark: true},
		{line: ">>>>>>> REPLACE", replaceMark: true},
		{line: "+++ REPLACE>", replaceMark: true},
		{line: "++ REPLACE"},
		{line: "+++++++ REPLACE\r"},
		{line: "+++>>>> REPLACE"},
		{line: ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			assert.Equal(t, tt.search, isSearchStart(tt.line), "search")
			assert.Equal(t, tt.sep, isSeparator(tt.line), "separator")
			assert.Equal(t, tt.replaceMark, isReplaceEnd(tt.line), "replace")
		})
	}
}

func TestTrailingPartialMarker(t *testing.T) {
	orig := "a\nb\nc\n"
	tests := []struct {
		name  string
		v     Version
		diff  string
		final bool
		want  string
		kind  ErrorKind
	}{
		{name: "v1 drops a REPLACE marker still arriving, then closes the section", v: V1,
			diff: "------- SEARCH\nb\n=======\nB\n+++++++ REPL", final: true, want: "a\nB\nc\n"},
		{name: "v1 keeps a complete short marker", v: V1,
			diff: "------- SEARCH\nb\n=======\nB\n+++ REPLACE", final: true, want: "a\nB\nc\n"},
		{name: "v1 streaming shows the replacement so far", v: V1,
			diff: "------- SEARCH\nb\n=======\nB\n+", final: false, want: "a\nB\n"},
		{name: "v2 drops a marker that is not exactly canonical", v: V2,
			diff: "------- SEARCH\nb\n=======\nB\n+++ REPLACE", final: true, kind: ErrIncomplete},
		{name: "v2 accepts the canonical marker", v: V2,
			diff: "------- SEARCH\nb\n=======\nB\n+++++++ REPLACE", final: true, want: "a\nB\nc\n"},
		{name: "v2 streaming", v: V2,
			diff: "------- SEARCH\nb\n=======\nB\n>>>>", final: false, want: "a\nB\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Construct(tt.diff, orig, tt.final, tt.v)
			if tt.kind != "" {
				var e *Error
				require.True(t, errors.As(err, &e), "got %v", err)
				assert.Equal(t, tt.kind, e.Kind)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.NewContent)
		})
	}
}

func TestErrorKinds(t *testing.T) {
	orig := "a\nb\nc\n"
	tests := []struct {
		name     string
		v        Version
		diff     string
		kind     ErrorKind
		section  int
		diffLine int
		at       int
		says     string // what the message must tell the model
	}{
		{"no match", V1, section("b\n", "B\n") + section("zzz\n", "Z\n"), ErrNoMatch, 2, 5, 7, "section 2 (SEARCH marker on diff line 6): the SEARCH text matches nothing"},
		{"empty search", V1, section("", "X\n"), ErrEmptySearch, 1, 0, 1, "the SEARCH text is empty but the file is not"},
		{"separator without SEARCH marker", V1, "b\n=======\nX\n+++++++ REPLACE\n", ErrEmptySearch, 1, 1, 1,
			"its separator on diff line 2 has no SEARCH marker before it; add ------- SEARCH above the lines to find"},
		{"replace without separator", V1, "------- SEARCH\nb\n+++++++ REPLACE\n", ErrMalformed, 1, 0, 2, "REPLACE marker on diff line 3 closes a section whose SEARCH text was never matched (is the separator missing?)"},
		{"replace outside any section", V1, "+++++++ REPLACE\n", ErrMalformed, 0, 0, 0, "diff line 1: the REPLACE marker closes a section"},
		{"v2 empty search after a section is out of order", V2, section("b\n", "B\n") + section("", "X\n"), ErrOutOfOrder, 2, 5, 6, "use an empty SEARCH only as the first and only section"},
		{"v2 second separator", V2, "------- SEARCH\nb\n=======\nB\n=======\n", ErrInvalidTransition, 1, 0, 4, "a second separator on diff line 5"},
		{"v2 search inside a section", V2, "------- SEARCH\nb\n------- SEARCH\n", ErrInvalidTransition, 1, 0, 2, "a SEARCH marker on diff line 3 opens a new section before this one was closed"},
		{"v2 unfinished", V2, "------- SEARCH\nb\n=======\nB\n", ErrIncomplete, 1, 0, 4, "the diff ended inside this section"},
		{"v2 stray text", V2, "hello\n\n------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n", ErrMalformedBlock, 1, 2, 0, "diff line 1 holds text outside any section"},
		{"v2 separator outside", V2, "=======\n", ErrMalformedBlock, 0, 0, 0, "a separator appears outside any section"},
		{"v2 replace before separator", V2, "------- SEARCH\nb\n+++++++ REPLACE\n", ErrMalformedBlock, 1, 0, 2, "a REPLACE marker on diff line 3 arrives before the separator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Construct(tt.diff, orig, true, tt.v)
			var e *Error
			require.True(t, errors.As(err, &e), "got %v", err)
			assert.Equal(t, tt.kind, e.Kind)
			assert.Equal(t, tt.section, e.Section, "section")
			assert.Equal(t, tt.diffLine, e.DiffLine, "diff line")
			assert.Equal(t, tt.at, e.At, "at")
			assert.Contains(t, e.Error(), tt.says)
			assert.NotContains(t, e.Error(), "%!", "a format verb went wrong")
		})
	}
}

// TestErrorBuiltElsewhere checks that an Error made outside the package still reads as a sentence.
func TestErrorBuiltElsewhere(t *testing.T) {
	for _, k := range []ErrorKind{ErrNoMatch, ErrEmptySearch, ErrMalformed, ErrOutOfOrder, ErrInvalidTransition, ErrIncomplete, ErrMalformedBlock} {
		msg := (&Error{Kind: k, Section: 1, At: 2}).Error()
		assert.NotContains(t, msg, "%!", k)
		assert.Contains(t, msg, "section 1", k)
	}
}

func TestBlankLinesBetweenSectionsV2(t *testing.T) {
	diff := section("a\n", "A\n") + "\n  \n" + section("c\n", "C\n")
	res, err := Construct(diff, "a\nb\nc\n", true, V2)
	require.NoError(t, err)
	assert.Equal(t, "A\nb\nC\n", res.NewContent)
	assert.Len(t, res.Replacements, 2)
}

// numbered returns n lines "line 1 ... " through "line n ...".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("\tvalue" + strings.Repeat("x", i%7) + " := compute(" + string(rune('a'+i%26)) + ", " + strings.Repeat("y", i%5) + ")\n")
	}
	return b.String()
}

func TestNoMatchMessage(t *testing.T) {
	orig := numbered(200)
	lines := strings.SplitAfter(orig, "\n")
	// Lines 120-124 with a changed token in the middle line.
	search := strings.Join(lines[119:124], "")
	search = strings.Replace(search, "compute(", "computeAll(", 1)
	search = strings.Replace(search, "\tvalue", "\tval", 3)
	_, err := Construct(section(search, "X\n"), orig, true, V1)
	var e *Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, ErrNoMatch, e.Kind)
	require.NotNil(t, e.Nearest)
	assert.Equal(t, 120, e.Nearest.StartLine)
	assert.Equal(t, 124, e.Nearest.EndLine)
	assert.Equal(t, strings.Join(lines[119:124], ""), orig[e.Nearest.Start:e.Nearest.End])
	assert.Greater(t, e.Nearest.Similarity, 0.5)
	assert.Less(t, e.Nearest.Similarity, 1.0)
	assert.Equal(t, search, e.Search)
	assert.Equal(t, []MatchTier{TierExact, TierLineTrimmed, TierBlockAnchor, TierWholeFile}, e.Tried)
	msg := e.Error()
	assert.Contains(t, msg, "section 1 (SEARCH marker on diff line 1)")
	assert.Contains(t, msg, "did you mean lines 120-124? (")
	assert.Contains(t, msg, "% similar)")
	assert.Contains(t, msg, "tried exact, line-trimmed, block-anchor, whole-file matching")
	assert.Contains(t, msg, "The SEARCH text begins:\n    \tvalx := computeAll(q, )\n")
	assert.Contains(t, msg, "(2 more lines)")
}

func TestNoMatchBeforePreviousSection(t *testing.T) {
	orig := "one\ntwo\nthree\nfour\n"
	// v2 does not look before the previous match: "one" exists but lies behind.
	_, err := Construct(section("three\n", "3\n")+section("one\n", "1\n"), orig, true, V2)
	var e *Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, ErrNoMatch, e.Kind)
	require.NotNil(t, e.Nearest)
	assert.Equal(t, 1, e.Nearest.StartLine)
	assert.Equal(t, 1.0, e.Nearest.Similarity)
	assert.Contains(t, e.Error(), "did you mean line 1? (100% similar) It lies before the previous section's match")
}

func TestNoMatchWithoutCandidate(t *testing.T) {
	_, err := Construct(section("qqqqqqqq\n", "X\n"), "a\nb\n", true, V1)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Nil(t, e.Nearest)
	assert.Contains(t, e.Error(), "No similar region found")
}

func TestNearestOnHugeFiles(t *testing.T) {
	// 200,000 distinct lines and a 40-line search: far over the pair budget, so the search is
	// anchored on the lines it shares with the file.
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d, %q)\n", i, i*7, strings.Repeat("z", i%13))
	}
	orig := b.String()
	lines := strings.SplitAfter(orig, "\n")
	region := strings.Join(lines[150000:150040], "")
	search := strings.Replace(region, "compute(", "computeAll(", 1)
	_, err := Construct(section(search, "X\n"), orig, true, V2)
	var e *Error
	require.True(t, errors.As(err, &e))
	require.NotNil(t, e.Nearest)
	assert.Equal(t, 150001, e.Nearest.StartLine)
	assert.Equal(t, 150040, e.Nearest.EndLine)
	assert.Equal(t, region, orig[e.Nearest.Start:e.Nearest.End])

	// No line in common: windows are sampled, and the work stays bounded.
	search = strings.ReplaceAll(region, "compute(", "calc(")
	_, err = Construct(section(search, "X\n"), orig, true, V2)
	require.True(t, errors.As(err, &e))
	assert.Equal(t, ErrNoMatch, e.Kind)
}

func TestFixModelContent(t *testing.T) {
	tests := []struct {
		name, text, model, path, want string
	}{
		{"claude is left alone", "a &lt;b&gt; \uFFFD", "claude-sonnet-4", "x.go", "a &lt;b&gt; \uFFFD"},
		{"claude anywhere in the id", "&amp;", "anthropic/claude-3", "x.go", "&amp;"},
		{"other models are unescaped", "if a &lt; b &amp;&amp; c &gt; d { s := &quot;x&apos; }", "gpt-4o", "x.go", `if a < b && c > d { s := "x' }`},
		{"order: &amp;lt; becomes &lt;", "&amp;lt;", "gemini", "x.go", "&lt;"},
		{"order: &amp;gt; becomes &gt; too", "&amp;gt;", "gemini", "x.go", "&gt;"},
		{"replacement character removed", "a\uFFFDb", "deepseek", "x.go", "ab"},
		{"xml keeps entities", "&lt;a&gt;\uFFFD", "gpt-4o", "pom.xml", "&lt;a&gt;"},
		{"xml suffix in any case", "&amp;", "gpt-4o", "A.XmL", "&amp;"},
		{"xml must be the suffix", "&amp;", "gpt-4o", "a.xml.go", "&"},
		{"empty model is not claude", "&gt;", "", "", ">"},
		{"Claude with a capital is not claude", "&gt;", "Claude", "x", ">"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FixModelContent(tt.text, tt.model, tt.path))
		})
	}
}

func TestCleanWriteContent(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"fenced with language", "```go\npackage a\n```", "package a"},
		{"fence alone", "```", ""},
		{"opening fence only", "```js\nx()\n", "x()"},
		{"closing fence only", "x()\n```", "x()"},
		{"trims with ECMAScript trim", "```\n\ufeff x \u00a0\n```\n", "x"},
		{"trailing newline after the closing fence keeps it", "x\n```\n", "x\n```\n"},
		{"no fence", "  plain  ", "  plain  "},
		{"inner fences stay", "```md\na\n```go\nb\n```\nc\n```", "a\n```go\nb\n```\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CleanWriteContent(tt.in))
		})
	}
}

func TestApplyReplacementsNeverPanics(t *testing.T) {
	orig := "abc"
	got := ApplyReplacements(orig, []Replacement{
		{Start: 2, End: 1, Content: "X"},
		{Start: -5, End: 99, Content: "Y"},
		{Start: 1, End: 2, Content: "Z"},
	})
	assert.Equal(t, "abXYZc", got)
}

func TestUnknownVersionIsV1(t *testing.T) {
	a, errA := Construct(section("", "x\n"), "y", true, "v9")
	_, errB := Construct(section("", "x\n"), "y", true, V1)
	assert.Equal(t, Result{}, a)
	assert.Equal(t, errB, errA)
}

func TestLocateAndNearest(t *testing.T) {
	orig := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n"
	tests := []struct {
		name, search string
		from         int
		start, end   int
		tier         MatchTier
		ok           bool
	}{
		{name: "exact", search: "\treturn 2\n", start: 35, end: 45, tier: TierExact, ok: true},
		{name: "line-trimmed", search: "  return 1\n", start: 11, end: 21, tier: TierLineTrimmed, ok: true},
		{name: "block-anchor", search: "func b() {\n\treturn 3\n}\n", start: 24, end: 47, tier: TierBlockAnchor, ok: true},
		{name: "from skips earlier matches", search: "}\n", from: 22, start: 45, end: 47, tier: TierExact, ok: true},
		{name: "none", search: "nothing\n"},
		{name: "empty", search: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e, tier, ok := Locate(orig, tt.search, tt.from)
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, []any{tt.start, tt.end, tt.tier}, []any{s, e, tier})
			}
		})
	}
	c := Nearest(orig, "func b() {\n\treturn 22\n")
	require.NotNil(t, c)
	assert.Equal(t, []int{5, 6}, []int{c.StartLine, c.EndLine})
	assert.Nil(t, Nearest(orig, "zzzzzzzzzzzz\n"))
	assert.Nil(t, Nearest(orig, ""))
}
