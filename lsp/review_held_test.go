package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/lspclient"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// These tests drive edits held for review (section 7a) through the wire.

const heldSrc = "package h\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n\nfunc C() int {\n\treturn 3\n}\n"

// heldDiff changes the three return values.
const heldDiff = "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n" +
	"------- SEARCH\n\treturn 2\n=======\n\treturn 20\n+++++++ REPLACE\n" +
	"------- SEARCH\n\treturn 3\n=======\n\treturn 30\n+++++++ REPLACE\n"

// command runs workspace/executeCommand with one argument.
func command(c *testClient, name string, arg any, result any) {
	c.t.Helper()
	require.NoError(c.t, c.request("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, result))
}

// hunkStatuses returns the pushed hunk statuses of block index of stream.
func hunkStatuses(c *testClient, stream string, index int) []ext.HunkStatus {
	var out []ext.HunkStatus
	for _, h := range editStatus(c, stream, index).Hunks {
		out = append(out, h.Status)
	}
	return out
}

// waitHunks waits until the pushed edit has the hunk statuses want.
func waitHunks(c *testClient, stream string, index int, want ...ext.HunkStatus) {
	c.t.Helper()
	c.waitFor(fmt.Sprintf("hunks %v", want), func() bool {
		got := hunkStatuses(c, stream, index)
		return fmt.Sprint(got) == fmt.Sprint(want)
	})
}

// pendingSummary is (range, message) of each pending-hunk diagnostic of u.
func pendingSummary(t *testing.T, c *testClient, u uri.URI) []diagSummary {
	ds := c.diagnostics(u)
	for _, d := range ds {
		assert.Equal(t, ext.CodePending, d.Code)
		assert.Equal(t, sevInfo, d.Severity)
	}
	return summarize(t, ds)
}

// pending is the expected diagnostic of a pending hunk.
func pending(line int, text string) diagSummary {
	return diagSummary{rng(line, 0, line+1, 0), sevInfo, ext.CodePending, "replace_in_file (s#0) proposes:\n" + text}
}

// TestWireHeldEdit holds a three-hunk edit for review, accepts the first hunk, rejects the
// second and types into the third's lines, checking the document, the diagnostics and the
// statuses after each step.
func TestWireHeldEdit(t *testing.T) {
	t.Parallel()
	for _, p := range []clientProfile{profileHelix, profileVSCode} {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
			u := c.didOpen("h.go", heldSrc)
			streamMessage(c, "s", replaceUse("h.go", heldDiff), 40)
			waitHunks(c, "s", 0, ext.HunkPending, ext.HunkPending, ext.HunkPending)
			st := editStatus(c, "s", 0)
			assert.Equal(t, ext.StatusReady, st.Status)
			assert.Equal(t, []ext.HunkState{
				{Range: prange(3, 0, 4, 0), Status: ext.HunkPending},
				{Range: prange(7, 0, 8, 0), Status: ext.HunkPending},
				{Range: prange(11, 0, 12, 0), Status: ext.HunkPending},
			}, st.Hunks)
			assert.Empty(t, c.applyRequests(), "a held edit is not sent")
			c.waitFor("three pending diagnostics", func() bool { return len(c.diagnostics(u)) == 3 })
			assert.Equal(t, []diagSummary{pending(3, "\treturn 10"), pending(7, "\treturn 20"), pending(11, "\treturn 30")}, pendingSummary(t, c, u))

			acts := codeActions(c, u, rng(3, 2, 3, 2))
			hunkArg := func(h int) string { return fmt.Sprintf(`{"stream":"s","index":0,"hunk":%d}`, h) }
			assert.Equal(t, []string{
				"Accept this change -> assistant.acceptHunk " + hunkArg(0),
				"Reject this change -> assistant.rejectHunk " + hunkArg(0),
				"Accept all 3 changes of replace_in_file h.go -> assistant.acceptAll " + `{"stream":"s","index":0}`,
				"Reject all 3 changes of replace_in_file h.go -> assistant.rejectAll " + `{"stream":"s","index":0}`,
			}, actionSummary(acts))
			if p == profileVSCode {
				var resolved wireAction
				require.NoError(t, c.request("codeAction/resolve", acts[0], &resolved))
				assert.JSONEq(t, `{"documentChanges":[{"textDocument":{"uri":"`+string(u)+`","version":1},`+
					`"edits":[{"range":{"start":{"line":3,"character":0},"end":{"line":4,"character":0}},"newText":"\treturn 10\n"}]}]}`,
					string(resolved.Edit))
			}

			// 1. Accept the first hunk: that hunk alone is sent.
			var res ext.CommandResult
			command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 0}, &res)
			assert.Equal(t, ext.StatusPartial, res.Status, res.Error)
			require.Len(t, c.applyRequests(), 1)
			assert.NotContains(t, string(c.applyRequests()[0]), "changeAnnotations", "the user already decided: no confirmation")
			assert.Equal(t, strings.Replace(heldSrc, "return 1\n", "return 10\n", 1), c.buffer(u))
			waitHunks(c, "s", 0, ext.HunkAccepted, ext.HunkPending, ext.HunkPending)
			assert.Equal(t, ext.StatusPartial, editStatus(c, "s", 0).Status)
			c.waitFor("two pending diagnostics", func() bool { return len(c.diagnostics(u)) == 2 })
			assert.Equal(t, []diagSummary{pending(7, "\treturn 20"), pending(11, "\treturn 30")}, pendingSummary(t, c, u))

			// 2. Reject the second: nothing is sent.
			command(c, ext.CommandRejectHunk, map[string]any{"stream": "s", "index": 0, "hunk": 1}, &res)
			assert.Equal(t, ext.StatusPartial, res.Status)
			assert.Len(t, c.applyRequests(), 1)
			waitHunks(c, "s", 0, ext.HunkAccepted, ext.HunkRejected, ext.HunkPending)
			c.waitFor("one pending diagnostic", func() bool { return len(c.diagnostics(u)) == 1 })
			assert.Equal(t, []diagSummary{pending(11, "\treturn 30")}, pendingSummary(t, c, u))

			// 3. Typing above the third hunk moves it; typing into its lines makes it stale.
			c.didChange(u, "// typed\n"+c.buffer(u))
			c.waitFor("the hunk to follow", func() bool {
				ds := c.diagnostics(u)
				return len(ds) == 1 && ds[0].Range.Start.Line == 12
			})
			assert.Equal(t, []diagSummary{pending(12, "\treturn 30")}, pendingSummary(t, c, u))
			c.didChange(u, strings.Replace(c.buffer(u), "return 3\n", "return 4\n", 1))
			waitHunks(c, "s", 0, ext.HunkAccepted, ext.HunkRejected, ext.HunkStale)
			assert.Equal(t, ext.StatusPartial, editStatus(c, "s", 0).Status, "decided with a mix")
			c.waitFor("no pending diagnostic", func() bool { return len(c.diagnostics(u)) == 0 })
			assert.Empty(t, codeActions(c, u, rng(12, 0, 12, 0)))
			want := "// typed\n" + strings.Replace(strings.Replace(heldSrc, "return 1\n", "return 10\n", 1), "return 3\n", "return 4\n", 1)
			assert.Equal(t, want, c.buffer(u))
			command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 2}, &res)
			assert.Len(t, c.applyRequests(), 1, "a stale hunk is not pending: accepting it sends nothing")
		})
	}
}

