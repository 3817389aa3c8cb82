package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/merge3"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// This file turns a tool use into a request (its targets resolved under the path rules of
// section 5), reads the targets' current contents, and builds the WorkspaceEdit of a planned
// edit in the form the client takes (section 4).

// target is one file an edit changes, its path resolved and checked.
type target struct {
	Abs string  // resolved absolute file path
	URI uri.URI // uri.File(Abs)
	Rel string  // the path as shown to users: relative to its workspace folder, else Abs
	// Checked is the path as the path rules accepted it, for creating a new file; zero for a
	// refused path.
	Checked paths.Target
	// Named is the document's content when the tool use first named it while streaming; nil
	// when it arrived whole. A whole-content write merges the changes made since.
	Named *string
}

// mergeWrite returns content, the whole new content a tool writes to t, with the changes the
// user made since the tool use named t merged in three ways (Named, the document now, content).
// Changes that overlap are a *merge3.ConflictError naming the lines: the user's text is never
// overwritten.
func mergeWrite(t target, base snapshot, content string) (string, error) {
	if t.Named == nil || !base.Exists || *t.Named == base.Content {
		return content, nil
	}
	merged, err := merge3.Merge(*t.Named, base.Content, content)
	if err != nil {
		return "", fmt.Errorf("%s changed while the model wrote it: %w", t.Rel, err)
	}
	return merged, nil
}

// editRequest is one edit to compute: a tool use's targets and params.
type editRequest struct {
	Tool    *editTool
	Targets []target // at least one
	Params  map[string]string
	Input   map[string]any // a native tool call's whole arguments; nil for an XML tool use
	ModelID string         // the stream's modelId, for content fixes
	byPath  map[string]int // the index in Targets of each path param, as the tool gave it
	// read, under requireRead, holds the files the stream read before the tool use; nil when
	// the rule does not apply (checkRead).
	read *readSet
}

// targetOf returns the index in req.Targets of the path param p.
func (r editRequest) targetOf(p string) (int, bool) {
	i, ok := r.byPath[p]
	return i, ok
}

// label is the applyEdit label and change annotation label of the request (section 4):
// the tool and its first target's path, with the count of further targets.
func (r editRequest) label() string {
	l := r.Tool.name + " " + r.Targets[0].Rel
	if n := len(r.Targets) - 1; n > 0 {
		l += " and " + strconv.Itoa(n) + " more"
	}
	return l
}

// uris returns the URIs of the request's targets, for the document queue.
func (r editRequest) uris() []uri.URI {
	out := make([]uri.URI, len(r.Targets))
	for i, t := range r.Targets {
		out[i] = t.URI
	}
	return out
}

// newRequest turns a complete file-editing tool use into an edit request. A refused path gives
// status refused, a missing param status failed, each with an error; the request then still
// names the targets it could resolve, for the EditState's uri.
func newRequest(tool *editTool, params map[string]string, cwd, modelID string, s settings) (editRequest, error) {
	req := editRequest{Tool: tool, Params: params, ModelID: modelID}
	paths := tool.paths(params)
	if len(paths) == 0 {
		return req, fmt.Errorf("%s names no file: give the path of each file to edit", tool.name)
	}
	req.byPath = make(map[string]int, len(paths))
	for _, p := range paths {
		if p == "" {
			return req, fmt.Errorf("%s has no path: give the path of the file to edit, relative to the working directory", tool.name)
		}
		t, err := resolveTarget(p, cwd, s)
		if t.Abs != "" {
			// Two spellings of one file (a.go, ./a.go) are one target.
			i := slices.IndexFunc(req.Targets, func(o target) bool { return o.URI == t.URI })
			if i < 0 {
				i = len(req.Targets)
				req.Targets = append(req.Targets, t)
			}
			req.byPath[p] = i
		}
		if err != nil {
			return req, err
		}
	}
	if _, ok := params[tool.payload]; !ok && tool.payload != "" {
		return req, fmt.Errorf("%s for %s has no %s parameter: send the tool use again with it", tool.name, req.Targets[0].Rel, tool.payload)
	}
	return req, nil
}

