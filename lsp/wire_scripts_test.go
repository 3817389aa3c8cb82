package lsp

// Wire scripts: end-to-end cases written as txtar files in testdata/wire, run by
// TestWireScripts through the test client, the way gopls's marker tests are. A script's comment
// says what it checks; its sections are
//
//	profile          the client profiles to run it with, space separated (default: all)
//	settings.json    initializationOptions
//	initialize.json  the whole initialize params instead of the profile's
//	chunk            the size of the deltas the message is streamed in (default 7 bytes)
//	message          the assistant message, streamed as assistant/parse deltas of stream
//	                 "turn-1", then final
//	calls.jsonl      toolCall deltas (one ext.ToolCall a line), sent after the message
//	exchange.jsonc   instead of message: a transcript in the notation of docs/protocol.md
//	                 (→ client to server, ← server to client, // comments). The client sends the
//	                 → messages it starts (requests, didOpen, assistant/parse, exit) in order,
//	                 each once the ← messages before it arrived; afterwards every → message must
//	                 be what the client sent, and every ← message must be among what it
//	                 received, in order among the messages of its method.
//	want/blocks.json the stream's blocks at the end, edit states included (JSON compared)
//	want/messages    substrings of window/showMessage notifications, one a line
//	want/absent      paths that must exist neither on disk nor in a buffer, one a line
//	want/<path>      the content of <path> at the end: the client's buffer, else the disk
//	<path>           any other section is a workspace file, written and opened before the run
//
// The workspace folder is /home/me/project, as in docs/protocol.md: it is created under a
// temporary folder, and the runner writes that prefix into what it sends and takes it out of
// what it compares, so scripts name files as file:///home/me/project/src/a.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"
)

// updateScripts rewrites the want/ sections of the wire scripts from a run with their first
// profile.
var updateScripts = flag.Bool("update-wire", false, "rewrite the want/ sections of testdata/wire/*.txtar")

// scriptRoot is the workspace folder scripts name.
const scriptRoot = "/home/me/project"

// scriptStream is the stream a script's message is sent as.
const scriptStream = "turn-1"

// wireScript is a parsed script.
type wireScript struct {
	name     string
	archive  *txtar.Archive
	profiles []clientProfile
	sections map[string]string
	files    []txtar.File // workspace files
}

// readWireScript reads and checks one script.
func readWireScript(t *testing.T, path string) *wireScript {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	require.NoError(t, err)
	s := &wireScript{name: strings.TrimSuffix(filepath.Base(path), ".txtar"), archive: ar, sections: map[string]string{}}
	known := []string{"profile", "settings.json", "initialize.json", "chunk", "message", "calls.jsonl", "exchange.jsonc"}
	for _, f := range ar.Files {
		_, dup := s.sections[f.Name]
		require.False(t, dup, "%s: section %s twice", path, f.Name)
		s.sections[f.Name] = string(f.Data)
		if !slices.Contains(known, f.Name) && !strings.HasPrefix(f.Name, "want/") {
			s.files = append(s.files, f)
		}
	}
	_, hasMessage := s.sections["message"]
	_, hasExchange := s.sections["exchange.jsonc"]
	require.True(t, hasMessage != hasExchange, "%s: a script has a message or an exchange", path)
	s.profiles = allProfiles
	if p, ok := s.sections["profile"]; ok {
		s.profiles = nil
		for _, name := range strings.Fields(p) {
			require.Contains(t, allProfiles, clientProfile(name), "%s: unknown profile", path)
			s.profiles = append(s.profiles, clientProfile(name))
		}
	}
	return s
}

// TestWireScripts runs every script of testdata/wire for each of its profiles.
func TestWireScripts(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("testdata/wire/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		s := readWireScript(t, path)
		t.Run(s.name, func(t *testing.T) {
			for i, profile := range s.profiles {
				t.Run(string(profile), func(t *testing.T) {
					run := runWireScript(t, s, profile)
					if *updateScripts && i == 0 {
						run.update(t, path)
						return
					}
					run.check(t)
				})
			}
		})
	}
}

// scriptRun is one run of a script.
type scriptRun struct {
	s      *wireScript
	c      *testClient
	prefix string // the real folder that stands for / in the script's paths
}

// real turns the script's paths into the run's.
func (r *scriptRun) real(s string) string {
	return strings.ReplaceAll(s, scriptRoot, r.prefix+scriptRoot)
}

