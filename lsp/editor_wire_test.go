package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// streamMessage sends msg to the server as assistant/parse deltas of about chunk bytes (cut on
// rune boundaries), then final.
func streamMessage(c *testClient, stream, msg string, chunk int) {
	c.t.Helper()
	for len(msg) > 0 {
		n := min(chunk, len(msg))
		for n < len(msg) && !utf8.RuneStart(msg[n]) {
			n++
		}
		c.notify("assistant/parse", map[string]any{"stream": stream, "delta": msg[:n], "modelId": "claude-test"})
		msg = msg[n:]
	}
	c.notify("assistant/parse", map[string]any{"stream": stream, "final": true})
}

// editStatus returns the edit status of a block as the client was last told, or "".
func editStatus(c *testClient, stream string, index int) ext.EditState {
	bs := c.blocks(stream)
	if index >= len(bs) || bs[index].Edit == nil {
		return ext.EditState{}
	}
	return *bs[index].Edit
}

// waitSettled waits until the pushed edit of a block left streaming and applying, and returns it.
func waitSettled(c *testClient, stream string, index int) ext.EditState {
	c.t.Helper()
	c.waitFor(fmt.Sprintf("the edit of %s#%d to settle", stream, index), func() bool {
		st := editStatus(c, stream, index).Status
		return st != "" && st != ext.StatusStreaming && st != ext.StatusApplying
	})
	return editStatus(c, stream, index)
}

// replaceUse is a replace_in_file tool use as a model writes it.
func replaceUse(path, diff string) string {
	return "<replace_in_file>\n<path>" + path + "</path>\n<diff>\n" + diff + "</diff>\n</replace_in_file>\n"
}

// writeUse is a write_to_file tool use as a model writes it.
func writeUse(path, content string) string {
	return "<write_to_file>\n<path>" + path + "</path>\n<content>\n" + content + "</content>\n</write_to_file>\n"
}

// TestWireEditsPerProfile streams one message editing four documents (an open one with
// Japanese and emoji, an open CRLF one, a file only on disk, and a new file in new folders) to
// each client profile, and checks that the client's buffers end with exactly the intended
// content and that the pushed statuses progress in order.
func TestWireEditsPerProfile(t *testing.T) {
	t.Parallel()
	const jaSrc = "package a\n\n// 挨拶 👋 を返す\nfunc Hello() string {\n\treturn \"こんにちは 🌏\"\n}\n\nfunc Bye() string {\n\treturn \"さようなら\"\n}\n"
	const crlfSrc = "first line\r\nsecond line 🚀\r\nthird line\r\n"
	msg := "I'll edit the files.\n\n" +
		replaceUse("a.go", "------- SEARCH\n\treturn \"こんにちは 🌏\"\n=======\n\treturn \"こんばんは 🌙\" // 夜\n+++++++ REPLACE\n------- SEARCH\nfunc Bye() string {\n=======\n// Bye 👋\nfunc Bye() string {\n+++++++ REPLACE\n") +
		"Now the CRLF file.\n" +
		replaceUse("crlf.txt", "------- SEARCH\nsecond line 🚀\n=======\nsecond line 🛸\ninserted 行\n+++++++ REPLACE\n") +
		writeUse("disk.txt", "replaced 全部\n") +
		writeUse("new/dir/c.txt", "新しい 📄 file\nline two") +
		"Done."
	wantA := "package a\n\n// 挨拶 👋 を返す\nfunc Hello() string {\n\treturn \"こんばんは 🌙\" // 夜\n}\n\n// Bye 👋\nfunc Bye() string {\n\treturn \"さようなら\"\n}\n"
	wantCRLF := "first line\r\nsecond line 🛸\r\ninserted 行\r\nthird line\r\n"
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile)
			a := c.didOpen("a.go", jaSrc)
			crlf := c.didOpen("crlf.txt", crlfSrc)
			require.NoError(t, os.WriteFile(c.path("disk.txt"), []byte("old content\n"), 0o644))
			streamMessage(c, "m", msg, 7)
			indexes := map[string]int{}
			c.waitFor("the final push", func() bool { return c.final("m") })
			for i, b := range c.blocks("m") {
				if b.Type == "tool_use" {
					indexes[b.Params["path"]] = i
				}
			}
			require.Len(t, indexes, 4)
			for path, i := range indexes {
				st := waitSettled(c, "m", i)
				assert.Equal(t, ext.StatusApplied, st.Status, "%s: %s", path, st.Error)
				assert.Equal(t, c.uri(path), st.URI)
			}
			assert.Equal(t, wantA, c.buffer(a))
			assert.Equal(t, wantCRLF, c.buffer(crlf))
			c.waitFor("the client's buffers of the disk and new files", func() bool {
				return c.buffer(c.uri("disk.txt")) != "" && c.buffer(c.uri("new/dir/c.txt")) != ""
			})
			assert.Equal(t, "replaced 全部\n", c.buffer(c.uri("disk.txt")))
			assert.Equal(t, "新しい 📄 file\nline two\n", c.buffer(c.uri("new/dir/c.txt")))
			assert.Equal(t, "old content\n", readOrEmpty(c.path("disk.txt")), "the server never writes contents")

			st := editStatus(c, "m", indexes["a.go"])
			assert.Equal(t, []protocol.Position{{Line: 4, Character: 0}, {Line: 7, Character: 0}}, st.MatchPositions)

			order := map[ext.EditStatus]int{ext.StatusStreaming: 0, ext.StatusApplying: 1, ext.StatusApplied: 2}
			for _, i := range indexes {
				last := -1
				for _, p := range c.pushes("m") {
					for _, b := range p.Blocks {
						if b.Index == i && b.Edit != nil {
							rank, ok := order[b.Edit.Status]
							require.True(t, ok, "unexpected status %s", b.Edit.Status)
							require.GreaterOrEqual(t, rank, last, "statuses went backwards")
							last = rank
						}
					}
				}
			}
		})
	}
}