// requestStatus is the status of a tool use whose request could not be made: refused when the
// path rules forbid it, failed otherwise.
func requestStatus(err error) ext.EditStatus {
	var re *paths.RefusedError
	if errors.As(err, &re) {
		return ext.StatusRefused
	}
	return ext.StatusFailed
}

// resolveTarget applies the path rules of section 5 to path (see paths.Workspace.Resolve). cwd ""
// means the first workspace folder. A refused path still names its file when it resolved to
// one: its URI tells the user which file was refused.
func resolveTarget(path, cwd string, s settings) (target, error) {
	t, err := s.Workspace.Resolve(path, cwd, paths.Policy{AllowOutside: s.Config.AllowOutsideWorkspace, AllowGitDir: s.Config.AllowGitDir})
	if err != nil {
		var re *paths.RefusedError
		if errors.As(err, &re) && filepath.IsAbs(re.Path) {
			return target{Abs: re.Path, URI: uri.File(re.Path), Rel: re.Path}, err
		}
		return target{}, err
	}
	return target{Abs: t.Path, URI: uri.File(t.Path), Rel: t.Rel, Checked: t}, nil
}

// snapshot is the current content of a target document, as the edit is built against it.
type snapshot struct {
	Content string
	Version *int32 // the tracked version of an open document; nil for a file on disk
	Open    bool   // the client has the document open
	Exists  bool   // the document is open or the file exists
	Opens   uint64 // the client's didOpens of the document so far (docs.Store.OpenCount)
	// Tables are the applier's index and the position mapper of Content, kept per document
	// version so that the edits and previews of one content share them (see editor.tablesOf);
	// nil means build them for this use.
	Tables *contentTables
}

// contentTables are what is kept per document content: the applier's index and the position
// mapper, each built on first use. A stream previews its edit on every delta, and mapping its
// match offsets must not cost a fresh line table of the whole file each time.
type contentTables struct {
	src        string
	indexOnce  sync.Once
	index      *apply.Index
	mapperOnce sync.Once
	mapper     *text.Mapper
}

// newContentTables returns the tables of content; they cost nothing until used.
func newContentTables(content string) *contentTables {
	return &contentTables{src: content}
}

// content is the text the tables are of. Comparing it with a snapshot's content costs nothing
// when they are the same string, as they are unless the snapshot was changed after it was read.
func (t *contentTables) content() string { return t.src }

// applier returns the applier's index (applierIndex), building it once.
func (t *contentTables) applier() *apply.Index {
	t.indexOnce.Do(func() { t.index = applierIndex(t.src) })
	return t.index
}

// positions returns the position mapper, building it once.
func (t *contentTables) positions() *text.Mapper {
	t.mapperOnce.Do(func() { t.mapper = text.NewMapper(t.src) })
	return t.mapper
}

// applierIndex is the applier's index of content as the applier reads it. The applier splits
// lines at \n only, so every lone \r (a CR-only document, or a mixed one) is read as \n: the
// same offsets, so its edits map back one to one, and the edit tools, which read every break as
// \n, find no line the applier cannot (internal/eol). Its Original differs from content
// exactly when a lone \r was read so.
func applierIndex(content string) *apply.Index {
	return apply.NewIndex(text.LoneCRToLF(content))
}

// index returns the applier's index of the snapshot's content (applierIndex), the one kept in
// its tables when they are of that content.
func (s snapshot) index() *apply.Index {
	if s.Tables != nil && s.Tables.content() == s.Content {
		return s.Tables.applier()
	}
	return applierIndex(s.Content)
}

// plannedEdit is a computed edit of one tool use: one fileEdit per target, in order.
type plannedEdit struct {
	Req    editRequest
	Files  []*fileEdit
	Report string // the progress report of the computed edit ("3 of 3 sections matched"), if any
}

