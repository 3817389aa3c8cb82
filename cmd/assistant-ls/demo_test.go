package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemo(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "", "demo", "--delay", "0", "--chunk", "23")
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", errOut, out)

	assert.Contains(t, out, `positionEncoding "utf-8"`)
	assert.Contains(t, out, "#1 replace_in_file (complete) path=greet/greet.go edit=applied")
	assert.Contains(t, out, "#3 write_to_file (complete) path=greet/greet_test.go edit=applied")
	assert.Contains(t, out, "#5 write_to_file (complete) path=../notes/greet-changes.md edit=refused (refused path")
	assert.Contains(t, out, "exit code 0")

	require.Contains(t, out, "--- a/greet/greet.go")
	diff := out[strings.Index(out, "--- a/greet/greet.go"):]
	for _, line := range []string{
		"+import (",
		"+\t\"strings\"",
		"+\tif name == \"\" {",
		"-\treturn fmt.Sprintf(\"HELLO, %s!\", name)",
		"+\treturn strings.ToUpper(Hello(name))",
		"+++ b/greet/greet_test.go",
		"+func TestHello(t *testing.T) {",
	} {
		assert.Contains(t, diff, line+"\n")
	}
	assert.NotContains(t, out, "greet-changes.md\n+")
}

func TestDemoUsage(t *testing.T) {
	t.Parallel()
	code, _, _ := runCLI(t, "", "demo", "--chunk", "0")
	assert.Equal(t, exitUsage, code)
}
