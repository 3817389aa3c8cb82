package lsp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// These tests drive response documents (section 7b) through the wire: a pasted answer with four
// edits — one matching exactly, one only after trimming, one matching nothing, one outside the
// workspace — reviewed and applied with standard LSP only.

const reviewTarget = "package a\n\nfunc One() int {\n\treturn 1\n}\n\nfunc Two() int {\n\treturn 2\n}\n\nfunc Three() int {\n\treturn 3\n}\n"

// reviewAnswer is the response document: block 0 text, 1 exact, 2 text, 3 line-trimmed,
// 4 text, 5 no match, 6 text, 7 outside the workspace.
var reviewAnswer = "I'll make the numbers bigger.\n\n" +
	replaceUse("src/a.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n") +
	"\nThe second one, indented loosely.\n\n" +
	replaceUse("src/a.go", "------- SEARCH\n  return 2\n=======\n\treturn 20\n+++++++ REPLACE\n") +
	"\nThe third one, misremembered.\n\n" +
	replaceUse("src/a.go", "------- SEARCH\nfunc Three() int {\n\treturn 33\n=======\nfunc Three() int {\n\treturn 30\n+++++++ REPLACE\n") +
	"\nAnd one elsewhere.\n\n" +
	replaceUse("../outside.go", "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n")

// docRequest sends a request about document u with extra params and decodes the result.
func docRequest(c *testClient, method string, u uri.URI, extra map[string]any, result any) {
	c.t.Helper()
	p := map[string]any{"textDocument": map[string]any{"uri": u}}
	for k, v := range extra {
		p[k] = v
	}
	require.NoError(c.t, c.request(method, p, result))
}

// wireAction is a code action as the client decodes it.
type wireAction struct {
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Command struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	} `json:"command"`
	Edit json.RawMessage `json:"edit"`
	Data json.RawMessage `json:"data"`
}

// codeActions returns the code actions of u on rg.
func codeActions(c *testClient, u uri.URI, rg wireRange) []wireAction {
	c.t.Helper()
	var out []wireAction
	docRequest(c, "textDocument/codeAction", u, map[string]any{"range": rg, "context": map[string]any{"diagnostics": []any{}}}, &out)
	return out
}

// actionSummary is "title -> command argument" for each action.
func actionSummary(acts []wireAction) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		arg := ""
		if len(a.Command.Arguments) > 0 {
			arg = string(a.Command.Arguments[0])
		}
		out[i] = a.Title + " -> " + a.Command.Command + " " + arg
	}
	return out
}

// diagSummary is "range severity code: message" for each diagnostic.
type diagSummary struct {
	Range    wireRange
	Severity int
	Code     string
	Message  string
}

// summarize drops what every review diagnostic shares (its source, checked here) and the
// related information (checked separately).
func summarize(t *testing.T, ds []wireDiagnostic) []diagSummary {
	out := make([]diagSummary, len(ds))
	for i, d := range ds {
		assert.Equal(t, "assistant-ls", d.Source)
		out[i] = diagSummary{d.Range, d.Severity, d.Code, d.Message}
	}
	return out
}

// Diagnostic severities.
const (
	sevError = 1
	sevInfo  = 3
	sevHint  = 4
)

