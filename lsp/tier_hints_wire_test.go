package lsp

import (
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hintSrc is a file whose lines a SEARCH without indentation matches only line-trimmed.
const hintSrc = "package a\n\nfunc f() {\n\tx := 1\n\ty := 2\n}\n"

// trimmedDiff matches hintSrc's lines 4-5 only once white space is trimmed.
const trimmedDiff = "------- SEARCH\nx := 1\ny := 2\n=======\n\tx := 10\n\ty := 20\n+++++++ REPLACE\n"

// TestWireTierHint: a replace_in_file section that only a fallback tier located is applied with a
// hint on the text it put in the document, saying which tier; the hint follows the user's edits
// elsewhere and goes when the user edits its lines.
func TestWireTierHint(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, p)
			u := c.didOpen("a.go", hintSrc)
			streamMessage(c, "s", replaceUse("a.go", trimmedDiff), 32)
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, []string{"line_trimmed"}, st.Tiers)
			assert.Contains(t, st.ToolResult, "SEARCH section 1 of a.go was located only through line-trimmed matching")
			edited := "package a\n\nfunc f() {\n\tx := 10\n\ty := 20\n}\n"
			require.Equal(t, edited, c.buffer(u))

			c.waitFor("the hint", func() bool { return len(c.diagnostics(u)) == 1 })
			d := c.diagnostics(u)[0]
			assert.Equal(t, rng(3, 0, 4, 8), d.Range)
			assert.Equal(t, 4, d.Severity, "a hint")
			assert.Equal(t, ext.DiagnosticSource, d.Source)
			assert.Equal(t, ext.CodeFallback, d.Code)
			assert.Equal(t, "replace_in_file section 1 was located only through line-trimmed matching (its lines differ from the file's in leading or trailing white space); check the lines it replaced", d.Message)

			// Typing above it moves the hint along.
			c.didChange(u, "// c\n"+edited)
			c.waitFor("the hint to move", func() bool {
				ds := c.diagnostics(u)
				return len(ds) == 1 && ds[0].Range == rng(4, 0, 5, 8)
			})
			// Editing its lines takes it away.
			n := c.publishCount(u)
			c.didChange(u, "// c\npackage a\n\nfunc f() {\n\tx := 11\n\ty := 20\n}\n")
			c.waitFor("the hint to go", func() bool { return c.publishCount(u) > n && len(c.diagnostics(u)) == 0 })
		})
	}
}

// TestWireTierHintStreamClosed: closing the stream takes its hints away; an exact match gets
// none.
func TestWireTierHintStreamClosed(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	u := c.didOpen("a.go", hintSrc)
	b := c.didOpen("b.go", "package b\n\nconst x = 1\n")
	streamMessage(c, "s", replaceUse("b.go", "------- SEARCH\nconst x = 1\n=======\nconst x = 2\n+++++++ REPLACE\n")+
		replaceUse("a.go", trimmedDiff), 32)
	require.Equal(t, ext.StatusApplied, waitSettled(c, "s", 0).Status)
	require.Equal(t, ext.StatusApplied, waitSettled(c, "s", 1).Status)
	c.waitFor("the hint", func() bool { return len(c.diagnostics(u)) == 1 })
	assert.Empty(t, c.diagnostics(b), "an exact match is applied without a hint")

	c.notify(ext.MethodClose, map[string]any{"stream": "s"})
	c.waitFor("the hint to go", func() bool { return c.publishCount(u) > 1 && len(c.diagnostics(u)) == 0 })
}

// TestWireTierCRLFIsExact: in a CRLF document the applier matches every line "line-trimmed" (its
// lines keep their "\r"); a SEARCH that differs only in line breaks is no fallback to report.
func TestWireTierCRLFIsExact(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	u := c.didOpen("a.txt", "one\r\ntwo\r\nthree\r\n")
	streamMessage(c, "s", replaceUse("a.txt", "------- SEARCH\ntwo\n=======\nTWO\n+++++++ REPLACE\n"), 32)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, "one\r\nTWO\r\nthree\r\n", c.buffer(u))
	assert.NotContains(t, st.ToolResult, "located only through")
}

