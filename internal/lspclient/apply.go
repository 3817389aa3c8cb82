package lspclient

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Source is what ApplyEdit reads: the editor's open buffers, and the disk for every other file.
type Source struct {
	// Buffer returns an open document's text and version; open is false for a document the
	// editor does not have open.
	Buffer func(u uri.URI) (text string, version int32, open bool)
	// ReadFile reads a file that is not open; nil means os.ReadFile.
	ReadFile func(path string) ([]byte, error)
}

// DocChange is the effect of a WorkspaceEdit on one document.
type DocChange struct {
	URI uri.URI
	// Before is the text before the edit: the buffer's, the file's on disk, or "" for a file the
	// edit creates. After is the text after it ("" when Removed).
	Before, After string
	// Version is the buffer's version before the edit; 0 when the document was not open.
	Version int32
	// Open reports whether the document was open before the edit.
	Open bool
	// Removed reports that the edit deleted the document or renamed it away.
	Removed bool
}

// FileOp is one resource operation of a WorkspaceEdit, for the caller to carry out on disk once
// the whole edit applied.
type FileOp struct {
	// Kind is "create", "rename" or "delete".
	Kind string
	// URI is the file created or deleted, or the old name of a renamed one; NewURI its new name.
	URI, NewURI uri.URI
	// Overwrite truncates an existing file on create, or replaces the target of a rename.
	Overwrite bool
	// Recursive deletes a folder with its contents.
	Recursive bool
}

// Result is a WorkspaceEdit applied: the documents in the order the edit first names them, and
// the resource operations in the edit's order.
type Result struct {
	Docs []DocChange
	Ops  []FileOp
	// Clamped lists the edit positions an editor had to clamp: past the end of their line, on a
	// line that does not exist, or inside a character. Editors accept them, but a server that
	// sends them relies on each editor clamping the same way.
	Clamped []ClampedPosition
}

// ClampedPosition is a position of an edit that names no character boundary of its line.
type ClampedPosition struct {
	URI      uri.URI
	Position protocol.Position
}

// ErrVersion is wrapped by ApplyEdit's error when a TextDocumentEdit names a version other than
// the open buffer's.
var ErrVersion = errors.New("stale document version")

