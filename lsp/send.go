package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/textformat"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// This file runs one edit in its documents' turn: it computes the edit against the current
// contents, sends workspace/applyEdit, and follows the client's answer until the edit's outcome
// is known (section 4).

// runBlock computes and, with autoApply, sends the edit of a complete tool use once its turn t
// in the documents' queues has come. A block whose stream was released meanwhile still gets
// its edit; its context ends with the job, unless the edit is held for review.
func (e *editor) runBlock(key editKey, be *blockEdit, req editRequest, t place) {
	defer func() {
		e.mu.Lock()
		released := !e.isCurrentLocked(key, be) && !be.held
		be.done = true
		e.mu.Unlock()
		if released {
			be.cancel()
		}
	}()
	e.runJob(be.ctx, t, job{
		key: key, be: be, req: req, prog: be.prog, record: true,
		opts: func(s settings) runOpts {
			hold := s.Config.Review || !s.Config.AutoApply
			return runOpts{send: !hold, hold: hold, warn: true}
		},
	})
}

// job is one edit to run in its documents' turn.
type job struct {
	key  editKey
	be   *blockEdit // the block the edit belongs to; nil for an edit of no block
	req  editRequest
	prog *progress
	// opts says what to do beyond computing, from the settings current when the turn comes.
	opts func(settings) runOpts
	// skipApplied answers applied without sending anything when be is already applied at the
	// turn: a block is never applied twice.
	skipApplied bool
	// record logs the outcome and makes it be's state (through applying while it is sent).
	record bool
}

// runJob waits for t's turn and runs j there. It reports false, with j's progress ended as
// cancelled, when ctx ended before the edit's outcome was known; nothing is recorded then.
func (e *editor) runJob(ctx context.Context, t place, j job) (outcome, bool) {
	var out outcome
	spawn := func(f func()) { e.sup.goSafe("queue release", nil, f) }
	ran := e.queue.run(ctx, t, spawn, func() {
		if j.be != nil {
			// A preview on its way is sent before the edit (see blockEdit.previewMu).
			j.be.previewMu.Lock()
			//lint:ignore SA2001 the lock is a barrier: a preview on its way is sent first.
			j.be.previewMu.Unlock()
		}
		if j.skipApplied && e.isApplied(j.be) {
			// Asked for again: the answer is the state it has.
			out = outcome{state: ext.EditState{URI: firstURI(j.req), Status: ext.StatusApplied}}
			return
		}
		var opts runOpts
		if j.be != nil && e.isApplied(j.be.prior) {
			// The same tool use, before its stream started over, made this edit already.
			e.mu.Lock()
			j.be.sent = j.be.prior.sent
			e.mu.Unlock()
			out = outcome{state: ext.EditState{URI: firstURI(j.req), Status: ext.StatusApplied}}
			j.prog.end(ctx, "Editing "+j.req.what(), "Already applied")
		} else {
			s := e.deps.Settings()
			opts = j.opts(s)
			if j.record && j.be != nil && opts.send {
				opts.applying = func(matches []protocol.Position) {
					e.setState(j.key, j.be, ext.EditState{URI: firstURI(j.req), Status: ext.StatusApplying, MatchPositions: matches})
				}
			}
			out = e.execute(ctx, j.req, j.prog, s, opts)
			if out.cancelled {
				return
			}
		}
		out.state.ToolResult = toolResult(j.req, out.state, out.sent, e.current)
		if j.be != nil && out.sent != nil {
			out.sent.slim()
			e.mu.Lock()
			j.be.sent = out.sent
			e.mu.Unlock()
			if j.record && out.state.Status == ext.StatusApplied && e.deps.Located != nil {
				e.deps.Located(j.key, j.be, out.sent)
			}
		}
		if !j.record {
			return
		}
		e.logOutcome(j.key, j.req.Tool.name, out.state)
		if j.be != nil && opts.hold && out.planned != nil && e.deps.Held != nil {
			// Held for review (section 7a): the review store publishes the hunks and owns the
			// block's state from now on.
			e.mu.Lock()
			j.be.held = true
			e.mu.Unlock()
			e.deps.Held(j.key, j.be, out.planned)
			return
		}
		if j.be != nil {
			e.setState(j.key, j.be, out.state)
			if out.unseen != nil {
				e.goBlock("late verify", j.key, j.be, func() { e.watchLate(j.key, j.be, out.unseen) })
			}
		}
	})
	if !ran || out.cancelled {
		j.prog.abort(e.sup.ctx, cancelledMessage)
		return outcome{}, false
	}
	return out, true
}

