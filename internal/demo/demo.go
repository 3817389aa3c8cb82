// Package demo is the tour behind `assistant-ls demo`: it starts the server in-process, plays an
// editor (an lspclient.Client) and an agent plugin against it over a real LSP connection, streams
// an embedded message into it, narrates the blocks and edits as they arrive, and prints the
// unified diff of the sample workspace.
package demo

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
	"strings"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/internal/lspclient"
	"github.com/assistant-ls/assistant-ls/lsp"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// demoData holds the sample assistant message and the sample workspace it edits.
//
//go:embed testdata
var demoData embed.FS

// demoStream is the stream name the demo's agent uses.
const demoStream = "demo"

// Options configure Run.
type Options struct {
	Chunk   int           // stream the message in deltas of this many bytes (at least 1)
	Delay   time.Duration // pause between deltas, as a model would
	Version string        // the server's version, as the binary announces it
}

// Run runs the tour, writing its narration to out. It leaves nothing behind: the workspace is a
// temporary folder it removes.
func Run(ctx context.Context, out io.Writer, opts Options) error {
	chunk, delay := opts.Chunk, opts.Delay
	if chunk <= 0 {
		return errors.New("demo: the chunk size must be at least 1")
	}
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
	msg, err := demoData.ReadFile("testdata/message.txt")
	if err != nil {
		return err
	}

	clientEnd, serverEnd := net.Pipe()
	served := make(chan int, 1)
	go func() {
		code, _ := lsp.Serve(ctx, serverEnd, lsp.Options{Logger: zap.NewNop(), Version: opts.Version})
		served <- code
	}()
	n := &narrator{ws: ws, out: out}
	c := lspclient.New(ctx, clientEnd, lspclient.Options{Observe: n.observe})
	defer func() { _ = c.Close() }()

	n.say("assistant-ls demo: an editor and an agent plugin talk LSP to the server, in-process.\n")
	n.say("Workspace: %s (a copy of a small Go package)\n\n", ws)
	n.say("1. initialize: the editor offers positions in utf-8 or utf-16, versioned documentChanges\n   and file creation; it asks for no confirmation dialogs.\n")
	var init struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := c.Initialize(ctx, initializeParams(ws), &init); err != nil {
		return err
	}
	n.say("   server: %s %s, positionEncoding %q\n", init.ServerInfo.Name, init.ServerInfo.Version, init.Capabilities.PositionEncoding)

	greet := filepath.Join(ws, "greet", "greet.go")
	n.say("\n2. The user has greet/greet.go open (version 1).\n")
	if err := c.Open(ctx, uri.File(greet), originals["greet/greet.go"]); err != nil {
		return err
	}

	n.say("\n3. The agent streams the model's reply with assistant/parse, %d bytes at a time;\n   the server pushes assistant/blocks with only the blocks that changed, and sends\n   workspace/applyEdit as soon as an edit is complete:\n\n", chunk)
	for start := 0; start < len(msg); {
		end := min(start+chunk, len(msg))
		delta := string(msg[start:end])
		if err := c.Notify(ctx, ext.MethodParse, ext.ParseParams{Stream: demoStream, Delta: &delta}); err != nil {
			return err
		}
		start = end
		time.Sleep(delay)
	}
	if err := c.Notify(ctx, ext.MethodParse, ext.ParseParams{Stream: demoStream, Final: true}); err != nil {
		return err
	}
	if err := c.Wait(ctx, func() bool { return settled(c) }); err != nil {
		return fmt.Errorf("waiting for the edits to settle: %w", err)
	}

	// Each edit's state was told once, as it changed: the last one told is where it ended up.
	n.say("\n4. Every edit has settled: the last state told of each is where it ended up.\n")

	if err := c.Shutdown(ctx); err != nil {
		return err
	}
	select {
	case code := <-served:
		n.say("\n5. shutdown and exit: the server stopped with exit code %d.\n", code)
	case <-ctx.Done():
		return errors.New("the server did not exit")
	}

	n.say("\n6. The editor saves its buffers; the workspace changed like this:\n\n")
	return n.printDiff(c, originals)
}

