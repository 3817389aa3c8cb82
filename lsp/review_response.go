package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/textformat"
	"github.com/assistant-ls/assistant-ls/turn"
	"github.com/bmatcuk/doublestar/v4"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// This file is the state layer of response documents (section 7b): documents matching the
// responseDocuments globs, or with languageId "assistant", parsed as one final assistant message.
// Their edits go through the same pipeline as a stream's: the document's URI names them in the
// block registry (responseKey), so an edit applied once is never applied again.

// responseLanguage is the languageId that makes any document a response document.
const responseLanguage = "assistant"

// responsePrefix starts the registry's stream name of a response document's blocks; the URI
// follows. A section applied alone is a block of its own, named with sectionMark and its number.
const (
	responsePrefix = "assistant-ls:response:"
	sectionMark    = "#section-"
)

// responseKey is the registry's stream name of the blocks of response document u.
func responseKey(u uri.URI) string { return responsePrefix + string(u) }

// sectionKey is the registry's stream name of section n of a block of response document u.
func sectionKey(u uri.URI, n int) string { return responseKey(u) + sectionMark + strconv.Itoa(n) }

// responseURI returns the response document of a registry stream name.
func responseURI(stream string) (string, bool) {
	u, _, ok := responseSection(stream)
	return u, ok
}

// responseSection returns the response document of a registry stream name and the section it
// names (0 for a whole block).
func responseSection(stream string) (u string, section int, ok bool) {
	rest, ok := strings.CutPrefix(stream, responsePrefix)
	if !ok {
		return "", 0, false
	}
	u, n, _ := strings.Cut(rest, sectionMark)
	section, _ = strconv.Atoi(n)
	return u, section, true
}

// docEdit is one file edit of a response document, as a format recognised it.
type docEdit struct {
	index int // the block
	tool  *editTool
	// block is the edit as a tool use of tool, which the edit pipeline applies: the block itself
	// for Cline's tools; a text format gives the tool use its edit stands for.
	block    parse.Block
	pathSpan parse.Span // the first path in the message; empty when the edit has none
	sections []docSection
	// files are, for a text format, the files of the first path whose sections are sections,
	// in order: each section is checked by its format's own applier (textformat.File.Check).
	files []textformat.File
	// cache is the analysis last made, reused while the target's content stays the same: a
	// change of one target costs the analysis of its own edits only.
	cache analysisCache
}

// editCache is the analysis of a docEdit against one content of its target.
type editCache struct {
	key   analysisKey
	diags []protocol.Diagnostic
}

// analysisKey is what an edit's analysis depends on besides the edit itself.
type analysisKey struct {
	target  uri.URI
	content string
	exists  bool
	version apply.Version
	enc     protocol.PositionEncodingKind
}

// analysisCache holds the analysis of one docEdit last made. It is safe for concurrent use:
// the publisher's timers and the requests that analyse (a code action, a hover) share it.
type analysisCache struct {
	mu   sync.Mutex
	last *editCache
}

// get returns the diagnostics cached for key.
func (c *analysisCache) get(key analysisKey) ([]protocol.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil || c.last.key != key {
		return nil, false
	}
	return c.last.diags, true
}

// put caches diags as the analysis for key.
func (c *analysisCache) put(key analysisKey, diags []protocol.Diagnostic) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = &editCache{key: key, diags: diags}
}

// docSection is one SEARCH/REPLACE section of a docEdit.
type docSection struct {
	n    int        // 1-based
	span parse.Span // from the SEARCH marker line's start to its separator line's end
	diff string     // the section alone
	// format is a text format section's format, "" for Cline's tool. alone is a text block
	// holding a text format's section alone, which that format's applier applies; "" for
	// Cline's tool, and where the format would not read it back as this section.
	format textformat.Format
	alone  string
}

// applyAlone is the block and tool that apply section sec of de alone: the section written alone
// in its format, applied as the format applies it, else a replace_in_file of its SEARCH and
// REPLACE texts.
func (de *docEdit) applyAlone(sec docSection) (parse.Block, *editTool) {
	if sec.alone != "" {
		return parse.Block{Type: parse.Text, Content: sec.alone,
			Params: map[string]string{textParam: sec.alone, "path": de.block.Params["path"]}}, de.tool
	}
	return parse.Block{Type: parse.ToolUse, Name: toolReplace, Params: map[string]string{"path": de.block.Params["path"], "diff": sec.diff}}, editTools[toolReplace]
}

