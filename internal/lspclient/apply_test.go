package lspclient

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// edit is a TextEdit from (l1, c1) to (l2, c2).
func edit(l1, c1, l2, c2 uint32, text string) protocol.TextEdit {
	return protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}, NewText: text}
}

func TestApplyTextEdits(t *testing.T) {
	t.Parallel()
	const (
		utf8  = protocol.PositionEncodingKindUTF8
		utf16 = protocol.PositionEncodingKindUTF16
		utf32 = protocol.PositionEncodingKindUTF32
	)
	for _, tt := range []struct {
		name, text string
		enc        protocol.PositionEncodingKind
		edits      []protocol.TextEdit
		want       string
		wantErr    string
	}{
		{"insert and replace, given out of order", "ab\ncd\n", utf8, []protocol.TextEdit{edit(1, 0, 1, 1, "X"), edit(0, 0, 0, 0, ">")}, ">ab\nXd\n", ""},
		{"past the end of a CRLF line stops before its break", "ab\r\ncd", utf8, []protocol.TextEdit{edit(0, 9, 0, 9, "!")}, "ab!\r\ncd", ""},
		{"past the last line is the end", "ab", utf8, []protocol.TextEdit{edit(5, 0, 5, 0, "!")}, "ab!", ""},
		{"overlapping edits are refused", "abcdef", utf8, []protocol.TextEdit{edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 4, "y")}, "", "the edits overlap"},
		{"a range that ends before it starts is refused", "abcdef", utf8, []protocol.TextEdit{edit(0, 3, 0, 1, "x")}, "", "ends before it starts"},
		{"inserts at one position keep their order", "ab", utf16, []protocol.TextEdit{edit(0, 1, 0, 1, "1"), edit(0, 1, 0, 1, "2")}, "a12b", ""},
		{"a lone CR ends a line", "a\rb\nc", utf16, []protocol.TextEdit{edit(1, 0, 1, 1, "B"), edit(2, 0, 2, 1, "C")}, "a\rB\nC", ""},
		{"utf-8 counts bytes", "é😀x", utf8, []protocol.TextEdit{edit(0, 6, 0, 7, "X")}, "é😀X", ""},
		{"utf-16 counts a surrogate pair twice", "é😀x", utf16, []protocol.TextEdit{edit(0, 3, 0, 4, "X")}, "é😀X", ""},
		{"utf-32 counts runes", "é😀x", utf32, []protocol.TextEdit{edit(0, 2, 0, 3, "X")}, "é😀X", ""},
		{"an invalid byte is one unit", "a\xffb", utf16, []protocol.TextEdit{edit(0, 2, 0, 3, "B")}, "a\xffB", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyTextEdits(tt.text, tt.edits, tt.enc)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// tde is a TextDocumentEdit of u at version (nil: none).
func tde(u uri.URI, version *int32, edits ...protocol.TextEdit) *protocol.TextDocumentEdit {
	d := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{Version: version}}
	d.TextDocument.URI = u
	for i := range edits {
		d.Edits = append(d.Edits, &edits[i])
	}
	return d
}

func TestApplyEdit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name string) uri.URI { return uri.File(filepath.Join(dir, name)) }
	require.NoError(t, os.WriteFile(filepath.Join(dir, "disk.txt"), []byte("on disk\n"), 0o644))
	open := map[uri.URI]string{file("open.txt"): "open\n"}
	src := Source{Buffer: func(u uri.URI) (string, int32, bool) {
		text, ok := open[u]
		return text, 3, ok
	}}
	v := func(n int32) *int32 { return &n }
	yes := func() *bool { b := true; return &b }

	tests := []struct {
		name    string
		edit    protocol.WorkspaceEdit
		want    []DocChange
		wantOps []FileOp
		wantErr string
	}{
		{
			name: "versioned edit of an open document",
			edit: protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{tde(file("open.txt"), v(3), edit(0, 0, 0, 4, "OPEN"))}},
			want: []DocChange{{URI: file("open.txt"), Before: "open\n", After: "OPEN\n", Version: 3, Open: true}},
		},
		{
			name:    "a stale version changes nothing",
			edit:    protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{tde(file("open.txt"), v(2))}},
			wantErr: "stale document version",
		},
		{
			name:    "a version for a document that is not open is stale",
			edit:    protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{tde(file("disk.txt"), v(1))}},
			wantErr: "stale document version",
		},
		{
			name: "create then insert",
			edit: protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
				&protocol.CreateFile{Kind: "create", URI: file("new.txt"), Options: &protocol.CreateFileOptions{IgnoreIfExists: yes()}},
				tde(file("new.txt"), nil, edit(0, 0, 0, 0, "new\n")),
			}},
			want:    []DocChange{{URI: file("new.txt"), After: "new\n"}},
			wantOps: []FileOp{{Kind: "create", URI: file("new.txt")}},
		},
		{
			name: "create with ignoreIfExists leaves a file alone",
			edit: protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
				&protocol.CreateFile{Kind: "create", URI: file("disk.txt"), Options: &protocol.CreateFileOptions{IgnoreIfExists: yes()}},
			}},
			want: []DocChange{{URI: file("disk.txt"), Before: "on disk\n", After: "on disk\n"}},
		},
		{
			name: "create without options fails on a file that exists",
			edit: protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
				&protocol.CreateFile{Kind: "create", URI: file("disk.txt")},
			}},
			wantErr: "it exists",
		},
		{
			name: "rename moves the text, delete removes it",
			edit: protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
				&protocol.RenameFile{Kind: "rename", OldURI: file("disk.txt"), NewURI: file("moved.txt")},
				tde(file("moved.txt"), nil, edit(0, 0, 0, 2, "ON")),
				&protocol.DeleteFile{Kind: "delete", URI: file("open.txt")},
			}},
			want: []DocChange{
				{URI: file("disk.txt"), Before: "on disk\n", Removed: true},
				{URI: file("moved.txt"), After: "ON disk\n"},
				{URI: file("open.txt"), Before: "open\n", Version: 3, Open: true, Removed: true},
			},
			wantOps: []FileOp{{Kind: "rename", URI: file("disk.txt"), NewURI: file("moved.txt")}, {Kind: "delete", URI: file("open.txt")}},
		},
		{
			name:    "rename of a missing file fails",
			edit:    protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.RenameFile{Kind: "rename", OldURI: file("none.txt"), NewURI: file("x.txt")}}},
			wantErr: "does not exist",
		},
		{
			name: "delete of a missing file with ignoreIfNotExists does nothing",
			edit: protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
				&protocol.DeleteFile{Kind: "delete", URI: file("none.txt"), Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: yes()}},
			}},
		},
		{
			name: "changes apply by URI, to open buffers and files on disk",
			edit: protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{
				file("open.txt"): {edit(1, 0, 1, 0, "more\n")},
				file("disk.txt"): {edit(0, 0, 0, 0, "# ")},
			}},
			want: []DocChange{
				{URI: file("disk.txt"), Before: "on disk\n", After: "# on disk\n"},
				{URI: file("open.txt"), Before: "open\n", After: "open\nmore\n", Version: 3, Open: true},
			},
		},
		{
			name:    "an edit of a file that does not exist fails",
			edit:    protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{file("none.txt"): {edit(0, 0, 0, 0, "x")}}},
			wantErr: "does not exist",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ApplyEdit(tt.edit, protocol.PositionEncodingKindUTF16, src)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Empty(t, res.Docs)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Docs)
			assert.Equal(t, tt.wantOps, res.Ops)
		})
	}
}

