package lsp

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/lspclient"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

const goSrc = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"

// TestEditorOutcomes drives one complete tool use per case through the pipeline and checks the
// status it ends in, its error, what the client received and what the buffer holds.
func TestEditorOutcomes(t *testing.T) {
	t.Parallel()
	reason := "the user declined"
	tests := []struct {
		name      string
		caps      func(*clientCaps)
		cfg       func(*config)
		answer    func(n int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult
		tool      string
		path      string
		payload   string
		open      bool
		want      ext.EditStatus
		wantErr   string
		wantSent  int
		wantAfter string // the buffer (open) or file afterwards; "" skips the check
		original  string // a.go before; "" means goSrc
		wantWarn  bool   // a window/showMessage warning: the edit failed to compute
	}{
		{
			name: "replace applied", tool: toolReplace, path: "a.go", open: true,
			payload: diff("\treturn 1\n", "\treturn 10\n"),
			want:    ext.StatusApplied, wantSent: 1,
			wantAfter: strings.Replace(goSrc, "return 1\n", "return 10\n", 1),
		},
		{
			name: "ready without autoApply", tool: toolReplace, path: "a.go", open: true,
			cfg:     func(c *config) { c.AutoApply = false },
			payload: diff("\treturn 1\n", "\treturn 10\n"),
			want:    ext.StatusReady, wantSent: 0, wantAfter: goSrc,
		},
		{
			name: "ready when the client cannot apply edits", tool: toolReplace, path: "a.go", open: true,
			caps:    func(c *clientCaps) { c.ApplyEdit = false },
			payload: diff("\treturn 1\n", "\treturn 10\n"),
			want:    ext.StatusReady, wantSent: 0, wantAfter: goSrc,
		},
		{
			name: "rejected keeps the failure reason", tool: toolReplace, path: "a.go", open: true,
			answer: func(int, protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
				return protocol.ApplyWorkspaceEditResult{FailureReason: &reason}
			},
			payload: diff("\treturn 1\n", "\treturn 10\n"),
			want:    ext.StatusRejected, wantErr: reason, wantSent: 1, wantAfter: goSrc,
		},
		{
			name: "no match fails without sending", tool: toolReplace, path: "a.go", open: true,
			payload: diff("\treturn 3\n", "\treturn 30\n"),
			want:    ext.StatusFailed, wantErr: "", wantSent: 0, wantAfter: goSrc, wantWarn: true,
		},
		{
			name: "replace already in place is applied without sending", tool: toolReplace, path: "a.go", open: true,
			original: strings.Replace(goSrc, "return 1\n", "return 10\n", 1),
			payload:  diff("\treturn 1\n", "\treturn 10\n", "\treturn 2\n", "\treturn 2\n"),
			want:     ext.StatusApplied, wantSent: 0,
			wantAfter: strings.Replace(goSrc, "return 1\n", "return 10\n", 1),
		},
		{
			name: "a deletion that does not match is not taken for applied", tool: toolReplace, path: "a.go", open: true,
			original: strings.Replace(goSrc, "\treturn 1\n", "", 1),
			payload:  diff("\treturn 1\n", ""),
			want:     ext.StatusFailed, wantSent: 0, wantWarn: true,
		},
		{
			name: "replace on a missing file fails", tool: toolReplace, path: "missing.go",
			payload: diff("x\n", "y\n"),
			want:    ext.StatusFailed, wantErr: "does not exist", wantSent: 0, wantWarn: true,
		},
		{
			name: "applied true without the change fails verification", tool: toolReplace, path: "a.go", open: true,
			answer: func(int, protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
				return protocol.ApplyWorkspaceEditResult{Applied: true}
			},
			payload: diff("\treturn 1\n", "\treturn 10\n"),
			want:    ext.StatusFailed, wantErr: verifyFailure, wantSent: 1, wantAfter: goSrc,
		},
		{
			name: "disk file applied on the client's word", tool: toolReplace, path: "a.go",
			payload: diff("\treturn 2\n", "\treturn 20\n"),
			want:    ext.StatusApplied, wantSent: 1,
			wantAfter: strings.Replace(goSrc, "return 2\n", "return 20\n", 1),
		},
		{
			name: "write to an existing file", tool: toolWrite, path: "a.go", open: true,
			payload: "package a\n", want: ext.StatusApplied, wantSent: 1, wantAfter: "package a\n",
		},
		{
			name: "write a new file in new folders", tool: toolWrite, path: "new/dir/b.txt",
			payload: "hello", want: ext.StatusApplied, wantSent: 1, wantAfter: "hello\n",
		},
		{
			name: "write of the same content is already in place", tool: toolWrite, path: "a.go", open: true,
			payload: goSrc, want: ext.StatusApplied, wantSent: 0, wantAfter: goSrc,
		},
		{
			name: "path leaving the workspace is refused", tool: toolWrite, path: "../outside.txt",
			payload: "x", want: ext.StatusRefused, wantErr: "", wantSent: 0,
		},
		{
			name: "missing path fails", tool: toolWrite, path: "",
			payload: "x", want: ext.StatusFailed, wantErr: "has no path", wantSent: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := vscodeCaps()
			caps.WorkDoneProgress = false
			if tt.caps != nil {
				tt.caps(&caps)
			}
			f := newFixture(t, caps, tt.cfg)
			f.client.answer = tt.answer
			if tt.wantErr == verifyFailure {
				f.ed.verifyTimeout = 10e6 // no didChange comes: no need to wait it out
			}
			original := goSrc
			if tt.original != "" {
				original = tt.original
			}
			f.writeFile("a.go", original)
			if tt.open {
				f.open("a.go", original, 1)
			}
			f.push("s", 1, toolBlock(tt.tool, tt.path, tt.payload, false))
			st := f.waitStatus("s", 1, tt.want)
			assert.Contains(t, st.Error, tt.wantErr)
			if tt.want == ext.StatusFailed || tt.want == ext.StatusRejected || tt.want == ext.StatusRefused {
				assert.NotEmpty(t, st.Error)
			}
			assert.Len(t, f.applyEdits(), tt.wantSent)
			assert.Equal(t, tt.wantWarn, len(f.client.messages("window/showMessage")) > 0, "a warning exactly for edits that fail to compute")
			if tt.wantAfter != "" {
				if tt.open {
					assert.Equal(t, tt.wantAfter, f.content(tt.path))
				} else {
					assert.Equal(t, tt.wantAfter, f.readFile(tt.path))
				}
			}
		})
	}
}