// virtual turns the run's paths into the script's.
func (r *scriptRun) virtual(s string) string { return strings.ReplaceAll(s, r.prefix, "") }

// rel returns the path of a script path relative to the workspace folder.
func (r *scriptRun) path(rel string) string {
	return filepath.Join(r.prefix, scriptRoot, filepath.FromSlash(rel))
}

// runWireScript runs a script with one profile, up to the end of its message or exchange.
func runWireScript(t *testing.T, s *wireScript, profile clientProfile) *scriptRun {
	prefix, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	r := &scriptRun{s: s, prefix: prefix}
	root := filepath.Join(prefix, scriptRoot)
	require.NoError(t, os.MkdirAll(root, 0o755))

	// The version the released binary announces, as docs/protocol.md shows it.
	o := clientOptions{serveCtx: context.Background(), skipInit: true, record: true, server: Options{Version: "0.1.0"}}
	r.c = startTestClient(t, profile, root, o)
	if ex, ok := s.sections["exchange.jsonc"]; ok {
		r.playExchange(t, ex)
		return r
	}

	params := r.c.initializeParams(nil)
	if raw, ok := s.sections["settings.json"]; ok {
		params["initializationOptions"] = json.RawMessage(r.real(raw))
	}
	if raw, ok := s.sections["initialize.json"]; ok {
		params = nil
		require.NoError(t, json.Unmarshal([]byte(r.real(raw)), &params))
	}
	ctx, cancel := context.WithTimeout(r.c.ctx, waitTimeout)
	defer cancel()
	require.NoError(t, r.c.cl.Initialize(ctx, params, nil))
	for _, f := range s.files {
		r.c.didOpen(f.Name, string(f.Data))
	}

	chunk := 7
	if raw, ok := s.sections["chunk"]; ok {
		_, err := fmt.Sscan(raw, &chunk)
		require.NoError(t, err, "chunk")
	}
	msg := s.sections["message"]
	for len(msg) > 0 {
		n := min(chunk, len(msg))
		for n < len(msg) && !utf8.RuneStart(msg[n]) {
			n++
		}
		delta := msg[:n]
		r.c.notify(ext.MethodParse, ext.ParseParams{Stream: scriptStream, Delta: &delta, ModelID: "claude-sonnet-4"})
		msg = msg[n:]
	}
	for line := range strings.Lines(s.sections["calls.jsonl"]) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var call ext.ToolCall
		require.NoError(t, json.Unmarshal([]byte(r.real(line)), &call), "calls.jsonl")
		r.c.notify(ext.MethodParse, ext.ParseParams{Stream: scriptStream, ToolCall: &call})
	}
	r.c.notify(ext.MethodParse, ext.ParseParams{Stream: scriptStream, Final: true})
	r.c.waitFor("the final push with every edit settled", func() bool {
		return r.c.final(scriptStream) && !slices.ContainsFunc(r.c.blocks(scriptStream), func(b ext.Block) bool {
			return b.Edit != nil && (b.Edit.Status == ext.StatusStreaming || b.Edit.Status == ext.StatusApplying)
		})
	})
	r.settleBuffers(t)
	return r
}

// settleBuffers waits until the client has reported every applied edit (Neovim 0.7 sends its
// didChange after answering).
func (r *scriptRun) settleBuffers(t *testing.T) {
	want := len(r.c.applyRequests())
	r.c.waitFor("the client to send its didChanges", func() bool {
		n := 0
		for _, f := range r.c.cl.Transcript() {
			if f.Sent && bytes.Contains(f.Body, []byte(`"textDocument/didChange"`)) {
				n++
			}
		}
		return n >= want
	})
}

// content returns what the client or the disk holds at a script path, and whether it exists.
func (r *scriptRun) content(rel string) (string, bool) {
	u := uri.File(r.path(rel))
	if slices.Contains(r.c.cl.Documents(), u) {
		return r.c.buffer(u), true
	}
	data, err := os.ReadFile(r.path(rel))
	return string(data), err == nil
}

// blocksJSON returns the stream's blocks as indented JSON with the script's paths.
func (r *scriptRun) blocksJSON(t *testing.T) string {
	raw, err := json.MarshalIndent(r.c.blocks(scriptStream), "", "  ")
	require.NoError(t, err)
	return r.virtual(string(raw)) + "\n"
}

