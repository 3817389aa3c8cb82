package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// This file is the state layer of edits held for review (section 7a): with review on, or
// autoApply off, a complete edit is computed but not sent; its hunks (one TextEdit each) wait in
// the target document for the user to accept or reject them one by one. The hunks follow the
// document as the user types, and the block's EditState reports them.

// hunk is one TextEdit of a held edit. start and end are byte offsets into its file's content:
// the text the hunk replaces while it is pending, stale or rejected, the text it wrote once
// accepted.
type hunk struct {
	status     ext.HunkStatus
	start, end int
	old, new   string
	// accepting is set while the hunk's applyEdit is out, and closed when its outcome is known:
	// a change of its lines meanwhile is expected, and is judged by the outcome rather than as
	// the user's typing; another decision on the hunk waits for it.
	accepting chan struct{}
}

// heldFile is the part of a held edit in one document.
type heldFile struct {
	target  target
	content string // the document content the hunks' offsets refer to
	hunks   []*hunk
}

// heldEdit is the held edit of one block.
type heldEdit struct {
	key     editKey
	be      *blockEdit
	tool    string
	label   string // "<tool> <path>"
	matches []protocol.Position
	tiers   []string
	files   []*heldFile
}

// at returns hunk i counted across the edit's files, in order; false when there is none.
func (h *heldEdit) at(i int) (*heldFile, *hunk, bool) {
	if i < 0 {
		return nil, nil, false
	}
	for _, f := range h.files {
		if i < len(f.hunks) {
			return f, f.hunks[i], true
		}
		i -= len(f.hunks)
	}
	return nil, nil, false
}

// count returns how many hunks have status st.
func (h *heldEdit) count(st ext.HunkStatus) int {
	n := 0
	for _, f := range h.files {
		for _, k := range f.hunks {
			if k.status == st {
				n++
			}
		}
	}
	return n
}

// status is the edit's status from its hunks' (section 7a): ready while every hunk is pending,
// applied when all are accepted, rejected when all are rejected or stale, partial otherwise.
func (h *heldEdit) status() ext.EditStatus {
	n := 0
	for _, f := range h.files {
		n += len(f.hunks)
	}
	pending, accepted := h.count(ext.HunkPending), h.count(ext.HunkAccepted)
	switch {
	case pending == n:
		return ext.StatusReady
	case accepted == n:
		return ext.StatusApplied
	case pending == 0 && accepted == 0:
		return ext.StatusRejected
	default:
		return ext.StatusPartial
	}
}

// reviewer owns the held edits. It is safe for concurrent use; its lock is never held while
// calling the editor or the client.
type reviewer struct {
	ed      *editor
	publish func(u uri.URI) // the diagnostics of u changed

	mu   sync.Mutex
	held map[editKey]*heldEdit
}

// newReviewer returns an empty store of held edits.
func newReviewer(ed *editor, publish func(uri.URI)) *reviewer {
	return &reviewer{ed: ed, publish: publish, held: map[editKey]*heldEdit{}}
}

// hold takes the computed edit of block key, not sent, and holds it as hunks (editorDeps.Held).
func (r *reviewer) hold(key editKey, be *blockEdit, p *plannedEdit) {
	enc := r.ed.deps.Settings().Caps.Encoding
	h := &heldEdit{key: key, be: be, tool: p.Req.Tool.name, label: p.Req.label(), matches: p.matchPositions(enc), tiers: p.tiers()}
	for _, f := range p.Files {
		hf := &heldFile{target: f.Target, content: f.Base.Content}
		for _, e := range f.Edits {
			hf.hunks = append(hf.hunks, newHunk(f.Base.Content, e))
		}
		h.files = append(h.files, hf)
	}
	r.mu.Lock()
	old := r.held[key]
	r.held[key] = h
	r.mu.Unlock()
	if old != nil && old.be != be {
		// The block of a stream closed or evicted, whose held edit outlived it, gives its key
		// to the block of a new stream under the same name.
		old.be.cancel()
	}
	// A block dropped (its stream restarted, or the session ending) takes its hunks along.
	context.AfterFunc(be.ctx, r.ed.sup.callback(dropCallback, func() { r.drop(h) }))
	r.changed(h)
}

