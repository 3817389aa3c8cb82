package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// progressEvents returns the kind and title-or-message of every $/progress sent so far.
func progressEvents(t *testing.T, c *fakeClient) []string {
	t.Helper()
	var out []string
	for _, p := range c.messages("$/progress") {
		var v struct{ Kind, Title, Message string }
		require.NoError(t, json.Unmarshal(p.(protocol.ProgressParams).Value, &v))
		out = append(out, v.Kind+" "+v.Title+v.Message)
	}
	return out
}

// TestEditorQueueOrderAcrossCancellation checks that a job cancelled while waiting its turn does
// not let the job behind it overtake the one before it: the third edit of a file is sent only
// once the first has been answered, and builds on it.
func TestEditorQueueOrderAcrossCancellation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.txt", "a\nb\nc\n")
	release := make(chan struct{})
	var firstAnswered, overtaken atomic.Bool
	f.client.answer = func(n int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		if n == 1 {
			<-release
			defer firstAnswered.Store(true)
		} else if !firstAnswered.Load() {
			overtaken.Store(true)
		}
		return f.client.apply(p.Edit)
	}
	f.push("A", 0, toolBlock(toolReplace, "a.txt", diff("a\n", "A\n"), false))
	require.Eventually(t, func() bool { return len(f.applyEdits()) == 1 }, waitTimeout, 5*time.Millisecond)
	f.push("B", 0, toolBlock(toolReplace, "a.txt", diff("b\n", "B\n"), false))
	f.push("C", 0, toolBlock(toolReplace, "a.txt", diff("c\n", "C\n"), false))
	f.ed.forget("B")
	assert.Never(t, func() bool { return len(f.applyEdits()) > 1 }, 300*time.Millisecond, 5*time.Millisecond,
		"C was sent while A was unanswered")
	close(release)
	f.waitStatus("A", 0, ext.StatusApplied)
	f.waitStatus("C", 0, ext.StatusApplied)
	assert.False(t, overtaken.Load())
	assert.Equal(t, "A\nb\nC\n", f.readFile("a.txt"))
}

// TestEditorNeverCreatesThroughLink checks that with allowOutsideWorkspace a path that names the
// workspace but leads outside it through a symbolic link gets no folder or file created there.
func TestEditorNeverCreatesThroughLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		caps clientCaps
	}{
		{"client creates the file", vscodeCaps()},
		{"server would create the file", clientCaps{ApplyEdit: true, DocumentChanges: true, Encoding: protocol.PositionEncodingKindUTF16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.caps, func(c *config) { c.AllowOutsideWorkspace = true })
			outside := t.TempDir()
			require.NoError(t, os.Symlink(outside, f.path("link")))
			f.push("s", 0, toolBlock(toolWrite, "link/newdir/f.txt", "x", false))
			st := f.waitStatus("s", 0, ext.StatusFailed)
			assert.Contains(t, st.Error, "outside the workspace")
			_, err := os.Stat(filepath.Join(outside, "newdir"))
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}

// TestEditorProgressEndsOnCancel checks that a tool use dropped while streaming ends its
// progress as cancelled, so the editor's spinner stops, and that one dropped while the client
// holds its applyEdit is followed until the client answers (here: until shutdown, which ends
// the wait): an edit already sent is never abandoned, and its progress ends once.
func TestEditorProgressEndsOnCancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		push func(f *editorFixture)
		// held: the edit is with the client, so forgetting its stream does not end it.
		held bool
	}{
		{"while applying", func(f *editorFixture) {
			f.client.block = true
			f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
			require.Eventually(t, func() bool { return len(f.applyEdits()) == 1 }, waitTimeout, 5*time.Millisecond)
		}, true},
		{"while streaming", func(f *editorFixture) {
			f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n")+"------- SEARCH\n\tret", true))
			require.Eventually(t, func() bool { return len(progressEvents(t, f.client)) > 0 }, waitTimeout, 5*time.Millisecond)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, vscodeCaps(), nil)
			f.writeFile("a.go", goSrc)
			tt.push(f)
			f.ed.forget("s")
			ended := func() bool {
				ev := progressEvents(t, f.client)
				return len(ev) > 0 && strings.HasPrefix(ev[len(ev)-1], "end ")
			}
			if tt.held {
				assert.Never(t, ended, 200*time.Millisecond, 5*time.Millisecond, "an edit with the client was abandoned")
			} else {
				require.Eventually(t, ended, waitTimeout, 5*time.Millisecond, "progress: %v", progressEvents(t, f.client))
			}
			f.ed.shutdown()
			ev := progressEvents(t, f.client)
			assert.True(t, strings.HasPrefix(ev[0], "begin "), ev)
			assert.Equal(t, "end Cancelled", ev[len(ev)-1], ev)
			assert.Equal(t, 1, strings.Count(strings.Join(ev, "\n"), "end "), ev)
		})
	}
}