// prange builds a protocol range.
func prange(sl, sc, el, ec uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}
}

// TestWireReviewSessionsProperty: over random review sessions (hunks accepted and rejected one
// by one or all at once, in random order), the document always equals the original with
// exactly the accepted hunks applied, and the edit's status follows its hunks.
func TestWireReviewSessionsProperty(t *testing.T) {
	t.Parallel()
	const funcs = 12
	var src strings.Builder
	src.WriteString("package p\n")
	for i := range funcs {
		fmt.Fprintf(&src, "\nfunc F%d() int {\n\treturn %d\n}\n", i, i)
	}
	original := src.String()
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 7))
			c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
			u := c.didOpen("p.go", original)
			// Sections on distinct functions, in file order.
			var chosen []int
			for i := range funcs {
				if rnd.IntN(3) == 0 {
					chosen = append(chosen, i)
				}
			}
			if len(chosen) < 2 {
				chosen = []int{1, 7}
			}
			var diff strings.Builder
			for _, f := range chosen {
				fmt.Fprintf(&diff, "------- SEARCH\n\treturn %d\n=======\n\treturn %d\n+++++++ REPLACE\n", f, 100+f)
			}
			streamMessage(c, "s", replaceUse("p.go", diff.String()), 1+rnd.IntN(60))
			c.waitFor("the held hunks", func() bool { return len(editStatus(c, "s", 0).Hunks) == len(chosen) })

			accepted := map[int]bool{}
			decided := map[int]bool{}
			expect := func() string {
				out := original
				for h, f := range chosen {
					if accepted[h] {
						out = strings.Replace(out, fmt.Sprintf("\treturn %d\n", f), fmt.Sprintf("\treturn %d\n", 100+f), 1)
					}
				}
				return out
			}
			var res ext.CommandResult
			for _, h := range rnd.Perm(len(chosen)) {
				if decided[h] {
					continue
				}
				switch rnd.IntN(6) {
				case 0:
					command(c, ext.CommandAcceptAll, map[string]any{"stream": "s", "index": 0}, &res)
					for i := range chosen {
						if !decided[i] {
							accepted[i], decided[i] = true, true
						}
					}
				case 1:
					command(c, ext.CommandRejectAll, map[string]any{"stream": "s", "index": 0}, &res)
					for i := range chosen {
						decided[i] = true
					}
				case 2, 3:
					command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": h}, &res)
					accepted[h], decided[h] = true, true
				default:
					command(c, ext.CommandRejectHunk, map[string]any{"stream": "s", "index": 0, "hunk": h}, &res)
					decided[h] = true
				}
				require.Empty(t, res.Error)
				require.Equal(t, expect(), c.buffer(u))
				require.Equal(t, wantStatus(len(chosen), len(accepted), len(decided)), res.Status)
			}
			c.waitFor("no pending diagnostics", func() bool { return len(c.diagnostics(u)) == 0 })
			c.waitFor("the pushed hunks decided", func() bool {
				raw, _ := json.Marshal(editStatus(c, "s", 0))
				return !strings.Contains(string(raw), `"pending"`)
			})
			assert.Equal(t, res.Status, editStatus(c, "s", 0).Status)
		})
	}
}

