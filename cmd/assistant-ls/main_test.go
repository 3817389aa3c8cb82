package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs the command line with stdin and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"nope"},
		{"parse", "a", "b"},
		{"parse", "--chunk", "x"},
		{"parse", filepath.Join(t.TempDir(), "missing.txt")},
		{"parse", "--tool-calls", filepath.Join(t.TempDir(), "missing.jsonl")},
		{"parse", "--tool-calls", "-", "extra.txt"},
		{"parse", "--tool-calls", "-", "--chunk", "3"},
		{"parse", "--updates"},
		{"apply"},
		{"apply", "--file", "x", "--diff-version", "v3"},
		{"apply", "--file", filepath.Join(t.TempDir(), "missing.go")},
		{"serve", "--log-level", "loud"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, "", args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.NotEmpty(t, errOut)
		})
	}
}

// TestHelp: every way of asking lists every subcommand with its command lines, and each
// command's own help names its flags.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, _ := runCLI(t, "", args...)
		assert.Equal(t, 0, code, args)
		for _, name := range []string{"serve", "parse", "apply", "patch", "tool", "review", "demo", "version"} {
			assert.Contains(t, out, "\n  "+name+" ", "%v lists %s", args, name)
			line := "assistant-ls " + name
			if name == "serve" {
				line = "assistant-ls [serve]"
			}
			assert.Contains(t, out, line, "%v gives %s's command line", args, name)
		}
	}
	for _, c := range commands {
		if c.name == "help" || c.name == "version" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			code, out, _ := runCLI(t, "", "help", c.name)
			assert.Equal(t, 0, code)
			assert.Contains(t, out, "usage: assistant-ls "+c.synopsis[0]+"\n")
			if c.run != nil {
				assert.Contains(t, out, "  -", "the flags of %s", c.name)
			}
		})
	}
	code, _, errOut := runCLI(t, "", "demo", "--chunk", "0")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "usage: assistant-ls demo [--chunk N] [--delay D]\n", errOut)
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCLI(t, "", args...)
		assert.Equal(t, 0, code)
		assert.Equal(t, "assistant-ls "+version+"\n", out)
	}
}

func TestParseExample(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "testdata", "examples", "add_retry.txt")
	msg, err := os.ReadFile(path)
	require.NoError(t, err)

	code, out, errOut := runCLI(t, "", "parse", path)
	require.Equal(t, 0, code, errOut)
	var got []parse.Block
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	want := parse.Parse(string(msg))
	require.Len(t, got, len(want))
	var names []string
	for i := range want {
		assert.Equal(t, want[i].Type, got[i].Type)
		assert.Equal(t, want[i].Content, got[i].Content)
		assert.Equal(t, want[i].Params, got[i].Params)
		if got[i].Type == parse.ToolUse {
			names = append(names, got[i].Name)
		}
	}
	assert.Equal(t, []string{"read_file", "replace_in_file", "write_to_file", "execute_command"}, names)
}

func TestParseStdinAndExtraNames(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "hi <my_tool><my_param> v </my_param></my_tool>", "parse", "--tools", "my_tool", "--params", "my_param")
	require.Equal(t, 0, code)
	assert.JSONEq(t, `[{"type":"text","content":"hi"},{"type":"tool_use","name":"my_tool","params":{"my_param":"v"}}]`, out)

	code, out, _ = runCLI(t, "", "parse", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "[]\n", out)
}

