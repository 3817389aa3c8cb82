package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Tool names of the two file-editing tool uses.
const (
	toolReplace = "replace_in_file"
	toolWrite   = "write_to_file"
)

// forceFixesModelID is handed to apply.FixModelContent for contentFixes "always": the fixes are
// skipped only for model ids containing "claude", so an empty id always gets them.
const forceFixesModelID = ""

// editRequest is one edit to compute: a tool use's target and payload, with the path already
// resolved and checked (section 5).
type editRequest struct {
	Tool    string  // toolReplace or toolWrite
	Abs     string  // resolved absolute file path
	URI     uri.URI // uri.File(Abs)
	Rel     string  // the path as shown to users: relative to its workspace folder, else Abs
	Diff    string  // replace_in_file's diff param
	Content string  // write_to_file's content param
	ModelID string  // the stream's modelId, for content fixes
}

// label is the applyEdit label and change annotation label of the request (section 4).
func (r editRequest) label() string { return r.Tool + " " + r.Rel }

// snapshot is the current content of a target document, as the edit is built against it.
type snapshot struct {
	Content string
	Version *int32 // the tracked version of an open document; nil for a file on disk
	Open    bool   // the client has the document open
	Exists  bool   // the document is open or the file exists
	Opens   uint64 // the client's didOpens of the document so far (docs.Store.OpenCount)
}

// plannedEdit is a computed edit: byte edits of Base.Content whose result is Intended.
type plannedEdit struct {
	Req      editRequest
	Base     snapshot
	Intended string
	Edits    []text.Edit
	// MatchOffsets are the byte offsets in Base.Content at which the SEARCH sections matched.
	MatchOffsets []int
	// Sections is the number of SEARCH sections of a replace_in_file diff.
	Sections int

	m *text.Mapper // of Base.Content, built on first use: indexing a large file is the costliest step
}

// mapper returns the position mapper of the base content. A plannedEdit is used by one
// goroutine at a time, so the lazy build needs no lock.
func (p *plannedEdit) mapper() *text.Mapper {
	if p.m == nil {
		p.m = text.NewMapper(p.Base.Content)
	}
	return p.m
}

// matchPositions are the MatchOffsets in enc; never nil, so that none is sent as [].
func (p *plannedEdit) matchPositions(enc protocol.PositionEncodingKind) []protocol.Position {
	out := make([]protocol.Position, 0, len(p.MatchOffsets))
	for _, off := range p.MatchOffsets {
		if pos, err := p.mapper().Position(off, enc); err == nil {
			out = append(out, pos)
		}
	}
	return out
}

// inPlace reports whether the document already holds the intended content, so that nothing has
// to be sent. A missing file is never in place: it still has to be created.
func (p *plannedEdit) inPlace() bool { return p.Base.Exists && len(p.Edits) == 0 }

// missingFileError says a replace_in_file target does not exist.
type missingFileError struct{ Path string }

// Error tells the model how to proceed.
func (e *missingFileError) Error() string {
	return fmt.Sprintf("the file %s does not exist: replace_in_file only edits existing files; use write_to_file to create it", e.Path)
}

// fixContent applies the configured content fixes of section 2 to model output bound for path.
func fixContent(text, mode, modelID, path string) string {
	switch mode {
	case "never":
		return text
	case "always":
		return apply.FixModelContent(text, forceFixesModelID, path)
	default:
		return apply.FixModelContent(text, modelID, path)
	}
}

// planEdit computes req's edit against base. A diff that does not apply gives the applier's
// *apply.Error, whose text a model can act on; a replace_in_file of a missing file gives a
// *missingFileError.
func planEdit(req editRequest, base snapshot, cfg config) (*plannedEdit, error) {
	switch req.Tool {
	case toolReplace:
		return planReplace(req, base, cfg)
	case toolWrite:
		return planWrite(req, base, cfg), nil
	default:
		return nil, fmt.Errorf("%s is not a file-editing tool: only %s and %s edit files", req.Tool, toolReplace, toolWrite)
	}
}

