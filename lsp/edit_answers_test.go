package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
)

// These tests cover how the server follows the client's answers to workspace/applyEdit as real
// editors give them (contract section 4): error answers, late didChanges, typing users,
// confirmation dialogs, and streams dropped while their edits wait.

// typeLocally changes a document in the client's buffer without telling the server, as an
// editor does until it sends its next didChange, and returns the new version.
func (c *testClient) typeLocally(rel string, edit func(string) string) (string, int32) {
	text, version, err := c.cl.TypeLocally(c.uri(rel), edit)
	if err != nil {
		c.t.Errorf("typeLocally: %v", err)
	}
	return text, version
}

const answersSrc = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"

// TestWireErrorAnswerVersionMismatch: eglot answers an edit built on an old version with a
// JSON-RPC error naming the versions and sends its didChange about 0.5 s later. The server waits
// for it, recomputes and sends the edit again; the buffer holds the user's typing and the edit.
func TestWireErrorAnswerVersionMismatch(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	u := c.didOpen("a.go", answersSrc)
	c.setApplyPolicy(func(n int, _ json.RawMessage) applyDecision {
		if n > 1 {
			return applyDecision{}
		}
		text, v := c.typeLocally("a.go", func(s string) string { return "// typed\n" + s })
		time.AfterFunc(300*time.Millisecond, func() { c.sendChange(u, text, v) })
		return applyDecision{Err: jsonrpc2.NewError(jsonrpc2.InternalError,
			fmt.Sprintf("Edits on `a.go' require version 1, you have %d", v))}
	})
	streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"), 40)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Len(t, c.applyRequests(), 2)
	assert.Equal(t, "// typed\n"+strings.Replace(answersSrc, "return 1", "return 10", 1), c.buffer(u))
}

// TestWireErrorAnswerIsRefusal: a user's "no" given as a JSON-RPC error is rejected, with the
// client's words, not failed as if the editor had not answered.
func TestWireErrorAnswerIsRefusal(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			u := c.didOpen("a.go", answersSrc)
			c.setApplyPolicy(func(int, json.RawMessage) applyDecision {
				return applyDecision{Err: jsonrpc2.NewError(jsonrpc2.InternalError, "User cancelled server edit")}
			})
			streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"), 40)
			st := waitSettled(c, "s", 0)
			assert.Equal(t, ext.StatusRejected, st.Status)
			assert.Equal(t, "User cancelled server edit", st.Error)
			assert.Contains(t, st.ToolResult, "The user rejected replace_in_file a.go (User cancelled server edit)")
			assert.Len(t, c.applyRequests(), 1, "a refusal without a newer version is not retried")
			assert.Equal(t, answersSrc, c.buffer(u))
		})
	}
}

// TestWireLateDidChangeTurnsApplied: eglot sends didChange only once the user pauses typing, so
// the edit shows up after the verification window. The status is failed meanwhile, then
// applied once the didChange brings the edit. The client answers applied and sends the
// didChange itself only once the test saw the edit failed.
func TestWireLateDidChangeTurnsApplied(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withVerifyTimeout(10*time.Millisecond))
	u := c.didOpen("a.go", answersSrc)
	c.setApplyPolicy(func(int, json.RawMessage) applyDecision { return applyDecision{Lie: true} })
	streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"), 40)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusFailed, st.Status)
	c.didChange(u, strings.Replace(answersSrc, "return 1", "return 10", 1))
	c.waitFor("the late didChange to turn the edit applied", func() bool {
		return editStatus(c, "s", 0).Status == ext.StatusApplied
	})
	assert.Equal(t, strings.Replace(answersSrc, "return 1", "return 10", 1), c.buffer(u))

	// Applying the block again now inserts nothing a second time.
	var res ext.ApplyResult
	require.NoError(t, c.request(ext.MethodApply, map[string]any{"stream": "s", "index": 0}, &res))
	assert.Equal(t, ext.StatusApplied, res.Status)
	assert.Len(t, c.applyRequests(), 1)
}

// TestWireTypingDuringApply: the user types in another line in the same moment the editor
// applies the edit, and one didChange brings both. The edit is applied, not failed.
func TestWireTypingDuringApply(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			u := c.didOpen("a.go", answersSrc)
			c.setApplyPolicy(func(int, json.RawMessage) applyDecision {
				return applyDecision{Typing: func(s string) string { return s + "// typed\n" }}
			})
			streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"), 40)
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, strings.Replace(answersSrc, "return 1", "return 10", 1)+"// typed\n", c.buffer(u))
			c.waitFor("the tool result", func() bool { return editStatus(c, "s", 0).ToolResult != "" })
			result := editStatus(c, "s", 0).ToolResult
			for _, want := range []string{"replace_in_file a.go was applied.", "The user also changed a.go", "-\treturn 1\n", "+\treturn 10\n", "+// typed\n"} {
				assert.Contains(t, result, want)
			}

			// The block is in place: applying it again sends nothing.
			var res ext.CommandResult
			require.NoError(t, c.request("workspace/executeCommand", map[string]any{
				"command": ext.CommandApply, "arguments": []any{map[string]any{"stream": "s", "index": 0}},
			}, &res))
			assert.Equal(t, ext.StatusApplied, res.Status)
			assert.Len(t, c.applyRequests(), 1)
		})
	}
}

