package lsp

import (
	"errors"
	"fmt"
	"github.com/assistant-ls/assistant-ls/turn"
	"maps"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/edittool"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/textformat"
)

// This file is the edit seam: each kind of file-editing tool use is one editTool entry, and
// the rest of the pipeline (paths, queues, versions, minimal TextEdits, verification, progress,
// results) knows tools only through it. A new tool or format is a new entry in editTools.

// Tool names of Cline's two file-editing tool uses.
const (
	toolReplace = "replace_in_file"
	toolWrite   = "write_to_file"
)

// editTool describes one kind of file-editing tool use.
type editTool struct {
	name string
	// payload is the param that carries the change; "" for a tool whose input is read as a
	// whole (it reports its own missing fields).
	payload string
	// pathsDone reports whether a streaming tool use's paths are complete, so that its target
	// can be named and previewed.
	pathsDone func(b turn.Block) bool
	// paths returns the path params of a tool use, in the order its files are edited.
	paths func(params map[string]string) []string
	// plan computes the file changes of a complete tool use against the current contents,
	// one fileEdit per target in req.Targets, in that order. An edit that is already in
	// place plans no edits; an edit that cannot be made is an error a model can act on.
	plan func(req editRequest, bases []snapshot, cfg config) ([]*fileEdit, error)
	// preview computes what a streaming tool use would do so far to its first target:
	// the content after it, the offsets of its matches, and a progress report. ok is false
	// when there is nothing to show yet. state is the block's own, kept from one call to the
	// next (calls for one block never overlap), so a tool can work incrementally.
	preview func(req editRequest, base snapshot, cfg config, state *any) (p toolPreview, ok bool)
	// report, when set, is the progress report of a computed edit.
	report func(req editRequest, files []*fileEdit) string
	// checkInput checks a native tool call's whole arguments before its params are read: a
	// field of the wrong type fails the call, naming the field, since the params hold a
	// non-string field as its JSON text.
	checkInput func(input map[string]any) error
}

// stringFields is the checkInput of a tool whose fields are all strings.
func stringFields(tool string, names ...string) func(map[string]any) error {
	return func(input map[string]any) error { return edittool.StringFields(tool, input, names...) }
}

// toolPreview is what a streaming tool use would do so far.
type toolPreview struct {
	newContent string // only with the preview setting (config.Preview): progress needs none
	offsets    []int
	report     string
}

// editTools are the file-editing tools, by name.
var editTools = map[string]*editTool{
	toolReplace: {
		name:       toolReplace,
		payload:    "diff",
		pathsDone:  pathDone("path"),
		paths:      singlePath,
		plan:       planReplace,
		preview:    previewReplace,
		report:     reportReplace,
		checkInput: stringFields(toolReplace, "path", "diff"),
	},
	toolWrite: {
		name:       toolWrite,
		payload:    "content",
		pathsDone:  pathDone("path"),
		paths:      singlePath,
		plan:       planWrite,
		preview:    previewWrite,
		checkInput: stringFields(toolWrite, "path", "content"),
	},
}

// toolSet is the file-editing tools a stream recognises, by name: Cline's two, and every edit
// tool of the configured registry (the built-in ones of contract section 4b and the editTools
// aliases). It is immutable once built.
type toolSet struct {
	byName  map[string]*editTool
	formats map[textformat.Format]*editTool // the text formats enabled, besides cline
	enabled []textformat.Format
}

// newToolSet returns the tools of reg, with Cline's own entries for Cline's names, and the
// entries of the text formats enabled.
func newToolSet(reg *edittool.Registry, formats []string) *toolSet {
	ts := &toolSet{byName: map[string]*editTool{}, formats: formatTools(formats)}
	for f := range ts.formats {
		ts.enabled = append(ts.enabled, f)
	}
	slices.Sort(ts.enabled)
	for _, name := range reg.Names() {
		t, _ := reg.Lookup(name)
		ts.byName[name] = registryTool(t)
	}
	maps.Copy(ts.byName, editTools)
	ts.byName[toolPatch] = patchTool
	return ts
}

// lookup returns the edit tool of b, or nil when b is not a file-editing tool use nor a
// complete text block holding an edit of an enabled text format.
func (ts *toolSet) lookup(b parse.Block) *editTool {
	switch {
	case ts == nil:
		return nil
	case b.Type == parse.ToolUse:
		return ts.byName[b.Name]
	case len(ts.enabled) == 0 || b.Partial:
		return nil
	}
	if edits := textformat.Find(b.Content, ts.enabled...); len(edits) > 0 {
		return ts.formats[edits[0].Format]
	}
	return nil
}

// pathDone is the pathsDone of a tool with one path param, key: the param has arrived and its
// value is whole. A model may send the keys of a tool call in any order, and the text of a
// tool use may hold the path after the payload, so neither the payload's nor a later key's
// arrival says that the path is whole.
func pathDone(key string) func(turn.Block) bool {
	return func(b turn.Block) bool {
		_, ok := b.Params[key]
		return ok && !b.Streaming(key)
	}
}

// singlePath is the paths of a tool with one "path" param.
func singlePath(params map[string]string) []string {
	return []string{strings.TrimSpace(params["path"])}
}