// sectionAlone is the text of a block holding section k of f, recognised in content, alone in
// f's format: an Aider section under its file's name, a hunk under its diff's header lines. It
// is "" unless the format reads it back as that section of that file.
func sectionAlone(content string, f *textformat.File, k int) string {
	sec := f.Sections[k]
	var text string
	switch f.Format {
	case textformat.Aider:
		text = strings.TrimSpace(f.Path) + "\n<<<<<<< SEARCH\n" + sec.Search + "=======\n" + sec.Replace + ">>>>>>> REPLACE\n"
	case textformat.UDiff:
		end := f.Span.End
		if k+1 < len(f.Sections) {
			end = f.Sections[k+1].Span.Start
		}
		text = content[f.Span.Start:f.Sections[0].Span.Start] + content[sec.Span.Start:end]
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
	default:
		return ""
	}
	es := textformat.Find(text, f.Format)
	if len(es) != 1 || len(es[0].Files) != 1 || len(es[0].Files[0].Sections) != 1 {
		return ""
	}
	g := es[0].Files[0]
	if g.Path != f.Path || g.OldPath != f.OldPath || g.Op != f.Op || g.Sections[0].Search != sec.Search || g.Sections[0].Replace != sec.Replace {
		return ""
	}
	return text
}

// responseFormat recognises the file edit of one block of a response message, or returns nil.
// Each format of section 4b is one entry of responseFormats: it names the editTools entry that
// applies the edit and the tool use standing for it (docEdit.block), the span of its path, and
// its sections with their spans in the message; diagnostics, code actions, lenses, symbols and
// the apply commands then need nothing else.
type responseFormat func(msg string, b parse.Block, index int) *docEdit

// responseFormats are the formats recognised in response documents: Cline's and the edit tools'
// XML tool uses, and every text format of section 4b.
var responseFormats = []responseFormat{clineToolEdit, textFormatEdit}

// allTextFormats are the text formats response documents recognise (section 7b: all of them).
var allTextFormats = []string{string(textformat.Aider), string(textformat.UDiff), string(textformat.V4A)}

// responseTextTools are the tools of response documents' text blocks.
var responseTextTools = sync.OnceValue(func() *toolSet { return newToolSet(builtinTools(apply.V1), allTextFormats) })

// textFormatEdit recognises the edits written in a text block: its format's entry applies all of
// them; the path span and the sections (Aider's SEARCH/REPLACE sections, a diff's hunks, each as
// a SEARCH/REPLACE section of its own) are those of the block's first file, which the
// diagnostics analyse.
func textFormatEdit(msg string, b parse.Block, index int) *docEdit {
	if b.Type != parse.Text {
		return nil
	}
	tool := responseTextTools().lookup(b)
	if tool == nil {
		return nil
	}
	var formats []textformat.Format
	for _, f := range allTextFormats {
		formats = append(formats, textformat.Format(f))
	}
	off := b.Span.Start // the block's content is msg[b.Span]
	de := &docEdit{index: index, tool: tool, block: parse.Block{Type: parse.Text, Content: b.Content, Span: b.Span,
		Params: map[string]string{textParam: b.Content}}}
	var first *textformat.File
	n := 0
	for _, e := range textformat.Find(b.Content, formats...) {
		for k := range e.Files {
			f := &e.Files[k]
			if first == nil {
				first = f
				de.block.Params["path"] = strings.TrimSpace(f.Path)
				end := f.Span.Start + strings.IndexByte(b.Content[f.Span.Start:f.Span.End]+"\n", '\n')
				de.pathSpan = parse.Span{Start: off + f.Span.Start, End: off + min(end, f.Span.End)}
			}
			if strings.TrimSpace(f.Path) != strings.TrimSpace(first.Path) {
				continue
			}
			de.files = append(de.files, *f)
			for k, sec := range f.Sections {
				n++
				de.sections = append(de.sections, docSection{
					n:      n,
					span:   parse.Span{Start: off + sec.Span.Start, End: off + sec.Span.End},
					diff:   apply.Section{Search: sec.Search, Replace: sec.Replace}.Diff(),
					format: f.Format,
					alone:  sectionAlone(b.Content, f, k),
				})
			}
		}
	}
	return de
}

