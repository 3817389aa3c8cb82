// Command assistant-ls is a language server that lets any LSP editor preview and apply code edits
// written by a language model. Run without arguments (or with "serve") it speaks LSP over stdio;
// its other subcommands expose the parser and the applier, and a demo.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// version is the program's version, printed by "version" and "--version".
const version = "0.1.0"

// exitUsage is the exit code for bad usage and unreadable input.
const exitUsage = 2

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what a subcommand may touch: its arguments and the process's standard streams.
type env struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// run executes the command line args and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	name, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	e := env{args: rest, stdin: stdin, stdout: stdout, stderr: stderr}
	switch name {
	case "serve":
		return runServe(e)
	case "parse":
		return runParse(e)
	case "apply":
		return runApply(e)
	case "review":
		return runReview(e)
	case "patch":
		return runPatch(e)
	case "tool":
		return runTool(e)
	case "demo":
		return runDemo(e)
	case "version":
		fmt.Fprintln(stdout, "assistant-ls", version)
		return 0
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "assistant-ls: unknown command %q; run \"assistant-ls help\" for the list\n", name)
	return exitUsage
}

// usage is printed by "help".
const usage = `assistant-ls: preview and apply language-model edits in any LSP editor

Usage:
  assistant-ls [serve] [--log-file FILE] [--log-level LEVEL]   the language server, on stdio
  assistant-ls parse [--chunk N] [--tools a,b] [--params x,y] [FILE]
  assistant-ls parse --tool-calls FILE|- [--provider SHAPE] [--updates] [--tools a,b] [--params x,y]
  assistant-ls apply --file PATH [--diff FILE|-] [--partial] [--diff-version v1|v2] [--json]
  assistant-ls review [-C FOLDER] FILE                          check an answer's edits against the files
  assistant-ls patch --dir DIR [--patch FILE|-] [--format auto|v4a|udiff|aider|cline] [--json] [--write]
                                                   an edit in any text format: what it changes
  assistant-ls tool --dir DIR --name NAME (--input JSON | --input-file FILE|-) [--json] [--write] [--config FILE]
                                                   one edit tool call (Edit, apply_patch, …): what it changes
  assistant-ls demo [--chunk N] [--delay D]                     a self-contained tour
  assistant-ls version
`

// newFlags returns a flag set for a subcommand that reports errors on e.stderr instead of exiting.
func newFlags(e env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// parseFlags parses e.args into fs; it returns the exit code to use when parsing failed, or -1.
func parseFlags(fs *flag.FlagSet, e env) int {
	err := fs.Parse(e.args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return exitUsage
	}
	return -1
}

// splitNames splits a comma-separated list of names; blanks are dropped by the parser's Config.
func splitNames(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// fail prints a one-line error and returns code.
func fail(e env, code int, format string, a ...any) int {
	fmt.Fprintf(e.stderr, "assistant-ls: "+format+"\n", a...)
	return code
}