// TestWireConfirmOneAtATime: VS Code shows one refactor preview at a time, so edits that ask for
// confirmation reach it one at a time, across documents; neither is lost.
func TestWireConfirmOneAtATime(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	ua := c.didOpen("a.go", answersSrc)
	ub := c.didOpen("b.go", answersSrc)
	var inFlight, most atomic.Int32
	c.setApplyPolicy(func(int, json.RawMessage) applyDecision {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		wait := make(chan struct{})
		time.AfterFunc(100*time.Millisecond, func() { inFlight.Add(-1); close(wait) })
		return applyDecision{Wait: wait}
	})
	diff := "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"
	streamMessage(c, "s", replaceUse("a.go", diff)+replaceUse("b.go", diff), 1<<20)
	for i := range 2 {
		st := waitSettled(c, "s", i)
		require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	}
	assert.Equal(t, int32(1), most.Load(), "two confirmation edits were with the client at once")
	want := strings.Replace(answersSrc, "return 1", "return 10", 1)
	assert.Equal(t, want, c.buffer(ua))
	assert.Equal(t, want, c.buffer(ub))
}

// TestWireEvictionKeepsCompleteEdits: far more streams than the bound, each with one complete
// edit, and a client that answers after 30 ms. Eviction drops the streams' text, never their
// complete edits: every document ends edited.
func TestWireEvictionKeepsCompleteEdits(t *testing.T) {
	t.Parallel()
	const streams = 40
	c := newTestClient(t, profileHelix, withServerOptions(Options{MaxStreams: 4}))
	c.setApplyPolicy(func(int, json.RawMessage) applyDecision {
		wait := make(chan struct{})
		time.AfterFunc(30*time.Millisecond, func() { close(wait) })
		return applyDecision{Wait: wait}
	})
	want := strings.Replace(answersSrc, "return 1", "return 10", 1)
	var docs []string
	for i := range streams {
		rel := fmt.Sprintf("f%02d.go", i)
		c.didOpen(rel, answersSrc)
		docs = append(docs, rel)
	}
	for i, rel := range docs {
		streamMessage(c, fmt.Sprintf("s%d", i), replaceUse(rel, "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n"), 1<<20)
	}
	c.waitFor("every document to be edited", func() bool {
		for _, rel := range docs {
			if c.buffer(c.uri(rel)) != want {
				return false
			}
		}
		return true
	})
	assert.Len(t, c.applyRequests(), streams)
}

// TestWireTypingLoad: many edits while the user types every 2 ms into the documents' last
// lines. No edit is reported failed: each is applied, and is then in the buffer exactly once,
// or (a versioned client that kept moving past the one retry) rejected, and then not in it.
func TestWireTypingLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("load test")
	}
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			const docs, edits = 5, 8
			c := newTestClient(t, p)
			var src strings.Builder
			src.WriteString("package a\n\n")
			for i := range edits {
				fmt.Fprintf(&src, "func F%d() int {\n\treturn %d\n}\n\n", i, i)
			}
			var rels []string
			for d := range docs {
				rel := fmt.Sprintf("d%d.go", d)
				c.didOpen(rel, src.String())
				rels = append(rels, rel)
			}
			stop := make(chan struct{})
			var typing sync.WaitGroup
			typing.Go(func() {
				tick := time.NewTicker(2 * time.Millisecond)
				defer tick.Stop()
				for k := 0; ; k++ {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
					rel := rels[k%docs]
					text, v := c.typeLocally(rel, func(s string) string { return s + "x" })
					c.sendChange(c.uri(rel), text, v)
				}
			})
			for d, rel := range rels {
				var msg strings.Builder
				for i := range edits {
					msg.WriteString(replaceUse(rel, fmt.Sprintf("------- SEARCH\n\treturn %d\n=======\n\treturn %d\n+++++++ REPLACE\n", i, 100+i)))
				}
				streamMessage(c, fmt.Sprintf("s%d", d), msg.String(), 64)
			}
			states := map[string]ext.EditState{}
			for d := range docs {
				for i := range edits {
					states[fmt.Sprintf("%d/%d", d, i)] = waitSettled(c, fmt.Sprintf("s%d", d), i)
				}
			}
			close(stop)
			typing.Wait()
			applied := 0
			for d, rel := range rels {
				buf := c.buffer(c.uri(rel))
				for i := range edits {
					st := states[fmt.Sprintf("%d/%d", d, i)]
					n := strings.Count(buf, fmt.Sprintf("\treturn %d\n", 100+i))
					switch st.Status {
					case ext.StatusApplied:
						applied++
						assert.Equal(t, 1, n, "%s: edit %d applied, but in the buffer %d times", rel, i, n)
					case ext.StatusRejected:
						assert.NotEqual(t, profileNeovim07, p, "an unversioned client cannot refuse a stale edit")
						assert.Zero(t, n, "%s: edit %d rejected, but in the buffer", rel, i)
					default:
						t.Errorf("%s: edit %d ended %s: %s", rel, i, st.Status, st.Error)
					}
				}
			}
			t.Logf("%d of %d edits applied", applied, docs*edits)
		})
	}
}

