package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeCommand is one `go run ./cmd/assistant-ls …` line of a sh block in README.md.
type readmeCommand struct {
	line  string
	args  []string
	stdin string // the file after `<`, or ""
	code  int    // the exit code a trailing `# exits N` comment names, else 0
}

// exitsComment is the comment by which a README command line says it exits with another code.
var exitsComment = regexp.MustCompile(`#\s*exits (\d+)`)

// readmeCommands returns the command lines of the README's sh blocks that run this binary.
func readmeCommands(t *testing.T, readme string) []readmeCommand {
	t.Helper()
	const prefix = "go run ./cmd/assistant-ls "
	var cmds []readmeCommand
	inSh := false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for strings.HasSuffix(line, `\`) && sc.Scan() {
			// A command continued on the next line, as sh joins it.
			line = strings.TrimSuffix(line, `\`) + strings.TrimSpace(sc.Text())
		}
		if strings.HasPrefix(line, "```") {
			inSh = !inSh && line == "```sh"
			continue
		}
		if !inSh || !strings.HasPrefix(line, prefix) {
			continue
		}
		c := readmeCommand{line: line}
		fields, comment := shellFields(t, strings.TrimPrefix(line, prefix))
		if m := exitsComment.FindStringSubmatch(comment); m != nil {
			c.code, _ = strconv.Atoi(m[1])
		}
		for i := 0; i < len(fields); i++ {
			if fields[i] == "<" && i+1 < len(fields) {
				c.stdin = fields[i+1]
				i++
				continue
			}
			c.args = append(c.args, fields[i])
		}
		cmds = append(cmds, c)
	}
	require.NoError(t, sc.Err())
	return cmds
}

// shellFields splits a command line as sh does for the README's few forms: words separated by
// blanks, 'single-quoted' words taken as written, and a # comment, which it returns apart. A
// double quote, which the README does not need, fails the test rather than being misread.
func shellFields(t *testing.T, line string) (fields []string, comment string) {
	t.Helper()
	var word strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quoted && ch == '\'':
			quoted = false
		case quoted:
			word.WriteByte(ch)
		case ch == '\'':
			quoted, inWord = true, true
		case ch == '"':
			require.Fail(t, "double quotes are not supported here", line)
		case ch == '#' && !inWord:
			return fields, line[i:]
		case ch == ' ' || ch == '\t':
			if inWord {
				fields, inWord = append(fields, word.String()), false
				word.Reset()
			}
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	require.False(t, quoted, "%s: a quote is not closed", line)
	if inWord {
		fields = append(fields, word.String())
	}
	return fields, comment
}

// TestReadmeCommands runs every command line of README.md from the repository's root, as a
// newcomer would from a fresh clone: each must exit as it says (0 unless `# exits N`) and print
// something.
func TestReadmeCommands(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	cmds := readmeCommands(t, string(readme))
	require.GreaterOrEqual(t, len(cmds), 8, "the README's command lines were not found")
	t.Chdir(root)
	for _, c := range cmds {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			stdin := ""
			if c.stdin != "" {
				data, err := os.ReadFile(c.stdin)
				require.NoError(t, err, c.line)
				stdin = string(data)
			}
			var out, errOut bytes.Buffer
			code := run(c.args, strings.NewReader(stdin), &out, &errOut)
			assert.Equal(t, c.code, code, "%s\nstderr: %s", c.line, errOut.String())
			assert.NotEmpty(t, out.String(), c.line)
		})
	}
}