// TestWireResponseDocument is the review of a pasted answer in a Helix-like and a VS Code-like
// client: diagnostics, symbols and code actions; apply all; the diagnostics afterwards; and the
// failing section's error cleared once the target changes so that it matches.
func TestWireResponseDocument(t *testing.T) {
	t.Parallel()
	for _, p := range []clientProfile{profileHelix, profileVSCode} {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p, withServerOptions(Options{diagnosticsDelay: -1}))
			target := c.didOpen("src/a.go", reviewTarget)
			doc := c.didOpen("answer.assistant.md", reviewAnswer)
			outside := filepath.Join(filepath.Dir(c.root), "outside.go")

			notYet := []diagSummary{
				{rng(18, 0, 20, 7), sevHint, ext.CodeFallback, "SEARCH section 1 matches line 8 of src/a.go only through line-trimmed matching (its lines differ from the file's in leading or trailing white space)"},
				{rng(31, 0, 34, 7), sevError, ext.CodeNoMatch, "SEARCH section 1 matches nothing in src/a.go; did you mean lines 11-12? (94% similar)"},
				{rng(44, 6, 44, 19), sevError, ext.CodeRefused, `refused path "` + outside + `": it is outside the workspace folders: edit files inside the workspace`},
			}
			c.waitFor("the response document's diagnostics", func() bool { return len(c.diagnostics(doc)) > 0 })
			ds := c.diagnostics(doc)
			assert.Equal(t, notYet, summarize(t, ds))
			require.Len(t, ds[1].RelatedInformation, 1)
			assert.Equal(t, target, ds[1].RelatedInformation[0].Location.URI)
			assert.Equal(t, rng(10, 0, 12, 0), ds[1].RelatedInformation[0].Location.Range)
			assert.Equal(t, "the nearest region of src/a.go (94% similar)", ds[1].RelatedInformation[0].Message)

			var syms []struct {
				Name  string    `json:"name"`
				Kind  int       `json:"kind"`
				Range wireRange `json:"range"`
			}
			docRequest(c, "textDocument/documentSymbol", doc, nil, &syms)
			names := make([]string, len(syms))
			for i, s := range syms {
				names[i] = s.Name
			}
			assert.Equal(t, []string{
				"I'll make the numbers bigger.", "replace_in_file src/a.go",
				"The second one, indented loosely.", "replace_in_file src/a.go",
				"The third one, misremembered.", "replace_in_file src/a.go",
				"And one elsewhere.", "replace_in_file " + outside,
			}, names)
			assert.Equal(t, rng(2, 0, 11, 18), syms[1].Range)

			// The code actions on the third edit's SEARCH line: the block, its section, and all.
			arg := func(index int, section string) string {
				return `{"index":` + string(rune('0'+index)) + section + `,"uri":"` + string(doc) + `"}`
			}
			acts := codeActions(c, doc, rng(32, 0, 32, 0))
			assert.Equal(t, []string{
				"Apply replace_in_file to src/a.go -> assistant.apply " + arg(5, ""),
				"Apply this section -> assistant.apply " + arg(5, `,"section":1`),
				"Apply all 4 edits in this response -> assistant.applyAll " + `{"uri":"` + string(doc) + `"}`,
			}, actionSummary(acts))
			for _, a := range acts {
				assert.Equal(t, "quickfix", a.Kind)
				assert.Empty(t, a.Edit, "the edit, where shown, comes through codeAction/resolve")
			}
			if p == profileVSCode {
				// VS Code previews an action's edit: it resolves the first one's.
				first := codeActions(c, doc, rng(6, 0, 6, 0))[0]
				require.NotEmpty(t, first.Data)
				var resolved wireAction
				require.NoError(t, c.request("codeAction/resolve", first, &resolved))
				assert.JSONEq(t, `{"documentChanges":[{"textDocument":{"uri":"`+string(target)+`","version":1},`+
					`"edits":[{"range":{"start":{"line":3,"character":0},"end":{"line":4,"character":0}},"newText":"\treturn 10\n"}]}]}`,
					string(resolved.Edit))
				assert.Equal(t, ext.CommandApply, resolved.Command.Command, "the command still applies")
			} else {
				assert.Empty(t, acts[0].Data, "a client that does not preview gets the command alone")
			}

			var all ext.ApplyAllResult
			require.NoError(t, c.request("workspace/executeCommand", map[string]any{
				"command": ext.CommandApplyAll, "arguments": []any{map[string]any{"uri": doc}}}, &all))
			assert.Equal(t, 2, all.Applied)
			assert.Equal(t, 2, all.Failed)
			statuses := []ext.EditStatus{}
			for _, r := range all.Results {
				statuses = append(statuses, r.Status)
			}
			assert.Equal(t, []ext.EditStatus{ext.StatusApplied, ext.StatusApplied, ext.StatusFailed, ext.StatusRefused}, statuses)
			assert.Equal(t, strings.Replace(strings.Replace(reviewTarget, "return 1\n", "return 10\n", 1), "return 2\n", "return 20\n", 1), c.buffer(target))

			after := []diagSummary{
				{rng(2, 0, 2, 17), sevInfo, ext.CodeApplied, "already applied: replace_in_file src/a.go is in place"},
				{rng(15, 0, 15, 17), sevInfo, ext.CodeApplied, "already applied: replace_in_file src/a.go is in place"},
				notYet[1], notYet[2],
			}
			c.waitFor("the diagnostics after apply all", func() bool { return len(c.diagnostics(doc)) == 4 })
			assert.Equal(t, after, summarize(t, c.diagnostics(doc)))

			// Applying everything again sends nothing: the edits are in place.
			n := len(c.applyRequests())
			require.NoError(t, c.request("workspace/executeCommand", map[string]any{
				"command": ext.CommandApplyAll, "arguments": []any{map[string]any{"uri": doc}}}, &all))
			assert.Equal(t, 2, all.Applied)
			assert.Len(t, c.applyRequests(), n)

			// The user edits the target so that the third edit's SEARCH text is there: its error
			// goes, and the edit applies.
			c.didChange(target, strings.Replace(c.buffer(target), "return 3\n", "return 33\n", 1))
			c.waitFor("the error to clear", func() bool { return len(c.diagnostics(doc)) == 3 })
			assert.Equal(t, []diagSummary{after[0], after[1], notYet[2]}, summarize(t, c.diagnostics(doc)))
			var res ext.CommandResult
			require.NoError(t, c.request("workspace/executeCommand", map[string]any{
				"command": ext.CommandApply, "arguments": []any{map[string]any{"uri": doc, "index": 5}}}, &res))
			assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
			assert.Contains(t, c.buffer(target), "func Three() int {\n\treturn 30\n}")
		})
	}
}