// readOrEmpty reads a file, "" when it cannot.
func readOrEmpty(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(data)
}

// TestWireReplaceProperty streams random SEARCH/REPLACE edits of random documents (LF and CRLF,
// with multi-byte text) to every profile: the client's buffer must end with exactly the
// applier's new content, with the inserted line breaks adapted to a CRLF document.
func TestWireReplaceProperty(t *testing.T) {
	t.Parallel()
	words := []string{"alpha", "ベータ", "γάμμα", "🙂", "delta", "\t", "x", "日本語", "👩‍💻", "end"}
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile)
			rng := rand.New(rand.NewPCG(7, uint64(len(profile))))
			for iter := range 8 {
				eol := "\n"
				if iter%2 == 1 {
					eol = "\r\n"
				}
				lines := make([]string, 12+rng.IntN(20))
				for i := range lines {
					var b strings.Builder
					fmt.Fprintf(&b, "%d:", i)
					for range 1 + rng.IntN(5) {
						b.WriteString(" " + words[rng.IntN(len(words))])
					}
					lines[i] = b.String()
				}
				original := strings.Join(lines, eol) + eol
				var d strings.Builder
				for at := 0; at < len(lines); {
					start := at + rng.IntN(4)
					if start >= len(lines) {
						break
					}
					end := min(len(lines), start+1+rng.IntN(3))
					d.WriteString("------- SEARCH\n" + strings.Join(lines[start:end], "\n") + "\n=======\n")
					for range rng.IntN(3) {
						d.WriteString("new " + words[rng.IntN(len(words))] + "\n")
					}
					if rng.IntN(2) == 0 {
						d.WriteString(lines[start] + "\n")
					}
					d.WriteString("+++++++ REPLACE\n")
					at = end
				}
				if iter%4 == 3 {
					// Half of the CRLF documents get their SEARCH and REPLACE lines with \r, as
					// a model copying the file would write them; the other half get \n only
					// (matched by the applier's line-trimmed fallback).
					d2 := strings.ReplaceAll(d.String(), "\n", "\r\n")
					d2 = strings.NewReplacer("------- SEARCH\r\n", "------- SEARCH\n", "=======\r\n", "=======\n", "+++++++ REPLACE\r\n", "+++++++ REPLACE\n").Replace(d2)
					d.Reset()
					d.WriteString(d2)
				}
				res, err := apply.Construct(d.String(), original, true, apply.V1)
				require.NoError(t, err)
				reps := append([]apply.Replacement(nil), res.Replacements...)
				for i := range reps {
					reps[i].Content = text.WithLineEnding(reps[i].Content, text.LineEnding(original))
				}
				want := apply.ApplyReplacements(original, reps)
				if eol == "\n" {
					require.Equal(t, res.NewContent, want)
				}
				name := fmt.Sprintf("f%d.txt", iter)
				u := c.didOpen(name, original)
				stream := fmt.Sprintf("p%d", iter)
				streamMessage(c, stream, "Editing.\n"+replaceUse(name, d.String()), 11)
				c.waitFor("the tool use", func() bool { return len(c.blocks(stream)) >= 2 })
				st := waitSettled(c, stream, 1)
				require.Equal(t, ext.StatusApplied, st.Status, st.Error)
				require.Equal(t, want, c.buffer(u), "iteration %d", iter)
			}
		})
	}
}

