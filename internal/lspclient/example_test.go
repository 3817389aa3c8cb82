package lspclient_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/assistant-ls/assistant-ls/internal/lspclient"
	"github.com/assistant-ls/assistant-ls/lsp"
	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// A Helix-like editor opens a file, an agent streams a tool use into the server, and the
// editor's buffer ends up edited.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a last resort: the server hangs
	defer cancel()
	dir, _ := os.MkdirTemp("", "lspclient-example-")
	defer os.RemoveAll(dir)
	root, _ := filepath.EvalSymlinks(dir)

	serverEnd, clientEnd := net.Pipe()
	go func() { _, _ = lsp.Serve(ctx, serverEnd, lsp.Options{Logger: zap.NewNop()}) }()
	c := lspclient.New(ctx, clientEnd, lspclient.Options{Profile: lspclient.Helix})
	defer c.Close()
	if err := c.Initialize(ctx, lspclient.Helix.InitializeParams(root, nil), nil); err != nil {
		fmt.Println(err)
		return
	}
	u := uri.File(filepath.Join(root, "a.txt"))
	_ = os.WriteFile(u.FsPath(), []byte("hello\n"), 0o644)
	_ = c.Open(ctx, u, "hello\n")

	msg := "<replace_in_file>\n<path>a.txt</path>\n<diff>\n------- SEARCH\nhello\n=======\nhello, world\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
	_ = c.Notify(ctx, ext.MethodParse, ext.ParseParams{Stream: "s", Text: &msg, Final: true})
	_ = c.Wait(ctx, func() bool {
		b := c.Blocks("s")
		return c.Final("s") && len(b) == 1 && b[0].Edit != nil && b[0].Edit.Status.Terminal()
	})
	fmt.Println(c.Blocks("s")[0].Edit.Status, c.Encoding())
	fmt.Printf("%q (version %d)\n", c.Buffer(u), c.Version(u))
	_ = c.Shutdown(ctx)
	// Output:
	// applied utf-8
	// "hello, world\n" (version 2)
}