// TestWireResponseDocumentFollowsItsText: fixing the failing section in the answer itself clears
// its error; a document becomes a response document by languageId too, and by a configured glob.
func TestWireResponseDocumentFollowsItsText(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: -1}),
		withInitOptions(map[string]any{"responseDocuments": []string{"answers/**"}}))
	c.didOpen("src/a.go", reviewTarget)
	answer := replaceUse("src/a.go", "------- SEARCH\n\treturn 4\n=======\n\treturn 40\n+++++++ REPLACE\n")
	doc := c.didOpen("answers/today/one.md", answer)
	c.waitFor("the error", func() bool { return len(c.diagnostics(doc)) == 1 })
	assert.Equal(t, []diagSummary{{rng(3, 0, 5, 7), sevError, ext.CodeNoMatch,
		"SEARCH section 1 matches nothing in src/a.go; did you mean line 4? (87% similar)"}}, summarize(t, c.diagnostics(doc)))
	c.didChange(doc, strings.Replace(answer, "return 4\n", "return 3\n", 1))
	c.waitFor("the error to clear", func() bool { return len(c.diagnostics(doc)) == 0 })
	assert.Equal(t, 2, c.publishCount(doc), "one list with the error, one empty list to clear it")

	// The default glob no longer applies; languageId assistant always does.
	other := c.didOpen("x.assistant.md", answer)
	byLang := c.uri("notes.txt")
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": byLang, "languageId": "assistant", "version": 1, "text": answer}})
	c.waitFor("the languageId document's diagnostics", func() bool { return len(c.diagnostics(byLang)) == 1 })
	var syms []json.RawMessage
	docRequest(c, "textDocument/documentSymbol", other, nil, &syms)
	assert.Empty(t, syms, "not a response document under these settings")
	assert.Zero(t, c.publishCount(other))

	// Code lenses above the edit: apply all, apply the block, apply the section.
	var lenses []struct {
		Range   wireRange `json:"range"`
		Command struct {
			Title   string `json:"title"`
			Command string `json:"command"`
		} `json:"command"`
	}
	docRequest(c, "textDocument/codeLens", byLang, nil, &lenses)
	require.Len(t, lenses, 3)
	assert.Equal(t, "Apply all 1 edit in this response", lenses[0].Command.Title)
	assert.Equal(t, "Apply replace_in_file to src/a.go", lenses[1].Command.Title)
	assert.Equal(t, "Apply this section", lenses[2].Command.Title)
	assert.Equal(t, rng(0, 0, 0, 0), lenses[1].Range)
	assert.Equal(t, rng(3, 0, 3, 0), lenses[2].Range)
	assert.Equal(t, ext.CommandApply, lenses[2].Command.Command)

	// Back to the default globs: x.assistant.md is a response document now, answers/ no longer.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"assistant": map[string]any{"responseDocuments": nil}}})
	c.waitFor("x.assistant.md's diagnostics", func() bool { return len(c.diagnostics(other)) == 1 })
	c.didChange(doc, answer)
	var none []json.RawMessage
	docRequest(c, "textDocument/documentSymbol", doc, nil, &none)
	assert.Empty(t, none)
	assert.Empty(t, c.diagnostics(doc))

	// Closing the document clears its diagnostics.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": byLang}})
	c.waitFor("the diagnostics cleared", func() bool { return c.publishCount(byLang) == 2 && len(c.diagnostics(byLang)) == 0 })
}