// isApplied reports whether be (possibly nil) has status applied, or its documents still hold
// the edit the client last answered as applied: then applying it again would insert it twice,
// whatever its status says (a late didChange may not have been seen yet).
func (e *editor) isApplied(be *blockEdit) bool {
	if be == nil {
		return false
	}
	e.mu.Lock()
	status, sent := be.state.Status, be.sent
	e.mu.Unlock()
	if status == ext.StatusApplied {
		return true
	}
	if sent == nil {
		return false
	}
	for _, f := range sent.Files {
		snap, err := e.snapshot(f.Target)
		if err != nil || !snap.Exists || !holdsFile(f, snap.Content) {
			return false
		}
	}
	return true
}

// runOpts say what execute does beyond computing the edit.
type runOpts struct {
	send     bool                              // send workspace/applyEdit
	hold     bool                              // hold a computed edit for review instead (section 7a)
	decided  bool                              // the user already chose this edit in review: no confirmation
	warn     bool                              // window/showMessage when the edit fails to compute
	applying func(matches []protocol.Position) // called before the first applyEdit goes out
}

// outcome is the result of execute.
type outcome struct {
	state     ext.EditState
	edit      protocol.WorkspaceEdit
	cancelled bool // ctx ended: the block was dropped, nothing is to be recorded
	// planned is the computed edit that was not sent (status ready), for review.
	planned *plannedEdit
	// sent is the plan the client answered as applied; unseen is set too when the client did
	// not show it within verifyTimeout (status failed, for now).
	sent, unseen *plannedEdit
}

// what names the files of req for users: the first one's path, with the count of others.
func (r editRequest) what() string {
	return strings.TrimPrefix(r.label(), r.Tool.name+" ")
}

// execute computes req's edit against the current contents and, with opts.send, sends it,
// retrying once on a stale version and verifying open documents afterwards (section 4). It
// reports progress on prog throughout.
func (e *editor) execute(ctx context.Context, req editRequest, prog *progress, s settings, opts runOpts) outcome {
	title := "Editing " + req.what()
	plan, err := e.plan(req, s)
	if err != nil {
		return e.computeFailed(ctx, req, prog, title, err, opts.warn)
	}
	if why := plan.unsupported(s.Caps); why != "" {
		st := ext.EditState{URI: firstURI(req), Status: ext.StatusRefused, Error: why}
		prog.end(ctx, title, outcomeMessage(st))
		return outcome{state: st}
	}
	matches := plan.matchPositions(s.Caps.Encoding)
	prog.begin(ctx, title)
	if plan.Report != "" {
		prog.report(ctx, plan.Report)
	}
	state := func(status ext.EditStatus) ext.EditState {
		return ext.EditState{URI: firstURI(req), Status: status, MatchPositions: matches, Tiers: plan.tiers(), Files: plan.fileStates(status)}
	}
	if plan.inPlace() {
		prog.end(ctx, title, "Already applied")
		return outcome{state: state(ext.StatusApplied)}
	}
	annotate := s.Caps.Annotations && s.Config.Confirm && !opts.decided
	we, err := buildEdit(plan, s.Caps, annotate)
	if err != nil {
		return e.computeFailed(ctx, req, prog, title, err, opts.warn)
	}
	if !opts.send || !s.Caps.ApplyEdit {
		st := state(ext.StatusReady)
		prog.end(ctx, title, outcomeMessage(st))
		return outcome{state: st, edit: we, planned: plan}
	}
	if opts.applying != nil {
		opts.applying(matches)
	}
	out, sent := e.send(ctx, plan, we, annotate, s)
	if out.cancelled {
		return out
	}
	out.state.MatchPositions = sent.matchPositions(s.Caps.Encoding)
	out.state.Tiers = sent.tiers()
	out.state.Files = sent.fileStates(out.state.Status)
	prog.end(ctx, title, outcomeMessage(out.state))
	return out
}

