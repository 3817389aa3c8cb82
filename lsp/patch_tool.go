package lsp

import (
	"errors"
	"fmt"
	"github.com/assistant-ls/assistant-ls/turn"
	"io/fs"
	"path"
	"strings"

	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/v4a"
)

// This file puts V4A patches (OpenAI's apply_patch, contract section 4b) behind the edit seam:
// one patch is one tool use and one WorkspaceEdit over all of its files, with creates, moves
// and deletes, applied all or nothing.

// toolPatch is the name of the apply_patch tool.
const toolPatch = "apply_patch"

// patchTool is the entry of apply_patch: the function-tool form {input: patch}, and the Responses
// API's operation form {type: create_file|update_file|delete_file, path, diff}.
var patchTool = &editTool{
	name:      toolPatch,
	pathsDone: func(turn.Block) bool { return false }, // a patch's paths are known once it is whole
	paths: func(params map[string]string) []string {
		p, err := patchOf(params)
		if err != nil {
			return nil
		}
		return patchPaths(p)
	},
	plan:       planPatch,
	preview:    func(editRequest, snapshot, config, *any) (toolPreview, bool) { return toolPreview{}, false },
	checkInput: stringFields(toolPatch, "input", "type", "path", "diff"),
}

// patchOf parses the patch a tool use carries: its input, or its Responses API operation.
func patchOf(params map[string]string) (*v4a.Patch, error) {
	if input, ok := params["input"]; ok {
		return v4a.Parse(input)
	}
	if params["type"] != "" {
		return v4a.ParseOperations(v4a.Operation{Type: params["type"], Path: params["path"], Diff: params["diff"]})
	}
	return nil, errors.New("apply_patch needs either input (a V4A patch, *** Begin Patch … *** End Patch) or an operation {type, path, diff}")
}

// patchPaths returns every path a patch touches, moves' destinations included, in order, so
// that each is checked by the path rules before anything is computed.
func patchPaths(p *v4a.Patch) []string {
	var out []string
	for _, op := range p.Ops {
		out = append(out, op.Path)
		if op.MoveTo != "" {
			out = append(out, op.MoveTo)
		}
	}
	return out
}

// planPatch applies the patch to the targets' current contents and turns its plan into one
// fileEdit per changed document: edits, a creation, a deletion, or edits then a move.
func planPatch(req editRequest, bases []snapshot, _ config) ([]*fileEdit, error) {
	p, err := patchOf(req.Params)
	if err != nil {
		return nil, err
	}
	index := func(name string) (int, bool) {
		i, ok := req.targetOf(name)
		if !ok {
			// The patch names it cleaned (path.Clean); the tool use as written.
			for _, op := range p.Ops {
				for _, q := range []string{op.Path, op.MoveTo} {
					if q != "" && path.Clean(q) == name {
						return req.targetOf(q)
					}
				}
			}
		}
		return i, ok
	}
	plan, err := v4a.Apply(p, func(name string) (string, error) {
		i, ok := index(name)
		if !ok {
			// A folder above a file the patch creates: the path rules checked the file.
			return "", fs.ErrNotExist
		}
		if !bases[i].Exists {
			return "", fs.ErrNotExist
		}
		return bases[i].Content, nil
	})
	if err != nil {
		return nil, err
	}
	moved := map[string]string{} // from → to
	for _, m := range plan.Moves {
		moved[m.From] = m.To
	}
	after := map[string]v4a.Change{}
	for _, c := range plan.Changes {
		after[c.Path] = c
	}
	var files []*fileEdit
	for _, c := range plan.Changes {
		i, ok := index(c.Path)
		if !ok {
			return nil, fmt.Errorf("apply_patch: %s was not checked against the workspace; send the patch again", c.Path)
		}
		fe := &fileEdit{Target: req.Targets[i], Base: bases[i]}
		switch to, isMove := moved[c.Path]; {
		case isMove:
			j, ok := index(to)
			if !ok {
				return nil, fmt.Errorf("apply_patch: %s was not checked against the workspace; send the patch again", to)
			}
			dest := req.Targets[j]
			fe.MoveTo = &dest
			fe.Edits = text.Diff(c.Before, after[to].Content)
			fe.Intended = text.Apply(c.Before, fe.Edits)
		case isMoveTarget(plan.Moves, c.Path):
			continue // written by its move
		case c.Deleted && !c.Existed:
			continue
		case c.Deleted:
			fe.Delete = true
		default:
			fe.Edits = text.Diff(bases[i].Content, c.Content)
			fe.Intended = text.Apply(bases[i].Content, fe.Edits)
		}
		files = append(files, fe)
	}
	if len(files) == 0 {
		return nil, errors.New("apply_patch changes nothing: the patch's operations cancel out")
	}
	for _, h := range plan.Hunks {
		files[0].Tiers = append(files[0].Tiers, string(h.Tier))
	}
	files[0].Message = strings.TrimSpace(plan.Summary)
	return files, nil
}

// isMoveTarget reports whether p is the destination of one of moves.
func isMoveTarget(moves []v4a.Move, p string) bool {
	for _, m := range moves {
		if m.To == p {
			return true
		}
	}
	return false
}