// wantStatus is the edit status of n hunks of which accepted were accepted and decided decided.
func wantStatus(n, accepted, decided int) ext.EditStatus {
	switch {
	case decided == 0:
		return ext.StatusReady
	case accepted == n:
		return ext.StatusApplied
	case decided == n && accepted == 0:
		return ext.StatusRejected
	default:
		return ext.StatusPartial
	}
}

// TestWireHeldEditOfClosedFile: the hunks of a file that is not open are published on its URI,
// placed in its content once the client opens it (here with a line more at the top than on
// disk), and accepted against the open buffer. The diagnostics go through the default debounce.
func TestWireHeldEditOfClosedFile(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"autoApply": false}))
	require.NoError(t, os.WriteFile(c.path("h.go"), []byte(heldSrc), 0o644))
	u := c.uri("h.go")
	streamMessage(c, "s", replaceUse("h.go", heldDiff), 50)
	c.waitFor("three pending diagnostics of the closed file", func() bool { return len(c.diagnostics(u)) == 3 })
	assert.Equal(t, []diagSummary{pending(3, "\treturn 10"), pending(7, "\treturn 20"), pending(11, "\treturn 30")}, pendingSummary(t, c, u))

	c.didOpen("h.go", "// opened\n"+heldSrc)
	c.waitFor("the hunks placed in the open buffer", func() bool {
		ds := c.diagnostics(u)
		return len(ds) == 3 && ds[0].Range.Start.Line == 4
	})
	assert.Equal(t, []diagSummary{pending(4, "\treturn 10"), pending(8, "\treturn 20"), pending(12, "\treturn 30")}, pendingSummary(t, c, u))

	var res ext.CommandResult
	command(c, ext.CommandAcceptAll, map[string]any{"stream": "s", "index": 0}, &res)
	assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, "// opened\n"+strings.NewReplacer("return 1\n", "return 10\n", "return 2\n", "return 20\n", "return 3\n", "return 30\n").Replace(heldSrc), c.buffer(u))
	require.Len(t, c.applyRequests(), 1, "accept all sends one applyEdit")
	c.waitFor("no pending diagnostics", func() bool { return len(c.diagnostics(u)) == 0 })
	waitHunks(c, "s", 0, ext.HunkAccepted, ext.HunkAccepted, ext.HunkAccepted)
	assert.Equal(t, ext.StatusApplied, editStatus(c, "s", 0).Status)
}