// TestEditorProgressCreateTimeout checks that a client that never answers
// window/workDoneProgress/create delays the edit only until the create times out, and gets no
// progress for it.
func TestEditorProgressCreateTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.ed.progressTimeout = 20 * time.Millisecond
	f.client.hangCreate = true
	f.writeFile("a.go", goSrc)
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
	f.waitStatus("s", 0, ext.StatusApplied)
	f.ed.shutdown()
	assert.Empty(t, f.client.messages("$/progress"))
}

// TestEditorOverlayEndsWithOpen checks the record of an edit applied to a file that is not open:
// later edits build on it while the document stays unopened, and no longer once the editor
// opened the document, even if it then closed it without saving.
func TestEditorOverlayEndsWithOpen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		openClose   bool
		search, rep string // the next edit, which applies only to the right base
	}{
		{"never opened: builds on the unsaved edit", false, "\treturn 10\n", "\treturn 100\n"},
		{"opened and closed unsaved: builds on the disk", true, "\treturn 1\n", "\treturn 100\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, vscodeCaps(), nil)
			f.writeFile("a.go", goSrc)
			// The client applies to a buffer it neither reports nor saves.
			f.client.answer = func(int, protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
				return protocol.ApplyWorkspaceEditResult{Applied: true}
			}
			f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
			f.waitStatus("s", 0, ext.StatusApplied)
			if tt.openClose {
				// Opened and closed again at once: nothing but the store's open count can tell.
				f.open("a.go", strings.Replace(goSrc, "return 1\n", "return 10\n", 1), 1)
				f.docs.Close(f.uri("a.go"))
			}
			raw, err := json.Marshal(map[string]string{"uri": string(f.uri("a.go")), "diff": diff(tt.search, tt.rep)})
			require.NoError(t, err)
			res, err := f.handleApply(raw, false)
			require.NoError(t, err)
			r := res.(ext.ApplyResult)
			assert.Equal(t, ext.StatusReady, r.Status, r.Error)
		})
	}
}

// TestEditorRecoversPanics checks that a panic while a block's edit runs fails that block with
// an internal error, frees the document's queue and leaves the server running.
func TestEditorRecoversPanics(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	var once sync.Once
	f.client.answer = func(_ int, p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		once.Do(func() { panic("boom") })
		return f.client.apply(p.Edit)
	}
	f.push("s", 0, toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false))
	st := f.waitStatus("s", 0, ext.StatusFailed)
	assert.Equal(t, internalFailure, st.Error)
	f.push("s", 1, toolBlock(toolReplace, "a.go", diff("\treturn 2\n", "\treturn 20\n"), false))
	f.waitStatus("s", 1, ext.StatusApplied)
	ev := progressEvents(t, f.client)
	assert.Contains(t, ev, "end Failed: "+internalFailure)
}

// TestEditorRepeatedCompleteUpdateIsCheap checks that updating a complete block again unchanged,
// as happens to every edit block when its stream turns final, neither reads the settings nor
// resolves the path (which costs filesystem calls on the connection's reader).
func TestEditorRepeatedCompleteUpdateIsCheap(t *testing.T) {
	t.Parallel()
	f := newFixture(t, vscodeCaps(), nil)
	f.writeFile("a.go", goSrc)
	sb := toolBlock(toolReplace, "a.go", diff("\treturn 1\n", "\treturn 10\n"), false)
	f.push("s", 0, sb)
	f.waitStatus("s", 0, ext.StatusApplied)
	// Shut down, so that no background work reads the settings meanwhile; the record of the
	// block stays.
	f.ed.shutdown()
	f.mu.Lock()
	before := f.settingsReads
	f.mu.Unlock()
	f.ed.update("s", 0, sb)
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Equal(t, before, f.settingsReads)
}