// TestWireTierHintBlockAnchor: a section located by its first and last lines alone is hinted on
// the lines it put in place.
func TestWireTierHintBlockAnchor(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	u := c.didOpen("a.go", "func f() {\n\ta()\n}\n")
	streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\nfunc f() {\n\tmisremembered()\n}\n=======\nfunc f() {\n\tc()\n}\n+++++++ REPLACE\n"), 32)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	require.Equal(t, []string{"block_anchor"}, st.Tiers)
	c.waitFor("the hint", func() bool { return len(c.diagnostics(u)) == 1 })
	d := c.diagnostics(u)[0]
	assert.Equal(t, rng(0, 0, 2, 1), d.Range)
	assert.Contains(t, d.Message, "replace_in_file section 1 was located only through block-anchor matching")
}

// TestWireTierHintTextFormats: an Aider section or a diff hunk that its format's applier
// located only through a tier that is not exact gets the same hint, in the same words the
// review of a response document uses, on the text it put in the document.
func TestWireTierHintTextFormats(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"
	tests := []struct {
		name, msg, want string
		rg              wireRange
		tiers           []string
		result          string
	}{
		{
			name: "aider leading white space",
			msg:  "a.go\n```go\n<<<<<<< SEARCH\nreturn 1\n=======\nreturn 10\n>>>>>>> REPLACE\n```\n",
			want: "aider section 1 was located only " + tierWords["leading_whitespace"] + "; check the lines it replaced",
			rg:   rng(3, 0, 3, 10), tiers: []string{"leading_whitespace"},
			result: "SEARCH section 1 of a.go was located only with leading white space set aside",
		},
		{
			name: "hunk at an offset",
			msg:  "```diff\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n func B() int {\n-\treturn 2\n+\treturn 20\n }\n```\n",
			want: "udiff hunk 1 was located only " + tierWords["offset"] + "; check the lines it replaced",
			rg:   rng(6, 0, 8, 1), tiers: []string{"offset"},
			result: "hunk 1 of a.go was located only away from the line its @@ header names",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"textFormats": []string{"cline", "aider", "udiff"}}))
			u := c.didOpen("a.go", src)
			streamMessage(c, "s", tt.msg, 32)
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, tt.tiers, st.Tiers)
			assert.Contains(t, st.ToolResult, tt.result)
			c.waitFor("the hint", func() bool { return len(c.diagnostics(u)) == 1 })
			d := c.diagnostics(u)[0]
			assert.Equal(t, tt.rg, d.Range)
			assert.Equal(t, ext.CodeFallback, d.Code)
			assert.Equal(t, tt.want, d.Message)
		})
	}
}

// dupHintSrc holds, in g, the very lines the trimmed section puts in f.
const dupHintSrc = "package a\n\nfunc f() {\n\tx := 1\n\ty := 2\n}\n\nfunc g() {\n\tx := 10\n\ty := 20\n}\n"

// TestWireTierHintNeverJumps: the hint follows the didChange ranges: an edit above moves it, an
// edit of its lines takes it away, and it never jumps to the copy of its text in g.
func TestWireTierHintNeverJumps(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	u := c.didOpen("a.go", dupHintSrc)
	streamMessage(c, "s", replaceUse("a.go", trimmedDiff), 32)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	c.waitFor("the hint", func() bool { return len(c.diagnostics(u)) == 1 })
	assert.Equal(t, rng(3, 0, 4, 8), c.diagnostics(u)[0].Range)

	c.changeRange(u, prange(0, 0, 0, 0), "// c\n")
	c.waitFor("the hint to move", func() bool {
		ds := c.diagnostics(u)
		return len(ds) == 1 && ds[0].Range == rng(4, 0, 5, 8)
	})
	n := c.publishCount(u)
	c.changeRange(u, prange(4, 7, 4, 9), "11")
	c.waitFor("the hint to go", func() bool { return c.publishCount(u) > n && len(c.diagnostics(u)) == 0 })
	c.changeRange(u, prange(4, 7, 4, 9), "10")
	assert.Empty(t, codeActions(c, u, rng(0, 0, 0, 0)), "a request after the change: it has been followed")
	assert.Empty(t, c.diagnostics(u), "typing the text back does not bring the hint back, nor does its copy in g")
}
