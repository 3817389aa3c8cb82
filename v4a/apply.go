package v4a

import (
	"cmp"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

// Files returns the content of a file before the patch. Its error is fs.ErrNotExist (possibly
// wrapped) for a path where nothing exists, ErrNotFile for one that is not a regular file (a
// directory), and anything else for a file that cannot be read. Paths are as the patch writes
// them, cleaned with path.Clean; the caller resolves them (and refuses those it must not touch).
// Apply asks about each path at most once, and also about the folders above a file it creates.
type Files func(path string) (string, error)

// Plan is everything a patch changes, computed without writing anything, for the caller to
// apply as one atomic edit.
type Plan struct {
	// Changes holds one entry per path the patch writes or deletes, in the order the patch
	// first touches them, with its state before and after the whole patch.
	Changes []Change
	// Moves lists the renames (Update File with Move to) whose source is gone and whose
	// destination exists once the patch is done but did not exist before it, so that the
	// caller can rename rather than delete and create. A move onto a file that existed before
	// the patch is not listed: it overwrites that file, which a caller carries out as the
	// destination's change and the source's deletion (a rename onto an existing file is what
	// editors refuse).
	Moves []Move
	// Hunks says, for every hunk of every Update File operation, how it was located.
	Hunks []HunkMatch
	// Summary is Codex's report of success ("Success. Updated the following files:" then A, M
	// and D lines), the text an agent expects back from the tool.
	Summary string
}

// Change is one path's state before and after the patch. Path is cleaned (path.Clean).
type Change struct {
	Path    string
	Existed bool   // the file existed before the patch
	Before  string // its content then, when it existed
	Deleted bool   // the file does not exist after the patch
	Content string // its content after the patch, when not Deleted
}

// Move is a rename: From's content, updated, is now at To.
type Move struct{ From, To string }

// HunkMatch is where one hunk was located. Op and Hunk are 0-based indexes into Patch.Ops and
// the operation's Hunks. Line is the 1-based line of the file (as it stood before that
// operation) where the hunk's Old lines begin, or where its lines were inserted.
// ContextTier is how the "@@ text" header was found, "" when the hunk has none.
type HunkMatch struct {
	Op, Hunk    int
	Path        string
	Line        int
	Tier        Tier
	ContextTier Tier
}

// ApplyText parses text (see Parse) and applies it (see Apply).
func ApplyText(text string, files Files) (*Plan, error) {
	p, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return Apply(p, files)
}

// Apply computes what the patch does to the files, operation after operation as Codex performs
// them (so a later operation sees what an earlier one did), with Codex's results: its context
// seeking tiers, where pure additions go, each line keeping its own line ending and new lines
// taking the file's, and a line break added at the end of every updated file. The plan is
// deterministic; on failure the error (an *Error) names the operation, file and hunk in Codex's
// words, and no plan is returned.
func Apply(p *Patch, files Files) (*Plan, error) {
	if len(p.Ops) == 0 {
		return nil, &Error{Kind: ErrNoFiles, Op: -1, Hunk: -1, Message: "No files were modified."}
	}
	w := &workspace{files: files, state: map[string]*entry{}, dirs: map[string]bool{}}
	plan := &Plan{}
	var added, modified, deleted []string
	for i, op := range p.Ops {
		key := cleanPath(op.Path)
		switch op.Kind {
		case AddFile:
			if err := w.write(key, op.Path, op.Content, i); err != nil {
				return nil, err
			}
			added = append(added, op.Path)
		case DeleteFile:
			if _, err := w.read(key); err != nil {
				e := ioError(ErrRead, i, op.Path, "Failed to delete file "+op.Path, "")
				e.Reason = deleteReason(err)
				return nil, e
			}
			w.remove(key)
			deleted = append(deleted, op.Path)
		case UpdateFile:
			content, err := w.read(key)
			if err != nil {
				return nil, ioError(ErrRead, i, op.Path, "Failed to read file to update "+op.Path, readReason(op.Path, err))
			}
			updated, matches, herr := update(content, op, i)
			if herr != nil {
				return nil, herr
			}
			plan.Hunks = append(plan.Hunks, matches...)
			if op.MoveTo == "" || cleanPath(op.MoveTo) == key {
				// A move onto the file itself is an update: Codex writes the file, then
				// removes it, which loses it (a departure, docs/protocol.md section 4b).
				w.set(key, updated)
				modified = append(modified, cmp.Or(op.MoveTo, op.Path))
				continue
			}
			if err := w.write(cleanPath(op.MoveTo), op.MoveTo, updated, i); err != nil {
				return nil, err
			}
			w.remove(key)
			w.moves = append(w.moves, Move{From: key, To: cleanPath(op.MoveTo)})
			modified = append(modified, op.MoveTo)
		}
	}
	w.finish(plan)
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, l := range [...]struct {
		tag   string
		paths []string
	}{{"A ", added}, {"M ", modified}, {"D ", deleted}} {
		for _, p := range l.paths {
			b.WriteString(l.tag + p + "\n")
		}
	}
	plan.Summary = b.String()
	return plan, nil
}

func cleanPath(p string) string {
	if p == "" {
		return p
	}
	return path.Clean(p)
}

// workspace is the files as the patch has left them so far, over the caller's Files.
type workspace struct {
	files   Files
	state   map[string]*entry // every path read or written, with its current state
	order   []string          // paths written or deleted, in first-touch order
	dirs    map[string]bool   // folders the patch created
	moves   []Move
	touched map[string]bool
}

type entry struct {
	existed bool   // before the patch
	before  string // content before the patch
	readErr error  // why it could not be read before the patch, when it did not exist
	exists  bool   // now
	content string // now
}

func (w *workspace) get(key string) *entry {
	if e, ok := w.state[key]; ok {
		return e
	}
	e := &entry{}
	c, err := w.files(key)
	if err == nil {
		e.existed, e.before, e.exists, e.content = true, c, true, c
	} else {
		e.readErr = err
	}
	w.state[key] = e
	return e
}

// read returns a file's current content.
func (w *workspace) read(key string) (string, error) {
	if w.dirs[key] {
		return "", ErrNotFile
	}
	e := w.get(key)
	if !e.exists {
		if e.readErr != nil && !errors.Is(e.readErr, fs.ErrNotExist) && !w.touched[key] {
			return "", e.readErr
		}
		return "", fs.ErrNotExist
	}
	return e.content, nil
}

func (w *workspace) touch(key string) {
	if w.touched == nil {
		w.touched = map[string]bool{}
	}
	if !w.touched[key] {
		w.touched[key] = true
		w.order = append(w.order, key)
	}
}

func (w *workspace) set(key, content string) {
	e := w.get(key)
	e.exists, e.content = true, content
	w.touch(key)
}

func (w *workspace) remove(key string) {
	e := w.get(key)
	e.exists, e.content = false, ""
	w.touch(key)
}

// write creates or overwrites a file, creating its folders, failing as the file system would
// where a folder is in the way or a file stands where a folder must be.
func (w *workspace) write(key, shown, content string, op int) *Error {
	if w.dirs[key] {
		return writeError(op, shown, "Is a directory (os error 21)")
	}
	if e := w.get(key); !e.exists && e.readErr != nil && !w.touched[key] {
		switch {
		case errors.Is(e.readErr, ErrNotFile):
			return writeError(op, shown, "Is a directory (os error 21)")
		case !errors.Is(e.readErr, fs.ErrNotExist):
			// What cannot be looked at (a path through a link out of the workspace, say)
			// cannot be written either.
			return writeError(op, shown, e.readErr.Error())
		}
	}
	var parents []string
	for d := path.Dir(key); d != "." && d != "/" && d != key; d = path.Dir(d) {
		if w.dirs[d] {
			break
		}
		if e := w.get(d); e.exists {
			return writeError(op, shown, "its folder "+d+" is a file")
		}
		parents = append(parents, d)
	}
	for _, d := range parents {
		w.dirs[d] = true
	}
	w.set(key, content)
	return nil
}

// finish fills the plan's changes and moves from the final state.
func (w *workspace) finish(plan *Plan) {
	for _, key := range w.order {
		e := w.state[key]
		plan.Changes = append(plan.Changes, Change{
			Path: key, Existed: e.existed, Before: e.before, Deleted: !e.exists, Content: e.content,
		})
	}
	for _, m := range w.moves {
		if to := w.state[m.To]; m.From != m.To && !w.state[m.From].exists && to.exists && !to.existed {
			plan.Moves = append(plan.Moves, m)
		}
	}
}

func ioError(kind ErrorKind, op int, shown, context, reason string) *Error {
	if reason != "" {
		context += ": " + reason
	}
	return &Error{Kind: kind, Op: op, Hunk: -1, Path: shown, Message: context}
}

// writeError is Codex's message for a file it cannot write, which gives no reason; the reason
// goes to Reason.
func writeError(op int, shown, reason string) *Error {
	e := ioError(ErrWrite, op, shown, "Failed to write file "+shown, "")
	e.Reason = reason
	return e
}

func readReason(shown string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory (os error 2)"
	case errors.Is(err, ErrNotFile):
		return "path `" + shown + "` is not a file"
	case errors.Is(err, errNotUTF8):
		return "stream did not contain valid UTF-8"
	}
	return err.Error()
}

func deleteReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory (os error 2)"
	case errors.Is(err, ErrNotFile):
		return "Is a directory (os error 21)"
	}
	return err.Error()
}

var errNotUTF8 = errors.New("stream did not contain valid UTF-8")

// edits is what the hunks of one operation do to the file's lines: lines deleted, and lines
// inserted. Each run of '-' and '+' lines between context lines is one change, anchored at its
// first line; the new lines of changes anchored at one place come in patch order, before the
// line there. Context lines stay as the file has them.
type edits struct {
	deleted []bool
	inserts []insert
}

// insert is a new line of the change anchored before line at (len(lines): at the end).
type insert struct {
	at   int
	text string
}

// add records hunk h found at line start, its first old lines of Old and newLen lines of New
// used (fewer than all when its last empty line stood for the file's final line break).
func (e *edits) add(h *Hunk, start, old, newLen int) {
	if len(h.kinds) != len(h.Old)+len(h.New)-h.context() {
		// A hunk built by hand: its Old lines are replaced by its New lines.
		for i := start; i < start+old; i++ {
			e.deleted[i] = true
		}
		for _, l := range h.New[:newLen] {
			e.inserts = append(e.inserts, insert{at: start, text: l})
		}
		return
	}
	p, o, n := start, 0, 0
	anchor := -1 // where the change being read began, -1 between changes
	for _, k := range h.kinds {
		inOld, inNew := k != '+' && o < old, k != '-' && n < newLen
		if k == ' ' && inOld && inNew {
			anchor = -1
			p++
		} else if inOld || inNew {
			if anchor < 0 {
				anchor = p
			}
			if inOld {
				e.deleted[p] = true
				p++
			} else {
				e.inserts = append(e.inserts, insert{at: anchor, text: h.New[n]})
			}
		}
		if k != '+' {
			o++
		}
		if k != '-' {
			n++
		}
	}
}