// responseTools are the tools response documents recognise as XML tool uses: Cline's and the
// built-in edit tools of section 4b.
var responseTools = sync.OnceValue(func() *toolSet { return newToolSet(builtinTools(apply.V1), nil) })

// clineToolEdit recognises a Cline XML tool use of one of the edit tools.
func clineToolEdit(msg string, b parse.Block, index int) *docEdit {
	tool := responseTools().lookup(b)
	if tool == nil || b.Partial {
		return nil
	}
	de := &docEdit{index: index, tool: tool, block: b, pathSpan: valueSpan(msg, b, "path")}
	if tool.name != toolReplace {
		return de
	}
	diff := b.Params["diff"]
	start := valueSpan(msg, b, "diff").Start
	sections, _ := apply.Sections(diff)
	lines := lineOffsets(diff)
	for i, sec := range sections {
		sepEnd := len(diff)
		if sec.Separator+1 < len(lines) {
			sepEnd = lines[sec.Separator+1] - 1
		}
		de.sections = append(de.sections, docSection{
			n:    i + 1,
			span: parse.Span{Start: start + lines[sec.Marker], End: start + sepEnd},
			diff: sec.Diff(),
		})
	}
	return de
}

// valueSpan is where the trimmed value of param name stands in msg; empty when b lacks it.
func valueSpan(msg string, b parse.Block, name string) parse.Span {
	sp, ok := b.ParamSpans[name]
	if !ok {
		return parse.Span{Start: b.Span.Start, End: b.Span.Start}
	}
	v := b.Params[name]
	// The value is the raw region trimmed, so its first occurrence in the region is itself.
	i := strings.Index(msg[sp.Start:sp.End], v)
	if i < 0 {
		return sp
	}
	return parse.Span{Start: sp.Start + i, End: sp.Start + i + len(v)}
}