// missingFileError says a replace_in_file target does not exist.
type missingFileError struct{ Path string }

// Error tells the model how to proceed.
func (e *missingFileError) Error() string {
	return fmt.Sprintf("the file %s does not exist: replace_in_file only edits existing files; use write_to_file to create it", e.Path)
}

// forceFixesModelID is handed to apply.FixModelContent for contentFixes "always": the fixes are
// skipped only for model ids containing "claude", so an empty id always gets them.
const forceFixesModelID = ""

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

// planReplace runs the applier in final mode and turns its replacements into minimal edits, with
// the inserted text's line breaks adapted to a CRLF document. A diff without any SEARCH/REPLACE
// block fails (apply.Index.Edit) rather than reporting an edit that changed nothing as
// applied. A diff that does not apply gives
// the applier's *apply.Error, unless its REPLACE texts already stand (replaceStands): then the
// edit is in place.
func planReplace(req editRequest, bases []snapshot, cfg config) ([]*fileEdit, error) {
	t, base := req.Targets[0], bases[0]
	if !base.Exists {
		return nil, &missingFileError{Path: t.Rel}
	}
	diff := fixContent(req.Params["diff"], cfg.ContentFixes, req.ModelID, t.Abs)
	x := base.index()
	res, err := x.Edit(diff, cfg.DiffVersion)
	if errors.Is(err, apply.ErrNoSections) {
		return nil, fmt.Errorf("replace_in_file for %s: %w", t.Rel, err)
	}
	if err != nil {
		if replaceStands(diff, base, cfg.DiffVersion) {
			return []*fileEdit{{Target: t, Base: base, Intended: base.Content}}, nil
		}
		return nil, err
	}
	eol := text.LineEnding(base.Content)
	// A document with lone CR breaks was read with LF (applierIndex), so the applier's
	// content is not in the document's line endings either.
	converted := x.Original() != base.Content
	reps := make([]text.Edit, len(res.Replacements))
	fe := &fileEdit{Target: t, Base: base}
	shift := 0 // how far the replacements so far moved the text after them
	for i, r := range res.Replacements {
		reps[i] = text.Edit{Start: r.Start, End: r.End, NewText: text.WithLineEnding(r.Content, eol)}
		converted = converted || reps[i].NewText != r.Content
		fe.MatchOffsets = append(fe.MatchOffsets, r.Start)
		fe.Tiers = append(fe.Tiers, string(r.Tier))
		at := r.Start + shift
		fe.Located = append(fe.Located, locatedSection{Section: r.Section, Tier: userTier(r, diff, base.Content), Start: at, End: at + len(reps[i].NewText)})
		shift += len(reps[i].NewText) - (r.End - r.Start)
	}
	fe.Edits = text.ReplacementEdits(base.Content, reps)
	// The edits reproduce what the applier built, so unless line endings were converted its
	// content is the result, and a large document is not copied a second time.
	fe.Intended = res.NewContent
	if converted {
		fe.Intended = text.Apply(base.Content, fe.Edits)
	}
	return []*fileEdit{fe}, nil
}

// userTier is how r, a replacement of diff in content, was located, as the user should hear
// it: a line-trimmed match whose only difference is the document's CRLF line breaks (the applier
// compares lines with their "\r") is exact.
func userTier(r apply.Replacement, diff, content string) apply.MatchTier {
	if r.Tier != apply.TierLineTrimmed {
		return r.Tier
	}
	secs, _ := apply.Sections(diff)
	if r.Section < 1 || r.Section > len(secs) {
		return r.Tier
	}
	region := strings.ReplaceAll(content[r.Start:min(r.End, len(content))], "\r\n", "\n")
	if strings.TrimSuffix(region, "\n") == strings.TrimSuffix(secs[r.Section-1].Search, "\n") {
		return apply.TierExact
	}
	return r.Tier
}

// replaceStands reports whether a diff that does not apply to content is already in place: each
// section's REPLACE text stands, in order, where its SEARCH text would be (apply.Invert of the
// diff applies). This is how a tool use applied before (by an earlier session, or a stream sent
// again) is recognised instead of failing. A section that deletes text leaves nothing to find,
// so a diff with one is never recognised.
func replaceStands(diff string, base snapshot, v apply.Version) bool {
	inverse, ok := apply.Invert(diff)
	if !ok {
		return false
	}
	res, err := base.index().Construct(inverse, true, v)
	return err == nil && len(res.Replacements) == apply.CountSections(inverse)
}

// replacePreview is the state of a streaming replace_in_file: the applier's incremental stream
// of the diff so far, against one content and version of the applier.
type replacePreview struct {
	stream  *apply.Stream
	content string
	version apply.Version
}

