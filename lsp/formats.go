package lsp

import (
	"fmt"
	"github.com/assistant-ls/assistant-ls/turn"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/textformat"
)

// This file puts the text formats of contract section 4b (Aider SEARCH/REPLACE blocks and
// unified diffs written in plain text) behind the edit seam: a complete text block in which a
// recognised edit stands gets an edit of its own, through one editTool entry per format.

// textParam is the param under which a text block's content reaches its format's editTool.
const textParam = "text"

// formatTools returns the entries of the enabled formats, by format name ("cline" is the XML
// tool uses, which need none).
func formatTools(enabled []string) map[textformat.Format]*editTool {
	var formats []textformat.Format
	for _, f := range enabled {
		if f != formatCline {
			formats = append(formats, textformat.Format(f))
		}
	}
	out := map[textformat.Format]*editTool{}
	for _, f := range formats {
		out[f] = formatTool(f, formats)
	}
	if _, ok := out[textformat.V4A]; ok {
		out[textformat.V4A] = v4aTextTool
	}
	return out
}

// formatCline names Cline's XML tool uses in the textFormats setting.
const formatCline = "cline"

// formatTool is the entry of the text blocks whose first recognised edit is of format f; it
// edits every file of every recognised edit of the enabled formats in the block, in order.
func formatTool(f textformat.Format, formats []textformat.Format) *editTool {
	files := func(params map[string]string) []textformat.File {
		var out []textformat.File
		for _, e := range textformat.Find(params[textParam], formats...) {
			out = append(out, e.Files...)
		}
		return out
	}
	return &editTool{
		name:      string(f),
		payload:   textParam,
		pathsDone: func(turn.Block) bool { return true },
		paths: func(params map[string]string) []string {
			var out []string
			for _, file := range files(params) {
				for _, p := range []string{strings.TrimSpace(file.OldPath), strings.TrimSpace(file.Path)} {
					if p != "" && !slices.Contains(out, p) {
						out = append(out, p)
					}
				}
			}
			return out
		},
		plan: func(req editRequest, bases []snapshot, _ config) ([]*fileEdit, error) {
			fes := make([]*fileEdit, len(req.Targets))
			contents := make([]string, len(req.Targets))
			exists := make([]bool, len(req.Targets))
			applied := make([]bool, len(req.Targets))
			for i, t := range req.Targets {
				fes[i] = &fileEdit{Target: t, Base: bases[i]}
				contents[i], exists[i] = bases[i].Content, bases[i].Exists
			}
			// Several edits of one file apply in order, each to the result of the one before;
			// match offsets are the first one's, the only ones that point into the document. As
			// git apply does, a rename reads its source as it stood before the diff, and a path
			// renamed away takes no more edits, only a new file. The first rename of a source
			// untouched so far moves it: its edits and its move belong to its source document;
			// any other rename is a copy, a new file of its own, and so is a move whose source
			// the diff then creates anew.
			moved := map[int]int{}                 // source target → destination target
			gone := map[int]string{}               // a source renamed away → where, until created anew
			located := map[int]textformat.Result{} // the first edit of a target edited in place
			owner := func(i int) *fileEdit {
				for src, dest := range moved {
					if dest == i {
						return fes[src]
					}
				}
				return fes[i]
			}
			for _, file := range files(req.Params) {
				i, ok := req.targetOf(strings.TrimSpace(file.Path))
				src := i
				if ok && file.OldPath != "" {
					src, ok = req.targetOf(strings.TrimSpace(file.OldPath))
				}
				if !ok {
					return nil, fmt.Errorf("%s: the path %q of an edit was not resolved; send the edit again", req.Tool.name, file.Path)
				}
				if src == i {
					to, wasMoved := gone[i]
					res, err := file.Apply(contents[i], exists[i])
					if err != nil && wasMoved {
						return nil, fmt.Errorf("%s: path %s has been renamed/deleted (an earlier part of the diff renames it to %s); write this change into that file's diff, against %s", req.Tool.name, file.Path, to, to)
					}
					if err != nil {
						return nil, err
					}
					if dest, isMove := moved[i]; wasMoved && isMove {
						// The moved document is edited into the new file instead, and the
						// destination becomes a new file of its own: one edit per document,
						// as git leaves them.
						delete(moved, i)
						fes[dest].Delete, fes[i].Delete = fes[i].Delete, false
					}
					delete(gone, i)
					fe := owner(i)
					contents[i], exists[i], fe.Delete = res.Content, !res.Delete, res.Delete
					addTiers(fe, res, !applied[i])
					if !applied[i] && fe == fes[i] {
						// Where each section's text stands is known in the document's content
						// only for the first edit of it: placed once the file's edits are.
						located[i] = res
					}
					applied[i] = true
					continue
				}
				if !bases[src].Exists {
					return nil, fmt.Errorf("%s: %s: No such file or directory (as git apply says: a rename reads its source as it stood before the diff); rename the file that existed then, or write %s as a new file from /dev/null", req.Tool.name, file.OldPath, file.Path)
				}
				if exists[i] {
					return nil, fmt.Errorf("%s: the diff renames %s to %s, but %s already exists; rename it to a free path, or edit it in place", req.Tool.name, file.OldPath, file.Path, file.Path)
				}
				res, err := file.Apply(bases[src].Content, true)
				if err != nil {
					return nil, err
				}
				contents[i], exists[i] = res.Content, true
				_, twice := moved[src]
				first := !applied[src] && !twice
				if first && !bases[i].Exists {
					moved[src], gone[src] = i, file.Path
					contents[src], exists[src] = "", false
					addTiers(fes[src], res, true)
					applied[src], applied[i] = true, true
					continue
				}
				// A copy: a source edited, deleted or moved before keeps what that made of it;
				// an untouched one is deleted (the destination, deleted earlier in the diff,
				// cannot be a move's without its deletion going first).
				fes[i].Delete = false
				addTiers(fes[i], res, false) // its matches point into another file
				applied[i] = true
				if first {
					contents[src], exists[src], fes[src].Delete = "", false, true
					gone[src], applied[src] = file.Path, true
				}
			}
			out := make([]*fileEdit, 0, len(fes))
			for i, fe := range fes {
				result := contents[i]
				switch dest, isMove := moved[i]; {
				case isMove:
					fe.MoveTo, result = &req.Targets[dest], contents[dest]
				case owner(i) != fe:
					continue // written by its move
				case fe.Delete:
					out = append(out, fe)
					continue
				}
				fe.Edits = text.Diff(fe.Base.Content, result)
				fe.Intended = text.Apply(fe.Base.Content, fe.Edits)
				if res, ok := located[i]; ok {
					fe.Located = locateSections(res, fe.Edits)
				}
				out = append(out, fe)
			}
			return out, nil
		},
		preview: func(editRequest, snapshot, config, *any) (toolPreview, bool) { return toolPreview{}, false },
	}
}