// lineOffsets returns the offset of each line of s split on "\n".
func lineOffsets(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// responseDoc is one open response document.
type responseDoc struct {
	folder string // the workspace folder its relative paths resolve against
	text   string
	parsed *parsedResponse // of text, built on first use
}

// parsedResponse is a response message split into blocks and edits.
type parsedResponse struct {
	text   string
	blocks []parse.Block
	edits  []*docEdit // one per block; nil where the block edits nothing
}

// parseResponse parses text as one final assistant message.
func parseResponse(p *parse.Parser, text string) *parsedResponse {
	blocks := p.Parse(text)
	// The document is a whole message: like a stream's blocks after final, none is partial.
	for i := range blocks {
		blocks[i].Partial = false
	}
	pr := &parsedResponse{text: text, blocks: blocks, edits: make([]*docEdit, len(blocks))}
	for i, b := range blocks {
		for _, f := range responseFormats {
			if de := f(text, b, i); de != nil {
				pr.edits[i] = de
				break
			}
		}
	}
	return pr
}

// editCount is the number of file edits.
func (pr *parsedResponse) editCount() int {
	n := 0
	for _, de := range pr.edits {
		if de != nil {
			n++
		}
	}
	return n
}

// responses owns the open response documents. It is safe for concurrent use.
type responses struct {
	ed      *editor
	publish func(u uri.URI)

	mu      sync.Mutex
	parser  *parse.Parser
	docs    map[uri.URI]*responseDoc
	targets map[uri.URI][]uri.URI // the response documents whose edits target a document
	langs   map[uri.URI]string    // the languageId of every open document, for setting changes
}

// newResponses returns an empty store.
func newResponses(ed *editor, parser *parse.Parser, publish func(uri.URI)) *responses {
	return &responses{ed: ed, publish: publish, parser: parser, docs: map[uri.URI]*responseDoc{},
		targets: map[uri.URI][]uri.URI{}, langs: map[uri.URI]string{}}
}

// setParser makes response documents parse with p (new tool or param names): they are parsed
// again.
func (rs *responses) setParser(p *parse.Parser) {
	rs.mu.Lock()
	rs.parser = p
	var us []uri.URI
	for u, doc := range rs.docs {
		doc.parsed = nil
		us = append(us, u)
	}
	rs.mu.Unlock()
	for _, u := range us {
		rs.publish(u)
	}
}

// reconsider decides again which open documents are response documents, after a change of
// responseDocuments; text returns an open document's content.
func (rs *responses) reconsider(text func(uri.URI) (string, bool)) {
	for _, u := range rs.redecide(text) {
		rs.publish(u)
	}
}

// redecide is reconsider's part under the lock: it returns the documents whose kind changed.
func (rs *responses) redecide(text func(uri.URI) (string, bool)) []uri.URI {
	s := rs.ed.deps.Settings()
	var changed []uri.URI
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for u, lang := range rs.langs {
		_, is := rs.docs[u]
		switch should := isResponse(u, lang, s); {
		case should && !is:
			if t, ok := text(u); ok {
				rs.docs[u] = &responseDoc{folder: responseFolder(uriPath(u), s.Workspace), text: t}
				changed = append(changed, u)
			}
		case !should && is:
			delete(rs.docs, u)
			changed = append(changed, u)
		}
	}
	return changed
}

// isResponse reports whether the document u with languageID is a response document under s.
func isResponse(u uri.URI, languageID string, s settings) bool {
	if languageID == responseLanguage {
		return true
	}
	abs := uriPath(u)
	if abs == "" {
		return false
	}
	names := []string{filepath.ToSlash(abs)}
	if f := s.Workspace.FolderOf(abs); f != "" {
		if rel, err := filepath.Rel(f, abs); err == nil {
			names = append(names, filepath.ToSlash(rel))
		}
	}
	for _, g := range s.Config.ResponseDocuments {
		for _, n := range names {
			if ok, _ := doublestar.Match(g, n); ok {
				return true
			}
			if ok, _ := doublestar.Match(g, strings.TrimPrefix(n, "/")); ok {
				return true
			}
		}
	}
	return false
}

// responseFolder is the folder the relative paths of the response document at abs resolve
// against: the workspace folder that holds it, else the first, else its own folder.
func responseFolder(abs string, ws *paths.Workspace) string {
	if f := ws.FolderOf(abs); f != "" {
		return f
	}
	if folders := ws.Folders(); len(folders) > 0 {
		return folders[0]
	}
	return filepath.Dir(abs)
}

// opened records a didOpen; it reports whether u is a response document.
func (rs *responses) opened(u uri.URI, languageID, text string) bool {
	s := rs.ed.deps.Settings()
	rs.mu.Lock()
	rs.langs[u] = languageID
	rs.mu.Unlock()
	if !isResponse(u, languageID, s) {
		return false
	}
	rs.mu.Lock()
	rs.docs[u] = &responseDoc{folder: responseFolder(uriPath(u), s.Workspace), text: text}
	rs.mu.Unlock()
	rs.publish(u)
	return true
}

// changed follows a change of document u: a response document is parsed again, and every
// response document with an edit of u gets its diagnostics again.
func (rs *responses) changed(u uri.URI, text string) {
	rs.mu.Lock()
	doc, isDoc := rs.docs[u]
	isDoc = isDoc && doc.text != text
	if isDoc {
		doc.text, doc.parsed = text, nil
	}
	dependents := append([]uri.URI(nil), rs.targets[u]...)
	rs.mu.Unlock()
	if isDoc {
		rs.publish(u)
	}
	for _, d := range dependents {
		if d != u {
			rs.publish(d)
		}
	}
}

// isDocument reports whether u is an open response document.
func (rs *responses) isDocument(u uri.URI) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	_, ok := rs.docs[u]
	return ok
}

// closed forgets a response document; its diagnostics are cleared.
func (rs *responses) closed(u uri.URI) {
	rs.mu.Lock()
	_, ok := rs.docs[u]
	delete(rs.docs, u)
	delete(rs.langs, u)
	for t, ds := range rs.targets {
		rs.targets[t] = deleteURI(ds, u)
	}
	rs.mu.Unlock()
	if ok {
		rs.publish(u)
	}
}

// deleteURI returns us without u.
func deleteURI(us []uri.URI, u uri.URI) []uri.URI {
	out := us[:0]
	for _, x := range us {
		if x != u {
			out = append(out, x)
		}
	}
	return out
}

// blockChanged follows a change of the edit state of a registry block: a response document's
// diagnostics say what is applied.
func (rs *responses) blockChanged(stream string) {
	u, ok := responseURI(stream)
	if !ok {
		return
	}
	rs.mu.Lock()
	_, open := rs.docs[uri.URI(u)]
	rs.mu.Unlock()
	if open {
		rs.publish(uri.URI(u))
	}
}

