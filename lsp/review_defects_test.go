package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// These tests pin the review defects of issue 16, each through the wire.

// executeCommand runs workspace/executeCommand with one argument and returns its error.
func executeCommand(c *testClient, name string, arg any, result any) error {
	return c.request("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, result)
}

// TestWireResponseCommandsRefuseOtherDocuments (issue 16, item 11): the response-document forms
// of assistant.apply and assistant.applyAll act on response documents only; an ordinary file
// whose text holds an edit, open or not, and a file outside the workspace are InvalidParams, and
// nothing is applied. Bad indexes and sections are InvalidParams too.
func TestWireResponseCommandsRefuseOtherDocuments(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: -1}))
	target := c.didOpen("t.txt", "safe\n")
	payload := replaceUse("t.txt", "------- SEARCH\nsafe\n=======\nPWNED\n+++++++ REPLACE\n")
	open := c.didOpen("a.txt", payload)
	closed := c.uri("b.txt")
	require.NoError(t, os.WriteFile(c.path("b.txt"), []byte(payload), 0o644))
	doc := c.didOpen("r.assistant.md", payload)

	for _, u := range []uri.URI{open, closed, uri.File("/etc/passwd")} {
		var res ext.CommandResult
		err := executeCommand(c, ext.CommandApply, map[string]any{"uri": u, "index": 0}, &res)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "apply on %s: %v", u, res)
		var all ext.ApplyAllResult
		err = executeCommand(c, ext.CommandApplyAll, map[string]any{"uri": u}, &all)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "applyAll on %s: %v", u, all)
		err = c.request(ext.MethodApply, map[string]any{"uri": u, "index": 0}, &res)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "assistant/apply on %s", u)
	}
	for _, arg := range []map[string]any{
		{"uri": doc, "index": -1}, {"uri": doc, "index": 1}, {"uri": doc, "index": 0, "section": 0},
		{"uri": doc, "index": 0, "section": -1}, {"uri": doc, "index": 0, "section": 2},
	} {
		err := executeCommand(c, ext.CommandApply, arg, nil)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "%v", arg)
	}
	assert.Empty(t, c.applyRequests())
	assert.Equal(t, "safe\n", c.buffer(target))

	var res ext.CommandResult
	require.NoError(t, executeCommand(c, ext.CommandApply, map[string]any{"uri": doc, "index": 0}, &res))
	assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, "PWNED\n", c.buffer(target))
}

// heldReview opens h.go, streams heldDiff to stream s under review and waits for its three
// pending hunks.
func heldReview(t *testing.T, opts ...clientOption) (*testClient, uri.URI) {
	c := newTestClient(t, profileHelix, append([]clientOption{withInitOptions(map[string]any{"review": true}),
		withServerOptions(Options{diagnosticsDelay: -1})}, opts...)...)
	u := c.didOpen("h.go", heldSrc)
	streamMessage(c, "s", replaceUse("h.go", heldDiff), 40)
	waitHunks(c, "s", 0, ext.HunkPending, ext.HunkPending, ext.HunkPending)
	return c, u
}