// TestEditorStreamingThenComplete checks the streaming status of a partial tool use and that
// completing it applies the edit once, however often the complete block is reported.
func TestEditorStreamingThenComplete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	f.open("a.go", goSrc, 1)
	d := diff("\treturn 1\n", "\treturn 10\n")
	f.push("s", 0, toolBlock(toolReplace, "a.go", d[:20], true))
	require.Equal(t, ext.StatusStreaming, f.ed.state("s", 0).Status)
	for range 3 {
		f.push("s", 0, toolBlock(toolReplace, "a.go", d, false))
	}
	st := f.waitStatus("s", 0, ext.StatusApplied)
	assert.Equal(t, f.uri("a.go"), st.URI)
	assert.Equal(t, []protocol.Position{{Line: 3, Character: 0}}, st.MatchPositions)
	f.push("s", 0, toolBlock(toolReplace, "a.go", d, false))
	f.ed.shutdown()
	assert.Len(t, f.applyEdits(), 1, "an unchanged complete block is applied once")
	assert.Equal(t, strings.Replace(goSrc, "return 1\n", "return 10\n", 1), f.content("a.go"))
}

// TestEditorStreamingURI checks that a streaming tool use names its target as soon as its path is
// complete (its payload has begun), even for a client that gets neither previews nor progress,
// and that the JSON form leaves the uri out until then.
func TestEditorStreamingURI(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clientCaps{ApplyEdit: true, Encoding: protocol.PositionEncodingKindUTF16}, nil)
	f.push("s", 0, growingPath(toolReplace, "a"))
	assert.Empty(t, f.ed.state("s", 0).URI, "the path is still growing")
	raw, err := json.Marshal(f.ed.state("s", 0))
	require.NoError(t, err)
	assert.JSONEq(t, `{"status":"streaming"}`, string(raw))

	f.push("s", 0, toolBlock(toolReplace, "a.go", "------- SEARCH\n", true))
	st := f.ed.state("s", 0)
	assert.Equal(t, ext.StatusStreaming, st.Status)
	assert.Equal(t, f.uri("a.go"), st.URI)
}