// get returns the parsed content of response document u: the open one, else, when loadClosed
// (a command may name a document that is not open), the file on disk if its path makes it a
// response document. ok is false otherwise: an ordinary document, open or not, is never read as
// a response, whatever edits its text holds.
func (rs *responses) get(u uri.URI, loadClosed bool) (pr *parsedResponse, folder string, ok bool) {
	pr, folder, isDoc, open, parser := rs.getOpen(u)
	if isDoc {
		return pr, folder, true
	}
	s := rs.ed.deps.Settings()
	if !loadClosed || open || !isResponse(u, "", s) {
		return nil, "", false
	}
	abs := uriPath(u)
	data, err := os.ReadFile(abs)
	if abs == "" || err != nil {
		return nil, "", false
	}
	return parseResponse(parser, string(data)), responseFolder(abs, s.Workspace), true
}

// getOpen is get's part under the lock: the parsed content of u when it is an open response
// document (isDoc), whether u is open at all, and the parser.
func (rs *responses) getOpen(u uri.URI) (pr *parsedResponse, folder string, isDoc, open bool, parser *parse.Parser) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	doc, isDoc := rs.docs[u]
	_, open = rs.langs[u]
	if isDoc {
		if doc.parsed == nil {
			doc.parsed = parseResponse(rs.parser, doc.text)
		}
		pr, folder = doc.parsed, doc.folder
	}
	return pr, folder, isDoc, open, rs.parser
}

// notResponse is the error of a command naming u as a response document when it is not one.
func notResponse(u uri.URI) error {
	return invalidParams("%s is not a response document: open it with languageId %q, or name a readable file matching responseDocuments", u, responseLanguage)
}

// diagnostics are the diagnostics of response document u (none when u is not one), in enc.
func (rs *responses) diagnostics(u uri.URI, enc protocol.PositionEncodingKind) []protocol.Diagnostic {
	pr, folder, ok := rs.get(u, false)
	if !ok {
		return nil
	}
	s := rs.ed.deps.Settings()
	out, targets := analyseResponse(rs.ed, u, pr, folder, s, enc)
	rs.mu.Lock()
	for t, ds := range rs.targets {
		rs.targets[t] = deleteURI(ds, u)
	}
	for _, t := range targets {
		rs.targets[t] = append(rs.targets[t], u)
	}
	rs.mu.Unlock()
	return out
}

// analyseResponse computes the diagnostics of a parsed response document u whose relative paths
// resolve against folder, and returns the documents its edits target.
func analyseResponse(ed *editor, u uri.URI, pr *parsedResponse, folder string, s settings, enc protocol.PositionEncodingKind) ([]protocol.Diagnostic, []uri.URI) {
	m := text.NewMapper(pr.text)
	out := []protocol.Diagnostic{}
	var targets []uri.URI
	for _, de := range pr.edits {
		if de == nil {
			continue
		}
		ds, t := editDiagnostics(ed, u, de, m, folder, s, enc)
		out = append(out, ds...)
		if t != "" {
			targets = append(targets, t)
		}
	}
	return out, targets
}

// diag is a diagnostic of the review features.
func diag(m *text.Mapper, sp parse.Span, enc protocol.PositionEncodingKind, sev protocol.DiagnosticSeverity, code, msg string) protocol.Diagnostic {
	rg, _ := m.Range(sp.Start, sp.End, enc)
	return protocol.Diagnostic{Range: rg, Severity: sev, Code: protocol.String(code),
		Source: protocol.NewOptional(ext.DiagnosticSource), Message: protocol.String(msg)}
}

// firstLine is the span of the first line of b.
func firstLine(msg string, b parse.Block) parse.Span {
	end := b.Span.End
	if i := strings.IndexAny(msg[b.Span.Start:end], "\r\n"); i >= 0 {
		end = b.Span.Start + i
	}
	return parse.Span{Start: b.Span.Start, End: end}
}