// addTiers records on fe how res's sections were located, and where they matched when first:
// only the first edit of a document has offsets into it.
func addTiers(fe *fileEdit, res textformat.Result, first bool) {
	for _, tier := range res.Tiers {
		fe.Tiers = append(fe.Tiers, string(tier))
	}
	if first {
		fe.MatchOffsets = res.Matches
	}
}

// v4aTextTool is the entry of a text block whose first recognised edit is a V4A patch envelope:
// the patch is applied as apply_patch applies it, all or nothing.
var v4aTextTool = &editTool{
	name:      string(textformat.V4A),
	payload:   textParam,
	pathsDone: func(turn.Block) bool { return true },
	paths:     func(params map[string]string) []string { return patchTool.paths(v4aInput(params)) },
	plan: func(req editRequest, bases []snapshot, cfg config) ([]*fileEdit, error) {
		req.Params = v4aInput(req.Params)
		return planPatch(req, bases, cfg)
	},
	preview: func(editRequest, snapshot, config, *any) (toolPreview, bool) { return toolPreview{}, false },
}

// v4aInput gives the first V4A envelope of a text block as apply_patch's input param.
func v4aInput(params map[string]string) map[string]string {
	for _, e := range textformat.FindV4A(params[textParam]) {
		return map[string]string{"input": e.Patch}
	}
	return map[string]string{}
}

// locateSections says where each section of res, an edit of a document's content that edits
// turn into its Intended content, put its text in Intended: the bytes it replaced in the
// content, moved by the edits before them, and widened by the edits within and at their end.
func locateSections(res textformat.Result, edits []text.Edit) []locatedSection {
	out := make([]locatedSection, 0, len(res.Spans))
	for k, sp := range res.Spans {
		start, end := sp.Start, sp.End
		for _, e := range edits {
			delta := len(e.NewText) - (e.End - e.Start)
			switch {
			case e.End < sp.Start || e.End == sp.Start && e.Start < sp.Start:
				start, end = start+delta, end+delta
			case e.Start < sp.End || e.Start == sp.End && e.End == sp.End:
				end += delta
			}
		}
		out = append(out, locatedSection{Section: k + 1, Tier: res.Tiers[k], Start: start, End: max(start, end)})
	}
	return out
}
