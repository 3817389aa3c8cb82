package lsp

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/internal/lspclient"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// applyAnswer is the result of assistant/apply or resolveEdit as the client decodes it.
type applyAnswer struct {
	Status ext.EditStatus  `json:"status"`
	Error  string          `json:"error"`
	Edit   json.RawMessage `json:"edit"`
}

// These tests pin edits that an independent review of the pipeline found lost, doubled or
// misreported; each failed before its fix.

const threeFuncs = "package p\n\nfunc a() {}\n\nfunc b() {}\n\nfunc c() {}\n"

// TestWireSkippedDeletionIsNotApplied: Neovim 0.7 answers applied: true to an edit it skipped.
// A deletion between repeated lines is not taken for applied, and can be applied again.
func TestWireSkippedDeletionIsNotApplied(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileNeovim07, withVerifyTimeout(10*time.Millisecond))
	u := c.didOpen("a.go", threeFuncs)
	c.setApplyPolicy(func(n int, _ json.RawMessage) applyDecision { return applyDecision{Lie: n == 1} })
	streamMessage(c, "m", replaceUse("a.go", diff("func b() {}\n\n", "")), 50)
	st := waitSettled(c, "m", 0)
	assert.Equal(t, ext.StatusFailed, st.Status)
	var res applyAnswer
	require.NoError(t, c.request(ext.MethodApply, map[string]any{"stream": "m", "index": 0}, &res))
	assert.Len(t, c.applyRequests(), 2, "the edit was skipped as already applied")
	c.waitFor("the deletion", func() bool { return c.buffer(u) == "package p\n\nfunc a() {}\n\nfunc c() {}\n" })
}

// TestWireRestartWhileApplyingSendsOnce: a stream that starts over while its edit is with the
// client waits for the client's answer; the restarted text's same edit is then found in place.
func TestWireRestartWhileApplyingSendsOnce(t *testing.T) {
	t.Parallel()
	for _, p := range allProfiles {
		t.Run(string(p), func(t *testing.T) {
			c := newTestClient(t, p)
			u := c.didOpen("f.txt", "a\nz\n")
			release := make(chan struct{})
			c.setApplyPolicy(func(n int, _ json.RawMessage) applyDecision {
				if n == 1 {
					return applyDecision{Wait: release}
				}
				return applyDecision{}
			})
			use := replaceUse("f.txt", diff("a\n", "a\nb\n"))
			require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "text": "First.\n" + use}, nil))
			c.waitFor("the first applyEdit", func() bool { return len(c.applyRequests()) == 1 })
			require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "text": "Again.\n" + use, "final": true}, nil))
			assert.Never(t, func() bool { return len(c.applyRequests()) > 1 }, 200*time.Millisecond, 10*time.Millisecond,
				"a second applyEdit while the first is with the client")
			close(release)
			st := waitSettled(c, "m", 1)
			assert.Equal(t, ext.StatusApplied, st.Status, st.Error)
			assert.Equal(t, "a\nb\nz\n", c.buffer(u))
			assert.Len(t, c.applyRequests(), 1)
		})
	}
}

// TestWireRestartedInsertionNotTwice: an insertion after an anchor line, whose SEARCH text
// still stands after the edit, is not inserted again when its stream starts over.
func TestWireRestartedInsertionNotTwice(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	u := c.didOpen("a.go", goSrc)
	use := replaceUse("a.go", diff("func A() int {\n", "func A() int {\n\t// inserted\n"))
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "text": "First.\n" + use}, nil))
	require.Equal(t, ext.StatusApplied, waitSettled(c, "m", 1).Status)
	want := strings.Replace(goSrc, "func A() int {\n", "func A() int {\n\t// inserted\n", 1)
	c.waitFor("the edit in the buffer", func() bool { return c.buffer(u) == want })
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "text": "Again.\n" + use, "final": true}, nil))
	c.waitFor("the restarted text", func() bool {
		bs := c.blocks("m")
		return len(bs) >= 2 && bs[0].Content != nil && strings.HasPrefix(*bs[0].Content, "Again")
	})
	assert.Equal(t, ext.StatusApplied, waitSettled(c, "m", 1).Status)
	assert.Len(t, c.applyRequests(), 1)
	assert.Equal(t, want, c.buffer(u))
}

// TestWireApplyAfterRejectKeepsUserTyping: applying by request a whole-content write that was
// rejected still merges what the user typed while the model wrote.
func TestWireApplyAfterRejectKeepsUserTyping(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	base := join([]string{"line 0", "line 1", "line 2", "line 3", "line 4"})
	model := join([]string{"line 0", "model 1", "line 2", "line 3", "line 4"})
	user := join([]string{"line 0", "line 1", "line 2", "line 3", "user 4"})
	u := c.didOpen("a.txt", base)
	c.setApplyPolicy(func(n int, _ json.RawMessage) applyDecision {
		if n == 1 {
			return applyDecision{Reject: "not now"}
		}
		return applyDecision{}
	})
	msg := writeUse("a.txt", model)
	cut := strings.Index(msg, "<content>") + len("<content>\n") + 3
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "delta": msg[:cut]})
	c.waitFor("the streaming target", func() bool { return editStatus(c, "s", 0).URI == u })
	c.didChange(u, user)
	c.notify(ext.MethodParse, map[string]any{"stream": "s", "delta": msg[cut:], "final": true})
	require.Equal(t, ext.StatusRejected, waitSettled(c, "s", 0).Status)
	var res applyAnswer
	require.NoError(t, c.request(ext.MethodApply, map[string]any{"stream": "s", "index": 0}, &res))
	require.Equal(t, ext.StatusApplied, res.Status, res.Error)
	assert.Equal(t, join([]string{"line 0", "model 1", "line 2", "line 3", "user 4"}), c.buffer(u), "the user's line 4 was overwritten")
}