// editDiagnostics are the diagnostics of one edit of response document u, and its target.
func editDiagnostics(ed *editor, u uri.URI, de *docEdit, m *text.Mapper, folder string, s settings, enc protocol.PositionEncodingKind) ([]protocol.Diagnostic, uri.URI) {
	head := firstLine(m.Content(), de.block)
	pathSpan := de.pathSpan
	if pathSpan.End == pathSpan.Start {
		pathSpan = head
	}
	req, err := newRequest(de.tool, de.block.Params, folder, "", s)
	if err != nil {
		return []protocol.Diagnostic{diag(m, pathSpan, enc, protocol.DiagnosticSeverityError, ext.CodeRefused, err.Error())}, firstURI(req)
	}
	t := req.Targets[0]
	sb := streamBlock{Block: turn.Block{Block: de.block}, Tool: de.tool, Cwd: folder}
	if ed.holdsSent(editKey{responseKey(u), de.index}, de.tool, sb) {
		return []protocol.Diagnostic{diag(m, head, enc, protocol.DiagnosticSeverityInformation, ext.CodeApplied,
			fmt.Sprintf("already applied: %s %s is in place", de.tool.name, t.Rel))}, t.URI
	}
	base, err := ed.snapshot(t)
	if err != nil {
		return []protocol.Diagnostic{diag(m, pathSpan, enc, protocol.DiagnosticSeverityError, ext.CodeRefused, err.Error())}, t.URI
	}
	key := analysisKey{target: t.URI, content: base.Content, exists: base.Exists, version: s.Config.DiffVersion, enc: enc}
	if ds, ok := de.cache.get(key); ok {
		return ds, t.URI
	}
	out := targetDiagnostics(ed, de, req, base, m, head, pathSpan, s, enc)
	de.cache.put(key, out)
	return out, t.URI
}

// targetDiagnostics are the diagnostics of de against base, the current content of its target.
func targetDiagnostics(ed *editor, de *docEdit, req editRequest, base snapshot, m *text.Mapper, head, pathSpan parse.Span, s settings, enc protocol.PositionEncodingKind) []protocol.Diagnostic {
	t := req.Targets[0]
	plan, planErr := ed.plan(req, s)
	if planErr == nil && plan.inPlace() {
		return []protocol.Diagnostic{diag(m, head, enc, protocol.DiagnosticSeverityInformation, ext.CodeApplied,
			fmt.Sprintf("already applied: %s %s is in place", de.tool.name, t.Rel))}
	}
	var mf *missingFileError
	if errors.As(planErr, &mf) || (planErr != nil && len(de.sections) == 0) {
		return []protocol.Diagnostic{diag(m, pathSpan, enc, protocol.DiagnosticSeverityError, ext.CodeRefused, firstLineOf(planErr.Error()))}
	}
	out, standing := sectionDiagnostics(m, de, base, t, s, enc)
	switch {
	case planErr == nil || hasSeverity(out, protocol.DiagnosticSeverityError):
	case len(de.files) > 0 && len(standing) == len(de.sections):
		// Every section's change stands, as the format's reference sees it.
		return []protocol.Diagnostic{diag(m, head, enc, protocol.DiagnosticSeverityInformation, ext.CodeApplied,
			fmt.Sprintf("already applied: %s %s is in place", de.tool.name, t.Rel))}
	case len(standing) > 0:
		out = append(out, diag(m, head, enc, protocol.DiagnosticSeverityError, ext.CodeNoMatch,
			fmt.Sprintf("%s %s is partly applied (%s %s already stands), so it no longer applies as a whole; apply its other sections one by one",
				de.tool.name, t.Rel, de.unit(), strings.Join(standing, ", "))))
	default:
		out = append(out, diag(m, head, enc, protocol.DiagnosticSeverityError, ext.CodeNoMatch, firstLineOf(planErr.Error())))
	}
	return out
}

// hasSeverity reports whether one of ds has severity sev.
func hasSeverity(ds []protocol.Diagnostic, sev protocol.DiagnosticSeverity) bool {
	for _, d := range ds {
		if d.Severity == sev {
			return true
		}
	}
	return false
}

// firstLineOf is the first line of a message.
func firstLineOf(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	return first
}

