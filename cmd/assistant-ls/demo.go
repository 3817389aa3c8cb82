package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// demoData holds the sample assistant message and the sample workspace it edits.
//
//go:embed testdata/demo
var demoData embed.FS

// demoStream is the stream name the demo's agent uses.
const demoStream = "demo"

// runDemo is a self-contained tour: it starts the server in-process, plays an editor and an agent
// plugin against it over a real LSP connection, streams the embedded message into it, shows the
// blocks and edits as they arrive, and prints the unified diff of the sample workspace.
func runDemo(e env) int {
	fl := newFlags(e, "demo")
	chunk := fl.Int("chunk", 40, "stream the message in `N`-byte deltas")
	delay := fl.Duration("delay", 15*time.Millisecond, "pause between deltas, as a model would")
	if code := parseFlags(fl, e); code >= 0 {
		return code
	}
	if fl.NArg() > 0 || *chunk <= 0 || *delay < 0 {
		return fail(e, exitUsage, "usage: assistant-ls demo [--chunk N] [--delay D]")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := demo(ctx, e.stdout, *chunk, *delay); err != nil {
		return fail(e, 1, "demo: %v", err)
	}
	return 0
}

// demo runs the tour, writing its narration to out.
func demo(ctx context.Context, out io.Writer, chunk int, delay time.Duration) error {
	dir, err := os.MkdirTemp("", "assistant-ls-demo-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ws := filepath.Join(dir, "workspace")
	originals, err := copyWorkspace(ws)
	if err != nil {
		return err
	}
	msg, err := demoData.ReadFile("testdata/demo/message.txt")
	if err != nil {
		return err
	}

	clientEnd, serverEnd := net.Pipe()
	served := make(chan int, 1)
	go func() {
		code, _ := lsp.Serve(ctx, serverEnd, lsp.Options{Logger: zap.NewNop(), Version: version})
		served <- code
	}()
	c := newDemoEditor(ws, out)
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientEnd))
	c.conn = conn
	conn.Go(ctx, c.handle)
	defer func() { _ = conn.Close() }()

	c.say("assistant-ls demo: an editor and an agent plugin talk LSP to the server, in-process.\n")
	c.say("Workspace: %s (a copy of a small Go package)\n\n", ws)
	c.say("1. initialize: the editor offers positions in utf-8 or utf-16, versioned documentChanges\n   and file creation; it asks for no confirmation dialogs.\n")
	var init struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if _, err := conn.Call(ctx, "initialize", initializeParams(ws), &init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	c.say("   server: %s %s, positionEncoding %q\n", init.ServerInfo.Name, init.ServerInfo.Version, init.Capabilities.PositionEncoding)
	if err := conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		return err
	}

	greet := filepath.Join(ws, "greet", "greet.go")
	c.say("\n2. The user has greet/greet.go open (version 1).\n")
	if err := c.open(ctx, greet, originals["greet/greet.go"]); err != nil {
		return err
	}

	c.say("\n3. The agent streams the model's reply with assistant/parse, %d bytes at a time;\n   the server pushes assistant/blocks with only the blocks that changed, and sends\n   workspace/applyEdit as soon as an edit is complete:\n\n", chunk)
	for start := 0; start < len(msg); {
		end := min(start+chunk, len(msg))
		delta := string(msg[start:end])
		if err := conn.Notify(ctx, ext.MethodParse, ext.ParseParams{Stream: demoStream, Delta: &delta}); err != nil {
			return err
		}
		start = end
		time.Sleep(delay)
	}
	if err := conn.Notify(ctx, ext.MethodParse, ext.ParseParams{Stream: demoStream, Final: true}); err != nil {
		return err
	}
	if err := c.waitSettled(ctx); err != nil {
		return err
	}

	c.say("\n4. Where every edit ended up:\n")
	for _, b := range c.finalBlocks() {
		if b.Edit != nil {
			c.say("   #%d %s %s: %s%s\n", b.Index, b.Name, b.Params["path"], b.Edit.Status, errSuffix(b.Edit.Error))
		}
	}

	if _, err := conn.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	_ = conn.Notify(ctx, "exit", nil)
	select {
	case code := <-served:
		c.say("\n5. shutdown and exit: the server stopped with exit code %d.\n", code)
	case <-ctx.Done():
		return errors.New("the server did not exit")
	}

	c.say("\n6. The editor saves its buffers; the workspace changed like this:\n\n")
	return c.printDiff(originals)
}