// TestEditorRestartedBlockRecomputes checks that a block whose tool use changed (a restarted
// stream) is computed again.
func TestEditorRestartedBlockRecomputes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	f.open("a.go", goSrc, 1)
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
	f.waitStatus("s", 0, ext.StatusApplied)
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 2\n", "\treturn 20\n"), false))
	f.waitStatus("s", 0, ext.StatusApplied)
	assert.Len(t, f.applyEdits(), 2)
	assert.Contains(t, f.content("a.go"), "return 20\n")
}

// TestEditorRetriesOnceOnStaleVersion checks that an edit the client refused because the
// document changed meanwhile is rebuilt on the new version and sent again, once.
func TestEditorRetriesOnceOnStaleVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		refusals  int // how many applyEdits the user's typing spoils
		want      ext.EditStatus
		wantSends int
	}{
		{name: "second attempt applies", refusals: 1, want: ext.StatusApplied, wantSends: 2},
		{name: "only one retry", refusals: 2, want: ext.StatusRejected, wantSends: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, vscodeCaps(), nil)
			f.writeFile("a.go", goSrc)
			f.open("a.go", goSrc, 1)
			f.client.answer = func(n int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
				if n <= tt.refusals {
					content, version, _ := f.docs.Get(f.uri("a.go"))
					require.NoError(t, changeErr(f.docs.Change(f.uri("a.go"), version+1, []docs.Change{{Text: "// typed\n" + content}}, protocol.PositionEncodingKindUTF16)))
					return f.client.apply(p.Edit)
				}
				return f.client.apply(p.Edit)
			}
			f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
			st := f.waitStatus("s", 0, tt.want)
			sends := f.applyEdits()
			require.Len(t, sends, tt.wantSends)
			second := sends[1].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
			assert.Equal(t, int32(2), *second.TextDocument.Version, "the retry is built on the new version")
			if tt.want == ext.StatusApplied {
				assert.Equal(t, "// typed\n"+strings.Replace(goSrc, "return 1\n", "return 10\n", 1), f.content("a.go"))
				assert.Equal(t, []protocol.Position{{Line: 4, Character: 0}}, st.MatchPositions)
			}
		})
	}
}

// TestEditorNoMatchWarns checks the failed status of a diff that does not apply and the
// window/showMessage warning naming the file and the section.
func TestEditorNoMatchWarns(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n", "nope\n", "x\n"), false))
	st := f.waitStatus("s", 0, ext.StatusFailed)
	assert.NotEmpty(t, st.Error)
	msgs := f.client.messages("window/showMessage")
	require.Len(t, msgs, 1)
	msg := msgs[0].(protocol.ShowMessageParams)
	assert.Equal(t, protocol.MessageTypeWarning, msg.Type)
	assert.Contains(t, msg.Message, "a.go")
	assert.Contains(t, msg.Message, "SEARCH section 2")
}

// TestEditorCRLF checks that text inserted into a CRLF document uses CRLF, with a diff written
// with LF line breaks.
func TestEditorCRLF(t *testing.T) {
	t.Parallel()
	crlf := strings.ReplaceAll(goSrc, "\n", "\r\n")
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", crlf)
	f.open("a.go", crlf, 3)
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("func A() int {\n", "// A is one.\nfunc A() int {\n"), false))
	f.waitStatus("s", 0, ext.StatusApplied)
	want := strings.Replace(crlf, "func A() int {\r\n", "// A is one.\r\nfunc A() int {\r\n", 1)
	assert.Equal(t, want, f.content("a.go"))
	f.push("s", 1, toolBlock(toolWrite, "a.go", "package a\n\nvar X = 1\n", false))
	f.waitStatus("s", 1, ext.StatusApplied)
	assert.Equal(t, "package a\r\n\r\nvar X = 1\r\n", f.content("a.go"))
}