// drop forgets h and clears its diagnostics.
func (r *reviewer) drop(h *heldEdit) {
	r.mu.Lock()
	if r.held[h.key] == h {
		delete(r.held, h.key)
	}
	r.mu.Unlock()
	for _, f := range h.files {
		r.publish(f.target.URI)
	}
}

// dropCallback names the callback that drops a held edit with its block, in the supervisor's
// logs and faults.
const dropCallback = "drop held edit"

// newHunk is the pending hunk of edit e of content.
func newHunk(content string, e text.Edit) *hunk {
	return &hunk{status: ext.HunkPending, start: e.Start, end: e.End, old: content[e.Start:e.End], new: e.NewText}
}

// sync moves f's hunks from f.content to content, through edits (a didChange's) when they lead
// there, else through the change between the two taken as one edit.
func (f *heldFile) sync(content string, edits []text.Edit) {
	if f.content == content {
		return
	}
	steps, afters := changeSteps(f.content, content, edits)
	for i, e := range steps {
		f.follow(e, afters[i])
	}
	f.content = content
}

// follow moves f's hunks through edit e of their content, which left after: hunks before it
// shift, hunks it touches are judged by what now stands in their own region (relocate).
func (f *heldFile) follow(e text.Edit, after string) {
	delta := len(e.NewText) - (e.End - e.Start)
	for _, h := range f.hunks {
		var touched bool
		switch {
		case e.Start == e.End && h.start == h.end: // both insert: at the same point, it may be the hunk
			touched = e.Start == h.start
		case e.Start == e.End: // the change only inserts
			touched = h.start < e.Start && e.Start < h.end
		case h.start == h.end: // the hunk only inserts
			touched = e.Start < h.start && h.start < e.End
		default:
			touched = e.Start < h.end && h.start < e.End
		}
		switch {
		case !touched && h.start >= e.End:
			h.start += delta
			h.end += delta
		case !touched:
		default:
			h.relocate(e, delta, after)
		}
		h.start = min(max(h.start, 0), len(after))
		h.end = max(h.start, min(h.end, len(after)))
	}
}

// relocate judges h after edit e (which changed the length by delta, leaving after) touched its
// lines. Its region is its own, shifted by the part of the edit before its end and widened to
// the edit where the edit reaches past it; never another place that holds the same text. Where
// its proposed text now fills that region it is accepted (the user, or the editor applying a
// code action's edit, made the change); where its original text does, it stays (or, once
// accepted and undone, turns) pending; otherwise it is stale, or stays accepted.
func (h *hunk) relocate(e text.Edit, delta int, after string) {
	if h.status == ext.HunkRejected || h.status == ext.HunkStale {
		return
	}
	start, end := h.start, h.end+delta
	switch {
	case h.start == h.end && e.Start == e.End && e.NewText != h.new:
		// Typing at the point a pending insertion goes: it still goes there, before the typing.
		end = start
	default:
		if e.Start < h.start {
			start = e.Start
		}
		if e.End > h.end {
			end = e.Start + len(e.NewText)
		}
	}
	fills := func(s string) bool { return end-start == len(s) && after[start:end] == s }
	switch {
	case fills(h.new):
		if h.status == ext.HunkPending {
			h.status = ext.HunkAccepted
		}
	case h.accepting != nil:
		// The accept's outcome decides; the region still follows the change.
	case fills(h.old):
		if h.status == ext.HunkAccepted {
			// The user undid it: it waits for a decision again.
			h.status = ext.HunkPending
		}
	case h.status != ext.HunkAccepted:
		h.status = ext.HunkStale
	}
	h.start, h.end = start, end
}

// docChanged follows the document u to its new content, through edits (a didChange's, nil when
// none are known).
func (r *reviewer) docChanged(u uri.URI, content string, edits []text.Edit) {
	changed := r.follow(u, content, edits)
	for _, h := range changed {
		r.changed(h)
	}
	if len(changed) == 0 && r.hasHunks(u) {
		r.publish(u)
	}
}