// check compares the run with the script's want/ sections.
func (r *scriptRun) check(t *testing.T) {
	for _, f := range r.s.archive.Files {
		name, ok := strings.CutPrefix(f.Name, "want/")
		if !ok {
			continue
		}
		switch name {
		case "blocks.json":
			assert.JSONEq(t, string(f.Data), r.blocksJSON(t), "want/blocks.json")
		case "messages":
			var got []string
			for _, m := range r.c.messages() {
				got = append(got, r.virtual(m.Message))
			}
			for line := range strings.Lines(string(f.Data)) {
				if line = strings.TrimSpace(line); line != "" {
					assert.True(t, slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, line) }),
						"no window/showMessage contains %q; got %q", line, got)
				}
			}
		case "absent":
			for _, rel := range strings.Fields(string(f.Data)) {
				_, exists := r.content(rel)
				assert.False(t, exists, "%s exists", rel)
			}
		default:
			got, exists := r.content(name)
			if assert.True(t, exists, "%s does not exist", name) {
				assert.Equal(t, string(f.Data), got, "want/%s", name)
			}
		}
	}
}

// update rewrites the script's want/ sections from the run.
func (r *scriptRun) update(t *testing.T, path string) {
	for i, f := range r.s.archive.Files {
		name, ok := strings.CutPrefix(f.Name, "want/")
		switch {
		case !ok, name == "messages", name == "absent":
		case name == "blocks.json":
			r.s.archive.Files[i].Data = []byte(r.blocksJSON(t))
		default:
			got, _ := r.content(name)
			r.s.archive.Files[i].Data = []byte(got)
		}
	}
	require.NoError(t, os.WriteFile(path, txtar.Format(r.s.archive), 0o644))
}

// exchangeStep is one message of an exchange.
type exchangeStep struct {
	sent bool // → (client to server)
	line int
	msg  map[string]any
}

// parseExchange reads the → and ← messages of a transcript; a message runs from its arrow to the
// next arrow, comment or blank line.
func parseExchange(t testing.TB, text string) []exchangeStep {
	var steps []exchangeStep
	var cur *strings.Builder
	var step exchangeStep
	flush := func() {
		if cur == nil {
			return
		}
		require.NoError(t, json.Unmarshal([]byte(cur.String()), &step.msg), "exchange line %d: %s", step.line, cur.String())
		steps = append(steps, step)
		cur = nil
	}
	n := 0
	for line := range strings.Lines(text) {
		n++
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "→ "), strings.HasPrefix(trimmed, "← "):
			flush()
			arrow, body, _ := strings.Cut(trimmed, " ")
			step = exchangeStep{sent: arrow == "→", line: n}
			cur = &strings.Builder{}
			cur.WriteString(body)
		case trimmed == "", strings.HasPrefix(trimmed, "//"):
			flush()
		default:
			require.NotNil(t, cur, "exchange line %d is outside a message", n)
			cur.WriteString(trimmed)
		}
	}
	flush()
	return steps
}

// startsExchange reports whether the client sends a → message on its own initiative, rather than
// as the answer or consequence of something the server sent (responses, didChange) or of
// initialize (initialized).
func startsExchange(msg map[string]any) bool {
	method, _ := msg["method"].(string)
	return method != "" && method != "initialized" && method != "textDocument/didChange"
}