// TestWireHunkCommandsCheckTheirArguments (issue 16, item 7): a hunk number out of range, -1
// included, is InvalidParams for every hunk command, on a stream's held edit and on a response
// document's, and the server goes on answering: code actions, lenses, a didChange of the
// reviewed document, the commands themselves.
func TestWireHunkCommandsCheckTheirArguments(t *testing.T) {
	t.Parallel()
	c, u := heldReview(t)
	doc := c.didOpen("r.assistant.md", replaceUse("h.go", "------- SEARCH\nfunc C() int {\n=======\nfunc C() int64 {\n+++++++ REPLACE\n"))
	var res ext.CommandResult
	command(c, ext.CommandApply, map[string]any{"uri": doc, "index": 0}, &res)
	assert.Equal(t, ext.StatusReady, res.Status, res.Error)
	for _, cmd := range []string{ext.CommandAcceptHunk, ext.CommandRejectHunk} {
		for _, arg := range []map[string]any{
			{"stream": "s", "index": 0, "hunk": -1}, {"stream": "s", "index": 0, "hunk": 3},
			{"stream": "s", "index": -1, "hunk": 0}, {"uri": doc, "index": 0, "hunk": -1},
			{"uri": doc, "index": 0, "hunk": 1}, {"uri": doc, "index": -1, "hunk": 0},
		} {
			err := executeCommand(c, cmd, arg, nil)
			assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err), "%s %v: %v", cmd, arg, err)
		}
	}
	assert.NotEmpty(t, codeActions(c, u, rng(3, 0, 3, 0)))
	var lenses []any
	docRequest(c, "textDocument/codeLens", u, nil, &lenses)
	assert.NotEmpty(t, lenses)
	c.didChange(u, "// typed\n"+c.buffer(u))
	c.waitFor("the hunks to follow the typing", func() bool {
		ds := c.diagnostics(u)
		return len(ds) == 4 && ds[0].Range.Start.Line == 11 && ds[1].Range.Start.Line == 4
	})
	command(c, ext.CommandAcceptHunk, map[string]any{"stream": "s", "index": 0, "hunk": 0}, &res)
	assert.Equal(t, ext.StatusPartial, res.Status, res.Error)
	command(c, ext.CommandRejectHunk, map[string]any{"uri": doc, "index": 0, "hunk": 0}, &res)
	assert.Equal(t, ext.StatusRejected, res.Status, res.Error)
}

// TestResponseAnalysisConcurrent (issue 16, item 9): the analysis of one response document's
// edits, cache included, may run on several goroutines at once (the publisher's timer and a
// request); under -race this fails when the cache is unguarded.
func TestResponseAnalysisConcurrent(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte(reviewTarget), 0o644))
	ws, _ := paths.NewWorkspace([]string{dir})
	s := settings{Config: defaultConfig(), Caps: clientCaps{Encoding: protocol.PositionEncodingKindUTF16}, Workspace: ws}
	ed := newEditor(editorDeps{Docs: docs.New(), Settings: func() settings { return s }})
	defer ed.shutdown()
	pr := parseResponse(parse.New(s.Config.parseConfig()), strings.ReplaceAll(reviewAnswer, "src/a.go", "a.go"))
	u := uri.File(filepath.Join(dir, "r.assistant.md"))
	want, _ := analyseResponse(ed, u, pr, dir, s, protocol.PositionEncodingKindUTF16)
	var wg sync.WaitGroup
	for i := range 4 {
		// Each goroutine analyses with other settings, so that each call replaces the cache.
		si := s
		si.Config.DiffVersion = []apply.Version{apply.V1, apply.V2}[i%2]
		enc := []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16, protocol.PositionEncodingKindUTF8}[i/2]
		wg.Go(func() {
			for range 20 {
				got, _ := analyseResponse(ed, u, pr, dir, si, enc)
				assert.Len(t, got, len(want))
			}
		})
	}
	wg.Wait()
}

// TestWireResponseCodeActionsWhileTyping (issue 16, item 9) runs the real debounce: code
// actions and lenses on a response document are asked for while its target and the document
// itself change, so that analyses on the timers' goroutines and on the requests' overlap
// (under -race). The diagnostics end as the last contents say.
func TestWireResponseCodeActionsWhileTyping(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: time.Millisecond}))
	target := c.didOpen("src/a.go", reviewTarget)
	doc := c.didOpen("answer.assistant.md", reviewAnswer)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 30 {
			assert.NotEmpty(t, codeActions(c, doc, rng(32, 0, 32, 0)), "round %d", i)
			var lenses []any
			docRequest(c, "textDocument/codeLens", doc, nil, &lenses)
		}
	})
	for i := range 30 {
		c.didChange(target, reviewTarget+strings.Repeat("// more\n", i))
		if i%5 == 0 {
			c.didChange(doc, reviewAnswer+strings.Repeat("\nmore text", i))
		}
	}
	wg.Wait()
	c.didChange(target, reviewTarget)
	c.didChange(doc, reviewAnswer)
	c.waitFor("the diagnostics of the last contents", func() bool { return len(c.diagnostics(doc)) == 3 })
}