// previewReplace feeds the applier's incremental stream with what the diff grew by, so that a
// preview costs the delta and the sections it completes, not the whole diff again. The stream
// starts over when the document or the applier version changed, or when the content fixes
// rewrote text already fed. The file's new content is built only for the preview setting.
func previewReplace(req editRequest, base snapshot, cfg config, state *any) (toolPreview, bool) {
	if !base.Exists {
		return toolPreview{}, false
	}
	diff := fixContent(req.Params["diff"], cfg.ContentFixes, req.ModelID, req.Targets[0].Abs)
	rp, _ := (*state).(*replacePreview)
	if rp == nil || rp.content != base.Content || rp.version != cfg.DiffVersion {
		rp = &replacePreview{stream: base.index().NewStream(cfg.DiffVersion), content: base.Content, version: cfg.DiffVersion}
		*state = rp
	}
	if fed := rp.stream.Diff(); strings.HasPrefix(diff, fed) {
		rp.stream.Append(diff[len(fed):])
	} else {
		rp.stream.Reset()
		rp.stream.Append(diff)
	}
	part, err := rp.stream.Partial()
	if err != nil {
		return toolPreview{}, false
	}
	var p toolPreview
	if cfg.Preview {
		p.newContent = part.NewContent()
	}
	for _, r := range part.Replacements {
		p.offsets = append(p.offsets, r.Start)
	}
	p.report = fmt.Sprintf("%d of %d sections matched", len(p.offsets), rp.stream.Searches())
	return p, true
}

// reportReplace counts the matched sections.
func reportReplace(req editRequest, files []*fileEdit) string {
	return fmt.Sprintf("%d of %d sections matched", len(files[0].MatchOffsets), apply.CountSections(req.Params["diff"]))
}

// planWrite computes the whole-file replacement of write_to_file as minimal line edits, with
// the user's changes since the tool use named the file merged in.
func planWrite(req editRequest, bases []snapshot, cfg config) ([]*fileEdit, error) {
	t, base := req.Targets[0], bases[0]
	content, err := mergeWrite(t, base, writeText(req, base, cfg))
	if err != nil {
		return nil, err
	}
	edits := text.Diff(base.Content, content)
	return []*fileEdit{{Target: t, Base: base, Intended: text.Apply(base.Content, edits), Edits: edits}}, nil
}

// writeText is the content write_to_file writes over base: Cline's clean-up (writeContent), in
// the document's line breaks with its BOM kept, and ending in a line break unless empty.
func writeText(req editRequest, base snapshot, cfg config) string {
	content := writeContent(req.Params["content"], cfg, req.ModelID, req.Targets[0].Abs)
	eol := text.LineEnding(content)
	if base.Exists {
		eol = text.LineEnding(base.Content)
		content = text.WithLineEnding(content, eol)
		content = text.KeepBOM(base.Content, content)
	}
	if content != "" && content != text.BOM && !strings.HasSuffix(content, "\n") && !strings.HasSuffix(content, "\r") {
		content += eol
	}
	return content
}

// previewWrite is the content written so far, as planWrite would write it. Without the preview
// setting only progress is shown, which needs no content: building it would copy the whole
// content written so far on every step (issue 16, item 14).
func previewWrite(req editRequest, base snapshot, cfg config, _ *any) (toolPreview, bool) {
	if !cfg.Preview {
		return toolPreview{}, true
	}
	return toolPreview{newContent: writeText(req, base, cfg)}, true
}

// writeContent is write_to_file's content as Cline writes it: code fences stripped, then the
// content fixes.
func writeContent(content string, cfg config, modelID, path string) string {
	return fixContent(apply.CleanWriteContent(content), cfg.ContentFixes, modelID, path)
}

// registryTool is the entry of an edit tool of package edittool: its input is read as a whole,
// from the native call's arguments or the XML tool use's params, and the tool computes the
// file's new content, which becomes minimal line edits like write_to_file's.
func registryTool(t *edittool.Tool) *editTool {
	pathKey := t.PathKey()
	return &editTool{
		name:      t.Name,
		pathsDone: pathDone(pathKey),
		paths:     func(params map[string]string) []string { return []string{strings.TrimSpace(params[pathKey])} },
		plan: func(req editRequest, bases []snapshot, cfg config) ([]*fileEdit, error) {
			call, err := t.FromParams(req.Params)
			if req.Input != nil {
				call, err = t.FromJSON(req.Input)
			}
			if err != nil {
				return nil, err
			}
			tgt, base := req.Targets[0], bases[0]
			res, err := call.Apply(base.Content, base.Exists)
			if err != nil {
				return nil, err
			}
			content := res.Content
			if base.Exists {
				content = text.KeepBOM(base.Content, content)
			}
			if res.Whole {
				if content, err = mergeWrite(tgt, base, content); err != nil {
					return nil, err
				}
			}
			edits := text.Diff(base.Content, content)
			fe := &fileEdit{Target: tgt, Base: base, Intended: text.Apply(base.Content, edits), Edits: edits, Message: res.Message}
			if res.NoEdit {
				fe.Intended, fe.Edits = base.Content, nil
			}
			for _, tier := range res.Tiers {
				fe.Tiers = append(fe.Tiers, string(tier))
			}
			fe.MatchOffsets = res.Matches
			return []*fileEdit{fe}, nil
		},
		preview: func(editRequest, snapshot, config, *any) (toolPreview, bool) { return toolPreview{}, false },
		checkInput: func(input map[string]any) error {
			_, err := t.FromJSON(input)
			return err
		},
	}
}