// errSuffix formats an edit's error after its status.
func errSuffix(msg string) string {
	if msg == "" {
		return ""
	}
	return " (" + strings.SplitN(msg, "\n", 2)[0] + ")"
}

// copyWorkspace copies the embedded sample workspace to dir and returns its files by slash path.
func copyWorkspace(dir string) (map[string]string, error) {
	const root = "testdata/demo/workspace"
	files := map[string]string{}
	err := fs.WalkDir(demoData, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := demoData.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		files[rel] = string(data)
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	return files, err
}

// initializeParams are the demo editor's initialize params.
func initializeParams(ws string) map[string]any {
	root := string(uri.File(ws))
	return map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          root,
		"workspaceFolders": []map[string]string{{"uri": root, "name": "workspace"}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"workspace": map[string]any{
				"applyEdit":     true,
				"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create"}},
			},
		},
		"initializationOptions": map[string]any{"confirm": false},
	}
}

// demoEditor plays the editor: it keeps buffers, applies the server's workspace edits to them and
// reports every change back with didChange, as an LSP client does.
type demoEditor struct {
	ws   string
	out  io.Writer
	conn jsonrpc2.Conn

	mu      sync.Mutex
	buffers map[string]*buffer // by file path
	blocks  []ext.Block
	final   bool
	changed chan struct{} // closed and replaced whenever blocks change
}

// buffer is one document the editor holds.
type buffer struct {
	text    string
	version int32
}

// newDemoEditor returns an editor for workspace ws narrating to out.
func newDemoEditor(ws string, out io.Writer) *demoEditor {
	return &demoEditor{ws: ws, out: out, buffers: map[string]*buffer{}, changed: make(chan struct{})}
}

// say prints narration; pushes arrive on another goroutine, so output is serialised.
func (c *demoEditor) say(format string, a ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.out, format, a...)
}

// rel returns a workspace-relative slash path for display.
func (c *demoEditor) rel(path string) string {
	if r, err := filepath.Rel(c.ws, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// open opens a document in the editor and tells the server.
func (c *demoEditor) open(ctx context.Context, path, text string) error {
	c.mu.Lock()
	c.buffers[path] = &buffer{text: text, version: 1}
	c.mu.Unlock()
	return c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": string(uri.File(path)), "languageId": "go", "version": 1, "text": text},
	})
}

// handle answers the server's requests and notifications.
func (c *demoEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case ext.MethodBlocks:
		var p ext.BlocksParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		c.push(p)
		return nil, nil
	case "workspace/applyEdit":
		var p applyEditParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		return c.applyEdit(ctx, p), nil
	case "window/showMessage":
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		c.say("     ⇐ window/showMessage: %s\n", p.Message)
		return nil, nil
	case "window/workDoneProgress/create", "client/registerCapability":
		return nil, nil
	}
	if req.IsCall() {
		return jsonrpc2.MethodNotFoundHandler(ctx, req)
	}
	return nil, nil
}