// planReplace runs the applier in final mode and turns its replacements into minimal edits, with
// the inserted text's line breaks adapted to a CRLF or CR document. The applier splits lines at
// \n only, so a CR document is searched with its lone \r read as \n (same offsets).
func planReplace(req editRequest, base snapshot, cfg config) (*plannedEdit, error) {
	if !base.Exists {
		return nil, &missingFileError{Path: req.Rel}
	}
	diff := fixContent(req.Diff, cfg.ContentFixes, req.ModelID, req.Abs)
	eol := text.LineEnding(base.Content)
	searched := base.Content
	if eol == "\r" {
		searched = text.LoneCRToLF(base.Content)
	}
	res, err := apply.Construct(diff, searched, true, cfg.DiffVersion)
	if err != nil {
		if replaceStands(diff, searched, cfg.DiffVersion) {
			return &plannedEdit{Req: req, Base: base, Intended: base.Content, Sections: countSections(diff)}, nil
		}
		return nil, err
	}
	reps := make([]text.Edit, len(res.Replacements))
	offsets := make([]int, len(res.Replacements))
	for i, r := range res.Replacements {
		reps[i] = text.Edit{Start: r.Start, End: r.End, NewText: text.WithLineEnding(r.Content, eol)}
		offsets[i] = r.Start
	}
	edits := text.ReplacementEdits(base.Content, reps)
	return &plannedEdit{
		Req:          req,
		Base:         base,
		Intended:     text.Apply(base.Content, edits),
		Edits:        edits,
		MatchOffsets: offsets,
		Sections:     countSections(diff),
	}, nil
}

// planWrite computes the whole-file replacement of write_to_file as minimal line edits.
func planWrite(req editRequest, base snapshot, cfg config) *plannedEdit {
	content := writeContent(req.Content, cfg, req.ModelID, req.Abs)
	eol := text.LineEnding(content)
	if base.Exists {
		eol = text.LineEnding(base.Content)
		content = text.WithLineEnding(content, eol)
		content = text.KeepBOM(base.Content, content)
	}
	if content != "" && content != text.BOM && !strings.HasSuffix(content, "\n") && !strings.HasSuffix(content, "\r") {
		content += eol
	}
	edits := text.Diff(base.Content, content)
	return &plannedEdit{Req: req, Base: base, Intended: text.Apply(base.Content, edits), Edits: edits}
}

// writeContent is write_to_file's content as Cline writes it: code fences stripped, then the
// content fixes.
func writeContent(content string, cfg config, modelID, path string) string {
	return fixContent(apply.CleanWriteContent(content), cfg.ContentFixes, modelID, path)
}

// replaceStands reports whether a diff that does not apply to content is already in place: each
// section's REPLACE text stands, in order, where its SEARCH text would be (the diff with SEARCH
// and REPLACE exchanged applies). This is how a tool use applied before (by an earlier session,
// or a stream sent again) is recognised instead of failing. A section that deletes text leaves
// nothing to find, so a diff with one is never recognised.
func replaceStands(diff, content string, v apply.Version) bool {
	swapped, ok := swapSections(diff)
	if !ok {
		return false
	}
	res, err := apply.Construct(swapped, content, true, v)
	return err == nil && len(res.Replacements) == countSections(swapped)
}

// swapSections returns diff with the SEARCH and REPLACE texts of every section exchanged, in
// the current marker style, dropping text outside the sections. ok is false when the diff is
// not a plain sequence of complete sections or a section's REPLACE text is empty.
func swapSections(diff string) (swapped string, ok bool) {
	const (
		outside = iota
		inSearch
		inReplace
	)
	var (
		out             strings.Builder
		search, replace []string
		state           = outside
	)
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case state == outside && isSearchMarker(line):
			state, search, replace = inSearch, nil, nil
		case state == inSearch && isMarkerLine(line, "", "="):
			state = inReplace
		case state == inReplace && (isMarkerLine(line, " REPLACE", "+") || isMarkerLine(line, " REPLACE", ">")):
			if len(replace) == 0 {
				return "", false
			}
			out.WriteString("------- SEARCH\n")
			for _, l := range replace {
				out.WriteString(l + "\n")
			}
			out.WriteString("=======\n")
			for _, l := range search {
				out.WriteString(l + "\n")
			}
			out.WriteString("+++++++ REPLACE\n")
			state = outside
		case state == inSearch:
			search = append(search, line)
		case state == inReplace:
			replace = append(replace, line)
		}
	}
	return out.String(), state == outside && out.Len() > 0
}

// isMarkerLine reports whether line is three or more of char followed by suffix and an
// optional '>'.
func isMarkerLine(line, suffix, char string) bool {
	rest, ok := strings.CutSuffix(line, ">")
	if !ok {
		rest = line
	}
	head, ok := strings.CutSuffix(rest, suffix)
	return ok && len(head) >= 3 && strings.Trim(head, char) == ""
}

// countSections counts the SEARCH markers of a diff (current and legacy forms), for progress
// reports of the form "k of n sections matched".
func countSections(diff string) int {
	n := 0
	for line := range strings.SplitSeq(diff, "\n") {
		if isSearchMarker(line) {
			n++
		}
	}
	return n
}