// TestEditorKeepsBOM checks that write_to_file keeps a file's byte order mark and adds the
// final line break in the document's style.
func TestEditorKeepsBOM(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("b.txt", text.BOM+"old\r\ntext\r\n")
	f.push("s", 0, toolBlock(toolWrite, "b.txt", "new\ntext", false))
	f.waitStatus("s", 0, ext.StatusApplied)
	assert.Equal(t, text.BOM+"new\r\ntext\r\n", f.readFile("b.txt"))
}

// TestEditorNewFileCreation checks who creates a new file: the client through CreateFile where
// it can, else the server (an empty file), and that missing folders are made first.
func TestEditorNewFileCreation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		caps       clientCaps
		wantCreate bool
	}{
		{name: "client creates", caps: vscodeCaps(), wantCreate: true},
		{name: "server creates without the create operation", caps: clientCaps{ApplyEdit: true, DocumentChanges: true}},
		{name: "server creates for a changes-only client", caps: clientCaps{ApplyEdit: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.caps, nil)
			var existedBefore bool
			f.client.answer = func(_ int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
				_, err := os.Stat(f.path("x/y/new.txt"))
				existedBefore = err == nil
				_, err = os.Stat(f.path("x/y"))
				require.NoError(t, err, "the server creates missing folders before sending")
				return f.client.apply(p.Edit)
			}
			f.push("s", 0, toolBlock(toolWrite, "x/y/new.txt", "日本語 🎉", false))
			f.waitStatus("s", 0, ext.StatusApplied)
			assert.Equal(t, "日本語 🎉\n", f.readFile("x/y/new.txt"))
			sent := f.applyEdits()
			require.Len(t, sent, 1)
			assert.Equal(t, !tt.wantCreate, existedBefore)
			if tt.wantCreate {
				require.Len(t, sent[0].Edit.DocumentChanges, 2)
				cf := sent[0].Edit.DocumentChanges[0].(*protocol.CreateFile)
				assert.True(t, *cf.Options.IgnoreIfExists)
				tde := sent[0].Edit.DocumentChanges[1].(*protocol.TextDocumentEdit)
				assert.Nil(t, tde.TextDocument.Version)
			}
		})
	}
}

// TestEditorNeverCreatesOutsideWorkspace checks that with allowOutsideWorkspace the server
// still creates no file or folder outside the workspace for a client that cannot create files.
func TestEditorNeverCreatesOutsideWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clientCaps{ApplyEdit: true, DocumentChanges: true}, func(c *config) { c.AllowOutsideWorkspace = true })
	outside := t.TempDir()
	f.push("s", 0, toolBlock(toolWrite, outside+"/sub/o.txt", "x", false))
	st := f.waitStatus("s", 0, ext.StatusFailed)
	assert.Contains(t, st.Error, "outside the workspace")
	_, err := os.Stat(outside + "/sub")
	assert.True(t, os.IsNotExist(err))
}