// plan reads the current contents of req's targets and computes the edit.
func (e *editor) plan(req editRequest, s settings) (*plannedEdit, error) {
	bases := make([]snapshot, len(req.Targets))
	for i, t := range req.Targets {
		snap, err := e.snapshot(t)
		if err != nil {
			return nil, err
		}
		bases[i] = snap
	}
	if err := e.checkRead(req, bases); err != nil {
		return nil, err
	}
	files, err := req.Tool.plan(req, bases, s.Config)
	if err != nil {
		return nil, err
	}
	p := &plannedEdit{Req: req, Files: files}
	if req.Tool.report != nil {
		p.Report = req.Tool.report(req, files)
	}
	return p, nil
}

// current is the content of t as it now stands, for tool results.
func (e *editor) current(t target) (string, bool) {
	snap, err := e.snapshot(t)
	return snap.Content, err == nil && snap.Exists
}

// snapshot is the current content of t: its open buffer, else the file on disk with the
// overlay of an unsaved edit laid over it.
func (e *editor) snapshot(t target) (snapshot, error) {
	snap, err := readSnapshot(e.deps.Docs, t.URI, t.Abs)
	if err != nil {
		return snap, err
	}
	snap = e.overlays.apply(t.URI, snap)
	snap.Tables = e.tablesOf(t.URI, snap.Content)
	return snap, nil
}

// tablesOf returns the tables of content, the latest content of u: the edits and previews of
// one document version share one index and one mapper, so the first SEARCH pays for the index
// and the following SEARCH texts and edits of the same content reuse it.
func (e *editor) tablesOf(u uri.URI, content string) *contentTables {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.tables[u]; t != nil && t.content() == content {
		return t
	}
	if len(e.tables) >= maxTables {
		// The tables are only a cache: forgetting them costs a rebuild, never a wrong result.
		clear(e.tables)
	}
	t := newContentTables(content)
	e.tables[u] = t
	return t
}

// nearestHint is the "did you mean line 15? (90% similar)" that the user needs as much as the
// model, worded from the similar region an applier's error carries (apply's, or a text format's
// such as Aider's report), or "" when it carries none. The region is read from the error's type,
// never from its message, whose wording belongs to the format's reference.
func nearestHint(err error) string {
	var c *apply.Candidate
	var ae *apply.Error
	var te *textformat.Error
	switch {
	case errors.As(err, &ae) && ae.Kind == apply.ErrNoMatch:
		c = ae.Nearest
	case errors.As(err, &te) && te.Kind == textformat.ErrNoMatch:
		c = te.Nearest
	}
	if c == nil {
		return ""
	}
	return fmt.Sprintf("did you mean %s? (%d%% similar)", linesWord(c.StartLine, c.EndLine), int(c.Similarity*100))
}

// maxTables bounds the documents whose tables are kept.
const maxTables = 64

// computeFailed is the outcome of an edit that could not be computed: status failed with the
// reason, a warning for the user naming the file and the SEARCH section, and the end of the
// progress.
func (e *editor) computeFailed(ctx context.Context, req editRequest, prog *progress, title string, err error, warn bool) outcome {
	st := ext.EditState{URI: firstURI(req), Status: ext.StatusFailed, Error: err.Error()}
	if warn {
		// The applier's message runs over several lines for the model's benefit; the user gets
		// its first line, which says what went wrong.
		first, _, _ := strings.Cut(err.Error(), "\n")
		msg := fmt.Sprintf("%s %s failed: %s", req.Tool.name, req.what(), first)
		var ae *apply.Error
		if errors.As(err, &ae) && ae.Section > 0 {
			msg = fmt.Sprintf("%s %s failed at SEARCH section %d: %s", req.Tool.name, req.what(), ae.Section, first)
		}
		if hint := nearestHint(err); hint != "" {
			msg = strings.TrimSuffix(msg, ".") + "; " + hint
		}
		if nerr := e.deps.Peer.Notify(ctx, "window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg}); nerr != nil {
			e.deps.Log.Debug("send window/showMessage", zap.Error(nerr))
		}
	}
	prog.end(ctx, title, outcomeMessage(st))
	return outcome{state: st}
}