// fileEdit is the part of a planned edit that changes one document: byte edits of Base.Content
// whose result is Intended.
type fileEdit struct {
	Target   target
	Base     snapshot
	Intended string
	Edits    []text.Edit
	// MatchOffsets are the byte offsets in Base.Content at which sections matched.
	MatchOffsets []int
	// Tiers say how each section or hunk was located.
	Tiers []string
	// Located are the sections of a replace_in_file, an Aider block or a unified diff, where
	// each stands in Intended and how it was located, for the hints of tier_hints.go; nil for
	// other tools.
	Located []locatedSection
	// Message is the tool's own report of success, for the tool result; "" for none.
	Message string
	// Delete says the edit deletes the document (Intended is then ""); MoveTo, when set, that
	// it moves the document there after editing it.
	Delete bool
	MoveTo *target

	m *text.Mapper // of Base.Content, built on first use: indexing a large file is the costliest step
}

// mapper returns the position mapper of the base content. A fileEdit is used by one goroutine
// at a time, so the lazy build needs no lock.
func (f *fileEdit) mapper() *text.Mapper {
	switch {
	case f.m != nil:
	case f.Base.Tables != nil && f.Base.Tables.content() == f.Base.Content:
		f.m = f.Base.Tables.positions()
	default:
		f.m = text.NewMapper(f.Base.Content)
	}
	return f.m
}

// matchPositions are the MatchOffsets in enc; never nil, so that none is sent as [].
func (f *fileEdit) matchPositions(enc protocol.PositionEncodingKind) []protocol.Position {
	out := make([]protocol.Position, 0, len(f.MatchOffsets))
	for _, off := range f.MatchOffsets {
		if pos, err := f.mapper().Position(off, enc); err == nil {
			out = append(out, pos)
		}
	}
	return out
}

// inPlace reports whether every document already holds the intended content, so that nothing
// has to be sent. A missing file is never in place: it still has to be created; nor is a file
// to delete or move.
func (p *plannedEdit) inPlace() bool {
	for _, f := range p.Files {
		if !f.Base.Exists || len(f.Edits) > 0 || f.Delete || f.MoveTo != nil {
			return false
		}
	}
	return true
}

// unsupported names a resource operation p needs that the client does not offer, or "" when
// it offers all of them. A file is created by the server where the client cannot, but only the
// client deletes or moves one.
func (p *plannedEdit) unsupported(caps clientCaps) string {
	for _, f := range p.Files {
		switch {
		case f.Delete && !(caps.DocumentChanges && caps.DeleteFile):
			return fmt.Sprintf("the editor cannot delete files through workspace edits (no \"delete\" resource operation), so %s cannot be deleted; nothing was changed", f.Target.Rel)
		case f.MoveTo != nil && !(caps.DocumentChanges && caps.RenameFile):
			return fmt.Sprintf("the editor cannot move files through workspace edits (no \"rename\" resource operation), so %s cannot be moved to %s; nothing was changed", f.Target.Rel, f.MoveTo.Rel)
		}
	}
	return ""
}

// slim lets go of what p keeps only for computing and sending it (mappers, applier indexes),
// once it is kept as the edit a block sent: what holds checks needs is the contents and edits.
func (p *plannedEdit) slim() {
	for _, f := range p.Files {
		f.m, f.Base.Tables = nil, nil
	}
}

// matchPositions are the first file's match positions (EditState.matchPositions).
func (p *plannedEdit) matchPositions(enc protocol.PositionEncodingKind) []protocol.Position {
	return p.Files[0].matchPositions(enc)
}

// fileStates are the EditState.files of an edit of several documents, each with the edit's
// status (a patch lands or fails whole); nil for an edit of one document.
func (p *plannedEdit) fileStates(status ext.EditStatus) []ext.FileState {
	if len(p.Files) < 2 {
		return nil
	}
	out := make([]ext.FileState, len(p.Files))
	for i, f := range p.Files {
		out[i] = ext.FileState{URI: f.Target.URI, Status: status}
	}
	return out
}