// TestBuildEditShapes checks the WorkspaceEdit each kind of client receives.
func TestBuildEditShapes(t *testing.T) {
	t.Parallel()
	one := int32(7)
	tests := []struct {
		name     string
		caps     clientCaps
		confirm  bool
		open     bool
		exists   bool
		wantJSON string
	}{
		{
			name: "vscode-like open document, annotated", caps: vscodeCaps(), confirm: true, open: true, exists: true,
			wantJSON: `{"documentChanges":[{"textDocument":{"uri":"URI","version":7},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"newText":"b\n","annotationId":"replace_in_file f.txt"}]}],` +
				`"changeAnnotations":{"replace_in_file f.txt":{"label":"replace_in_file f.txt","needsConfirmation":true}}}`,
		},
		{
			name: "vscode-like without confirm", caps: vscodeCaps(), open: true, exists: true,
			wantJSON: `{"documentChanges":[{"textDocument":{"uri":"URI","version":7},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"newText":"b\n"}]}]}`,
		},
		{
			name: "vscode-like new file", caps: vscodeCaps(), confirm: true,
			wantJSON: `{"documentChanges":[{"kind":"create","uri":"URI","options":{"ignoreIfExists":true},"annotationId":"replace_in_file f.txt"},` +
				`{"textDocument":{"uri":"URI","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"b\n","annotationId":"replace_in_file f.txt"}]}],` +
				`"changeAnnotations":{"replace_in_file f.txt":{"label":"replace_in_file f.txt","needsConfirmation":true}}}`,
		},
		{
			name: "helix-like disk file: documentChanges, version null, no annotations", caps: clientCaps{ApplyEdit: true, DocumentChanges: true, CreateFile: true}, confirm: true, exists: true,
			wantJSON: `{"documentChanges":[{"textDocument":{"uri":"URI","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"newText":"b\n"}]}]}`,
		},
		{
			name: "changes-only client", caps: clientCaps{ApplyEdit: true, Annotations: true}, confirm: true, open: true, exists: true,
			wantJSON: `{"changes":{"URI":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"newText":"b\n"}]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := "file:///w/f.txt"
			base := snapshot{Exists: tt.exists, Open: tt.open}
			edits := []text.Edit{{Start: 0, End: 2, NewText: "b\n"}}
			if tt.exists {
				base.Content = "a\n"
			} else {
				edits = []text.Edit{{Start: 0, End: 0, NewText: "b\n"}}
			}
			if tt.open {
				base.Version = &one
			}
			tgt := target{Rel: "f.txt", URI: "file:///w/f.txt"}
			p := &plannedEdit{Req: editRequest{Tool: editTools[toolReplace], Targets: []target{tgt}}, Files: []*fileEdit{{Target: tgt, Base: base, Edits: edits}}}
			we, err := buildEdit(p, tt.caps, tt.caps.Annotations && tt.confirm)
			require.NoError(t, err)
			raw, err := protocol.Marshal(we)
			require.NoError(t, err)
			assert.JSONEq(t, strings.ReplaceAll(tt.wantJSON, "URI", u), string(raw))
		})
	}
}

// TestContentFixes checks the contentFixes modes on both tools.
func TestContentFixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, model, path string
		want              string
	}{
		{mode: "auto", model: "gpt-4o", path: "/w/a.go", want: "if a < b {}\n"},
		{mode: "auto", model: "claude-sonnet", path: "/w/a.go", want: "if a &lt; b {}\n"},
		{mode: "auto", model: "gpt-4o", path: "/w/a.xml", want: "if a &lt; b {}\n"},
		{mode: "always", model: "claude-sonnet", path: "/w/a.go", want: "if a < b {}\n"},
		{mode: "never", model: "gpt-4o", path: "/w/a.go", want: "if a &lt; b {}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.mode+" "+tt.model+" "+tt.path, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.ContentFixes = tt.mode
			tgt := []target{{Abs: tt.path}}
			w, err := planWrite(editRequest{Tool: editTools[toolWrite], Targets: tgt, Params: map[string]string{"content": "if a &lt; b {}\n"}, ModelID: tt.model},
				[]snapshot{{}}, cfg)
			require.NoError(t, err)
			assert.Equal(t, tt.want, w[0].Intended)
			r, err := planReplace(editRequest{Tool: editTools[toolReplace], Targets: tgt, Params: map[string]string{"diff": diff("x\n", "if a &lt; b {}\n")}, ModelID: tt.model},
				[]snapshot{{Content: "x\n", Exists: true}}, cfg)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r[0].Intended)
		})
	}
}

// TestEditorProgress checks the work-done progress of one tool use: the token is created first,
// then begin, a report of the matched sections and an end with the outcome.
func TestEditorProgress(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	f.open("a.go", goSrc, 1)
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n", "\treturn 2\n", "\treturn 20\n"), false))
	f.waitStatus("s", 0, ext.StatusApplied)
	f.ed.shutdown()
	var kinds, messages []string
	for _, p := range f.client.messages("$/progress") {
		var v struct{ Kind, Title, Message string }
		require.NoError(t, json.Unmarshal(p.(protocol.ProgressParams).Value, &v))
		kinds = append(kinds, v.Kind)
		messages = append(messages, v.Title+v.Message)
	}
	assert.Equal(t, []string{"begin", "report", "end"}, kinds)
	assert.Equal(t, []string{"Editing a.go", "2 of 2 sections matched", "Applied"}, messages)
	methods := f.client.methods()
	require.NotEmpty(t, methods)
	assert.Equal(t, "window/workDoneProgress/create", methods[0])
}

// TestEditorPreview checks assistant/preview while a tool use streams, and that none is sent
// without the preview setting.
func TestEditorPreview(t *testing.T) {
	t.Parallel()
	for _, enabled := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[enabled], func(t *testing.T) {
			caps := vscodeCaps()
			caps.WorkDoneProgress = false
			f := newFixture(t, caps, func(c *config) { c.Preview = enabled })
			f.writeFile("a.go", goSrc)
			f.open("a.go", goSrc, 1)
			d := diff("\treturn 1\n", "\treturn 10\n")
			f.push("s", 0, toolBlock(toolReplace, "a.go", d+"------- SEARCH\n\tret", true))
			if enabled {
				require.Eventually(t, func() bool { return len(f.client.messages("assistant/preview")) > 0 }, waitTimeout, 5e6)
			}
			f.push("s", 0, toolBlock(toolReplace, "a.go", d+diff("\treturn 2\n", "\treturn 20\n"), false))
			f.waitStatus("s", 0, ext.StatusApplied)
			f.ed.shutdown()
			previews := f.client.messages("assistant/preview")
			if !enabled {
				assert.Empty(t, previews)
				return
			}
			p := previews[0].(ext.PreviewParams)
			assert.Equal(t, "s", p.Stream)
			assert.Equal(t, 0, p.Index)
			assert.Equal(t, f.uri("a.go"), p.URI)
			assert.False(t, p.Final)
			assert.True(t, strings.HasPrefix(p.NewContent, "package a\n\nfunc A() int {\n\treturn 10\n"), p.NewContent)
			assert.Equal(t, []protocol.Position{{Line: 3, Character: 0}}, p.MatchPositions)
		})
	}
}

// TestEditorForget checks that forgetting a stream drops its states and ends its pending work.
func TestEditorForget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	f.client.block = true
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
	require.Eventually(t, func() bool { return len(f.applyEdits()) == 1 }, waitTimeout, 5e6)
	assert.Equal(t, ext.StatusApplying, f.ed.state("s", 0).Status)
	f.ed.forget("s")
	assert.Nil(t, f.ed.state("s", 0))
	f.ed.shutdown()
}

// TestHandleApply covers assistant/apply and assistant/resolveEdit.
func TestHandleApply(t *testing.T) {
	t.Parallel()
	t.Run("bad params are InvalidParams", func(t *testing.T) {
		f := newFixture(t, vscodeCaps(), nil)
		for _, params := range []string{``, `null`, `[]`, `{"stream":1,"index":0}`, `{"stream":"s"}`, `{"uri":"file:///x"}`,
			`{"uri":"file:///x","diff":"d","content":"c"}`, `{"uri":"file:///x","index":0}`, `{"stream":"nope","index":0}`, `{"uri":"http://x/y","content":""}`} {
			_, err := f.handleApply(json.RawMessage(params), true)
			var rpcErr *jsonrpc2.Error
			require.True(t, errors.As(err, &rpcErr), "params %s: %v", params, err)
			assert.Equal(t, jsonrpc2.InvalidParams, rpcErr.Code, params)
		}
	})
	t.Run("resolveEdit returns the edit and sends nothing", func(t *testing.T) {
		f := newFixture(t, vscodeCaps(), nil)
		f.writeFile("a.go", goSrc)
		raw, _ := json.Marshal(map[string]string{"uri": string(f.uri("a.go")), "diff": diff("\treturn 1\n", "\treturn 10\n")})
		res, err := f.handleApply(raw, false)
		require.NoError(t, err)
		r := res.(ext.ApplyResult)
		assert.Equal(t, ext.StatusReady, r.Status)
		require.Len(t, r.Edit.DocumentChanges, 1)
		assert.Empty(t, f.client.methods())
		assert.Equal(t, goSrc, f.readFile("a.go"))
	})
	t.Run("a rejected block applies on request, then never twice", func(t *testing.T) {
		f := newFixture(t, vscodeCaps(), nil)
		f.writeFile("a.go", goSrc)
		f.open("a.go", goSrc, 1)
		f.client.answer = func(n int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
			if n == 1 {
				return protocol.ApplyWorkspaceEditResult{}
			}
			return f.client.apply(p.Edit)
		}
		f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
		f.waitStatus("s", 0, ext.StatusRejected)
		for range 2 {
			res, err := f.handleApply(json.RawMessage(`{"stream":"s","index":0}`), true)
			require.NoError(t, err)
			assert.Equal(t, ext.StatusApplied, res.(ext.ApplyResult).Status)
		}
		assert.Equal(t, ext.StatusApplied, f.ed.state("s", 0).Status)
		assert.Len(t, f.applyEdits(), 2)
		assert.Equal(t, strings.Replace(goSrc, "return 1\n", "return 10\n", 1), f.content("a.go"))
	})
}

// TestExecuteCommand covers assistant.apply and assistant.applyAll.
func TestExecuteCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), func(c *config) { c.AutoApply = false })
	f.writeFile("a.go", goSrc)
	f.open("a.go", goSrc, 1)
	f.push("s", 0, streamBlock{Block: textBlock("intro")})
	f.push("s", 1, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
	f.push("s", 2, toolBlock(toolReplace, "a.go", diff("\treturn 2\n", "\treturn 20\n"), false))
	f.push("s", 3, toolBlock(toolReplace, "a.go", diff("nothing\n", "x\n"), false))
	f.waitStatus("s", 1, ext.StatusReady)
	f.waitStatus("s", 2, ext.StatusReady)
	f.waitStatus("s", 3, ext.StatusFailed)

	for _, args := range [][]string{{}, {`{"uri":"file:///r.assistant.md","index":1}`}, {`{"stream":"s"}`}, {`{"stream":"s","index":1}`, `{}`}} {
		raw := make([]json.RawMessage, len(args))
		for i, a := range args {
			raw[i] = json.RawMessage(a)
		}
		_, err := f.executeCommand(ext.CommandApply, raw)
		var rpcErr *jsonrpc2.Error
		require.True(t, errors.As(err, &rpcErr), "args %v", args)
		assert.Equal(t, jsonrpc2.InvalidParams, rpcErr.Code)
	}

	res, err := f.executeCommand(ext.CommandApply, []json.RawMessage{json.RawMessage(`{"stream":"s","index":1}`)})
	require.NoError(t, err)
	assert.Equal(t, ext.CommandResult{Status: ext.StatusApplied, URI: f.uri("a.go")}, res)

	all, err := f.executeCommand(ext.CommandApplyAll, []json.RawMessage{json.RawMessage(`{"stream":"s"}`)})
	require.NoError(t, err)
	r := all.(ext.ApplyAllResult)
	assert.Equal(t, 2, r.Applied)
	assert.Equal(t, 1, r.Failed)
	require.Len(t, r.Results, 3)
	assert.Equal(t, []ext.EditStatus{ext.StatusApplied, ext.StatusApplied, ext.StatusFailed}, []ext.EditStatus{r.Results[0].Status, r.Results[1].Status, r.Results[2].Status})
	assert.Len(t, f.applyEdits(), 2, "block 1 was applied once")
	assert.Equal(t, strings.NewReplacer("return 1\n", "return 10\n", "return 2\n", "return 20\n").Replace(goSrc), f.content("a.go"))

	_, err = f.executeCommand(ext.CommandApplyAll, []json.RawMessage{json.RawMessage(`{"uri":"file:///r.assistant.md"}`)})
	require.Error(t, err)
}

// TestEditorVerifyToleratesNormalizedLineBreaks checks that an edit whose line breaks the
// client normalized to the document's counts as applied, and that one it skipped does not.
func TestEditorVerifyToleratesNormalizedLineBreaks(t *testing.T) {
	t.Parallel()
	for _, skip := range []bool{false, true} {
		t.Run(map[bool]string{false: "normalized", true: "skipped"}[skip], func(t *testing.T) {
			f := newFixture(t, vscodeCaps(), nil)
			f.writeFile("a.txt", "one\ntwo\n")
			f.open("a.txt", "one\ntwo\n", 1)
			if skip {
				f.ed.verifyTimeout = 10e6 // no didChange comes: no need to wait it out
			}
			f.client.answer = func(_ int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
				if skip {
					return protocol.ApplyWorkspaceEditResult{Applied: true}
				}
				res := f.client.apply(p.Edit)
				content, version, _ := f.docs.Get(f.uri("a.txt"))
				require.NoError(t, changeErr(f.docs.Change(f.uri("a.txt"), version+1, []docs.Change{{Text: strings.ReplaceAll(content, "\r\n", "\n")}}, protocol.PositionEncodingKindUTF16)))
				return res
			}
			f.push("s", 0, toolBlock(toolWrite, "a.txt", "one\r\nthree\r\n", false))
			want := ext.StatusApplied
			if skip {
				want = ext.StatusFailed
			}
			f.waitStatus("s", 0, want)
		})
	}
}

// TestEditorBuildsOnUnsavedEdits checks that a second edit of a file that is not open builds on
// the first one, when the client applied the first to a buffer it neither reported nor saved.
func TestEditorBuildsOnUnsavedEdits(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	var mu sync.Mutex
	buffer := goSrc
	f.client.answer = func(_ int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		mu.Lock()
		defer mu.Unlock()
		for _, el := range p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit).Edits {
			require.IsType(t, &protocol.AnnotatedTextEdit{}, el)
		}
		res, err := lspclient.ApplyEdit(p.Edit, protocol.PositionEncodingKindUTF16, lspclient.Source{
			ReadFile: func(string) ([]byte, error) { return []byte(buffer), nil },
		})
		require.NoError(t, err)
		require.Len(t, res.Docs, 1)
		buffer = res.Docs[0].After
		return protocol.ApplyWorkspaceEditResult{Applied: true}
	}
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("package a\n", "package a\n\nimport \"fmt\"\n"), false))
	f.push("s", 1, toolBlock(toolReplace, "a.go", diff("\treturn 2\n", "\tfmt.Println()\n\treturn 2\n"), false))
	f.push("s", 2, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
	for i := range 3 {
		f.waitStatus("s", i, ext.StatusApplied)
	}
	mu.Lock()
	defer mu.Unlock()
	want := strings.NewReplacer("package a\n", "package a\n\nimport \"fmt\"\n", "\treturn 2\n", "\tfmt.Println()\n\treturn 2\n", "\treturn 1\n", "\treturn 10\n").Replace(goSrc)
	assert.Equal(t, want, buffer)
	assert.Equal(t, goSrc, f.readFile("a.go"))
}

// TestPlanReplaceIntendedIsItsEdits checks that a replace_in_file's intended content is exactly
// its edits applied to the base, whether the applier's content is taken as it is (LF) or the
// line endings are converted (CRLF, lone CR, and a replacement without a line break on a lone-CR
// document, where the applier still read LF).
func TestPlanReplaceIntendedIsItsEdits(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, base, diff string }{
		{"lf", "a\nb\nc\n", diff("b\n", "B\nB2\n")},
		{"lf deletion", "a\nb\nc\n", diff("b\n", "")},
		{"crlf", "a\r\nb\r\nc\r\n", diff("b\n", "B\nB2\n")},
		{"lone cr", "a\rb\rc\r", diff("b\n", "B\nB2\n")},
		{"lone cr, no break in replacement", "a\rb\rc", diff("b\n", "")},
		{"two sections", "one\ntwo\nthree\nfour\n", diff("two\n", "2\n", "four\n", "4\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fes, err := planReplace(editRequest{Tool: editTools[toolReplace], Targets: []target{{Abs: "/w/a.go"}}, Params: map[string]string{"diff": tt.diff}},
				[]snapshot{{Content: tt.base, Exists: true}}, defaultConfig())
			require.NoError(t, err)
			require.Len(t, fes, 1)
			assert.Equal(t, text.Apply(tt.base, fes[0].Edits), fes[0].Intended)
			assert.NotEqual(t, tt.base, fes[0].Intended)
		})
	}
}