// TestParseChunkReplaysToFullParse replays the update lines the way a client would and checks that
// every update starts within the blocks it replaces, that no update shows half a character, and
// that the last one gives the full parse.
func TestParseChunkReplaysToFullParse(t *testing.T) {
	t.Parallel()
	msg := "Intro ✨ text <read_file><path>日本/a.go</path></read_file> then <write_to_file><path>b</path><content>x</content></write_to_file> end"
	for _, chunk := range []int{1, 2, 3, 7, 40} {
		code, out, errOut := runCLI(t, msg, "parse", "--chunk", strconv.Itoa(chunk))
		require.Equal(t, 0, code, errOut)
		assert.NotContains(t, out, `\ufffd`, "chunk %d split a character", chunk)
		assert.NotContains(t, out, "\uFFFD", "chunk %d split a character", chunk)
		var blocks []parse.Block
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.NotEmpty(t, lines)
		for _, line := range lines {
			var u update
			require.NoError(t, json.Unmarshal([]byte(line), &u), line)
			require.LessOrEqual(t, u.From, len(blocks))
			blocks = append(blocks[:u.From], u.Blocks...)
		}
		assert.Equal(t, stripSpans(parse.Parse(msg)), blocks, "chunk %d", chunk)
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	require.NoError(t, os.WriteFile(file, []byte("package a\n\nfunc A() int { return 1 }\n"), 0o644))
	diff := "------- SEARCH\nfunc A() int { return 1 }\n=======\nfunc A() int { return 2 }\n+++++++ REPLACE\n"

	code, out, errOut := runCLI(t, diff, "apply", "--file", file)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "package a\n\nfunc A() int { return 2 }\n", out)

	code, out, errOut = runCLI(t, diff, "apply", "--file", file, "--json", "--diff-version", "v2")
	require.Equal(t, 0, code, errOut)
	var got applyOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "package a\n\nfunc A() int { return 2 }\n", got.NewContent)
	require.Len(t, got.Replacements, 1)
	assert.Equal(t, replacementJSON{Start: 11, End: 37, Content: "func A() int { return 2 }\n", Section: 1, DiffLine: 0, Tier: "exact"}, got.Replacements[0])

	code, out, errOut = runCLI(t, strings.Replace(diff, "return 1", "return 9", 1), "apply", "--file", file)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "a.go")

	// A diff without a single SEARCH/REPLACE block changes nothing: it fails, saying what a diff
	// looks like, rather than printing the file as if it had been edited.
	code, out, errOut = runCLI(t, "make A return 2\n", "apply", "--file", file)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "a.go: the diff holds no SEARCH/REPLACE block, so it changes nothing; a diff is one or more SEARCH/REPLACE blocks")

	diffFile := filepath.Join(dir, "d.diff")
	require.NoError(t, os.WriteFile(diffFile, []byte(diff[:len(diff)-len("+++++++ REPLACE\n")]), 0o644))
	code, out, errOut = runCLI(t, "", "apply", "--file", file, "--diff", diffFile, "--partial")
	require.Equal(t, 0, code, errOut)
	// While streaming, the reference takes the empty string after the diff's last newline for a
	// REPLACE line still being written, so the preview ends in one more line break.
	assert.Equal(t, "package a\n\nfunc A() int { return 2 }\n\n", out)
}

// stripSpans drops what the JSON form does not carry, so blocks compare with decoded ones.
func stripSpans(blocks []parse.Block) []parse.Block {
	out := make([]parse.Block, len(blocks))
	for i, b := range blocks {
		b.Span, b.ParamSpans = parse.Span{}, nil
		out[i] = b
	}
	return out
}

// TestServeStdio runs the server on standard streams with a whole session on stdin and checks
// that stdout carries nothing but framed protocol messages, and the exit code.
func TestServeStdio(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	} {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	code, out, _ := runCLI(t, in.String(), "serve", "--log-level", "debug")
	assert.Equal(t, 0, code)

	var bodies []string
	for rest := out; rest != ""; {
		var n int
		_, err := fmt.Sscanf(rest, "Content-Length: %d\r\n\r\n", &n)
		require.NoError(t, err, "stdout holds something other than a frame: %q", rest)
		start := strings.Index(rest, "\r\n\r\n") + 4
		bodies = append(bodies, rest[start:start+n])
		rest = rest[start+n:]
	}
	require.Len(t, bodies, 2, "the answers to initialize and shutdown")
	assert.Contains(t, bodies[0], `"serverInfo":{"name":"assistant-ls","version":"`+version+`"}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":null}`, bodies[1])
}