// settled reports whether the final push arrived and every edit reached a status that no
// longer moves.
func settled(c *lspclient.Client) bool {
	return c.Final(demoStream) && !slices.ContainsFunc(c.Blocks(demoStream), func(b ext.Block) bool {
		return b.Edit != nil && (b.Edit.Status == ext.StatusStreaming || b.Edit.Status == ext.StatusApplying)
	})
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
	const root = "testdata/workspace"
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

// narrator tells what the demo's editor (an lspclient.Client) receives, as it arrives.
type narrator struct {
	ws  string
	out io.Writer
	mu  sync.Mutex // pushes arrive on the client's goroutine
	// told is the edit state last told of each block, by index (guarded by mu): pushes repeat
	// a block's state, which is told only when it changed.
	told map[int]ext.EditStatus
}

// say prints narration.
func (n *narrator) say(format string, a ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintf(n.out, format, a...)
}

// rel returns a workspace-relative slash path for display.
func (n *narrator) rel(path string) string {
	if r, err := filepath.Rel(n.ws, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// observe narrates a request or notification of the server before the editor handles it.
func (n *narrator) observe(method string, params json.RawMessage) {
	switch method {
	case ext.MethodBlocks:
		var p ext.BlocksParams
		if json.Unmarshal(params, &p) != nil {
			return
		}
		n.mu.Lock()
		defer n.mu.Unlock()
		fmt.Fprintf(n.out, "   ⇐ assistant/blocks from %d%s\n", p.From, map[bool]string{true: " (final)"}[p.Final])
		if n.told == nil {
			n.told = map[int]ext.EditStatus{}
		}
		for _, b := range p.Blocks {
			if b.Edit != nil {
				if n.told[b.Index] == b.Edit.Status {
					b.Edit = nil
				} else {
					n.told[b.Index] = b.Edit.Status
				}
			}
			fmt.Fprintf(n.out, "       %s\n", describe(b))
		}
	case "workspace/applyEdit":
		var p protocol.ApplyWorkspaceEditParams
		if protocol.Unmarshal(params, &p) != nil {
			return
		}
		n.say("     ⇐ workspace/applyEdit %q\n", deref(p.Label))
		for _, dc := range p.Edit.DocumentChanges {
			switch dc := dc.(type) {
			case *protocol.CreateFile:
				n.say("         create %s\n", n.rel(dc.URI.FsPath()))
			case *protocol.TextDocumentEdit:
				for _, el := range dc.Edits {
					if te, ok := el.(*protocol.TextEdit); ok {
						n.say("         %s: replace %d:%d-%d:%d with %d line(s)\n", n.rel(dc.TextDocument.URI.FsPath()),
							te.Range.Start.Line+1, te.Range.Start.Character, te.Range.End.Line+1, te.Range.End.Character,
							strings.Count(te.NewText, "\n"))
					}
				}
			}
		}
	case "window/showMessage":
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(params, &p)
		n.say("     ⇐ window/showMessage: %s\n", p.Message)
	}
}

// describe is a one-line summary of a block, with its edit state when b has one.
func describe(b ext.Block) string {
	state := "complete"
	if b.Partial {
		state = "partial"
	}
	if b.Type == "text" {
		content := deref(b.Content)
		if b.Partial {
			content = cutTagStart(content)
		}
		text := strings.Join(strings.Fields(content), " ")
		if len(text) > 50 {
			text = text[:47] + "..."
		}
		return fmt.Sprintf("#%d text (%s) %q", b.Index, state, text)
	}
	s := fmt.Sprintf("#%d %s (%s)", b.Index, b.Name, state)
	p := b.Params["path"]
	if b.Partial {
		p = cutTagStart(p)
	}
	if p != "" {
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

// cutTagStart removes the start of a tag that ends a partial value: a delta that ends inside
// `</path>` leaves `</` in the value until the next one, as in Cline's parser.
func cutTagStart(s string) string {
	i := strings.LastIndexByte(s, '<')
	if i < 0 {
		return s
	}
	name := strings.TrimPrefix(s[i+1:], "/")
	if strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return s
	}
	return s[:i]
}

// printDiff writes the editor's buffers to disk, as a save would, and prints a unified diff of
// every file that changed.
func (n *narrator) printDiff(c *lspclient.Client, originals map[string]string) error {
	docs := c.Documents()
	slices.SortFunc(docs, func(a, b uri.URI) int { return strings.Compare(a.FsPath(), b.FsPath()) })
	for _, u := range docs {
		path := u.FsPath()
		rel := n.rel(path)
		before, after := originals[rel], c.Buffer(u)
		if before == after {
			continue
		}
		if err := os.WriteFile(path, []byte(after), 0o644); err != nil {
			return err
		}
		n.say("%s", udiff.Unified("a/"+rel, "b/"+rel, before, after))
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