// sectionDiagnostics are the diagnostics of de's sections against base, the content of its
// target t, each checked as its format's applier checks it, with the sections whose change
// already stands.
func sectionDiagnostics(m *text.Mapper, de *docEdit, base snapshot, t target, s settings, enc protocol.PositionEncodingKind) (out []protocol.Diagnostic, standing []string) {
	add := func(d protocol.Diagnostic, n int) {
		out = append(out, d)
		if d.Code == protocol.String(ext.CodeApplied) {
			standing = append(standing, strconv.Itoa(n))
		}
	}
	if len(de.files) > 0 {
		for i, o := range textOutcomes(de.files, base) {
			if d, ok := outcomeDiagnostic(m, de.sections[i], o, t, enc); ok {
				add(d, de.sections[i].n)
			}
		}
		return out, standing
	}
	for _, sec := range de.sections {
		if d, ok := sectionDiagnostic(m, sec, base.Content, t, s, enc); ok {
			add(d, sec.n)
		}
	}
	return out, standing
}

// unit is what de's sections are called: a unified diff's are hunks.
func (de *docEdit) unit() string {
	if len(de.files) > 0 && de.files[0].Format == textformat.UDiff {
		return "hunk"
	}
	return "SEARCH section"
}

// textOutcomes are the outcomes of the sections of files, edits of one file in order, against
// base: each file's as its format's applier finds them (File.Check), in the content the files
// before it leave (the one before it, when that one does not apply). A file that fails as a
// whole (it is missing) has none, nor have the files after it: the edit's error says why.
func textOutcomes(files []textformat.File, base snapshot) []textformat.Outcome {
	var out []textformat.Outcome
	content, exists := base.Content, base.Exists
	for _, f := range files {
		o, err := f.Check(content, exists)
		if err != nil {
			return out
		}
		out = append(out, o...)
		if res, err := f.Apply(content, exists); err == nil {
			content, exists = res.Content, !res.Delete
		}
	}
	return out
}

// outcomeDiagnostic is the diagnostic of text-format section sec from its
// outcome o in target t: a hint when it matched only through a tier that is not exact, an
// error when it matched nothing, with the applier's words and the nearest region where it names
// one, information when its change already stands; none for an exact match.
func outcomeDiagnostic(m *text.Mapper, sec docSection, o textformat.Outcome, t target, enc protocol.PositionEncodingKind) (protocol.Diagnostic, bool) {
	f := sec.format
	what := fmt.Sprintf("SEARCH section %d", sec.n)
	if f == textformat.UDiff {
		what = fmt.Sprintf("hunk %d", sec.n)
	}
	e := o.Err
	switch {
	case e == nil:
		words, ok := tierWords[o.Tier]
		if !ok {
			return protocol.Diagnostic{}, false
		}
		if o.Tier == textformat.TierOffset && o.Away != 0 {
			words = offsetWords(o.Away)
		}
		return diag(m, sec.span, enc, protocol.DiagnosticSeverityHint, ext.CodeFallback,
			fmt.Sprintf("%s matches %s of %s only %s", what, linesWord(o.StartLine, o.EndLine), t.Rel, words)), true
	case o.Applied && f == textformat.UDiff:
		return diag(m, sec.span, enc, protocol.DiagnosticSeverityInformation, ext.CodeApplied,
			fmt.Sprintf("%s is already applied: reversed, it applies to %s", what, t.Rel)), true
	case o.Applied:
		return diag(m, sec.span, enc, protocol.DiagnosticSeverityInformation, ext.CodeApplied,
			fmt.Sprintf("%s is already applied: its REPLACE text stands in %s", what, t.Rel)), true
	}
	msg := firstLineOf(e.Error())
	if f == textformat.Aider {
		// Aider's report, in a line: what failed and the lines it suggests.
		msg = fmt.Sprintf("%s failed to exactly match lines in %s", what, t.Rel)
		if c := e.Nearest; c != nil {
			msg += fmt.Sprintf("; did you mean %s? (%d%% similar)", linesWord(c.StartLine, c.EndLine), int(c.Similarity*100))
		} else {
			msg += "; Aider finds no similar lines: copy the lines to change exactly, white space and comments included"
		}
	}
	d := diag(m, sec.span, enc, protocol.DiagnosticSeverityError, ext.CodeNoMatch, msg)
	if c := e.Nearest; c != nil {
		d.RelatedInformation = append(d.RelatedInformation, lineInfo(t, c.StartLine, c.EndLine,
			fmt.Sprintf("the nearest region of %s (%d%% similar)", t.Rel, int(c.Similarity*100))))
	}
	for _, l := range e.Lines {
		d.RelatedInformation = append(d.RelatedInformation, lineInfo(t, l, l, fmt.Sprintf("%s matches at line %d of %s", what, l, t.Rel)))
	}
	return d, true
}

