package lsp

import (
	"fmt"
	"sort"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
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

// readUse is a complete tool use of a stream that may count as a read of its files.
type readUse struct {
	index int      // the block's index
	paths []string // as written
	// edit says the tool use edits its files: like Claude Code, which marks a file read only
	// once an edit of it succeeded, it counts only once its edit applied.
	edit bool
}

// readLog is what a block's stream read before it: the read and edit tool uses of the blocks
// before it, in order. Its uses are shared with the stream's log, which only appends to it.
type readLog struct {
	stream string
	uses   []readUse
}

// readsBeforeLocked returns the log of the tool uses before block i of st that may count as
// reads, growing st's log to block i first: each block is looked at once in the stream's life,
// so describing every block of a stream costs time linear in its blocks. st.mu is held, and
// every block before i is complete (i is a complete tool use, or the blocks are final).
func (st *stream) readsBeforeLocked(i int) readLog {
	for ; st.readsTo < i; st.readsTo++ {
		j := st.readsTo
		b := st.blocks.at(j)
		if b.Type != parse.ToolUse || b.Partial {
			continue
		}
		if key, ok := readTools[b.Name]; ok {
			st.reads = append(st.reads, readUse{index: j, paths: []string{b.Params[key]}})
			continue
		}
		if t := st.toolOf(j, b); t != nil {
			st.reads = append(st.reads, readUse{index: j, paths: t.paths(b.Params), edit: !readsOnly(b)})
		}
	}
	n := sort.Search(len(st.reads), func(k int) bool { return st.reads[k].index >= i })
	return readLog{stream: st.name, uses: st.reads[:n:n]}
}

// readSet is what requireRead checks an edit against: the files its stream read before it, and
// the earlier edits of its stream by file, which count once applied.
type readSet struct {
	stream string
	files  map[uri.URI]bool
	edits  map[uri.URI][]int
}

// readSetOf resolves the paths a block's stream read before it, as its own paths resolve; a path
// the rules refuse was never read from the workspace, so it is left out.
func readSetOf(sb streamBlock, s settings) *readSet {
	out := &readSet{stream: sb.Reads.stream, files: map[uri.URI]bool{}, edits: map[uri.URI][]int{}}
	for _, u := range sb.Reads.uses {
		for _, p := range u.paths {
			t, err := resolveTarget(p, sb.Cwd, s)
			switch {
			case err != nil:
			case u.edit:
				out.edits[t.URI] = append(out.edits[t.URI], u.index)
			default:
				out.files[t.URI] = true
			}
		}
	}
	return out
}

// checkRead refuses req, under requireRead, when one of its targets exists but its stream did not
// read it first. Creating a file needs no read, as in Claude Code. An earlier edit of the file
// counts once its edit applied (or, held for review, was partly accepted): it runs in the
// file's turn before req's (edits of one document run in stream order), so its outcome is known
// by now, and an edit still held for review, failed or refused does not count.
func (e *editor) checkRead(req editRequest, bases []snapshot) error {
	if req.read == nil {
		return nil
	}
	for i, t := range req.Targets {
		if !bases[i].Exists || req.read.files[t.URI] || e.anyApplied(req.read.stream, req.read.edits[t.URI]) {
			continue
		}
		if len(req.Targets) > 1 {
			return fmt.Errorf("%s: %s", t.Rel, notReadMessage)
		}
		return fmt.Errorf("%s", notReadMessage)
	}
	return nil
}

// anyApplied reports whether the edit of one of the blocks of stream at indexes applied, wholly
// or in part.
func (e *editor) anyApplied(stream string, indexes []int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, i := range indexes {
		if be := e.streams[stream][i]; be != nil && (be.state.Status == ext.StatusApplied || be.state.Status == ext.StatusPartial) {
			return true
		}
	}
	return false
}