// TestWireRefusedNewFileLeavesDiskAsItWas: the server creates the parent folders of a new file
// (and, for a client that cannot create files, the empty file itself); when the user says no,
// all of it is removed again.
func TestWireRefusedNewFileLeavesDiskAsItWas(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			c.setApplyPolicy(func(int, json.RawMessage) applyDecision {
				return applyDecision{Err: jsonrpc2.NewError(jsonrpc2.InternalError, "User cancelled server edit")}
			})
			streamMessage(c, "s", writeUse("new/dir/f.txt", "hello\n"), 1<<20)
			st := waitSettled(c, "s", 0)
			require.Equal(t, ext.StatusRejected, st.Status)
			_, err := os.Stat(c.path("new"))
			assert.True(t, os.IsNotExist(err), "new/ is still there: %v", err)
		})
	}
}

// TestWireToolResultOfFailure: a SEARCH that matches nothing gives the model the applier's
// error, nearest region included, as the tool result.
func TestWireToolResultOfFailure(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	c.didOpen("a.go", answersSrc)
	streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\nfunc A() int {\n\treturn 7\n=======\nfunc A() int { return 1 }\n+++++++ REPLACE\n"), 40)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusFailed, st.Status)
	assert.True(t, strings.HasPrefix(st.ToolResult, "replace_in_file a.go failed: "), st.ToolResult)
	assert.Contains(t, st.ToolResult, "did you mean lines 3-4?")
}

// TestWireToolResultOfUnopenedFiles: Neovim 0.7 and eglot apply an edit to a file they have not
// open by loading it, which sends didOpen with the old text before they answer, and bring the
// edit in a didChange afterwards. The tool result is the edit as made, not "the user also
// changed" the file with an empty diff (or a lone `+` line for a new file).
func TestWireToolResultOfUnopenedFiles(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			require.NoError(t, os.WriteFile(c.path("a.go"), []byte(answersSrc), 0o644))
			streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\n\treturn 1\n=======\n\treturn 10\n+++++++ REPLACE\n")+
				writeUse("new.txt", "hello\n"), 40)
			c.waitFor("the final push", func() bool { return c.final("s") })
			want := map[string]string{"a.go": "-\treturn 1\n+\treturn 10\n", "new.txt": "+hello\n"}
			for i, b := range c.blocks("s") {
				if b.Type != "tool_use" {
					continue
				}
				st := waitSettled(c, "s", i)
				require.Equal(t, ext.StatusApplied, st.Status, st.Error)
				assert.NotContains(t, st.ToolResult, "The user also changed")
				assert.Contains(t, st.ToolResult, want[b.Params["path"]])
				delete(want, b.Params["path"])
			}
			assert.Empty(t, want, "edits not seen")
		})
	}
}

// TestWireFailureMessageHint: the warning a user sees for a SEARCH that matches nothing carries
// the applier's hint, not only :AssistantBlocks or the log.
func TestWireFailureMessageHint(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	c.didOpen("a.go", answersSrc)
	streamMessage(c, "s", replaceUse("a.go", "------- SEARCH\nfunc A() int {\n\treturn 7\n=======\nfunc A() int { return 1 }\n+++++++ REPLACE\n"), 40)
	require.Equal(t, ext.StatusFailed, waitSettled(c, "s", 0).Status)
	c.waitFor("the warning", func() bool { return len(c.messages()) > 0 })
	msg := c.messages()[0].Message
	assert.True(t, strings.HasPrefix(msg, "replace_in_file a.go failed at SEARCH section 1: "), msg)
	assert.True(t, strings.HasSuffix(msg, "matching); did you mean lines 3-4? (93% similar)"), msg)
}
