package main

import (
	"context"
	"time"

	"github.com/assistant-ls/assistant-ls/internal/demo"
)

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
		return usageError(e, "demo")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := demo.Run(ctx, e.stdout, demo.Options{Chunk: *chunk, Delay: *delay, Version: version}); err != nil {
		return fail(e, 1, "demo: %v", err)
	}
	return 0
}