func TestApplyFileOps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name string) uri.URI { return uri.File(filepath.Join(dir, name)) }
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
	require.NoError(t, ApplyFileOps([]FileOp{
		{Kind: "create", URI: file("new.txt")},
		{Kind: "rename", URI: file("a.txt"), NewURI: file("b.txt")},
		{Kind: "rename", URI: file("only-a-buffer.txt"), NewURI: file("c.txt")},
		{Kind: "delete", URI: file("sub"), Recursive: true},
	}))
	data, err := os.ReadFile(filepath.Join(dir, "new.txt"))
	require.NoError(t, err)
	assert.Empty(t, data)
	data, err = os.ReadFile(filepath.Join(dir, "b.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(data))
	assert.NoFileExists(t, filepath.Join(dir, "a.txt"))
	assert.NoDirExists(t, filepath.Join(dir, "sub"))
}

func TestApplyEditReportsClampedPositions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u := uri.File(filepath.Join(dir, "a.txt"))
	src := Source{ReadFile: func(string) ([]byte, error) { return []byte("ab\r\n😀\n"), nil }}
	for _, tt := range []struct {
		name    string
		pos     protocol.Position
		clamped bool
	}{
		{"a line's end", protocol.Position{Line: 0, Character: 2}, false},
		{"the end of the text", protocol.Position{Line: 2, Character: 0}, false},
		{"past a line's end", protocol.Position{Line: 0, Character: 3}, true},
		{"inside a surrogate pair", protocol.Position{Line: 1, Character: 1}, true},
		{"past the last line", protocol.Position{Line: 3, Character: 0}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ApplyEdit(protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{
				u: {{Range: protocol.Range{Start: tt.pos, End: tt.pos}, NewText: "x"}},
			}}, protocol.PositionEncodingKindUTF16, src)
			require.NoError(t, err)
			if tt.clamped {
				assert.Equal(t, []ClampedPosition{{URI: u, Position: tt.pos}, {URI: u, Position: tt.pos}}, res.Clamped)
			} else {
				assert.Empty(t, res.Clamped)
			}
		})
	}
}