// hunkCmd runs a hunk command on hunk i of stream s's block 0.
func hunkCmd(c *testClient, name string, i int) (ext.CommandResult, error) {
	var res ext.CommandResult
	err := executeCommand(c, name, map[string]any{"stream": "s", "index": 0, "hunk": i}, &res)
	return res, err
}

// TestWireRejectWhileAcceptInFlight (issue 16, item 10): a reject of a hunk whose accept is in
// flight waits for the accept's outcome. The client holds its answer to the applyEdit until
// the reject has reached the server; the hunk then ends accepted, its change in the document,
// and the reject changes nothing.
func TestWireRejectWhileAcceptInFlight(t *testing.T) {
	t.Parallel()
	c, u := heldReview(t)
	release := make(chan struct{})
	c.setApplyPolicy(func(int, json.RawMessage) applyDecision { return applyDecision{Wait: release} })
	accepted := make(chan ext.CommandResult, 1)
	go func() {
		res, err := hunkCmd(c, ext.CommandAcceptHunk, 0)
		assert.NoError(t, err)
		accepted <- res
	}()
	c.waitFor("the applyEdit", func() bool { return len(c.applyRequests()) == 1 })
	rejected := make(chan ext.CommandResult, 1)
	go func() {
		res, err := hunkCmd(c, ext.CommandRejectHunk, 0)
		assert.NoError(t, err)
		rejected <- res
	}()
	// The reject has arrived when it waits for the accept, or (the defect) once it is answered.
	waits := func() bool { return c.logs.FilterMessage("a hunk decision waits for the accept in flight").Len() > 0 }
	for !waits() && len(rejected) == 0 {
		require.NoError(t, ping(c))
	}
	close(release)
	assert.Equal(t, ext.StatusPartial, (<-accepted).Status)
	assert.Equal(t, ext.StatusPartial, (<-rejected).Status)
	want := strings.Replace(heldSrc, "return 1\n", "return 10\n", 1)
	c.waitFor("the change in the document", func() bool { return c.buffer(u) == want })
	waitHunks(c, "s", 0, ext.HunkAccepted, ext.HunkPending, ext.HunkPending)
}

// TestWireAcceptRejectInterleavingsProperty (issue 16, item 10): over random interleavings of
// accepts and rejects of the three hunks, sent at once, the document ends as the original plus
// exactly the hunks that ended accepted, and no hunk stays pending that was decided.
func TestWireAcceptRejectInterleavingsProperty(t *testing.T) {
	t.Parallel()
	changes := []struct{ from, to string }{{"return 1\n", "return 10\n"}, {"return 2\n", "return 20\n"}, {"return 3\n", "return 30\n"}}
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rnd := rand.New(rand.NewPCG(seed, 16))
			c, u := heldReview(t)
			// Every applyEdit is held until all the commands have reached the server, so that
			// accepts are in flight while the other decisions arrive.
			release := make(chan struct{})
			c.setApplyPolicy(func(int, json.RawMessage) applyDecision { return applyDecision{Wait: release} })
			var ids []string
			for n := range 6 {
				cmd := []string{ext.CommandAcceptHunk, ext.CommandRejectHunk}[rnd.IntN(2)]
				id := fmt.Sprintf("cmd-%d", n)
				ids = append(ids, id)
				c.rawRequest(id, "workspace/executeCommand", map[string]any{"command": cmd,
					"arguments": []any{map[string]any{"stream": "s", "index": 0, "hunk": rnd.IntN(3)}}})
			}
			require.NoError(t, ping(c))
			close(release)
			c.waitFor("every command's answer", func() bool {
				for _, id := range ids {
					if _, ok := c.rawResponse(id); !ok {
						return false
					}
				}
				return true
			})
			for _, id := range ids {
				raw, _ := c.rawResponse(id)
				assert.NotContains(t, string(raw), `"error"`, id)
			}
			st := editStatus(c, "s", 0)
			c.waitFor("the pushed state to match the answers", func() bool {
				st = editStatus(c, "s", 0)
				want := heldSrc
				for i, h := range st.Hunks {
					if h.Status == ext.HunkAccepted {
						want = strings.Replace(want, changes[i].from, changes[i].to, 1)
					}
				}
				return c.buffer(u) == want
			})
			for _, h := range st.Hunks {
				assert.NotEqual(t, ext.HunkStale, h.Status)
			}
		})
	}
}