// push records an assistant/blocks push and narrates the blocks it carries.
func (c *demoEditor) push(p ext.BlocksParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.From <= len(c.blocks) {
		c.blocks = append(c.blocks[:p.From], p.Blocks...)
	}
	c.final = c.final || p.Final
	fmt.Fprintf(c.out, "   ⇐ assistant/blocks from %d%s\n", p.From, map[bool]string{true: " (final)"}[p.Final])
	for _, b := range p.Blocks {
		fmt.Fprintf(c.out, "       %s\n", describe(b))
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// describe is a one-line summary of a block.
func describe(b ext.Block) string {
	state := "complete"
	if b.Partial {
		state = "partial"
	}
	if b.Type == "text" {
		text := strings.Join(strings.Fields(deref(b.Content)), " ")
		if len(text) > 50 {
			text = text[:47] + "..."
		}
		return fmt.Sprintf("#%d text (%s) %q", b.Index, state, text)
	}
	s := fmt.Sprintf("#%d %s (%s)", b.Index, b.Name, state)
	if p := b.Params["path"]; p != "" {
		s += " path=" + p
	}
	for _, k := range []string{"diff", "content"} {
		if v, ok := b.Params[k]; ok && b.Partial {
			s += fmt.Sprintf(" %s=%d bytes so far", k, len(v))
		}
	}
	if b.Edit != nil {
		s += " edit=" + string(b.Edit.Status) + errSuffix(b.Edit.Error)
	}
	return s
}

// waitSettled waits for the final push and for every edit to reach a status that no longer moves.
func (c *demoEditor) waitSettled(ctx context.Context) error {
	for {
		c.mu.Lock()
		done := c.final && !slices.ContainsFunc(c.blocks, func(b ext.Block) bool {
			return b.Edit != nil && (b.Edit.Status == ext.StatusStreaming || b.Edit.Status == ext.StatusApplying)
		})
		changed := c.changed
		c.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the edits to settle: %w", ctx.Err())
		}
	}
}

// finalBlocks returns the blocks as the last push left them.
func (c *demoEditor) finalBlocks() []ext.Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.blocks)
}

// applyEditParams is the part of workspace/applyEdit the demo editor understands: versioned
// document edits and file creation, as it advertised.
type applyEditParams struct {
	Label string `json:"label"`
	Edit  struct {
		DocumentChanges []struct {
			Kind         string `json:"kind"`
			URI          string `json:"uri"`
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int32 `json:"version"`
			} `json:"textDocument"`
			Edits []textEdit `json:"edits"`
		} `json:"documentChanges"`
	} `json:"edit"`
}

