package lsp

import (
	"fmt"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/turn"
	"go.lsp.dev/uri"
)

// This file is the requireRead setting (section 2): Claude Code's rule that a model edits only a
// file it has read, checked against the tool uses of the same stream.

// readTools are the tool uses that read a file without editing it, by the param naming the
// file: Cline's read_file and Claude Code's Read. The text editor's view is an edit tool
// (it edits nothing), so it counts through the tool set like any edit.
var readTools = map[string]string{"read_file": "path", "Read": "file_path"}

// readsOnly reports whether b, a file-editing tool use, only reads its file: the text editor's
// view, which requireRead must not refuse, since it is how a model reads.
func readsOnly(b turn.Block) bool { return b.Params["command"] == "view" }

// notReadMessage is Claude Code's refusal of an edit of a file not read first (Edit and Write,
// 2.1.332).
const notReadMessage = "File has not been read yet. Read it first before writing to it."

// readsBeforeLocked returns the paths, as written, that the tool uses before block i of st read:
// every read tool use, and every file-editing tool use (Claude Code counts a file it edited or
// wrote as read, so a second edit of it needs no read between). st.mu is held.
func (st *stream) readsBeforeLocked(i int) []string {
	var out []string
	for j := range i {
		b := st.blocks.at(j)
		if b.Type != parse.ToolUse || b.Partial {
			continue
		}
		if key, ok := readTools[b.Name]; ok {
			out = append(out, b.Params[key])
			continue
		}
		if t := st.toolOf(j, b); t != nil {
			out = append(out, t.paths(b.Params)...)
		}
	}
	return out
}

// readFiles resolves the paths a block's stream read before it, as its own paths resolve; a path
// the rules refuse was never read from the workspace, so it is left out.
func readFiles(sb streamBlock, s settings) map[uri.URI]bool {
	out := make(map[uri.URI]bool, len(sb.Reads))
	for _, p := range sb.Reads {
		if t, err := resolveTarget(p, sb.Cwd, s); err == nil {
			out[t.URI] = true
		}
	}
	return out
}

// checkRead refuses req, under requireRead, when one of its targets exists but its stream did not
// read it first. Creating a file needs no read, as in Claude Code.
func checkRead(req editRequest, bases []snapshot) error {
	if req.read == nil {
		return nil
	}
	for i, t := range req.Targets {
		if !bases[i].Exists || req.read[t.URI] {
			continue
		}
		if len(req.Targets) > 1 {
			return fmt.Errorf("%s: %s", t.Rel, notReadMessage)
		}
		return fmt.Errorf("%s", notReadMessage)
	}
	return nil
}