// context counts the hunk's context lines.
func (h *Hunk) context() int {
	n := 0
	for _, k := range h.kinds {
		if k == ' ' {
			n++
		}
	}
	return n
}

// update applies an UpdateFile operation's hunks to content, the operation being number op.
func update(content string, op Op, opIndex int) (string, []HunkMatch, *Error) {
	if !utf8.ValidString(content) {
		return "", nil, ioError(ErrRead, opIndex, op.Path, "Failed to read file to update "+op.Path, readReason(op.Path, errNotUTF8))
	}
	f := splitFile(content)
	e := &edits{deleted: make([]bool, len(f.text))}
	var matches []HunkMatch
	at := 0 // the line from which the next hunk is sought
	for hi := range op.Hunks {
		h := &op.Hunks[hi]
		m := HunkMatch{Op: opIndex, Hunk: hi, Path: cleanPath(op.Path)}
		if h.HasContext {
			i, tier, ok := f.seek([]string{h.Context}, at, false)
			if !ok {
				return "", nil, notFound(f, ErrContext, opIndex, hi, op.Path, []string{h.Context},
					"Failed to find context '"+h.Context+"' in "+op.Path)
			}
			at, m.ContextTier = i+1, tier
		}
		if len(h.Old) == 0 {
			// Codex puts a pure addition at the end of the file, wherever its header was found.
			e.add(h, len(f.text), 0, len(h.New))
			m.Line, m.Tier = len(f.text)+1, TierAppend
			matches = append(matches, m)
			continue
		}
		old, newLen := len(h.Old), len(h.New)
		i, tier, ok := f.seek(h.Old, at, h.EOF)
		if !ok && h.Old[old-1] == "" {
			// The last empty line may stand for the file's final line break.
			old--
			if newLen > 0 && h.New[newLen-1] == "" {
				newLen--
			}
			i, tier, ok = f.seek(h.Old[:old], at, h.EOF)
		}
		if !ok {
			return "", nil, notFound(f, ErrLines, opIndex, hi, op.Path, h.Old,
				"Failed to find expected lines in "+op.Path+":\n"+strings.Join(h.Old, "\n"))
		}
		e.add(h, i, old, newLen)
		at = i + old
		m.Line, m.Tier = i+1, tier
		matches = append(matches, m)
	}
	sort.SliceStable(e.inserts, func(a, b int) bool { return e.inserts[a].at < e.inserts[b].at })
	return f.render(e), matches, nil
}

func notFound(f *file, kind ErrorKind, op, hunk int, shown string, sought []string, msg string) *Error {
	return &Error{
		Kind: kind, Op: op, Hunk: hunk, Path: shown, Message: msg,
		Tried: seekTiers, Nearest: f.nearest(sought),
	}
}

// render writes the file with the edits made, as Codex does: kept lines keep their line
// endings; new lines, and an unterminated last line, get the file's own ending. Lines inserted
// at one place come in patch order.
func (f *file) render(e *edits) string {
	var b strings.Builder
	grow := len(f.content) + len(f.eol)
	for _, in := range e.inserts {
		grow += len(in.text) + len(f.eol)
	}
	b.Grow(grow)
	n, next := len(f.text), 0
	for i := 0; i <= n; {
		for ; next < len(e.inserts) && e.inserts[next].at == i; next++ {
			b.WriteString(e.inserts[next].text)
			b.WriteString(f.eol)
		}
		if i == n {
			break
		}
		if e.deleted[i] {
			i++
			continue
		}
		// Copy the run of kept lines up to the next change in one piece.
		j := i + 1
		for j < n && !e.deleted[j] && (next == len(e.inserts) || e.inserts[next].at > j) {
			j++
		}
		b.WriteString(f.content[f.offsets[i]:f.offsets[j]])
		if j == n && !f.terminated(n-1) {
			b.WriteString(f.eol)
		}
		i = j
	}
	return b.String()
}