// textEdit is an LSP TextEdit with utf-8 positions (the encoding the demo negotiates).
type textEdit struct {
	Range struct {
		Start position `json:"start"`
		End   position `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

// position is an LSP Position.
type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// applyEdit applies a workspace edit to the editor's buffers, all of it or, when a document's
// version is stale or its edits do not apply, none of it; then it sends didOpen or didChange for
// each document it touched, and answers the request.
func (c *demoEditor) applyEdit(ctx context.Context, p applyEditParams) map[string]any {
	c.mu.Lock()
	fmt.Fprintf(c.out, "     ⇐ workspace/applyEdit %q\n", p.Label)
	staged := map[string]*buffer{} // the new state of every document the edit touches
	var opened, changed []string   // in the order the edit names them
	for _, dc := range p.Edit.DocumentChanges {
		if dc.Kind == "create" {
			path := filePath(dc.URI)
			if _, ok := c.buffers[path]; !ok && staged[path] == nil {
				staged[path] = &buffer{version: 1}
				opened = append(opened, path)
			}
			fmt.Fprintf(c.out, "         create %s\n", c.rel(path))
			continue
		}
		path := filePath(dc.TextDocument.URI)
		buf := staged[path]
		if buf == nil {
			if cur := c.buffers[path]; cur != nil {
				buf = &buffer{text: cur.text, version: cur.version}
			} else {
				text, _ := os.ReadFile(path)
				buf = &buffer{text: string(text), version: 1}
				opened = append(opened, path)
			}
			staged[path] = buf
		}
		if v := dc.TextDocument.Version; v != nil && *v != buf.version {
			c.mu.Unlock()
			return map[string]any{"applied": false, "failureReason": c.rel(path) + " changed since the edit was made"}
		}
		for _, ed := range dc.Edits {
			fmt.Fprintf(c.out, "         %s: replace %d:%d-%d:%d with %d line(s)\n", c.rel(path),
				ed.Range.Start.Line+1, ed.Range.Start.Character, ed.Range.End.Line+1, ed.Range.End.Character,
				strings.Count(ed.NewText, "\n"))
		}
		text, err := applyTextEdits(buf.text, dc.Edits)
		if err != nil {
			c.mu.Unlock()
			return map[string]any{"applied": false, "failureReason": c.rel(path) + ": " + err.Error()}
		}
		buf.text = text
		if !slices.Contains(opened, path) && !slices.Contains(changed, path) {
			buf.version++
			changed = append(changed, path)
		}
	}
	notes := make([]func() error, 0, len(opened)+len(changed))
	for _, path := range opened {
		c.buffers[path] = staged[path]
		doc := map[string]any{"uri": string(uri.File(path)), "languageId": "go", "version": staged[path].version, "text": staged[path].text}
		notes = append(notes, func() error {
			return c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": doc})
		})
	}
	for _, path := range changed {
		c.buffers[path] = staged[path]
		params := map[string]any{
			"textDocument":   map[string]any{"uri": string(uri.File(path)), "version": staged[path].version},
			"contentChanges": []map[string]string{{"text": staged[path].text}},
		}
		notes = append(notes, func() error { return c.conn.Notify(ctx, "textDocument/didChange", params) })
	}
	c.mu.Unlock()
	for _, note := range notes {
		if err := note(); err != nil {
			return map[string]any{"applied": false, "failureReason": err.Error()}
		}
	}
	return map[string]any{"applied": true}
}

// filePath returns the file path of a file URI; other URIs yield "".
func filePath(s string) string {
	u, err := uri.Parse(s)
	if err != nil || !u.IsFile() {
		return ""
	}
	return u.FsPath()
}

// applyTextEdits applies edits with utf-8 positions to text. Overlapping edits are an error, as
// the LSP forbids them.
func applyTextEdits(text string, edits []textEdit) (string, error) {
	starts := lineStarts(text)
	type span struct {
		start, end int
		newText    string
	}
	spans := make([]span, 0, len(edits))
	for _, ed := range edits {
		start, end := offsetOf(text, starts, ed.Range.Start), offsetOf(text, starts, ed.Range.End)
		if end < start {
			return "", fmt.Errorf("an edit ends before it starts (%d:%d)", ed.Range.Start.Line+1, ed.Range.Start.Character)
		}
		spans = append(spans, span{start, end, ed.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var sb strings.Builder
	pos := 0
	for _, sp := range spans {
		if sp.start < pos {
			return "", errors.New("the edits overlap")
		}
		sb.WriteString(text[pos:sp.start])
		sb.WriteString(sp.newText)
		pos = sp.end
	}
	sb.WriteString(text[pos:])
	return sb.String(), nil
}

// lineStarts returns the byte offset of each line of text, with LSP line breaks.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case '\n':
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offsetOf converts a utf-8 position to a byte offset. As the LSP asks, a character past the end
// of its line means the end of the line (before its line break), and a line past the last one
// the end of the text.
func offsetOf(text string, starts []int, p position) int {
	if p.Line >= len(starts) {
		return len(text)
	}
	end := len(text)
	if p.Line+1 < len(starts) {
		end = starts[p.Line+1]
		end -= len(lineBreakBefore(text[starts[p.Line]:end]))
	}
	return min(starts[p.Line]+p.Character, end)
}

// lineBreakBefore returns the line break that ends line: "\r\n", "\n", "\r" or "".
func lineBreakBefore(line string) string {
	for _, lb := range []string{"\r\n", "\n", "\r"} {
		if strings.HasSuffix(line, lb) {
			return lb
		}
	}
	return ""
}

// printDiff writes the editor's buffers to disk, as a save would, and prints a unified diff of
// every file that changed.
func (c *demoEditor) printDiff(originals map[string]string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	paths := make([]string, 0, len(c.buffers))
	for path := range c.buffers {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		rel := c.rel(path)
		before, after := originals[rel], c.buffers[path].text
		if before == after {
			continue
		}
		if err := os.WriteFile(path, []byte(after), 0o644); err != nil {
			return err
		}
		fmt.Fprint(c.out, udiff.Unified("a/"+rel, "b/"+rel, before, after))
	}
	return nil
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