// TestWireRejectAll: rejecting every hunk sends nothing and makes the edit rejected.
func TestWireRejectAll(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
	u := c.didOpen("h.go", heldSrc)
	streamMessage(c, "s", replaceUse("h.go", heldDiff), 50)
	waitHunks(c, "s", 0, ext.HunkPending, ext.HunkPending, ext.HunkPending)
	var res ext.CommandResult
	command(c, ext.CommandRejectAll, map[string]any{"stream": "s", "index": 0}, &res)
	assert.Equal(t, ext.StatusRejected, res.Status)
	waitHunks(c, "s", 0, ext.HunkRejected, ext.HunkRejected, ext.HunkRejected)
	assert.Equal(t, ext.StatusRejected, editStatus(c, "s", 0).Status)
	assert.Empty(t, c.applyRequests())
	assert.Equal(t, heldSrc, c.buffer(u))
	c.waitFor("no pending diagnostics", func() bool { return len(c.diagnostics(u)) == 0 })

	err := c.request("workspace/executeCommand", map[string]any{"command": ext.CommandAcceptHunk,
		"arguments": []any{map[string]any{"stream": "s", "index": 0}}}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "acceptHunk needs its hunk")
	err = c.request("workspace/executeCommand", map[string]any{"command": ext.CommandAcceptHunk,
		"arguments": []any{map[string]any{"stream": "nope", "index": 0, "hunk": 0}}}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "no edit is held for an unknown stream")
}

// applyLocally applies a code action's edit the way VS Code does before it runs the action's
// command: in the client, followed by its didChange.
func applyLocally(c *testClient, raw json.RawMessage) {
	c.t.Helper()
	var we protocol.WorkspaceEdit
	require.NoError(c.t, protocol.Unmarshal(raw, &we))
	res, err := lspclient.ApplyEdit(we, c.cl.Encoding(), lspclient.Source{Buffer: func(u uri.URI) (string, int32, bool) {
		return c.buffer(u), c.version(u), c.version(u) != 0
	}})
	require.NoError(c.t, err)
	for _, ch := range res.Docs {
		text, v, err := c.cl.TypeLocally(ch.URI, func(string) string { return ch.After })
		require.NoError(c.t, err)
		c.sendChange(ch.URI, text, v)
	}
}

// TestWireCodeActionEditThenCommand: VS Code applies a resolved code action's edit itself and then
// runs its command. The change lands once: the hunk, and the response document's block, are
// found in place and nothing more is sent.
func TestWireCodeActionEditThenCommand(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
	u := c.didOpen("h.go", heldSrc)
	streamMessage(c, "s", replaceUse("h.go", heldDiff), 50)
	waitHunks(c, "s", 0, ext.HunkPending, ext.HunkPending, ext.HunkPending)
	var resolved wireAction
	require.NoError(t, c.request("codeAction/resolve", codeActions(c, u, rng(7, 0, 7, 0))[0], &resolved))
	require.Equal(t, "Accept this change", resolved.Title)
	applyLocally(c, resolved.Edit)
	var res ext.CommandResult
	command(c, resolved.Command.Command, resolved.Command.Arguments[0], &res)
	assert.Equal(t, ext.StatusPartial, res.Status)
	waitHunks(c, "s", 0, ext.HunkPending, ext.HunkAccepted, ext.HunkPending)
	assert.Equal(t, strings.Replace(heldSrc, "return 2\n", "return 20\n", 1), c.buffer(u))
	assert.Empty(t, c.applyRequests())

	doc := c.didOpen("r.assistant.md", replaceUse("h.go", "------- SEARCH\n\treturn 3\n=======\n\treturn 3\n\t// three\n+++++++ REPLACE\n"))
	require.NoError(t, c.request("codeAction/resolve", codeActions(c, doc, rng(1, 0, 1, 0))[0], &resolved))
	require.Equal(t, "Apply replace_in_file to h.go", resolved.Title)
	applyLocally(c, resolved.Edit)
	command(c, resolved.Command.Command, resolved.Command.Arguments[0], &res)
	assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, 1, strings.Count(c.buffer(u), "// three"), "the REPLACE text keeps the SEARCH text, yet it is not applied twice")
	assert.Empty(t, c.applyRequests())
}