// TestWireNeovimSkippedEdit checks that an edit a client claims to have applied without
// applying it ends failed.
func TestWireNeovimSkippedEdit(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileNeovim07, withVerifyTimeout(10*time.Millisecond))
	u := c.didOpen("a.go", goSrc)
	c.setApplyPolicy(func(int, json.RawMessage) applyDecision { return applyDecision{Lie: true} })
	streamMessage(c, "m", replaceUse("a.go", diff("\treturn 1\n", "\treturn 10\n")), 50)
	c.waitFor("the tool use", func() bool { return len(c.blocks("m")) >= 1 })
	st := waitSettled(c, "m", 0)
	assert.Equal(t, ext.StatusFailed, st.Status)
	assert.Equal(t, verifyFailure, st.Error)
	assert.Equal(t, goSrc, c.buffer(u))
}

// TestWireRejectThenApply checks a rejected edit and that assistant/apply applies it later, and
// that a second assistant/apply does not apply it twice.
func TestWireRejectThenApply(t *testing.T) {
	t.Parallel()
	for _, profile := range allProfiles {
		t.Run(string(profile), func(t *testing.T) {
			c := newTestClient(t, profile)
			u := c.didOpen("a.go", goSrc)
			c.setApplyPolicy(func(n int, _ json.RawMessage) applyDecision {
				if n == 1 {
					return applyDecision{Reject: "not now"}
				}
				return applyDecision{}
			})
			streamMessage(c, "m", replaceUse("a.go", diff("\treturn 1\n", "\treturn 10\n")), 13)
			c.waitFor("the tool use", func() bool { return len(c.blocks("m")) >= 1 })
			st := waitSettled(c, "m", 0)
			require.Equal(t, ext.StatusRejected, st.Status)
			assert.Equal(t, "not now", st.Error)
			assert.Equal(t, goSrc, c.buffer(u))

			want := strings.Replace(goSrc, "return 1\n", "return 10\n", 1)
			for range 2 {
				var res struct {
					Status ext.EditStatus  `json:"status"`
					Error  string          `json:"error"`
					URI    uri.URI         `json:"uri"`
					Edit   json.RawMessage `json:"edit"`
				}
				require.NoError(t, c.request("assistant/apply", map[string]any{"stream": "m", "index": 0}, &res))
				assert.Equal(t, ext.StatusApplied, res.Status, res.Error)
				assert.Equal(t, u, res.URI)
			}
			c.waitFor("the buffer to change", func() bool { return c.buffer(u) == want })
			c.waitFor("the applied status push", func() bool { return editStatus(c, "m", 0).Status == ext.StatusApplied })
			assert.Len(t, c.applyRequests(), 2)
		})
	}
}

