package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/assistant-ls/assistant-ls/lsp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// runServe runs the language server on the process's stdin and stdout until the client exits.
func runServe(e env) int {
	fs := newFlags(e, "serve")
	logFile := fs.String("log-file", "", "write logs to `FILE` instead of standard error")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if code := parseFlags(fs, e); code >= 0 {
		return code
	}
	if *showVersion {
		fmt.Fprintln(e.stdout, "assistant-ls", version)
		return 0
	}
	if fs.NArg() > 0 {
		return usageError(e, "serve")
	}
	logger, closeLog, err := newLogger(e, *logFile, *logLevel)
	if err != nil {
		return fail(e, exitUsage, "%v", err)
	}
	defer closeLog()

	// A client that closes its end of standard error must not end the session: without this,
	// Go ends the process with SIGPIPE at the first log line written to fd 2 after it. With it,
	// such a write fails, and the log sink drops what follows.
	signal.Ignore(syscall.SIGPIPE)
	in := keepHeapFloor(heapFloor, e.stdin)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := lsp.Serve(ctx, stdio{r: in, w: e.stdout}, withFaults(lsp.Options{Logger: logger, Version: version}))
	if err != nil {
		logger.Error("server stopped", zap.Error(err))
	}
	return code
}

// newLogger builds the server's logger on standard error or on the named file (appended to), never
// on standard output, which carries the protocol.
func newLogger(e env, file, level string) (*zap.Logger, func(), error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w (use debug, info, warn or error)", err)
	}
	var sink zapcore.WriteSyncer = newLogSink(e.stderr)
	closeFn := func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		sink, closeFn = zapcore.AddSync(f), func() { _ = f.Close() }
	}
	cfg := zap.NewProductionEncoderConfig()
	cfg.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(cfg), zapcore.Lock(sink), lvl)
	// zap reports its own failures on standard error by default, where a write may block.
	logger := zap.New(core, zap.ErrorOutput(sink))
	return logger, func() { _ = logger.Sync(); closeFn() }, nil
}

// stdio joins the process's standard input and output into the connection the server speaks on.
type stdio struct {
	r io.Reader
	w io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }

// Close closes nothing: the process's streams end with the process. The transport does not
// need it to: it ends a Read of standard input that is still blocked itself, so the session
// ends at exit even while the client keeps its end of stdin open.
func (s stdio) Close() error { return nil }
