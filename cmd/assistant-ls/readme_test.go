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
		if strings.HasPrefix(line, "```") {
			inSh = !inSh && line == "```sh"
			continue
		}
		if !inSh || !strings.HasPrefix(line, prefix) {
			continue
		}
		c := readmeCommand{line: line}
		command, comment, _ := strings.Cut(line, "#")
		if m := exitsComment.FindStringSubmatch("#" + comment); m != nil {
			c.code, _ = strconv.Atoi(m[1])
		}
		require.NotContains(t, command, `"`, "%s: quoting is not supported here", line)
		fields := strings.Fields(strings.TrimPrefix(command, prefix))
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