// TestWireRefusedSymlink checks that a path through a symbolic link leaving the workspace is
// refused and nothing is created outside.
func TestWireRefusedSymlink(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, c.path("link")))
	streamMessage(c, "m", writeUse("link/x.txt", "secret\n")+replaceUse("../y.txt", diff("a\n", "b\n")), 9)
	c.waitFor("both tool uses", func() bool { return len(c.blocks("m")) >= 2 })
	for i, want := range []uri.URI{c.uri("link/x.txt"), uri.File(filepath.Join(filepath.Dir(c.root), "y.txt"))} {
		st := waitSettled(c, "m", i)
		assert.Equal(t, ext.StatusRefused, st.Status)
		assert.NotEmpty(t, st.Error)
		assert.Equal(t, want, st.URI)
	}
	_, err := os.Stat(filepath.Join(outside, "x.txt"))
	assert.True(t, os.IsNotExist(err))
	assert.Empty(t, c.applyRequests())
}

// TestWireNoMatchShowsMessage checks the failed status and the warning of a SEARCH section
// that matches nothing.
func TestWireNoMatchShowsMessage(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix)
	c.didOpen("src/a.go", goSrc)
	streamMessage(c, "m", replaceUse("src/a.go", diff("\treturn 1\n", "\treturn 10\n", "\treturn 3\n", "\treturn 30\n")), 20)
	c.waitFor("the tool use", func() bool { return len(c.blocks("m")) >= 1 })
	st := waitSettled(c, "m", 0)
	require.Equal(t, ext.StatusFailed, st.Status)
	assert.NotEmpty(t, st.Error)
	c.waitFor("a warning", func() bool { return len(c.messages()) > 0 })
	m := c.messages()[0]
	assert.Equal(t, 2, m.Type)
	assert.Contains(t, m.Message, "src/a.go")
	assert.Contains(t, m.Message, "SEARCH section 2")
	assert.Empty(t, c.applyRequests())
}

// TestWireProgress checks the work-done progress a VS Code-like client receives for one edit.
func TestWireProgress(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	c.didOpen("a.go", goSrc)
	streamMessage(c, "m", replaceUse("a.go", diff("\treturn 1\n", "\treturn 10\n", "\treturn 2\n", "\treturn 20\n")), 500)
	c.waitFor("the tool use", func() bool { return len(c.blocks("m")) >= 1 })
	require.Equal(t, ext.StatusApplied, waitSettled(c, "m", 0).Status)
	c.waitFor("the progress end", func() bool {
		ps := c.progress()
		return len(ps) > 0 && strings.Contains(string(ps[len(ps)-1]), `"end"`)
	})
	assert.Equal(t, 1, c.progressCreates())
	var got []string
	for _, raw := range c.progress() {
		var p struct {
			Token any `json:"token"`
			Value struct{ Kind, Title, Message string }
		}
		require.NoError(t, json.Unmarshal(raw, &p))
		got = append(got, p.Value.Kind+" "+p.Value.Title+p.Value.Message)
	}
	assert.Equal(t, []string{"begin Editing a.go", "report 2 of 2 sections matched", "end Applied"}, got)
}