// send delivers we with workspace/applyEdit and follows the answer (section 4):
//   - a refusal, by applied: false or by an error answer (eglot's way), of an edit built on a
//     version older than the one the client holds is recomputed against the new contents and
//     sent once more; the client's didChange may come after its answer, so a refusal that names
//     a version waits for it briefly;
//   - any other refusal is rejected, with the client's reason;
//   - an answer applied: true is checked against what the client then reports for each open
//     document: it must hold the edit (holds), which the user's typing elsewhere does not
//     change.
//
// Once an applyEdit is written, it is followed to its outcome even if ctx ends meanwhile (the
// stream restarted, the request was cancelled): the client holds the edit and may apply it, so
// the document's turn and the confirmation slot stay taken until it answered, and the outcome
// is recorded. Only a send that has not begun is cancelled. It also returns the plan last sent.
func (e *editor) send(ctx context.Context, plan *plannedEdit, we protocol.WorkspaceEdit, annotate bool, s settings) (outcome, *plannedEdit) {
	req := plan.Req
	label := req.label()
	failed := func(msg string) outcome {
		return outcome{state: ext.EditState{URI: firstURI(req), Status: ext.StatusFailed, Error: msg}, edit: we}
	}
	// What the server created for new files: removed again when the client refuses the edit
	// or does not apply it, so that a refused edit leaves the disk as it was; kept when the
	// outcome is unknown (cancelled, no answer), since the editor may still apply it.
	var created []paths.Created
	undo := func() {
		for _, c := range created {
			if err := c.Undo(); err != nil {
				e.deps.Log.Debug("removing what was created for an edit that did not apply", zap.Error(err))
			}
		}
	}
	follow := e.sup.ctx // ends only at shutdown
	for retried := false; ; retried = true {
		if ctx.Err() != nil {
			if retried {
				// A refusal that would have been retried: the refusal stands.
				undo()
				return outcome{state: ext.EditState{URI: firstURI(req), Status: ext.StatusRejected, Error: "the editor refused the edit and the request ended before it was sent again"}, edit: we}, plan
			}
			return outcome{cancelled: true}, plan
		}
		for _, f := range plan.Files {
			if !f.Base.Exists {
				c, err := prepareNewFile(f.Target, !clientCreates(s.Caps))
				created = append(created, c)
				if err != nil {
					undo()
					return failed(err.Error()), plan
				}
			}
		}
		e.deps.Log.Debug("sending workspace/applyEdit", zap.String("label", label), zap.Int("files", len(plan.Files)), zap.Bool("retry", retried))
		res, sent, err := e.callApplyEdit(ctx, follow, protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we}, annotate)
		if !sent {
			undo()
			return outcome{cancelled: true}, plan
		}
		refused, reason := !res.Applied, "the editor did not apply the edit"
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = *res.FailureReason
		}
		var rpcErr *jsonrpc2.Error
		switch {
		case err == nil:
		case follow.Err() != nil:
			return outcome{cancelled: true}, plan
		case errors.As(err, &rpcErr):
			reason = rpcErr.Message
		default:
			return failed(fmt.Sprintf("the editor did not answer workspace/applyEdit (%v); apply the edit again with assistant/apply", err)), plan
		}
		if refused {
			if !retried && e.awaitNewerVersion(follow, plan, reason) {
				e.deps.Log.Debug("edit refused on a stale version; recomputing", zap.String("label", label))
				next, err := e.plan(req, s)
				if err != nil {
					undo()
					return failed(err.Error()), plan
				}
				if next.inPlace() {
					return outcome{state: ext.EditState{URI: firstURI(req), Status: ext.StatusApplied}}, next
				}
				nwe, err := buildEdit(next, s.Caps, annotate)
				if err != nil {
					undo()
					return failed(err.Error()), plan
				}
				plan, we = next, nwe
				continue
			}
			undo()
			return outcome{state: ext.EditState{URI: firstURI(req), Status: ext.StatusRejected, Error: reason}, edit: we}, plan
		}
		if !e.verify(follow, plan) {
			if follow.Err() != nil {
				return outcome{cancelled: true}, plan
			}
			out := failed(verifyFailure)
			out.sent, out.unseen = plan, plan
			return out, plan
		}
		for _, f := range plan.Files {
			if !f.Base.Open {
				e.overlays.record(f)
			}
		}
		return outcome{state: ext.EditState{URI: firstURI(req), Status: ext.StatusApplied}, edit: we, sent: plan}, plan
	}
}