// follow moves the hunks in u to its new content, through edits, and returns the held edits
// that changed.
func (r *reviewer) follow(u uri.URI, content string, edits []text.Edit) []*heldEdit {
	r.mu.Lock()
	defer r.mu.Unlock()
	var changed []*heldEdit
	for _, h := range r.held {
		for _, f := range h.files {
			if f.target.URI == u && f.content != content {
				f.sync(content, edits)
				changed = append(changed, h)
			}
		}
	}
	return changed
}

// hasHunks reports whether u is the target of a held edit.
func (r *reviewer) hasHunks(u uri.URI) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range r.held {
		for _, f := range h.files {
			if f.target.URI == u {
				return true
			}
		}
	}
	return false
}

// changed reports h's new state: the block's EditState and its documents' diagnostics.
func (r *reviewer) changed(h *heldEdit) {
	st, uris := r.state(h)
	r.ed.setState(h.key, h.be, st)
	for _, u := range uris {
		r.publish(u)
	}
}

// state is h's EditState now, and the documents it is in.
func (r *reviewer) state(h *heldEdit) (ext.EditState, []uri.URI) {
	enc := r.ed.deps.Settings().Caps.Encoding
	r.mu.Lock()
	defer r.mu.Unlock()
	st := ext.EditState{URI: h.files[0].target.URI, Status: h.status(), MatchPositions: h.matches, Tiers: h.tiers, Hunks: []ext.HunkState{}}
	for _, f := range h.files {
		m := text.NewMapper(f.content)
		for _, k := range f.hunks {
			rg, _ := m.Range(k.start, k.end, enc)
			st.Hunks = append(st.Hunks, ext.HunkState{Range: rg, Status: k.status})
		}
	}
	if st.Status == ext.StatusRejected {
		st.Error = "every change of the edit was rejected in review, or no longer applies"
	}
	var uris []uri.URI
	for _, f := range h.files {
		uris = append(uris, f.target.URI)
	}
	return st, uris
}

// lookup returns the held edit of key, dropping it when its block was dropped (its stream
// restarted or shut down).
func (r *reviewer) lookup(key editKey) (*heldEdit, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.held[key]
	if ok && h.be.ctx.Err() != nil {
		delete(r.held, key)
		return nil, false
	}
	return h, ok
}

// reject rejects hunks (or every pending hunk when hunks is nil) of the held edit key. A hunk
// whose accept is in flight is decided by that accept: reject waits for its outcome first, and
// then rejects the hunk only if it is still pending.
func (r *reviewer) reject(ctx context.Context, key editKey, hunks []int) (ext.CommandResult, error) {
	h, ok := r.lookup(key)
	if !ok {
		return ext.CommandResult{}, badRequestf("block %d of %q has no edit held for review", key.index, key.stream)
	}
	for {
		inFlight, err := r.rejectHunks(h, hunks)
		if err != nil {
			return ext.CommandResult{}, err
		}
		if inFlight == nil {
			break
		}
		if err := r.awaitAccept(ctx, h, inFlight); err != nil {
			return ext.CommandResult{}, err
		}
	}
	r.changed(h)
	return r.result(h, ""), nil
}

// rejectHunks marks hunks of h (nil: every pending one) rejected, once all are checked. When
// one of them is being accepted it changes nothing and returns that accept's channel instead.
func (r *reviewer) rejectHunks(h *heldEdit, hunks []int) (<-chan struct{}, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx, inFlight, err := h.pendingLocked(hunks)
	if err != nil || inFlight != nil {
		return inFlight, err
	}
	for _, i := range idx {
		_, k, _ := h.at(i)
		k.status = ext.HunkRejected
	}
	return nil, nil
}

// awaitAccept waits for the accept in flight that a decision on h must follow.
func (r *reviewer) awaitAccept(ctx context.Context, h *heldEdit, inFlight <-chan struct{}) error {
	r.ed.deps.Log.Debug("a hunk decision waits for the accept in flight", zap.String("stream", h.key.stream), zap.Int("index", h.key.index))
	select {
	case <-inFlight:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("deciding hunks of block %d of %q while one is being accepted: %w", h.key.index, h.key.stream, context.Cause(ctx))
	}
}

