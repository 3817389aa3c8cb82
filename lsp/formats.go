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
				if p := strings.TrimSpace(file.Path); !slices.Contains(out, p) {
					out = append(out, p)
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
			// match offsets are the first one's, the only ones that point into the document.
			for _, file := range files(req.Params) {
				i, ok := req.targetOf(strings.TrimSpace(file.Path))
				if !ok {
					return nil, fmt.Errorf("%s: the path %q of an edit was not resolved; send the edit again", req.Tool.name, file.Path)
				}
				res, err := file.Apply(contents[i], exists[i])
				if err != nil {
					return nil, err
				}
				contents[i], exists[i], fes[i].Delete = res.Content, !res.Delete, res.Delete
				for _, tier := range res.Tiers {
					fes[i].Tiers = append(fes[i].Tiers, string(tier))
				}
				if !applied[i] {
					fes[i].MatchOffsets = res.Matches
				}
				applied[i] = true
			}
			for i, fe := range fes {
				if fe.Delete {
					continue
				}
				fe.Edits = text.Diff(fe.Base.Content, contents[i])
				fe.Intended = text.Apply(fe.Base.Content, fe.Edits)
			}
			return fes, nil
		},
		preview: func(editRequest, snapshot, config, *any) (toolPreview, bool) { return toolPreview{}, false },
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