// callApplyEdit sends one workspace/applyEdit and waits for the answer under follow. An edit
// that asks for confirmation first waits for the confirmation slot, so that the user is asked
// about one edit at a time; that wait ends with ctx, and sent is false then: nothing went out.
func (e *editor) callApplyEdit(ctx, follow context.Context, params protocol.ApplyWorkspaceEditParams, confirm bool) (res protocol.ApplyWorkspaceEditResult, sent bool, err error) {
	if confirm {
		select {
		case e.confirmSlot <- struct{}{}:
			defer func() { <-e.confirmSlot }()
		case <-ctx.Done():
			return res, false, ctx.Err()
		}
	}
	err = e.deps.Peer.Call(follow, "workspace/applyEdit", params, &res)
	return res, true, err
}

// awaitNewerVersion reports whether one of plan's documents has moved past the version the edit
// was built on, so that a refusal is worth a recompute. A refusal that names a version (eglot:
// "Edits on x require version 3, you have 4") comes before the client's didChange; the wait
// for it is bounded by staleWait.
func (e *editor) awaitNewerVersion(ctx context.Context, plan *plannedEdit, reason string) bool {
	if e.newerVersion(plan) {
		return true
	}
	if !strings.Contains(strings.ToLower(reason), "version") {
		return false
	}
	wctx, cancel := context.WithTimeout(ctx, e.staleWait)
	defer cancel()
	for _, f := range plan.Files {
		if !f.Base.Open {
			continue
		}
		base := *f.Base.Version
		if e.deps.Docs.WaitFor(wctx, f.Target.URI, func(d docs.Snapshot) bool {
			return !d.Open || d.Version != base
		}) {
			return e.newerVersion(plan)
		}
	}
	return false
}

// newerVersion reports whether the server has seen a version of one of plan's documents other
// than the one the edit was built on (or a document was opened since it was read from disk).
func (e *editor) newerVersion(plan *plannedEdit) bool {
	for _, f := range plan.Files {
		version, ok := e.deps.Docs.Version(f.Target.URI)
		if ok && (f.Base.Version == nil || version != *f.Base.Version) {
			return true
		}
	}
	return false
}

// verify waits up to verifyTimeout for the client's didChanges to bring each watched document of
// plan to a content that holds its edit. A document closed meanwhile cannot be checked and
// counts as applied.
func (e *editor) verify(ctx context.Context, plan *plannedEdit) bool {
	vctx, cancel := context.WithTimeout(ctx, e.verifyTimeout)
	defer cancel()
	for _, f := range plan.Files {
		if e.watched(f) && !e.awaitHeld(vctx, f, false) {
			return false
		}
	}
	return true
}

// watched reports whether the client shows f's edit through its document: the document was
// open when the edit was built, or the client opened it since. Neovim and eglot load a file
// they have not open to edit it, sending didOpen with the old text before they answer and the
// edit in a later didChange; until that comes, the document does not hold the edit yet.
func (e *editor) watched(f *fileEdit) bool {
	return f.Base.Open || e.deps.Docs.OpenCount(f.Target.URI) != f.Base.Opens
}