// tiers are the tiers of every file's sections, in order.
func (p *plannedEdit) tiers() []string {
	var out []string
	for _, f := range p.Files {
		out = append(out, f.Tiers...)
	}
	return out
}

// clientCreates reports whether the client creates files itself, through CreateFile in
// documentChanges.
func clientCreates(caps clientCaps) bool { return caps.DocumentChanges && caps.CreateFile }

// buildEdit is the WorkspaceEdit of p in the form the client takes (section 4): documentChanges
// with a versioned TextDocumentEdit per document where supported, else changes; a CreateFile
// first for each missing file where the client creates files, a DeleteFile for a file to delete
// and a RenameFile after the edits of a file to move (see unsupported for clients without
// them); every edit carrying one change annotation when annotate is set (documentChanges only:
// changes cannot carry annotations).
func buildEdit(p *plannedEdit, caps clientCaps, annotate bool) (protocol.WorkspaceEdit, error) {
	var we protocol.WorkspaceEdit
	var id protocol.ChangeAnnotationIdentifier
	if annotate && caps.DocumentChanges {
		id = protocol.ChangeAnnotationIdentifier(p.Req.label())
		confirm := true
		we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			id: {Label: p.Req.label(), NeedsConfirmation: &confirm},
		}
	}
	for _, f := range p.Files {
		tes, err := f.mapper().TextEdits(f.Edits, caps.Encoding)
		if err != nil {
			return protocol.WorkspaceEdit{}, fmt.Errorf("convert the edit of %s to LSP positions: %w", f.Target.Rel, err)
		}
		if !caps.DocumentChanges {
			if len(tes) > 0 {
				if we.Changes == nil {
					we.Changes = map[uri.URI][]protocol.TextEdit{}
				}
				we.Changes[f.Target.URI] = tes
			}
			continue
		}
		if !f.Base.Exists && clientCreates(caps) {
			ignore := true
			we.DocumentChanges = append(we.DocumentChanges, &protocol.CreateFile{
				ResourceOperation: protocol.ResourceOperation{AnnotationID: id},
				Kind:              "create",
				URI:               f.Target.URI,
				Options:           &protocol.CreateFileOptions{IgnoreIfExists: &ignore},
			})
		}
		if f.Delete {
			we.DocumentChanges = append(we.DocumentChanges, &protocol.DeleteFile{
				ResourceOperation: protocol.ResourceOperation{AnnotationID: id},
				Kind:              "delete",
				URI:               f.Target.URI,
			})
			continue
		}
		if len(tes) > 0 {
			elems := make([]protocol.TextDocumentEditElement, len(tes))
			for i := range tes {
				if id != "" {
					elems[i] = &protocol.AnnotatedTextEdit{TextEdit: tes[i], AnnotationID: id}
				} else {
					elems[i] = &tes[i]
				}
			}
			we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
					TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: f.Target.URI},
					Version:                f.Base.Version,
				},
				Edits: elems,
			})
		}
		if f.MoveTo != nil {
			we.DocumentChanges = append(we.DocumentChanges, &protocol.RenameFile{
				ResourceOperation: protocol.ResourceOperation{AnnotationID: id},
				Kind:              "rename",
				OldURI:            f.Target.URI,
				NewURI:            f.MoveTo.URI,
			})
		}
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

// prepareNewFile makes a missing file ready for the edit the client can take: its missing
// parent folders, and where the client cannot create files itself (serverCreates) the empty
// file, all through package paths, which creates nothing outside the workspace. Created says
// what was made, so an edit that then does not apply can remove it again.
func prepareNewFile(t target, serverCreates bool) (paths.Created, error) {
	if serverCreates {
		return t.Checked.CreateEmpty()
	}
	return t.Checked.MakeParents()
}

// uriPath returns the file path of a file URI, or "" when u is not one.
func uriPath(u uri.URI) string {
	p, err := paths.FromURI(string(u))
	if err != nil {
		return ""
	}
	return p
}