// TestWireResponseDocumentSections applies a response document's sections one by one through
// assistant/apply in the Neovim 0.7 profile (changes, no documentChanges), with the diagnostics
// saying what is in place after each step.
func TestWireResponseDocumentSections(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileNeovim07, withServerOptions(Options{diagnosticsDelay: -1}))
	target := c.didOpen("src/a.go", reviewTarget)
	answer := replaceUse("src/a.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"+
		"------- SEARCH\n\treturn 2\n=======\n\treturn 20\n+++++++ REPLACE\n")
	doc := c.didOpen("two.assistant.md", answer)
	section := func(n int) map[string]any { return map[string]any{"uri": doc, "index": 0, "section": n} }

	var res ext.ApplyResult
	require.NoError(t, c.request(ext.MethodResolveEdit, map[string]any{"uri": doc, "index": 0}, &res))
	assert.Equal(t, ext.StatusReady, res.Status)
	assert.Len(t, res.Edit.Changes[target], 2)
	assert.Empty(t, c.applyRequests(), "resolveEdit sends nothing")

	require.NoError(t, c.request(ext.MethodApply, section(2), &res))
	assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, strings.Replace(reviewTarget, "return 2\n", "return 20\n", 1), c.buffer(target))
	c.waitFor("section 2 in place", func() bool { return len(c.diagnostics(doc)) == 2 })
	assert.Equal(t, []diagSummary{
		{rng(8, 0, 10, 7), sevInfo, ext.CodeApplied, "SEARCH section 2 is already applied: its REPLACE text stands in src/a.go"},
		{rng(0, 0, 0, 17), sevError, ext.CodeNoMatch, "replace_in_file src/a.go is partly applied (SEARCH section 2 already stands), so it no longer applies as a whole; apply its other sections one by one"},
	}, summarize(t, c.diagnostics(doc)))

	require.NoError(t, c.request(ext.MethodApply, section(1), &res))
	assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
	c.waitFor("the block in place", func() bool { return len(c.diagnostics(doc)) == 1 })
	assert.Equal(t, []diagSummary{{rng(0, 0, 0, 17), sevInfo, ext.CodeApplied, "already applied: replace_in_file src/a.go is in place"}},
		summarize(t, c.diagnostics(doc)))
	n := len(c.applyRequests())
	require.NoError(t, c.request(ext.MethodApply, section(1), &res))
	require.NoError(t, c.request(ext.MethodApply, map[string]any{"uri": doc, "index": 0}, &res))
	assert.Equal(t, ext.StatusApplied, res.Status)
	assert.Len(t, c.applyRequests(), n, "nothing is applied twice")
	assert.Equal(t, strings.NewReplacer("return 1\n", "return 10\n", "return 2\n", "return 20\n").Replace(reviewTarget), c.buffer(target))

	err := c.request(ext.MethodApply, section(3), &res)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	err = c.request(ext.MethodApply, map[string]any{"uri": c.uri("nope.md"), "index": 0}, &res)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
}