// TestWireResolveEdit checks that assistant/resolveEdit returns the edit and sends nothing.
func TestWireResolveEdit(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"autoApply": false}))
	u := c.didOpen("a.go", goSrc)
	var res struct {
		Status ext.EditStatus `json:"status"`
		URI    uri.URI        `json:"uri"`
		Edit   struct {
			DocumentChanges []struct {
				TextDocument struct {
					Version *int32 `json:"version"`
				} `json:"textDocument"`
				Edits []struct {
					NewText      string `json:"newText"`
					AnnotationID string `json:"annotationId"`
				} `json:"edits"`
			} `json:"documentChanges"`
			ChangeAnnotations map[string]struct {
				Label             string `json:"label"`
				NeedsConfirmation bool   `json:"needsConfirmation"`
			} `json:"changeAnnotations"`
		} `json:"edit"`
	}
	require.NoError(t, c.request("assistant/resolveEdit", map[string]any{"uri": string(u), "diff": diff("\treturn 1\n", "\treturn 10\n")}, &res))
	assert.Equal(t, ext.StatusReady, res.Status)
	assert.Equal(t, u, res.URI)
	require.Len(t, res.Edit.DocumentChanges, 1)
	dc := res.Edit.DocumentChanges[0]
	require.NotNil(t, dc.TextDocument.Version)
	assert.Equal(t, int32(1), *dc.TextDocument.Version)
	require.Len(t, dc.Edits, 1)
	assert.Equal(t, "\treturn 10\n", dc.Edits[0].NewText)
	ann := res.Edit.ChangeAnnotations[dc.Edits[0].AnnotationID]
	assert.Equal(t, "replace_in_file a.go", ann.Label)
	assert.True(t, ann.NeedsConfirmation)

	streamMessage(c, "m", replaceUse("a.go", diff("\treturn 2\n", "\treturn 20\n")), 40)
	c.waitFor("the tool use", func() bool { return len(c.blocks("m")) >= 1 })
	assert.Equal(t, ext.StatusReady, waitSettled(c, "m", 0).Status)
	var rpcErrRes struct{}
	err := c.request("assistant/resolveEdit", map[string]any{"stream": "m"}, &rpcErrRes)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	assert.Empty(t, c.applyRequests())
	assert.Equal(t, goSrc, c.buffer(u))
}

// TestWirePreview checks assistant/preview while a replace_in_file streams to a Helix-like
// client (utf-8 positions), and that the edit is applied once complete.
func TestWirePreview(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileHelix, withInitOptions(map[string]any{"preview": true}))
	require.Equal(t, "utf-8", c.encoding())
	src := "// 日本語 🎉\nfunc A() int {\n\treturn 1\n}\n"
	u := c.didOpen("a.go", src)
	d := diff("\treturn 1\n", "\treturn 10\n") + diff("}\n", "} // 終\n")
	msg := replaceUse("a.go", d)
	cut := strings.Index(msg, "+++++++ REPLACE\n------- SEARCH") + len("+++++++ REPLACE\n------- SEARCH")
	c.notify("assistant/parse", map[string]any{"stream": "m", "delta": msg[:cut]})
	c.waitFor("a preview", func() bool { return len(c.previews()) > 0 })
	var p struct {
		Stream         string `json:"stream"`
		Index          int    `json:"index"`
		URI            uri.URI
		NewContent     string              `json:"newContent"`
		MatchPositions []protocol.Position `json:"matchPositions"`
		Final          *bool               `json:"final"`
	}
	previews := c.previews()
	require.NoError(t, json.Unmarshal(previews[len(previews)-1], &p))
	assert.Equal(t, "m", p.Stream)
	assert.Equal(t, u, p.URI)
	require.NotNil(t, p.Final)
	assert.False(t, *p.Final)
	assert.Equal(t, "// 日本語 🎉\nfunc A() int {\n\treturn 10\n", p.NewContent)
	assert.Equal(t, []protocol.Position{{Line: 2, Character: 0}}, p.MatchPositions)
	c.waitFor("the streaming status", func() bool { return editStatus(c, "m", 0).Status == ext.StatusStreaming })

	c.notify("assistant/parse", map[string]any{"stream": "m", "delta": msg[cut:], "final": true})
	st := waitSettled(c, "m", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, "// 日本語 🎉\nfunc A() int {\n\treturn 10\n} // 終\n", c.buffer(u))
	assert.Equal(t, int32(2), c.version(u))
}