// pendingLocked checks the hunk numbers asked for and returns those still pending (r.mu held);
// nil hunks means every pending hunk. When one of them is being accepted, inFlight is that
// accept's channel: the caller waits for it before deciding.
func (h *heldEdit) pendingLocked(hunks []int) (idx []int, inFlight <-chan struct{}, err error) {
	n := 0
	for _, f := range h.files {
		n += len(f.hunks)
	}
	if hunks == nil {
		for i := range n {
			hunks = append(hunks, i)
		}
	}
	for _, i := range hunks {
		_, k, ok := h.at(i)
		if !ok {
			return nil, nil, badRequestf("the edit of block %d of %q has %d hunks; hunk %d does not exist", h.key.index, h.key.stream, n, i)
		}
		if k.accepting != nil && inFlight == nil {
			inFlight = k.accepting
		}
		if k.status == ext.HunkPending {
			idx = append(idx, i)
		}
	}
	return idx, inFlight, nil
}

// result is the command result for h's state now.
func (r *reviewer) result(h *heldEdit, errMsg string) ext.CommandResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ext.CommandResult{Status: h.status(), Error: errMsg, URI: h.files[0].target.URI}
}

// accept sends hunks (or every pending hunk when hunks is nil) of the held edit key in one
// workspace/applyEdit, computed against the documents as they are now, and waits for the
// outcome. Hunks already accepted are skipped, so nothing is applied twice.
func (r *reviewer) accept(ctx context.Context, key editKey, hunks []int) (ext.CommandResult, error) {
	h, ok := r.lookup(key)
	if !ok {
		return ext.CommandResult{}, badRequestf("block %d of %q has no edit held for review", key.index, key.stream)
	}
	var idx []int
	var targets []target
	for {
		var inFlight <-chan struct{}
		var err error
		idx, targets, inFlight, err = r.startAccept(h, hunks)
		if err != nil {
			return ext.CommandResult{}, err
		}
		if inFlight == nil {
			break
		}
		if err := r.awaitAccept(ctx, h, inFlight); err != nil {
			return ext.CommandResult{}, err
		}
	}
	if len(idx) == 0 {
		return r.result(h, ""), nil
	}
	tool := &editTool{name: h.tool, plan: func(_ editRequest, bases []snapshot, _ config) ([]*fileEdit, error) {
		return r.planHunks(h, idx, targets, bases)
	}}
	req := editRequest{Tool: tool, Targets: targets}
	out, ran := r.ed.runJob(ctx, r.ed.queue.enqueue(req.uris()), job{req: req,
		opts: func(settings) runOpts { return runOpts{send: true, decided: true} }})
	r.endAccept(h, idx, ran && out.state.Status == ext.StatusApplied)
	r.changed(h)
	if !ran {
		return ext.CommandResult{}, fmt.Errorf("accepting hunks of block %d of %q: %w", key.index, key.stream, context.Cause(ctx))
	}
	msg := ""
	if out.state.Status != ext.StatusApplied {
		msg = out.state.Error
		if msg == "" {
			msg = "the editor did not apply the change (" + string(out.state.Status) + ")"
		}
	}
	return r.result(h, msg), nil
}

// startAccept checks hunks of h (nil: every pending one) and marks those still pending as
// being accepted; it returns them and the documents they are in. When one of them is being
// accepted already it changes nothing and returns that accept's channel instead.
func (r *reviewer) startAccept(h *heldEdit, hunks []int) ([]int, []target, <-chan struct{}, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx, inFlight, err := h.pendingLocked(hunks)
	if err != nil || inFlight != nil {
		return nil, nil, inFlight, err
	}
	var targets []target
	done := make(chan struct{})
	for _, i := range idx {
		f, k, _ := h.at(i)
		k.accepting = done
		if !slices.ContainsFunc(targets, func(t target) bool { return t.URI == f.target.URI }) {
			targets = append(targets, f.target)
		}
	}
	return idx, targets, nil, nil
}

// endAccept ends the accept of hunks idx of h: those still pending are accepted when applied.
func (r *reviewer) endAccept(h *heldEdit, idx []int, applied bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var done chan struct{} // one accept's hunks share it
	for _, i := range idx {
		_, k, _ := h.at(i)
		done, k.accepting = k.accepting, nil
		if applied && k.status == ext.HunkPending {
			k.status = ext.HunkAccepted
		}
	}
	if done != nil {
		close(done)
	}
}