// TestWireResponseDocumentTextSections applies an Aider section and a diff hunk of a response
// document alone, as their formats apply them: the Aider section indented less than the file
// gets the file's indentation (replace_in_file's line-trimmed match would write it outdented),
// and the hunk lands at an offset; the review then says each stands.
func TestWireResponseDocumentTextSections(t *testing.T) {
	t.Parallel()
	const src = "package a\n\nfunc A(x bool) int {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 0\n}\n\nfunc B() int {\n\treturn 2\n}\n"
	c := newTestClient(t, profileNeovim07, withServerOptions(Options{diagnosticsDelay: -1}))
	target := c.didOpen("a.go", src)
	answer := "a.go\n```go\n<<<<<<< SEARCH\nif x {\n\treturn 1\n}\n=======\nif x {\n\treturn 10\n}\n>>>>>>> REPLACE\n" +
		"<<<<<<< SEARCH\n\treturn 3\n=======\n\treturn 30\n>>>>>>> REPLACE\n```\n\n" +
		"```diff\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n func B() int {\n-\treturn 2\n+\treturn 20\n }\n```\n"
	doc := c.didOpen("text.assistant.md", answer)
	apply := func(index, section int) ext.ApplyResult {
		var res ext.ApplyResult
		require.NoError(t, c.request(ext.MethodApply, map[string]any{"uri": doc, "index": index, "section": section}, &res))
		return res
	}
	res := apply(0, 1)
	require.Equal(t, ext.StatusApplied, res.Status, res.Error)
	want := strings.Replace(src, "\t\treturn 1\n", "\t\treturn 10\n", 1)
	assert.Equal(t, want, c.buffer(target), "the REPLACE lines get the file's indentation, as in Aider")
	c.waitFor("section 1 in place", func() bool {
		ds := c.diagnostics(doc)
		return len(ds) > 0 && ds[0].Code == ext.CodeApplied
	})
	assert.Equal(t, "SEARCH section 1 is already applied: its REPLACE text stands in a.go", c.diagnostics(doc)[0].Message)

	// The diff edits a.go too, in the same text block: its hunk is the block's section 3.
	res = apply(0, 3)
	require.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, strings.Replace(want, "\treturn 2\n", "\treturn 20\n", 1), c.buffer(target))
	c.waitFor("the hunk in place", func() bool {
		ds := c.diagnostics(doc)
		return len(ds) == 3 && ds[2].Code == ext.CodeApplied
	})
	assert.Equal(t, []diagSummary{
		{rng(2, 0, 6, 7), sevInfo, ext.CodeApplied, "SEARCH section 1 is already applied: its REPLACE text stands in a.go"},
		{rng(11, 0, 13, 7), sevError, ext.CodeNoMatch, "SEARCH section 2 failed to exactly match lines in a.go; Aider finds no similar lines: copy the lines to change exactly, white space and comments included"},
		{rng(21, 0, 21, 15), sevInfo, ext.CodeApplied, "hunk 3 is already applied: reversed, it applies to a.go"},
	}, summarize(t, c.diagnostics(doc)))
}