// lineInfo is related information on lines first to last (1-based) of t.
func lineInfo(t target, first, last int, msg string) protocol.DiagnosticRelatedInformation {
	return protocol.DiagnosticRelatedInformation{
		Location: protocol.Location{URI: t.URI, Range: protocol.Range{
			Start: protocol.Position{Line: uint32(first - 1)},
			End:   protocol.Position{Line: uint32(last)},
		}},
		Message: msg,
	}
}

// sectionDiagnostic is the diagnostic of one section against content, the target's: an error
// when it matches nothing, a hint when only a fallback tier matched, information when its
// REPLACE text already stands; none for an exact match.
func sectionDiagnostic(m *text.Mapper, sec docSection, content string, t target, s settings, enc protocol.PositionEncodingKind) (protocol.Diagnostic, bool) {
	res, err := apply.Construct(sec.diff, content, true, s.Config.DiffVersion)
	if err == nil {
		if len(res.Replacements) == 0 {
			return protocol.Diagnostic{}, false
		}
		r := res.Replacements[0]
		words, ok := tierWords[r.Tier]
		if !ok {
			return protocol.Diagnostic{}, false
		}
		first := strings.Count(content[:r.Start], "\n") + 1
		last := first + max(0, strings.Count(content[r.Start:r.End], "\n")-1)
		return diag(m, sec.span, enc, protocol.DiagnosticSeverityHint, ext.CodeFallback,
			fmt.Sprintf("SEARCH section %d matches %s of %s only %s", sec.n, linesWord(first, last), t.Rel, words)), true
	}
	if replaceStands(sec.diff, snapshot{Content: content, Exists: true}, s.Config.DiffVersion) {
		return diag(m, sec.span, enc, protocol.DiagnosticSeverityInformation, ext.CodeApplied,
			fmt.Sprintf("SEARCH section %d is already applied: its REPLACE text stands in %s", sec.n, t.Rel)), true
	}
	var ae *apply.Error
	if !errors.As(err, &ae) || ae.Kind != apply.ErrNoMatch {
		return diag(m, sec.span, enc, protocol.DiagnosticSeverityError, ext.CodeNoMatch,
			fmt.Sprintf("SEARCH section %d: %s", sec.n, firstLineOf(err.Error()))), true
	}
	c := ae.Nearest
	if c == nil {
		return diag(m, sec.span, enc, protocol.DiagnosticSeverityError, ext.CodeNoMatch,
			fmt.Sprintf("SEARCH section %d matches nothing in %s, and no region of it is similar; copy the lines to change exactly", sec.n, t.Rel)), true
	}
	pct := int(c.Similarity * 100)
	d := diag(m, sec.span, enc, protocol.DiagnosticSeverityError, ext.CodeNoMatch,
		fmt.Sprintf("SEARCH section %d matches nothing in %s; did you mean %s? (%d%% similar)", sec.n, t.Rel, linesWord(c.StartLine, c.EndLine), pct))
	d.RelatedInformation = []protocol.DiagnosticRelatedInformation{
		lineInfo(t, c.StartLine, c.EndLine, fmt.Sprintf("the nearest region of %s (%d%% similar)", t.Rel, pct))}
	return d, true
}

// linesWord names a 1-based inclusive line range as a reader does.
func linesWord(first, last int) string {
	if first == last {
		return fmt.Sprintf("line %d", first)
	}
	return fmt.Sprintf("lines %d-%d", first, last)
}

// holdsSent reports whether the registry's record of block key, of this version of sb, holds an
// edit the client answered as applied that its documents still hold.
func (e *editor) holdsSent(key editKey, tool *editTool, sb streamBlock) bool {
	e.mu.Lock()
	be := e.streams[key.stream][key.index]
	if !sameCompleteLocked(be, fingerprintOf(tool, sb)) || be.sent == nil {
		e.mu.Unlock()
		return false
	}
	sent := be.sent
	e.mu.Unlock()
	for _, f := range sent.Files {
		snap, err := e.snapshot(f.Target)
		if err != nil || !snap.Exists || !holdsFile(f, snap.Content) {
			return false
		}
	}
	return true
}

// mustJSON encodes v, whose types always encode.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