// insertingAnswer is a response document whose one block inserts a line after each of two
// lines, so that its SEARCH texts still match once it is applied.
const insertingAnswer = "Two insertions.\n\n<replace_in_file>\n<path>src/a.go</path>\n<diff>\n" +
	"------- SEARCH\nfunc One() int {\n=======\nfunc One() int {\n\t// one\n+++++++ REPLACE\n" +
	"------- SEARCH\nfunc Two() int {\n=======\nfunc Two() int {\n\t// two\n+++++++ REPLACE\n" +
	"</diff>\n</replace_in_file>\n"

// TestWireResponseBlockNeverAppliedTwiceProperty (issue 16, item 3): whatever the order of
// assistant.apply on the block, on each of its sections, assistant.applyAll and
// assistant/apply, repeated, each insertion of a response document's block is made once.
func TestWireResponseBlockNeverAppliedTwiceProperty(t *testing.T) {
	t.Parallel()
	want := strings.NewReplacer("func One() int {\n", "func One() int {\n\t// one\n", "func Two() int {\n", "func Two() int {\n\t// two\n").Replace(reviewTarget)
	steps := []struct {
		name string
		run  func(c *testClient, doc uri.URI) error
	}{
		{"block", func(c *testClient, doc uri.URI) error {
			return executeCommand(c, ext.CommandApply, map[string]any{"uri": doc, "index": 1}, nil)
		}},
		{"section 1", func(c *testClient, doc uri.URI) error {
			return executeCommand(c, ext.CommandApply, map[string]any{"uri": doc, "index": 1, "section": 1}, nil)
		}},
		{"section 2", func(c *testClient, doc uri.URI) error {
			return c.request(ext.MethodApply, map[string]any{"uri": doc, "index": 1, "section": 2}, nil)
		}},
		{"applyAll", func(c *testClient, doc uri.URI) error {
			return executeCommand(c, ext.CommandApplyAll, map[string]any{"uri": doc}, nil)
		}},
		{"assistant/apply", func(c *testClient, doc uri.URI) error {
			return c.request(ext.MethodApply, map[string]any{"uri": doc, "index": 1}, nil)
		}},
	}
	// The orders of the issue first (the block twice, a section then its block, the block then
	// a section), then random ones.
	orders := [][]int{{0, 0}, {1, 0}, {0, 1}, {1, 2, 0}, {2, 3}, {4, 1, 4}}
	rnd := rand.New(rand.NewPCG(16, 3))
	for range 16 {
		order := make([]int, 2+rnd.IntN(5))
		for i := range order {
			order[i] = rnd.IntN(len(steps))
		}
		orders = append(orders, order)
	}
	for n, order := range orders {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, profileHelix, withServerOptions(Options{diagnosticsDelay: -1}))
			target := c.didOpen("src/a.go", reviewTarget)
			doc := c.didOpen("ins.assistant.md", insertingAnswer)
			var names []string
			for _, i := range order {
				st := steps[i]
				names = append(names, st.name)
				require.NoError(t, st.run(c, doc), "%v", names)
			}
			// Whatever was applied, apply everything once more: the block is then whole, once.
			require.NoError(t, steps[0].run(c, doc))
			require.NoError(t, steps[3].run(c, doc))
			assert.Equal(t, want, c.buffer(target), "after %v", names)
		})
	}
}
