package transport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestCodecApplyEditBytes checks that the codec's workspace/applyEdit params, encoded through a
// pointer by the protocol's generated encoders (issue 16, item 14), are the bytes the value's
// reflective encoding gave: every shape buildEdit makes (changes, documentChanges with creates,
// deletes, renames, versioned and annotated edits, a change annotation), with text that needs
// escaping and invalid UTF-8. The buffer sized for it needs no growing.
func TestCodecApplyEditBytes(t *testing.T) {
	t.Parallel()
	u := uri.URI("file:///w/a%20b.go")
	ignore, confirm := true, true
	version := int32(3)
	te := protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 2}, End: protocol.Position{Line: 3}},
		NewText: "x := \"<&>\"\n\t\\ \x01 é \u2028 \xff" + strings.Repeat("line\n", 20000)}
	label := "assistant edit"
	edits := []protocol.WorkspaceEdit{
		{Changes: map[uri.URI][]protocol.TextEdit{u: {te}}},
		{DocumentChanges: []protocol.DocumentChange{
			&protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{IgnoreIfExists: &ignore}},
			&protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: &version},
				Edits:        []protocol.TextDocumentEditElement{&te},
			},
			&protocol.RenameFile{Kind: "rename", OldURI: u, NewURI: "file:///w/c.go"},
			&protocol.DeleteFile{Kind: "delete", URI: "file:///w/d.go"},
		}},
		{
			DocumentChanges: []protocol.DocumentChange{
				&protocol.CreateFile{ResourceOperation: protocol.ResourceOperation{AnnotationID: "e"}, Kind: "create", URI: u},
				&protocol.TextDocumentEdit{
					TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}},
					Edits:        []protocol.TextDocumentEditElement{&protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: "e"}},
				},
			},
			ChangeAnnotations: map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{"e": {Label: "e", NeedsConfirmation: &confirm}},
		},
	}
	for i, we := range edits {
		for _, l := range []*string{nil, &label} {
			params := protocol.ApplyWorkspaceEditParams{Label: l, Edit: we}
			want, err := protocol.Marshal(params)
			require.NoError(t, err)
			got, err := Codec{}.Marshal(params)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "edit %d", i)
			assert.LessOrEqual(t, len(got), editSize(we), "the buffer sized for edit %d holds it", i)
		}
	}
}