// TestWireOneFileTwoSpellings: one text block whose two Aider edits name one file by two
// spellings edits it once, with both changes, and a restart afterwards does not hang exit.
func TestWireOneFileTwoSpellings(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"textFormats": []string{"cline", "aider"}}))
	u := c.didOpen("a.go", "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n")
	msg := "a.go\n```go\n<<<<<<< SEARCH\n\treturn 1\n=======\n\treturn 10\n>>>>>>> REPLACE\n```\n\n" +
		"./a.go\n```go\n<<<<<<< SEARCH\n\treturn 2\n=======\n\treturn 20\n>>>>>>> REPLACE\n```\nDone."
	streamMessage(c, "s", msg, 1<<20)
	st := waitSettled(c, "s", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, "package a\n\nfunc A() int {\n\treturn 10\n}\n\nfunc B() int {\n\treturn 20\n}\n", c.buffer(u))
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "t", "text": msg}, nil))
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "t", "text": "Something else."}, nil))
	r := c.exit(true)
	assert.Zero(t, r.code)
}

// TestWireResolveEditLeavesBlockState: resolveEdit of a held block computes its edit without
// touching the block, also after the stream's modelId changed.
func TestWireResolveEditLeavesBlockState(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"autoApply": false}))
	c.didOpen("a.go", goSrc)
	use := replaceUse("a.go", diff("\treturn 1\n", "\treturn 10\n"))
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "delta": "Hi.\n" + use}, nil))
	require.Equal(t, ext.StatusReady, waitSettled(c, "m", 1).Status)
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "delta": "More text.", "modelId": "gpt-5"}, nil))
	var res applyAnswer
	require.NoError(t, c.request(ext.MethodResolveEdit, map[string]any{"stream": "m", "index": 1}, &res))
	assert.Equal(t, ext.StatusReady, res.Status)
	assert.Contains(t, string(res.Edit), "documentChanges")
	var pr ext.ParseResult
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "delta": ""}, &pr))
	assert.Equal(t, ext.StatusReady, pr.Blocks[1].Edit.Status)
	assert.Empty(t, c.applyRequests())
}

// TestWireCancelledApplyIsFollowed: an assistant/apply request cancelled while its applyEdit is
// with the client is answered at once as cancelled; the client's later answer is still
// followed, and the block ends applied rather than applying for good.
func TestWireCancelledApplyIsFollowed(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"autoApply": false}))
	u := c.didOpen("a.go", goSrc)
	release := make(chan struct{})
	c.setApplyPolicy(func(int, json.RawMessage) applyDecision { return applyDecision{Wait: release} })
	require.NoError(t, c.request(ext.MethodParse, map[string]any{"stream": "m", "delta": "Hi.\n" + replaceUse("a.go", diff("\treturn 1\n", "\treturn 10\n"))}, nil))
	require.Equal(t, ext.StatusReady, waitSettled(c, "m", 1).Status)
	c.rawRequest("r1", ext.MethodApply, map[string]any{"stream": "m", "index": 1})
	c.waitFor("the applyEdit", func() bool { return len(c.applyRequests()) == 1 })
	c.notify("$/cancelRequest", map[string]any{"id": "r1"})
	c.waitFor("the cancelled answer", func() bool { _, ok := c.rawResponse("r1"); return ok })
	close(release)
	c.waitFor("the block applied", func() bool { return editStatus(c, "m", 1).Status == ext.StatusApplied })
	assert.Equal(t, strings.Replace(goSrc, "return 1\n", "return 10\n", 1), c.buffer(u))
}

// TestEditorOverlayChainAfterEarlierOpen: edits of a file the client applied without opening
// it build on each other, also when the document had been opened and closed before.
func TestEditorOverlayChainAfterEarlierOpen(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	f.open("a.go", goSrc, 1)
	f.docs.Close(f.uri("a.go"))
	var mu sync.Mutex
	buffer := goSrc
	f.client.answer = func(_ int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		mu.Lock()
		defer mu.Unlock()
		tde := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
		var tes []protocol.TextEdit
		for _, el := range tde.Edits {
			tes = append(tes, el.(*protocol.AnnotatedTextEdit).TextEdit)
		}
		next, err := lspclient.ApplyTextEdits(buffer, tes, protocol.PositionEncodingKindUTF16)
		require.NoError(t, err)
		buffer = next
		return protocol.ApplyWorkspaceEditResult{Applied: true}
	}
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("package a\n", "package a\n\nimport \"fmt\"\n"), false))
	f.waitStatus("s", 0, ext.StatusApplied)
	f.push("s", 1, toolBlock(toolReplace, "a.go", diff("\treturn 2\n", "\tfmt.Println()\n\treturn 2\n"), false))
	f.waitStatus("s", 1, ext.StatusApplied)
	f.push("s", 2, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
	f.waitStatus("s", 2, ext.StatusApplied)
	mu.Lock()
	defer mu.Unlock()
	want := strings.NewReplacer("package a\n", "package a\n\nimport \"fmt\"\n", "\treturn 2\n", "\tfmt.Println()\n\treturn 2\n", "\treturn 1\n", "\treturn 10\n").Replace(goSrc)
	assert.Equal(t, want, buffer)
}