// isSearchMarker reports whether line opens a SEARCH section: three or more '-' or '<', a
// space, "SEARCH" and an optional '>'.
func isSearchMarker(line string) bool {
	return isMarkerLine(line, " SEARCH", "-") || isMarkerLine(line, " SEARCH", "<")
}

// buildEdit is the WorkspaceEdit of p in the form the client takes (section 4): documentChanges
// with a versioned TextDocumentEdit where supported, else changes; a CreateFile first for a
// missing file when create is set; every edit carrying one change annotation when annotate is set
// (documentChanges only: changes cannot carry annotations).
func buildEdit(p *plannedEdit, caps clientCaps, create, annotate bool) (protocol.WorkspaceEdit, error) {
	tes, err := p.mapper().TextEdits(p.Edits, caps.Encoding)
	if err != nil {
		return protocol.WorkspaceEdit{}, fmt.Errorf("convert the edit of %s to LSP positions: %w", p.Req.Rel, err)
	}
	if !caps.DocumentChanges {
		if len(tes) == 0 {
			return protocol.WorkspaceEdit{}, nil
		}
		return protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{p.Req.URI: tes}}, nil
	}
	var we protocol.WorkspaceEdit
	var id protocol.ChangeAnnotationIdentifier
	if annotate {
		id = protocol.ChangeAnnotationIdentifier(p.Req.label())
		confirm := true
		we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			id: {Label: p.Req.label(), NeedsConfirmation: &confirm},
		}
	}
	if create {
		ignore := true
		we.DocumentChanges = append(we.DocumentChanges, &protocol.CreateFile{
			ResourceOperation: protocol.ResourceOperation{AnnotationID: id},
			Kind:              "create",
			URI:               p.Req.URI,
			Options:           &protocol.CreateFileOptions{IgnoreIfExists: &ignore},
		})
	}
	if len(tes) > 0 {
		elems := make([]protocol.TextDocumentEditElement, len(tes))
		for i := range tes {
			if annotate {
				elems[i] = &protocol.AnnotatedTextEdit{TextEdit: tes[i], AnnotationID: id}
			} else {
				elems[i] = &tes[i]
			}
		}
		we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: p.Req.URI},
				Version:                p.Base.Version,
			},
			Edits: elems,
		})
	}
	if len(we.DocumentChanges) == 0 {
		we.ChangeAnnotations = nil
	}
	return we, nil
}

// readSnapshot returns the current content of the file at abs: the open buffer with its version,
// else the file on disk (version nil); a missing file is an empty, non-existing snapshot.
func readSnapshot(store *docs.Store, u uri.URI, abs string) (snapshot, error) {
	opens := store.OpenCount(u)
	if content, version, ok := store.Get(u); ok {
		return snapshot{Content: content, Version: &version, Open: true, Exists: true, Opens: opens}, nil
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return snapshot{Opens: opens}, nil
	}
	if err != nil {
		return snapshot{}, fmt.Errorf("read %s: %w; check that it is a readable file", abs, err)
	}
	return snapshot{Content: string(data), Exists: true, Opens: opens}, nil
}

// containingFolder returns the workspace folder that holds abs, or "" when none does.
func containingFolder(abs string, folders []string) string {
	for _, f := range folders {
		rel, err := filepath.Rel(f, abs)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return f
		}
	}
	return ""
}

// displayPath is abs relative to the workspace folder holding it (slash-separated), else abs.
func displayPath(abs string, folders []string) string {
	f := containingFolder(abs, folders)
	if f == "" {
		return abs
	}
	rel, err := filepath.Rel(f, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// prepareNewFile makes a missing file ready for the edit the client can take: it creates missing
// parent folders inside the workspace, and, where the client cannot create files itself
// (serverCreates), the empty file. It never writes contents and never creates anything outside
// every workspace folder. Inside means what the path rules mean without allowOutsideWorkspace,
// symbolic links followed: with that setting a path can name the workspace lexically and still
// lead elsewhere through a link, and the server must create nothing there.
func prepareNewFile(abs string, folders []string, serverCreates bool) error {
	_, err := resolvePath(abs, "", folders, false)
	inside := err == nil
	dir := filepath.Dir(abs)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if !inside {
			return fmt.Errorf("the folder %s does not exist and lies outside the workspace, so the server does not create it; create it first", dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create the folder %s: %w", dir, err)
		}
	}
	if !serverCreates {
		return nil
	}
	if !inside {
		return fmt.Errorf("the editor cannot create files through workspace edits, and %s lies outside the workspace, so the server does not create it; create the file first", abs)
	}
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create the empty file %s: %w", abs, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create the empty file %s: %w", abs, err)
	}
	return nil
}