// awaitHeld waits until f's document holds f's edit, or ctx ends. A closed document counts as
// holding it unless mustBeOpen. The common answer, the document is exactly the intended
// content, is checked in place on the rope; only a document that differs is built and diffed.
//
// The store wakes waiters on a change of any document, so the costly check runs only when this
// document's version moved since the last one.
func (e *editor) awaitHeld(ctx context.Context, f *fileEdit, mustBeOpen bool) bool {
	lf := text.LFOnly(f.Intended)
	checked, held := int32(-1), false
	return e.deps.Docs.WaitFor(ctx, f.Target.URI, func(d docs.Snapshot) bool {
		switch {
		case !d.Open:
			return !mustBeOpen
		case d.Text.Equal(f.Intended) || d.Text.EqualLF(lf):
			return true
		case d.Version != checked:
			checked, held = d.Version, holds(f.Base.Content, f.Intended, f.Edits, d.Text.String())
		}
		return held
	})
}

// awaitHeldLate is awaitHeld for a watch that may last minutes while the user types: the
// document is checked once its changes pause for lateCheckDelay, so that a keystroke does not
// cost a diff of the document.
func (e *editor) awaitHeldLate(ctx context.Context, f *fileEdit) bool {
	lf := text.LFOnly(f.Intended)
	seen := int32(-1)
	for {
		var snap docs.Snapshot
		if !e.deps.Docs.WaitFor(ctx, f.Target.URI, func(d docs.Snapshot) bool {
			snap = d
			return !d.Open || d.Version != seen
		}) || !snap.Open {
			return false
		}
		seen = snap.Version
		t := time.NewTimer(lateCheckDelay)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		d := e.deps.Docs.Snapshot(f.Target.URI)
		if d.Open && d.Version == seen && (d.Text.Equal(f.Intended) || d.Text.EqualLF(lf) || holds(f.Base.Content, f.Intended, f.Edits, d.Text.String())) {
			return true
		}
	}
}

// lateCheckDelay is how long a late watch waits for the user to pause before checking.
const lateCheckDelay = 200 * time.Millisecond

// holdsFile reports whether content holds f's edit (see holds). Line breaks are compared
// loosely when the exact comparison fails, because clients may normalize the inserted text's
// line breaks to the document's (VS Code's normalizesLineEndings).
func holdsFile(f *fileEdit, content string) bool {
	if holds(f.Base.Content, f.Intended, f.Edits, content) {
		return true
	}
	return (strings.ContainsRune(content, '\r') || strings.ContainsRune(f.Intended, '\r')) && text.LFOnly(content) == text.LFOnly(f.Intended)
}

// watchLate follows a block whose edit the client answered as applied but did not show within
// verifyTimeout: a client that sends didChange only once the user pauses typing (eglot) may
// still bring it. Once every open document holds the edit, the failure turns into applied; the
// watch ends then, when the block is replaced or dropped, or after lateVerifyWindow.
func (e *editor) watchLate(key editKey, be *blockEdit, plan *plannedEdit) {
	ctx, cancel := context.WithTimeout(be.ctx, lateVerifyWindow)
	defer cancel()
	for _, f := range plan.Files {
		if e.watched(f) && !e.awaitHeldLate(ctx, f) {
			return
		}
	}
	e.mu.Lock()
	late := e.isCurrentLocked(key, be) && be.state.Status == ext.StatusFailed && be.state.Error == verifyFailure
	e.mu.Unlock()
	if late {
		e.deps.Log.Info("edit seen late: applied", zap.String("stream", key.stream), zap.Int("index", key.index))
		st := ext.EditState{URI: firstURI(plan.Req), Status: ext.StatusApplied, Tiers: plan.tiers()}
		st.ToolResult = toolResult(plan.Req, st, plan, e.current)
		e.setState(key, be, st)
	}
}