// TestWireResponseDocumentUnderReview: with review on, applying a response document's edits
// holds them in their targets; their hunks are decided with the {uri, index, hunk} forms (and
// {uri, index, section, hunk} for a section applied alone), and code lenses sit above them.
func TestWireResponseDocumentUnderReview(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
	u := c.didOpen("h.go", heldSrc)
	doc := c.didOpen("r.assistant.md", "Two changes.\n\n"+replaceUse("h.go", heldDiff))
	var all ext.ApplyAllResult
	command(c, ext.CommandApplyAll, map[string]any{"uri": doc}, &all)
	require.Len(t, all.Results, 1)
	assert.Equal(t, ext.StatusReady, all.Results[0].Status)
	assert.Empty(t, c.applyRequests(), "held, not sent")
	c.waitFor("three pending diagnostics", func() bool { return len(c.diagnostics(u)) == 3 })
	assert.Equal(t, "replace_in_file (r.assistant.md, block 1) proposes:\n\treturn 20", c.diagnostics(u)[1].Message)

	var lenses []struct {
		Range   wireRange `json:"range"`
		Command struct {
			Title     string            `json:"title"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	docRequest(c, "textDocument/codeLens", u, nil, &lenses)
	require.Len(t, lenses, 6)
	assert.Equal(t, "Accept this change", lenses[2].Command.Title)
	assert.Equal(t, rng(7, 0, 7, 0), lenses[2].Range)
	assert.JSONEq(t, `{"uri":"`+string(doc)+`","index":1,"hunk":1}`, string(lenses[2].Command.Arguments[0]))

	var res ext.CommandResult
	command(c, ext.CommandAcceptHunk, lenses[2].Command.Arguments[0], &res)
	assert.Equal(t, ext.StatusPartial, res.Status, res.Error)
	assert.Equal(t, strings.Replace(heldSrc, "return 2\n", "return 20\n", 1), c.buffer(u))
	command(c, ext.CommandRejectAll, map[string]any{"uri": doc, "index": 1}, &res)
	assert.Equal(t, ext.StatusPartial, res.Status)
	c.waitFor("no pending diagnostics", func() bool { return len(c.diagnostics(u)) == 0 })

	// A section applied alone is held as an edit of its own.
	command(c, ext.CommandApply, map[string]any{"uri": doc, "index": 1, "section": 3}, &res)
	assert.Equal(t, ext.StatusReady, res.Status, res.Error)
	c.waitFor("the section's pending hunk", func() bool { return len(c.diagnostics(u)) == 1 })
	acts := codeActions(c, u, rng(11, 0, 11, 0))
	require.NotEmpty(t, acts)
	assert.JSONEq(t, `{"uri":"`+string(doc)+`","index":1,"section":3,"hunk":0}`, string(acts[0].Command.Arguments[0]))
	command(c, ext.CommandAcceptHunk, acts[0].Command.Arguments[0], &res)
	assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, strings.NewReplacer("return 2\n", "return 20\n", "return 3\n", "return 30\n").Replace(heldSrc), c.buffer(u))
	assert.Len(t, c.applyRequests(), 2)
}

// TestWireHeldNewFile: a held write_to_file of a file that does not exist yet is one insertion,
// shown on the new file's URI; accepting it creates the file with its content.
func TestWireHeldNewFile(t *testing.T) {
	t.Parallel()
	for _, p := range []clientProfile{profileHelix, profileNeovim07} {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
			streamMessage(c, "s", writeUse("new/n.go", "package n\n\n// N is new.\nconst N = 1\n\nconst M = 2\n"), 30)
			waitHunks(c, "s", 0, ext.HunkPending)
			u := c.uri("new/n.go")
			c.waitFor("the new file's pending hunk", func() bool { return len(c.diagnostics(u)) == 1 })
			assert.Equal(t, []diagSummary{{rng(0, 0, 0, 0), sevInfo, ext.CodePending,
				"write_to_file (s#0) proposes to insert before this line:\npackage n\n\n// N is new.\n… (3 more lines)"}}, pendingSummary(t, c, u))
			_, err := os.Stat(c.path("new/n.go"))
			assert.True(t, os.IsNotExist(err), "nothing is created before the hunk is accepted")

			var res ext.CommandResult
			command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 0}, &res)
			assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
			assert.Equal(t, "package n\n\n// N is new.\nconst N = 1\n\nconst M = 2\n", c.buffer(u))
		})
	}
}

// TestWireHeldEditDroppedWithItsStream: a stream that starts over drops its held edits, and
// their diagnostics go.
func TestWireHeldEditDroppedWithItsStream(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"review": true}), withServerOptions(Options{diagnosticsDelay: -1}))
	u := c.didOpen("h.go", heldSrc)
	c.notify("assistant/parse", map[string]any{"stream": "s", "delta": replaceUse("h.go", heldDiff)})
	c.waitFor("three pending diagnostics", func() bool { return len(c.diagnostics(u)) == 3 })
	c.notify("assistant/parse", map[string]any{"stream": "s", "text": "Something else entirely."})
	c.waitFor("the diagnostics cleared", func() bool { return len(c.diagnostics(u)) == 0 })
	err := c.request("workspace/executeCommand", map[string]any{"command": ext.CommandAcceptAll,
		"arguments": []any{map[string]any{"stream": "s", "index": 0}}}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
}