// planHunks is the edit of hunks idx of h against bases, the current contents of targets: each
// hunk's place is followed to the base first, and a hunk that no longer applies fails the whole
// edit.
func (r *reviewer) planHunks(h *heldEdit, idx []int, targets []target, bases []snapshot) ([]*fileEdit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*fileEdit, len(targets))
	for ti, t := range targets {
		fe := &fileEdit{Target: t, Base: bases[ti]}
		for _, f := range h.files {
			if f.target.URI == t.URI && bases[ti].Exists {
				f.sync(bases[ti].Content, nil)
			}
		}
		out[ti] = fe
	}
	for _, i := range idx {
		f, k, _ := h.at(i)
		ti := slices.IndexFunc(targets, func(t target) bool { return t.URI == f.target.URI })
		fe := out[ti]
		switch {
		case k.status == ext.HunkAccepted:
			continue
		case k.status != ext.HunkPending || fe.Base.Content[k.start:k.end] != k.old:
			return nil, fmt.Errorf("hunk %d of %s no longer applies: its lines were changed since the edit was computed", i, h.label)
		}
		fe.Edits = append(fe.Edits, text.Edit{Start: k.start, End: k.end, NewText: k.new})
	}
	for _, fe := range out {
		slices.SortFunc(fe.Edits, func(a, b text.Edit) int { return a.Start - b.Start })
		fe.Intended = text.Apply(fe.Base.Content, fe.Edits)
	}
	return out, nil
}

// diagnostics are the Information diagnostics of the pending hunks in u, in enc.
func (r *reviewer) diagnostics(u uri.URI, enc protocol.PositionEncodingKind) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	r.forPending(u, enc, func(h *heldEdit, i int, k *hunk, rg protocol.Range) {
		out = append(out, protocol.Diagnostic{
			Range:    rg,
			Severity: protocol.DiagnosticSeverityInformation,
			Code:     protocol.String(ext.CodePending),
			Source:   protocol.NewOptional(ext.DiagnosticSource),
			Message:  protocol.String(hunkMessage(h, k)),
			Data:     hunkData(h.key, i),
		})
	})
	return out
}

// forPending calls f for each pending hunk in u, in order, with its diagnostic range: the lines
// it would replace, or for an insertion the line it goes before.
func (r *reviewer) forPending(u uri.URI, enc protocol.PositionEncodingKind, f func(h *heldEdit, i int, k *hunk, rg protocol.Range)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]editKey, 0, len(r.held))
	for key := range r.held {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b editKey) int {
		if c := strings.Compare(a.stream, b.stream); c != 0 {
			return c
		}
		return a.index - b.index
	})
	for _, key := range keys {
		h := r.held[key]
		if h.be.ctx.Err() != nil {
			continue
		}
		i := 0
		for _, hf := range h.files {
			var m *text.Mapper
			for _, k := range hf.hunks {
				if hf.target.URI == u && k.status == ext.HunkPending {
					if m == nil {
						m = text.NewMapper(hf.content)
					}
					f(h, i, k, hunkRange(m, k, enc))
				}
				i++
			}
		}
	}
}

// hunkRange is the diagnostic range of k in m's content.
func hunkRange(m *text.Mapper, k *hunk, enc protocol.PositionEncodingKind) protocol.Range {
	start, end := k.start, k.end
	if start == end {
		if i := strings.IndexByte(m.Content()[start:], '\n'); i >= 0 {
			end = start + i
		} else {
			end = len(m.Content())
		}
	}
	rg, _ := m.Range(start, end, enc)
	return rg
}

// hunkMessage is the diagnostic message of a pending hunk: the tool, the stream and the proposed
// text's first lines.
func hunkMessage(h *heldEdit, k *hunk) string {
	from := fmt.Sprintf("%s (%s#%d)", h.tool, h.key.stream, h.key.index)
	if u, ok := responseURI(h.key.stream); ok {
		from = fmt.Sprintf("%s (%s, block %d)", h.tool, filepath.Base(uriPath(uri.URI(u))), h.key.index)
	}
	if k.new == "" {
		return from + " proposes to delete these lines"
	}
	lines := strings.Split(strings.TrimRight(k.new, "\r\n"), "\n")
	const most = 3
	var b strings.Builder
	if k.old == "" {
		b.WriteString(from + " proposes to insert before this line:")
	} else {
		b.WriteString(from + " proposes:")
	}
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(&b, "\n… (%d more lines)", len(lines)-most)
			break
		}
		b.WriteString("\n" + strings.TrimRight(l, "\r"))
	}
	return b.String()
}