// TestWireCommands checks workspace/executeCommand assistant.apply and assistant.applyAll with
// autoApply off, and the InvalidParams answer for response documents.
func TestWireCommands(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileNeovim07, withInitOptions(map[string]any{"autoApply": false}))
	u := c.didOpen("a.go", goSrc)
	streamMessage(c, "m", "Two edits.\n"+replaceUse("a.go", diff("\treturn 1\n", "\treturn 10\n"))+
		replaceUse("a.go", diff("\treturn 2\n", "\treturn 20\n"))+writeUse("b.txt", "bee"), 64)
	c.waitFor("the tool uses", func() bool { return len(c.blocks("m")) >= 4 })
	for i := 1; i <= 3; i++ {
		require.Equal(t, ext.StatusReady, waitSettled(c, "m", i).Status)
	}

	var one struct {
		Status ext.EditStatus `json:"status"`
		Error  string         `json:"error"`
		URI    uri.URI        `json:"uri"`
	}
	require.NoError(t, c.request("workspace/executeCommand", map[string]any{
		"command": "assistant.apply", "arguments": []any{map[string]any{"stream": "m", "index": 2}},
	}, &one))
	assert.Equal(t, ext.StatusApplied, one.Status, one.Error)
	assert.Equal(t, u, one.URI)

	err := c.request("workspace/executeCommand", map[string]any{
		"command": "assistant.apply", "arguments": []any{map[string]any{"uri": "file:///r.assistant.md", "index": 1}},
	}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))
	err = c.request("workspace/executeCommand", map[string]any{
		"command": "assistant.applyAll", "arguments": []any{map[string]any{"uri": "file:///r.assistant.md"}},
	}, nil)
	assert.Equal(t, jsonrpc2.InvalidParams, rpcCode(err))

	var all struct {
		Applied int `json:"applied"`
		Failed  int `json:"failed"`
		Results []struct {
			Index  int            `json:"index"`
			Status ext.EditStatus `json:"status"`
			URI    uri.URI        `json:"uri"`
		} `json:"results"`
	}
	require.NoError(t, c.request("workspace/executeCommand", map[string]any{
		"command": "assistant.applyAll", "arguments": []any{map[string]any{"stream": "m"}},
	}, &all))
	assert.Equal(t, 3, all.Applied)
	assert.Equal(t, 0, all.Failed)
	require.Len(t, all.Results, 3)
	for i, r := range all.Results {
		assert.Equal(t, i+1, r.Index)
		assert.Equal(t, ext.StatusApplied, r.Status)
	}
	assert.Len(t, c.applyRequests(), 3, "block 2 was not applied twice")
	c.waitFor("both edits in the buffer", func() bool {
		return c.buffer(u) == strings.NewReplacer("return 1\n", "return 10\n", "return 2\n", "return 20\n").Replace(goSrc)
	})
	c.waitFor("the new file's buffer", func() bool { return c.buffer(c.uri("b.txt")) == "bee\n" })
}

// TestWireRestartedStreamDoesNotApplyTwice checks that a stream that starts over with the same
// tool uses, after their edits were applied, reports them applied without editing again.
func TestWireRestartedStreamDoesNotApplyTwice(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	u := c.didOpen("a.go", goSrc)
	use := replaceUse("a.go", diff("\treturn 1\n", "\treturn 10\n"))
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "m", "text": "First.\n" + use}, nil))
	require.Equal(t, ext.StatusApplied, waitSettled(c, "m", 1).Status)
	want := strings.Replace(goSrc, "return 1\n", "return 10\n", 1)
	c.waitFor("the edit in the buffer", func() bool { return c.buffer(u) == want })

	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "m", "text": "Again.\n" + use, "final": true}, nil))
	c.waitFor("the restarted text", func() bool {
		bs := c.blocks("m")
		return len(bs) >= 2 && bs[0].Content != nil && strings.HasPrefix(*bs[0].Content, "Again")
	})
	st := waitSettled(c, "m", 1)
	assert.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Len(t, c.applyRequests(), 1)
	assert.Empty(t, c.messages())
	assert.Equal(t, want, c.buffer(u))
}