// playExchange sends the → messages the client starts and then checks the whole exchange
// against what went over the wire.
func (r *scriptRun) playExchange(t *testing.T, text string) {
	steps := parseExchange(t, text)
	c := r.c
	for i, st := range steps {
		if !st.sent || !startsExchange(st.msg) {
			continue
		}
		var before []exchangeStep
		for _, p := range steps[:i] {
			if !p.sent {
				before = append(before, p)
			}
		}
		r.waitReceived(t, before)
		raw, err := json.Marshal(st.msg["params"])
		require.NoError(t, err)
		params := json.RawMessage(r.real(string(raw)))
		method := st.msg["method"].(string)
		ctx, cancel := context.WithTimeout(c.ctx, waitTimeout)
		switch {
		case method == "initialize":
			require.NoError(t, c.cl.Initialize(ctx, params, nil))
		case method == "textDocument/didOpen":
			var p struct {
				TextDocument struct {
					URI  uri.URI `json:"uri"`
					Text string  `json:"text"`
				} `json:"textDocument"`
			}
			require.NoError(t, json.Unmarshal(params, &p))
			require.NoError(t, os.MkdirAll(filepath.Dir(p.TextDocument.URI.FsPath()), 0o755))
			require.NoError(t, os.WriteFile(p.TextDocument.URI.FsPath(), []byte(p.TextDocument.Text), 0o644))
			require.NoError(t, c.cl.Open(ctx, p.TextDocument.URI, p.TextDocument.Text))
		case st.msg["id"] != nil:
			require.NoError(t, c.cl.Request(ctx, method, params, nil))
		default:
			require.NoError(t, c.cl.Notify(ctx, method, params))
		}
		cancel()
		if method == "exit" {
			_, ok := c.serveResult()
			require.True(t, ok, "Serve did not return after exit")
		}
	}
	var wantRecv, wantSent []exchangeStep
	for _, st := range steps {
		if st.sent {
			wantSent = append(wantSent, st)
		} else {
			wantRecv = append(wantRecv, st)
		}
	}
	r.waitReceived(t, wantRecv)
	sent := r.frames(t, true)
	if i := subsequence(sent, wantSent); i >= 0 {
		t.Errorf("the client did not send the message of exchange line %d (in this order): %v\nit sent:\n%s",
			wantSent[i].line, wantSent[i].msg, dump(sent))
	}
	if len(sent) != len(wantSent) {
		t.Errorf("the client sent %d messages, the exchange shows %d:\n%s", len(sent), len(wantSent), dump(sent))
	}
}

// waitReceived waits until the client received the steps' messages in order, and fails the
// test naming the first one missing when they do not come.
func (r *scriptRun) waitReceived(t *testing.T, steps []exchangeStep) {
	t.Helper()
	ctx, cancel := context.WithTimeout(r.c.ctx, waitTimeout)
	defer cancel()
	if r.c.cl.Wait(ctx, func() bool { return subsequence(r.frames(t, false), steps) < 0 }) == nil {
		return
	}
	got := r.frames(t, false)
	i := subsequence(got, steps)
	raw, _ := json.Marshal(steps[i].msg)
	t.Fatalf("the client did not receive the message of exchange line %d (in this order):\n%s\nit received:\n%s", steps[i].line, raw, dump(got))
}

// frames returns the messages recorded in one direction, with the script's paths.
func (r *scriptRun) frames(t testing.TB, sent bool) []map[string]any {
	var out []map[string]any
	for _, f := range r.c.cl.Transcript() {
		if f.Sent != sent {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.virtual(string(f.Body))), &m))
		out = append(out, m)
	}
	return out
}

// subsequence returns the index of the first step that does not appear in msgs after the
// previous steps of the same method (responses count as one method), or -1 when all do. The
// order of messages of different methods is not compared: the server sends pushes, progress and
// requests from different goroutines.
func subsequence(msgs []map[string]any, steps []exchangeStep) int {
	at := map[any]int{} // per method, where the next step's search starts
	for i, st := range steps {
		method := st.msg["method"]
		j := at[method]
		for j < len(msgs) && (msgs[j]["method"] != method || !reflect.DeepEqual(msgs[j], st.msg)) {
			j++
		}
		if j == len(msgs) {
			return i
		}
		at[method] = j + 1
	}
	return -1
}

// dump formats messages one a line.
func dump(msgs []map[string]any) string {
	var b strings.Builder
	for _, m := range msgs {
		raw, _ := json.Marshal(m)
		b.Write(raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestProtocolDocExample ties docs/protocol.md to the wire scripts: its example exchange is
// exactly the exchange of testdata/wire/protocol_example.txtar, which TestWireScripts plays.
func TestProtocolDocExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/protocol.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "\n## Example exchange\n")
	require.True(t, ok, "docs/protocol.md has no Example exchange section")
	_, rest, ok = strings.Cut(rest, "```jsonc\n")
	require.True(t, ok, "the Example exchange has no jsonc block")
	example, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	s := readWireScript(t, "testdata/wire/protocol_example.txtar")
	assert.Equal(t, s.sections["exchange.jsonc"], example,
		"the example exchange of docs/protocol.md and testdata/wire/protocol_example.txtar differ")
	assert.NotEmpty(t, parseExchange(t, example))
}