// hunkData is the data of a hunk's diagnostic: the hunk command's argument.
func hunkData(key editKey, i int) protocol.LSPAny {
	return protocol.LSPAny(mustJSON(hunkArg(key, &i)))
}

// hunkArg is the argument of the hunk commands for hunk i (nil: every pending hunk) of key.
func hunkArg(key editKey, i *int) ext.HunkParams {
	index := key.index
	p := ext.HunkParams{Index: &index, Hunk: i}
	if u, section, ok := responseSection(key.stream); ok {
		p.URI = &u
		if section > 0 {
			p.Section = &section
		}
	} else {
		stream := key.stream
		p.Stream = &stream
	}
	return p
}

// hunkActions are the code actions on the pending hunks of u whose range meets rg.
func (r *reviewer) hunkActions(u uri.URI, rg protocol.Range, enc protocol.PositionEncodingKind) []reviewAction {
	var out []reviewAction
	seen := map[editKey]bool{}
	r.forPending(u, enc, func(h *heldEdit, i int, k *hunk, hr protocol.Range) {
		if !meets(hr, rg) {
			return
		}
		idx := i
		out = append(out,
			reviewAction{title: "Accept this change", command: ext.CommandAcceptHunk, arg: hunkArg(h.key, &idx), hunkOf: h, hunks: []int{i}},
			reviewAction{title: "Reject this change", command: ext.CommandRejectHunk, arg: hunkArg(h.key, &idx)})
		if !seen[h.key] {
			seen[h.key] = true
			n := h.count(ext.HunkPending)
			what := fmt.Sprintf("%d changes of %s", n, h.label)
			if n == 1 {
				what = "1 change of " + h.label
			}
			out = append(out,
				reviewAction{title: "Accept all " + what, command: ext.CommandAcceptAll, arg: hunkArg(h.key, nil), hunkOf: h},
				reviewAction{title: "Reject all " + what, command: ext.CommandRejectAll, arg: hunkArg(h.key, nil)})
		}
	})
	return out
}

// hunkPreview is the WorkspaceEdit a client that previews code actions shows for accepting
// hunks (nil: every pending hunk) of h; nil when it cannot be computed.
func (r *reviewer) hunkPreview(h *heldEdit, hunks []int, s settings) *protocol.WorkspaceEdit {
	idx, targets, err := r.pendingTargets(h, hunks)
	if err != nil || len(idx) == 0 {
		return nil
	}
	bases := make([]snapshot, len(targets))
	for i, t := range targets {
		if bases[i], err = r.ed.snapshot(t); err != nil {
			return nil
		}
	}
	files, err := r.planHunks(h, idx, targets, bases)
	if err != nil {
		return nil
	}
	we, err := buildEdit(&plannedEdit{Req: editRequest{Tool: &editTool{name: h.tool}, Targets: targets}, Files: files}, s.Caps, false)
	if err != nil {
		return nil
	}
	return &we
}

// pendingTargets checks hunks of h (nil: every pending one) and returns those still pending and
// the documents they are in.
func (r *reviewer) pendingTargets(h *heldEdit, hunks []int) ([]int, []target, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx, _, err := h.pendingLocked(hunks)
	var targets []target
	for _, i := range idx {
		f, _, _ := h.at(i)
		if !slices.ContainsFunc(targets, func(t target) bool { return t.URI == f.target.URI }) {
			targets = append(targets, f.target)
		}
	}
	return idx, targets, err
}

// meets reports whether two ranges overlap or touch.
func meets(a, b protocol.Range) bool {
	return !posLess(a.End, b.Start) && !posLess(b.End, a.Start)
}

// posLess reports whether a comes before b.
func posLess(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}
