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

	"github.com/assistant-ls/assistant-ls/lsp"
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
	if len(args) > 0 && isHelpFlag(args[0]) {
		name, rest = "help", args[1:]
	}
	e := env{args: rest, stdin: stdin, stdout: stdout, stderr: stderr}
	if name == "help" {
		return runHelp(e)
	}
	cmd, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "assistant-ls: unknown command %q; run \"assistant-ls help\" for the list\n", name)
		return exitUsage
	}
	return cmd.run(e)
}

// command is one subcommand. The table below is the one place a subcommand is named: help, the
// usage of each flag set and the dispatch all read it, so a new subcommand is one entry.
type command struct {
	name     string
	synopsis []string // its command lines, each after "assistant-ls "
	summary  string   // what it does, in one line
	run      func(env) int
}

// commands are the subcommands, in the order help lists them.
var commands []command

func init() {
	// Assigned here rather than in the declaration: runHelp reads the table, and a run field
	// referring to it would make an initialisation cycle.
	commands = []command{
		{"serve", []string{"[serve] [--log-file FILE] [--log-level debug|info|warn|error] [--version]"},
			"the language server, on stdio (the default command)", runServe},
		{"parse", []string{
			"parse [--chunk N] [--tools a,b] [--params x,y] [FILE]",
			"parse --tool-calls FILE|- [--provider SHAPE] [--updates] [--tools a,b] [--params x,y]"},
			"print a message's blocks as Cline's parser sees them", runParse},
		{"apply", []string{"apply --file PATH [--diff FILE|-] [--partial] [--diff-version v1|v2] [--json]"},
			"apply a SEARCH/REPLACE diff to a file and print the new content (writes nothing)", runApply},
		{"patch", []string{"patch --dir DIR [--patch FILE|-] [--format " + strings.Join(lsp.PatchFormats, "|") + "] [--json] [--write]"},
			"show what an edit in any text format would change under DIR (writes only with --write)", runPatch},
		{"tool", []string{"tool --dir DIR --name NAME (--input JSON | --input-file FILE|-) [--json] [--write] [--config FILE]"},
			"run one edit tool call (Edit, Write, apply_patch, replace_in_file, …) on the files under DIR", runTool},
		{"review", []string{"review [-C FOLDER] FILE"},
			"check a pasted answer's edits against the files, as a compiler prints errors", runReview},
		{"demo", []string{"demo [--chunk N] [--delay D]"},
			"a self-contained tour of the server, in-process", runDemo},
		{"version", []string{"version"}, "print the version", runVersion},
		{"help", []string{"help [COMMAND]"}, "this list, or a command's flags", runHelp},
	}
}

// lookup returns the subcommand called name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// isHelpFlag reports whether arg asks for help, as the flag package understands it.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// runVersion prints the version.
func runVersion(e env) int {
	fmt.Fprintln(e.stdout, "assistant-ls", version)
	return 0
}

// runHelp prints every subcommand with its command lines, or with a name, that command's flags.
func runHelp(e env) int {
	if len(e.args) > 0 {
		cmd, ok := lookup(e.args[0])
		if !ok || cmd.name == "help" {
			return fail(e, exitUsage, "help: unknown command %q; run \"assistant-ls help\" for the list", e.args[0])
		}
		return cmd.run(env{args: []string{"--help"}, stdin: e.stdin, stdout: e.stdout, stderr: e.stdout})
	}
	fmt.Fprint(e.stdout, "assistant-ls: preview and apply language-model edits in any LSP editor\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(e.stdout, "  %-8s %s\n", c.name, c.summary)
		for _, line := range c.synopsis {
			fmt.Fprintf(e.stdout, "           assistant-ls %s\n", line)
		}
	}
	fmt.Fprint(e.stdout, "\n\"assistant-ls COMMAND --help\" (or \"assistant-ls help COMMAND\") lists a command's flags.\n")
	return 0
}

// synopsis is a command's usage lines.
func synopsis(c command) string {
	var b strings.Builder
	for i, line := range c.synopsis {
		prefix := "usage: "
		if i > 0 {
			prefix = "       "
		}
		fmt.Fprintf(&b, "%sassistant-ls %s\n", prefix, line)
	}
	return b.String()
}

// usageError reports bad usage of the subcommand name with its command lines.
func usageError(e env, name string) int {
	cmd, _ := lookup(name)
	fmt.Fprint(e.stderr, synopsis(cmd))
	return exitUsage
}

// newFlags returns a flag set for a subcommand that reports errors on e.stderr instead of exiting.
// Its -h prints the command's lines from the table above the flags.
func newFlags(e env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		if cmd, ok := lookup(name); ok {
			fmt.Fprint(fs.Output(), synopsis(cmd))
		}
		fs.PrintDefaults()
	}
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