// ApplyEdit applies a WorkspaceEdit as an editor does, all of it or nothing: documentChanges in
// order (TextDocumentEdit with its version checked against the open buffer, CreateFile,
// RenameFile, DeleteFile with their options), then changes by URI. Positions are in enc, converted
// by this package's own code, not the server's. It changes nothing itself: the caller stores the
// documents and carries out the file operations.
func ApplyEdit(we protocol.WorkspaceEdit, enc protocol.PositionEncodingKind, src Source) (Result, error) {
	p := planner{src: src, enc: enc, docs: map[uri.URI]*planDoc{}}
	for _, dc := range we.DocumentChanges {
		if err := p.documentChange(dc); err != nil {
			return Result{}, err
		}
	}
	uris := make([]uri.URI, 0, len(we.Changes))
	for u := range we.Changes {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	for _, u := range uris {
		if err := p.edit(u, we.Changes[u]); err != nil {
			return Result{}, err
		}
	}
	res := Result{Ops: p.ops, Clamped: p.clamped}
	for _, u := range p.order {
		d := p.docs[u]
		if !d.existed && !d.exists {
			continue // named by an operation that did nothing
		}
		res.Docs = append(res.Docs, DocChange{URI: u, Before: d.before, After: d.text, Version: d.version, Open: d.open, Removed: !d.exists})
	}
	return res, nil
}

// planDoc is a document as the edit so far left it.
type planDoc struct {
	before, text string
	version      int32
	open         bool // open in the editor before the edit
	existed      bool // existed before the edit
	exists       bool // exists after the edit so far
}

// planner applies one WorkspaceEdit to copies of the documents it touches.
type planner struct {
	src     Source
	enc     protocol.PositionEncodingKind
	docs    map[uri.URI]*planDoc
	order   []uri.URI
	ops     []FileOp
	clamped []ClampedPosition
}

// doc returns the document at u as the edit so far left it, reading it on first use.
func (p *planner) doc(u uri.URI) *planDoc {
	if d, ok := p.docs[u]; ok {
		return d
	}
	d := &planDoc{}
	if p.src.Buffer != nil {
		if text, version, open := p.src.Buffer(u); open {
			d.before, d.text, d.version, d.open, d.exists = text, text, version, true, true
		}
	}
	if !d.open {
		read := p.src.ReadFile
		if read == nil {
			read = os.ReadFile
		}
		if data, err := read(u.FsPath()); err == nil {
			d.before, d.text, d.exists = string(data), string(data), true
		}
	}
	d.existed = d.exists
	p.docs[u] = d
	p.order = append(p.order, u)
	return d
}

// documentChange applies one entry of documentChanges.
func (p *planner) documentChange(dc protocol.DocumentChange) error {
	switch c := dc.(type) {
	case *protocol.TextDocumentEdit:
		u := c.TextDocument.URI
		if v := c.TextDocument.Version; v != nil {
			if d := p.doc(u); !d.open || d.version != *v {
				return fmt.Errorf("%w: version %d of %s is not the current one", ErrVersion, *v, u)
			}
		}
		edits := make([]protocol.TextEdit, 0, len(c.Edits))
		for _, el := range c.Edits {
			switch te := el.(type) {
			case *protocol.TextEdit:
				edits = append(edits, *te)
			case *protocol.AnnotatedTextEdit:
				edits = append(edits, te.TextEdit)
			default:
				return fmt.Errorf("unsupported edit %T in the TextDocumentEdit of %s", el, u)
			}
		}
		return p.edit(u, edits)
	case *protocol.CreateFile:
		d := p.doc(c.URI)
		overwrite := c.Options != nil && c.Options.Overwrite != nil && *c.Options.Overwrite
		ignore := c.Options != nil && c.Options.IgnoreIfExists != nil && *c.Options.IgnoreIfExists
		switch {
		case d.exists && overwrite:
			d.text = ""
		case d.exists && ignore:
			return nil
		case d.exists:
			return fmt.Errorf("cannot create %s: it exists", c.URI)
		default:
			d.text, d.exists = "", true
		}
		p.ops = append(p.ops, FileOp{Kind: "create", URI: c.URI, Overwrite: overwrite})
		return nil
	case *protocol.RenameFile:
		from, to := p.doc(c.OldURI), p.doc(c.NewURI)
		overwrite := c.Options != nil && c.Options.Overwrite != nil && *c.Options.Overwrite
		ignore := c.Options != nil && c.Options.IgnoreIfExists != nil && *c.Options.IgnoreIfExists
		switch {
		case !from.exists:
			return fmt.Errorf("cannot rename %s: it does not exist", c.OldURI)
		case to.exists && ignore && !overwrite:
			return nil
		case to.exists && !overwrite:
			return fmt.Errorf("cannot rename %s to %s: the target exists", c.OldURI, c.NewURI)
		}
		to.text, to.exists = from.text, true
		from.text, from.exists = "", false
		p.ops = append(p.ops, FileOp{Kind: "rename", URI: c.OldURI, NewURI: c.NewURI, Overwrite: overwrite})
		return nil
	case *protocol.DeleteFile:
		d := p.doc(c.URI)
		ignore := c.Options != nil && c.Options.IgnoreIfNotExists != nil && *c.Options.IgnoreIfNotExists
		recursive := c.Options != nil && c.Options.Recursive != nil && *c.Options.Recursive
		if !d.exists && !recursive {
			if ignore {
				return nil
			}
			return fmt.Errorf("cannot delete %s: it does not exist", c.URI)
		}
		d.text, d.exists = "", false
		p.ops = append(p.ops, FileOp{Kind: "delete", URI: c.URI, Recursive: recursive})
		return nil
	default:
		return fmt.Errorf("unsupported document change %T", dc)
	}
}

// edit applies text edits to the document at u.
func (p *planner) edit(u uri.URI, edits []protocol.TextEdit) error {
	d := p.doc(u)
	if !d.exists {
		return fmt.Errorf("%s does not exist", u)
	}
	out, err := ApplyTextEdits(d.text, edits, p.enc)
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	for _, e := range edits {
		for _, pos := range []protocol.Position{e.Range.Start, e.Range.End} {
			if _, exact := offset(d.text, pos, p.enc); !exact {
				p.clamped = append(p.clamped, ClampedPosition{URI: u, Position: pos})
			}
		}
	}
	d.text = out
	return nil
}

// ApplyTextEdits applies text edits to text as the LSP defines them: every range refers to text
// before any edit, edits must not overlap, and edits at the same position apply in their order.
// Positions count units of enc ("" means utf-16); a character past its line's end is the end
// of the line (before its line break) and a line past the last is the end of the text.
func ApplyTextEdits(text string, edits []protocol.TextEdit, enc protocol.PositionEncodingKind) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, end := Offset(text, e.Range.Start, enc), Offset(text, e.Range.End, enc)
		if end < s {
			return "", fmt.Errorf("an edit range ends before it starts (line %d, character %d)", e.Range.Start.Line, e.Range.Start.Character)
		}
		spans = append(spans, span{s, end, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.start < at {
			return "", errors.New("the edits overlap")
		}
		b.WriteString(text[at:s.start])
		b.WriteString(s.text)
		at = s.end
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// Offset converts a position in enc to a byte offset of text, with "\r\n", "\r" and "\n" as
// line breaks, clamping as ApplyTextEdits describes. An invalid UTF-8 byte counts one unit.
func Offset(text string, p protocol.Position, enc protocol.PositionEncodingKind) int {
	off, _ := offset(text, p, enc)
	return off
}

// offset is Offset, also reporting whether p names a character boundary of its line exactly.
func offset(text string, p protocol.Position, enc protocol.PositionEncodingKind) (int, bool) {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := strings.IndexAny(text[off:], "\r\n")
		if i < 0 {
			return len(text), false
		}
		off += i
		if strings.HasPrefix(text[off:], "\r\n") {
			off += 2
		} else {
			off++
		}
	}
	units := uint32(0)
	for off < len(text) && units < p.Character {
		if text[off] == '\n' || text[off] == '\r' {
			break
		}
		r, size := utf8.DecodeRuneInString(text[off:])
		switch {
		case enc == protocol.PositionEncodingKindUTF8:
			units += uint32(size)
		case enc == protocol.PositionEncodingKindUTF32 || r == utf8.RuneError && size == 1:
			units++
		case r >= 0x10000:
			units += 2
		default:
			units++
		}
		off += size
	}
	return off, units == p.Character
}

// ApplyFileOps carries out resource operations on disk, in order, as an editor does once the
// edit's text changes applied: create makes an empty file (truncating with Overwrite), rename
// moves a file (a document that exists only as a buffer has nothing to move), delete removes a
// file or, Recursive, a folder.
func ApplyFileOps(ops []FileOp) error {
	for _, op := range ops {
		var err error
		switch op.Kind {
		case "create":
			flags := os.O_WRONLY | os.O_CREATE
			if op.Overwrite {
				flags |= os.O_TRUNC
			}
			var f *os.File
			if f, err = os.OpenFile(op.URI.FsPath(), flags, 0o644); err == nil {
				err = f.Close()
			}
		case "rename":
			err = os.Rename(op.URI.FsPath(), op.NewURI.FsPath())
			if errors.Is(err, fs.ErrNotExist) {
				err = nil // the document was only a buffer
			}
		case "delete":
			if op.Recursive {
				err = os.RemoveAll(op.URI.FsPath())
			} else if err = os.Remove(op.URI.FsPath()); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", op.Kind, op.URI, err)
		}
	}
	return nil
}
