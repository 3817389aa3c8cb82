package ext_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/require"
)

// TestDocsNameEveryMethod ties docs/protocol.md to this package: every method and command
// declared here is documented, and every assistant/ method or assistant. command the page names
// is declared here, so neither can be added or renamed alone.
func TestDocsNameEveryMethod(t *testing.T) {
	page, err := os.ReadFile("../../docs/protocol.md")
	require.NoError(t, err)
	doc := string(page)

	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("`(assistant[/.][A-Za-z]+)").FindAllStringSubmatch(doc, -1) {
		documented[m[1]] = true
	}
	declared := append(slices.Clone(ext.Methods), ext.Commands...)
	for _, name := range declared {
		require.Truef(t, documented[name], "docs/protocol.md does not document %s", name)
	}
	for name := range documented {
		require.Containsf(t, declared, name, "docs/protocol.md names %s, which lsp/ext does not declare", name)
	}
}
