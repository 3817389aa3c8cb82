package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/text"
	"github.com/assistant-ls/assistant-ls/parse"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// EditStatus is the lifecycle state of a file-editing tool use (protocol section 3).
type EditStatus string

// Edit statuses.
const (
	StatusStreaming EditStatus = "streaming"
	StatusReady     EditStatus = "ready"
	StatusApplying  EditStatus = "applying"
	StatusApplied   EditStatus = "applied"
	StatusRejected  EditStatus = "rejected"
	StatusFailed    EditStatus = "failed"
	StatusRefused   EditStatus = "refused"
)

// EditState is the edit field of a replace_in_file or write_to_file block.
type EditState struct {
	URI            uri.URI             `json:"uri,omitzero"` // absent until the path is complete
	Status         EditStatus          `json:"status"`
	Error          string              `json:"error,omitempty"`
	MatchPositions []protocol.Position `json:"matchPositions,omitempty"`
}

// peer is the server's side of the connection to the client, for requests and notifications the
// server starts. Calls may block until the client answers; they never hold server locks.
type peer interface {
	call(ctx context.Context, method string, params, result any) error
	notify(ctx context.Context, method string, params any) error
}

// streamBlock is what the edit pipeline needs to know about one block of a stream.
type streamBlock struct {
	Block   parse.Block
	Cwd     string // file path the block's relative paths resolve against
	ModelID string
}

// blockSource looks up blocks of live streams.
type blockSource interface {
	block(stream string, index int) (streamBlock, bool)
}

// settings is a snapshot of what the edit pipeline adapts to.
type settings struct {
	Config  config
	Caps    clientCaps
	Folders []string // workspace folder paths
}

// editorDeps is what the edit pipeline needs from the rest of the server.
type editorDeps struct {
	Peer     peer
	Docs     *docs.Store
	Blocks   blockSource
	Settings func() settings
	// Changed is called, without locks held, when the EditState of a block changed, so the
	// server pushes it to the client.
	Changed func(stream string, index int)
	Log     *zap.Logger
}

// Timing of the pipeline.
const (
	// verifyTimeout bounds the wait for the didChange that follows an applied edit (section 4:
	// Neovim 0.7 sends it about 150 ms after its answer).
	verifyTimeout = 2 * time.Second
	// previewInterval is the least time between two previews or progress reports of one
	// streaming tool use, so a long diff costs at most 10 recomputations a second.
	previewInterval = 100 * time.Millisecond
)

// verifyFailure is the error of an edit the client reported as applied but did not apply.
const verifyFailure = "the editor reported the edit as applied, but the document does not contain it"

// internalFailure is the error of a block whose work ended in a panic of the server.
const internalFailure = "internal error in the server while handling this edit (it is logged); send the tool use again, and report the log if it recurs"

// cancelledMessage ends the progress of an edit that was dropped before its outcome was known.
const cancelledMessage = "Cancelled"

// editKey names one block of one stream.
type editKey struct {
	stream string
	index  int
}

// streamEdits holds the edits of one stream; cancel ends all of its pending work.
type streamEdits struct {
	ctx    context.Context
	cancel context.CancelFunc
	blocks map[int]*blockEdit
}

// blockEdit is the pipeline's record of one file-editing tool use. Its fields are guarded by
// editor.mu; ctx, cancel, prog and kick are set once at creation.
type blockEdit struct {
	ctx    context.Context // ends when the block is replaced or its stream forgotten
	cancel context.CancelFunc
	prog   *progress
	kick   chan struct{} // wakes the streaming worker (capacity 1, so wake-ups coalesce)

	// previewMu is held from the last check that the block is still streaming until its preview
	// is sent, so that the edit's job, which sets editing under it before computing, cannot
	// send the block's applyEdit while a preview is on its way.
	previewMu sync.Mutex
	editing   bool // guarded by previewMu: the edit's job has started; no more previews

	sb       streamBlock // the latest version of the block
	complete bool        // the tool use is complete; its edit was scheduled once
	fp       fingerprint // of the complete tool use, for idempotent updates
	worker   bool        // the streaming worker runs
	targeted bool        // the target of the streaming tool use was looked up (see streamingTarget)
	state    EditState
}

// overlay remembers an edit the client applied to a file it does not have open: until the
// file is saved, the disk still holds before, and later edits must build on after. It is valid
// only while the client has not opened the document since the edit was computed (opens is the
// documents store's open count then): an editor that opened the edited buffer reports its
// content itself, and once it closed the buffer without saving, after exists nowhere any more.
type overlay struct {
	before, after string
	opens         uint64
}

// editor runs the edit pipeline: it computes, sends, verifies and tracks the edits of
// file-editing tool uses (protocol sections 4 to 6). It is safe for concurrent use.
type editor struct {
	deps   editorDeps
	ctx    context.Context // ends at shutdown
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	streams  map[string]*streamEdits
	queues   map[uri.URI]chan struct{} // per document, closed when its last queued job is done
	overlays map[uri.URI]*overlay
	tokens   int

	// progressTimeout bounds window/workDoneProgress/create (createTimeout; tests shorten it
	// before the first update).
	progressTimeout time.Duration
}

// newEditor returns an edit pipeline. A nil Log means no logs.
func newEditor(deps editorDeps) *editor {
	if deps.Log == nil {
		deps.Log = zap.NewNop()
	}
	if deps.Changed == nil {
		deps.Changed = func(string, int) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &editor{
		deps:     deps,
		ctx:      ctx,
		cancel:   cancel,
		streams:  map[string]*streamEdits{},
		queues:   map[uri.URI]chan struct{}{},
		overlays: map[uri.URI]*overlay{},

		progressTimeout: createTimeout,
	}
}

// goSafe runs f on a goroutine of the pipeline (see goSafeLocked); it takes e.mu.
func (e *editor) goSafe(name string, onPanic func(), f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.goSafeLocked(name, onPanic, f)
}

// goSafeLocked runs f on a new goroutine (e.mu held). A panic in f, a bug perhaps triggered by
// unusual model output, is logged at error with its stack instead of ending the whole server;
// onPanic, when not nil, then leaves a consistent state behind. Until shutdown has begun the
// goroutine counts in e.wg, so shutdown waits for it; holding e.mu orders that with shutdown's
// Wait. Started later it still runs, untracked, because some work (freeing a queue turn) must
// happen even then.
func (e *editor) goSafeLocked(name string, onPanic func(), f func()) {
	tracked := e.ctx.Err() == nil
	if tracked {
		e.wg.Add(1)
	}
	go func() {
		if tracked {
			defer e.wg.Done()
		}
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			e.deps.Log.Error("edit pipeline goroutine panicked", zap.String("goroutine", name), zap.Any("panic", r),
				zap.ByteString("stack", debug.Stack()))
			if onPanic != nil {
				onPanic()
			}
		}()
		f()
	}()
}

// goBlockLocked is goSafeLocked for work on one block (e.mu held): after a panic the block is
// failed with an internal error and its progress ended, so that neither the model nor the
// editor waits for it forever.
func (e *editor) goBlockLocked(name string, key editKey, be *blockEdit, f func()) {
	e.goSafeLocked(name, func() {
		e.mu.Lock()
		st := EditState{URI: be.state.URI, Status: StatusFailed, Error: internalFailure}
		e.mu.Unlock()
		be.prog.abort(e.ctx, outcomeMessage(st))
		e.setState(key, be, st)
	}, f)
}

// shutdown cancels all pending work and waits for the pipeline's goroutines to end. Later
// updates are ignored.
func (e *editor) shutdown() {
	// Cancelling under e.mu orders it with update's check and wg.Add, so no goroutine starts
	// once Wait may have begun.
	e.mu.Lock()
	e.cancel()
	e.mu.Unlock()
	e.wg.Wait()
}

// isFileTool reports whether b is a tool use the edit pipeline handles.
func isFileTool(b parse.Block) bool {
	return b.Type == parse.ToolUse && (b.Name == toolReplace || b.Name == toolWrite)
}

// payloadParam is the param holding a file-editing tool's payload.
func payloadParam(tool string) string {
	if tool == toolReplace {
		return "diff"
	}
	return "content"
}

// fingerprint identifies what a complete tool use asks for, so that repeated updates of an
// unchanged block are recognised. It is compared, not built: a streaming block's payload grows
// with every delta, and joining it into one string each time would cost its length per delta.
type fingerprint struct{ tool, path, payload, cwd, modelID string }

// fingerprintOf returns the fingerprint of sb.
func fingerprintOf(sb streamBlock) fingerprint {
	p := sb.Block.Params
	return fingerprint{sb.Block.Name, p["path"], p[payloadParam(sb.Block.Name)], sb.Cwd, sb.ModelID}
}

// update is called each time a replace_in_file or write_to_file block of a stream was created or
// changed. It returns at once; slow work (applyEdit round trips) runs in the background. It
// keeps sb and reads it from other goroutines: sb must not change afterwards (the server hands
// over its own copies; see blockList).
func (e *editor) update(stream string, index int, sb streamBlock) {
	if !isFileTool(sb.Block) {
		return
	}
	key := editKey{stream, index}
	fp := fingerprintOf(sb)
	// A complete block is sent again unchanged, for instance when its stream turns final; the
	// check comes before the path resolution, which costs filesystem calls on the reader.
	if !sb.Block.Partial && e.unchanged(key, fp) {
		return
	}
	s := e.deps.Settings()
	var (
		req    editRequest
		status EditStatus
		reqErr error
	)
	if !sb.Block.Partial {
		req, status, reqErr = blockRequest(sb, s)
	}

	e.mu.Lock()
	if e.ctx.Err() != nil {
		e.mu.Unlock()
		return
	}
	st := e.streamLocked(stream)
	be := st.blocks[index]
	if sameCompleteLocked(be, fp) {
		e.mu.Unlock()
		return
	}
	changed := false
	if be != nil && (be.complete || be.sb.Block.Name != sb.Block.Name) {
		be.cancel()
		be = nil
	}
	if be == nil {
		be = e.newBlockLocked(st, s)
		st.blocks[index] = be
		changed = true
	}
	be.sb = sb
	if sb.Block.Partial {
		if !be.targeted {
			if req, ok := streamingTarget(sb, s); ok {
				be.state.URI, changed = req.URI, true
			}
			be.targeted = payloadStarted(sb.Block)
		}
		if (s.Config.Preview || be.prog != nil) && !be.worker {
			be.worker = true
			e.goBlockLocked("stream worker", key, be, func() { e.streamWorker(key, be) })
		}
		wake(be.kick)
	} else {
		be.complete = true
		be.fp = fp
		wake(be.kick)
		switch {
		case reqErr != nil:
			st := EditState{URI: req.URI, Status: status, Error: reqErr.Error()}
			be.state = st
			changed = true
			e.goBlockLocked("block outcome", key, be, func() {
				e.logOutcome(key, req, st)
				be.prog.end(e.ctx, "Editing "+sb.Block.Params["path"], outcomeMessage(st))
			})
		default:
			if be.state.URI != req.URI {
				be.state.URI = req.URI
				changed = true
			}
			t := e.enqueueLocked(req.URI)
			e.goBlockLocked("block edit", key, be, func() { e.runBlock(key, be, req, t) })
		}
	}
	e.mu.Unlock()
	if changed {
		e.deps.Changed(stream, index)
	}
}

// unchanged reports whether key's record is of the complete tool use with fingerprint fp.
func (e *editor) unchanged(key editKey, fp fingerprint) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.streams[key.stream]
	return st != nil && sameCompleteLocked(st.blocks[key.index], fp)
}

// sameCompleteLocked reports whether be (possibly nil) is the record of the complete tool use
// with fingerprint fp (e.mu held): updating it again must not schedule the edit again.
func sameCompleteLocked(be *blockEdit, fp fingerprint) bool {
	return be != nil && be.complete && be.fp == fp
}

// streamLocked returns the edit set of stream, creating it on first use (e.mu held).
func (e *editor) streamLocked(stream string) *streamEdits {
	st := e.streams[stream]
	if st == nil {
		ctx, cancel := context.WithCancel(e.ctx)
		st = &streamEdits{ctx: ctx, cancel: cancel, blocks: map[int]*blockEdit{}}
		e.streams[stream] = st
	}
	return st
}

// newProgressLocked returns a progress reporter with a token of its own, or nil when not
// enabled (e.mu held). Tokens are numbered per server, so no two edits share one.
func (e *editor) newProgressLocked(enabled bool) *progress {
	if !enabled {
		return nil
	}
	e.tokens++
	return newProgress(e.deps.Peer, e.deps.Log, fmt.Sprintf("assistant-ls/edit/%d", e.tokens), e.progressTimeout)
}

// newBlockLocked creates the record of a new tool use in st (e.mu held).
func (e *editor) newBlockLocked(st *streamEdits, s settings) *blockEdit {
	ctx, cancel := context.WithCancel(st.ctx)
	return &blockEdit{
		ctx:    ctx,
		cancel: cancel,
		prog:   e.newProgressLocked(s.Caps.WorkDoneProgress),
		kick:   make(chan struct{}, 1),
		state:  EditState{Status: StatusStreaming},
	}
}

// wake signals ch without blocking; a pending signal already covers this one.
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// turn is a job's place in the queue of one document's edits, which has them computed and sent
// one at a time, in the order they were scheduled, each against the result of the one before.
type turn struct {
	u    uri.URI
	prev <-chan struct{} // closed when the job before ends; nil when the queue was empty
	done chan struct{}   // closed when this job ends
}

// enqueueLocked appends a job to u's queue (e.mu held); the job runs through inTurn.
func (e *editor) enqueueLocked(u uri.URI) turn {
	t := turn{u: u, prev: e.queues[u], done: make(chan struct{})}
	e.queues[u] = t.done
	return t
}

// enqueue is enqueueLocked for a caller without e.mu.
func (e *editor) enqueue(u uri.URI) turn {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enqueueLocked(u)
}

// dequeue ends t's job, letting the next one run.
func (e *editor) dequeue(t turn) {
	close(t.done)
	e.mu.Lock()
	if e.queues[t.u] == t.done {
		delete(e.queues, t.u)
	}
	e.mu.Unlock()
}

// inTurn waits for t's turn, runs f unless ctx ended first, then ends the job; it reports
// whether f ran. A job that gives up waiting keeps its place until the job before it has ended,
// so that the job after it cannot overtake that one: order holds across cancellations too.
func (e *editor) inTurn(ctx context.Context, t turn, f func()) bool {
	if !waitTurn(ctx, t.prev) {
		if t.prev == nil {
			e.dequeue(t)
		} else {
			e.goSafe("queue release", nil, func() {
				<-t.prev
				e.dequeue(t)
			})
		}
		return false
	}
	defer e.dequeue(t)
	f()
	return true
}

// waitTurn waits for the previous job of a queue; false means ctx ended first.
func waitTurn(ctx context.Context, prev <-chan struct{}) bool {
	if prev == nil {
		return ctx.Err() == nil
	}
	select {
	case <-prev:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

// blockRequest turns a complete file-editing tool use into an edit request. A refused path gives
// status refused, a missing param status failed, each with an error.
func blockRequest(sb streamBlock, s settings) (editRequest, EditStatus, error) {
	tool := sb.Block.Name
	path := strings.TrimSpace(sb.Block.Params["path"])
	if path == "" {
		return editRequest{}, StatusFailed, fmt.Errorf("%s has no path: give the path of the file to edit, relative to the working directory", tool)
	}
	payload, ok := sb.Block.Params[payloadParam(tool)]
	if !ok {
		return editRequest{}, StatusFailed, fmt.Errorf("%s for %s has no %s parameter: send the tool use again with it", tool, path, payloadParam(tool))
	}
	req, err := resolveRequest(tool, path, sb.Cwd, s)
	if err != nil {
		return req, pathErrorStatus(err), err
	}
	if tool == toolReplace {
		req.Diff = payload
	} else {
		req.Content = payload
	}
	req.ModelID = sb.ModelID
	return req, "", nil
}

// pathErrorStatus is the status of a tool use whose path did not resolve: refused when the path
// rules forbid it, failed when the path is malformed.
func pathErrorStatus(err error) EditStatus {
	var re *refusedError
	if errors.As(err, &re) {
		return StatusRefused
	}
	return StatusFailed
}

// resolveRequest applies the path rules of section 5 to path and returns a request for it
// without payload. cwd "" means the first workspace folder. With a refused path the request
// still names the refused file, for the EditState's uri.
func resolveRequest(tool, path, cwd string, s settings) (editRequest, error) {
	if cwd == "" && len(s.Folders) > 0 {
		cwd = s.Folders[0]
	}
	abs, err := resolvePath(path, cwd, s.Folders, s.Config.AllowOutsideWorkspace)
	if err != nil {
		// A refused path still names a file: its URI tells the user which one.
		var re *refusedError
		if errors.As(err, &re) && filepath.IsAbs(re.Path) {
			return editRequest{Tool: tool, Abs: re.Path, URI: uri.File(re.Path), Rel: re.Path}, err
		}
		return editRequest{}, err
	}
	return editRequest{Tool: tool, Abs: abs, URI: uri.File(abs), Rel: displayPath(abs, s.Folders)}, nil
}

// payloadStarted reports whether the payload param (diff or content) of a file-editing tool use
// has begun. Cline's tools send the path first, so from then on the path is complete, while
// before that it may still be growing.
func payloadStarted(b parse.Block) bool {
	_, ok := b.Params[payloadParam(b.Name)]
	return ok
}

// streamingTarget resolves the file a streaming tool use edits, once its path is complete (see
// payloadStarted). It reports false while the path is unknown, and for a path that is not
// allowed, which the complete tool use reports.
func streamingTarget(sb streamBlock, s settings) (editRequest, bool) {
	path := sb.Block.Params["path"]
	if path == "" || !payloadStarted(sb.Block) {
		return editRequest{}, false
	}
	req, err := resolveRequest(sb.Block.Name, path, sb.Cwd, s)
	return req, err == nil
}

// streamWorker recomputes the preview and progress of a streaming tool use at most once per
// previewInterval, always handling the latest version (a trailing one included), until the tool
// use completes or is dropped. A dropped block ends its progress as cancelled; a completed one
// leaves the progress to its edit's job.
func (e *editor) streamWorker(key editKey, be *blockEdit) {
	for {
		select {
		case <-be.ctx.Done():
			be.prog.abort(e.ctx, cancelledMessage)
			return
		case <-be.kick:
		}
		e.mu.Lock()
		sb, complete := be.sb, be.complete
		e.mu.Unlock()
		if complete {
			return
		}
		e.streamStep(key, be, sb)
		t := time.NewTimer(previewInterval)
		select {
		case <-be.ctx.Done():
			t.Stop()
			be.prog.abort(e.ctx, cancelledMessage)
			return
		case <-t.C:
		}
	}
}

// previewParams are the params of assistant/preview (section 6).
type previewParams struct {
	Stream         string              `json:"stream"`
	Index          int                 `json:"index"`
	URI            uri.URI             `json:"uri"`
	NewContent     string              `json:"newContent"`
	MatchPositions []protocol.Position `json:"matchPositions"`
	Final          bool                `json:"final"`
}

// streamStep computes what a partial tool use would do so far (the applier's streaming mode) and
// reports it as preview and progress. It needs the path, which Cline's tools send first; until
// the payload param has started, the path may itself be incomplete, so nothing is shown.
func (e *editor) streamStep(key editKey, be *blockEdit, sb streamBlock) {
	s := e.deps.Settings()
	if !s.Config.Preview && be.prog == nil {
		return
	}
	tool := sb.Block.Name
	payload := sb.Block.Params[payloadParam(tool)]
	req, ok := streamingTarget(sb, s)
	if !ok {
		return
	}
	base, err := e.snapshot(req.URI, req.Abs)
	if err != nil {
		return
	}
	var (
		newContent string
		offsets    []int
		report     string
	)
	if tool == toolReplace {
		if !base.Exists {
			return
		}
		diff := fixContent(payload, s.Config.ContentFixes, sb.ModelID, req.Abs)
		res, err := apply.Construct(diff, base.Content, false, s.Config.DiffVersion)
		if err != nil {
			return
		}
		newContent = res.NewContent
		for _, r := range res.Replacements {
			offsets = append(offsets, r.Start)
		}
		report = fmt.Sprintf("%d of %d sections matched", len(offsets), countSections(diff))
	} else {
		newContent = writeContent(payload, s.Config, sb.ModelID, req.Abs)
	}
	e.mu.Lock()
	current := e.isCurrentLocked(key, be) && !be.complete
	uriChanged := current && be.state.URI != req.URI
	if uriChanged {
		be.state.URI = req.URI
	}
	e.mu.Unlock()
	if !current {
		return
	}
	if uriChanged {
		e.deps.Changed(key.stream, key.index)
	}
	be.prog.begin(be.ctx, "Editing "+req.Rel)
	if report != "" {
		be.prog.report(be.ctx, report)
	}
	if !s.Config.Preview {
		return
	}
	e.sendPreview(key, be, previewParams{
		Stream:         key.stream,
		Index:          key.index,
		URI:            req.URI,
		NewContent:     newContent,
		MatchPositions: (&plannedEdit{Base: base, MatchOffsets: offsets}).matchPositions(s.Caps.Encoding),
	})
}

// sendPreview sends params unless the block completed, was dropped or has its edit under way
// since the preview was computed. The check and the send happen under be.previewMu, which the
// block's edit takes before it is computed, so a preview never follows the block's applyEdit.
func (e *editor) sendPreview(key editKey, be *blockEdit, params previewParams) {
	be.previewMu.Lock()
	defer be.previewMu.Unlock()
	e.mu.Lock()
	current := e.isCurrentLocked(key, be) && !be.complete
	e.mu.Unlock()
	if !current || be.editing {
		return
	}
	if err := e.deps.Peer.notify(be.ctx, "assistant/preview", params); err != nil {
		e.deps.Log.Debug("send assistant/preview", zap.String("stream", key.stream), zap.Int("index", key.index), zap.Error(err))
	}
}

// isCurrentLocked reports whether be is still the record of key (e.mu held): a forgotten stream
// or a restarted block must not have its state overwritten by late results.
func (e *editor) isCurrentLocked(key editKey, be *blockEdit) bool {
	st := e.streams[key.stream]
	return st != nil && st.blocks[key.index] == be
}

// setState records st as the block's state if be is still current, then tells the server.
func (e *editor) setState(key editKey, be *blockEdit, st EditState) {
	e.mu.Lock()
	ok := e.isCurrentLocked(key, be)
	if ok {
		be.state = st
	}
	e.mu.Unlock()
	if ok {
		e.deps.Changed(key.stream, key.index)
	}
}

// runBlock computes and, with autoApply, sends the edit of a complete tool use once its turn t
// in the document's queue has come.
func (e *editor) runBlock(key editKey, be *blockEdit, req editRequest, t turn) {
	e.runJob(be.ctx, t, job{
		key: key, be: be, req: req, prog: be.prog, record: true,
		opts: func(s settings) runOpts { return runOpts{send: s.Config.AutoApply, warn: true} },
	})
}

// job is one edit to run in its document's turn.
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
func (e *editor) runJob(ctx context.Context, t turn, j job) (outcome, bool) {
	var out outcome
	ran := e.inTurn(ctx, t, func() {
		if j.be != nil {
			j.be.previewMu.Lock()
			j.be.editing = true
			j.be.previewMu.Unlock()
		}
		if j.skipApplied && e.isApplied(j.be) {
			out = outcome{state: EditState{URI: j.req.URI, Status: StatusApplied}}
			return
		}
		s := e.deps.Settings()
		opts := j.opts(s)
		if j.record && j.be != nil && opts.send {
			opts.applying = func(matches []protocol.Position) {
				e.setState(j.key, j.be, EditState{URI: j.req.URI, Status: StatusApplying, MatchPositions: matches})
			}
		}
		out = e.execute(ctx, j.req, j.prog, s, opts)
		if out.cancelled || !j.record {
			return
		}
		e.logOutcome(j.key, j.req, out.state)
		if j.be != nil {
			e.setState(j.key, j.be, out.state)
		}
	})
	if !ran || out.cancelled {
		j.prog.abort(e.ctx, cancelledMessage)
		return outcome{}, false
	}
	return out, true
}

// isApplied reports whether be (possibly nil) has status applied.
func (e *editor) isApplied(be *blockEdit) bool {
	if be == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return be.state.Status == StatusApplied
}

// runOpts say what execute does beyond computing the edit.
type runOpts struct {
	send     bool                              // send workspace/applyEdit
	warn     bool                              // window/showMessage when the edit fails to compute
	applying func(matches []protocol.Position) // called before the first applyEdit goes out
}

// outcome is the result of execute.
type outcome struct {
	state     EditState
	edit      protocol.WorkspaceEdit
	cancelled bool // ctx ended: the block was dropped, nothing is to be recorded
}

// execute computes req's edit against the current content and, with opts.send, sends it,
// retrying once on a stale version and verifying an open document afterwards (section 4). It
// reports progress on prog throughout.
func (e *editor) execute(ctx context.Context, req editRequest, prog *progress, s settings, opts runOpts) outcome {
	title := "Editing " + req.Rel
	plan, err := e.plan(req, s)
	if err != nil {
		return e.computeFailed(ctx, req, prog, title, err, opts.warn)
	}
	matches := plan.matchPositions(s.Caps.Encoding)
	prog.begin(ctx, title)
	if req.Tool == toolReplace {
		prog.report(ctx, fmt.Sprintf("%d of %d sections matched", len(plan.MatchOffsets), plan.Sections))
	}
	if plan.inPlace() {
		st := EditState{URI: req.URI, Status: StatusApplied, MatchPositions: matches}
		prog.end(ctx, title, "Already applied")
		return outcome{state: st}
	}
	create := !plan.Base.Exists && s.Caps.DocumentChanges && s.Caps.CreateFile
	annotate := s.Caps.Annotations && s.Config.Confirm
	we, err := buildEdit(plan, s.Caps, create, annotate)
	if err != nil {
		return e.computeFailed(ctx, req, prog, title, err, opts.warn)
	}
	if !opts.send || !s.Caps.ApplyEdit {
		st := EditState{URI: req.URI, Status: StatusReady, MatchPositions: matches}
		prog.end(ctx, title, outcomeMessage(st))
		return outcome{state: st, edit: we}
	}
	if opts.applying != nil {
		opts.applying(matches)
	}
	out, sent := e.send(ctx, plan, we, create, annotate, s)
	if out.cancelled {
		return out
	}
	out.state.MatchPositions = sent.matchPositions(s.Caps.Encoding)
	prog.end(ctx, title, outcomeMessage(out.state))
	return out
}

// plan reads the current content of req's target and computes the edit.
func (e *editor) plan(req editRequest, s settings) (*plannedEdit, error) {
	base, err := e.snapshot(req.URI, req.Abs)
	if err != nil {
		return nil, err
	}
	return planEdit(req, base, s.Config)
}

// snapshot is readSnapshot with the overlays of applied edits to files that are not open.
func (e *editor) snapshot(u uri.URI, abs string) (snapshot, error) {
	snap, err := readSnapshot(e.deps.Docs, u, abs)
	if err != nil {
		return snap, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ov, ok := e.overlays[u]
	if !ok {
		return snap, nil
	}
	if !snap.Open && snap.Opens == ov.opens && snap.Content == ov.before && (snap.Exists || ov.before == "") {
		return snapshot{Content: ov.after, Exists: true}, nil
	}
	// The document is or was open since (its buffer is, or was, the truth), or the disk moved on
	// (the editor saved, or something else wrote the file): the overlay is stale.
	e.dropOverlayLocked(u, ov)
	return snap, nil
}

// recordOverlayLocked remembers that u, not open, holds after in the client while the disk
// holds before (e.mu held); opens is the document's open count when the edit was computed.
func (e *editor) recordOverlayLocked(u uri.URI, before, after string, opens uint64) {
	e.overlays[u] = &overlay{before: before, after: after, opens: opens}
}

// dropOverlayLocked forgets ov, the overlay of u (e.mu held).
func (e *editor) dropOverlayLocked(u uri.URI, ov *overlay) {
	if e.overlays[u] == ov {
		delete(e.overlays, u)
	}
}

// computeFailed is the outcome of an edit that could not be computed: status failed with the
// reason, a warning for the user naming the file and the SEARCH section, and the end of the
// progress.
func (e *editor) computeFailed(ctx context.Context, req editRequest, prog *progress, title string, err error, warn bool) outcome {
	st := EditState{URI: req.URI, Status: StatusFailed, Error: err.Error()}
	if warn {
		// The applier's message runs over several lines for the model's benefit; the user gets
		// its first line, which says what went wrong.
		first, _, _ := strings.Cut(err.Error(), "\n")
		msg := fmt.Sprintf("%s %s failed: %s", req.Tool, req.Rel, first)
		var ae *apply.Error
		if errors.As(err, &ae) && ae.Section > 0 {
			msg = fmt.Sprintf("%s %s failed at SEARCH section %d: %s", req.Tool, req.Rel, ae.Section, first)
		}
		if nerr := e.deps.Peer.notify(ctx, "window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg}); nerr != nil {
			e.deps.Log.Debug("send window/showMessage", zap.Error(nerr))
		}
	}
	prog.end(ctx, title, outcomeMessage(st))
	return outcome{state: st}
}

// send delivers we with workspace/applyEdit and follows the answer: one recompute and retry when
// the client refused an edit built on a version older than the one the server now has, status
// rejected when it refused otherwise, and for an open document a check that the content the
// client then reports is the intended one.
// It also returns the plan last sent.
func (e *editor) send(ctx context.Context, plan *plannedEdit, we protocol.WorkspaceEdit, create, annotate bool, s settings) (outcome, *plannedEdit) {
	req := plan.Req
	label := req.label()
	for retried := false; ; retried = true {
		if !plan.Base.Exists {
			if err := prepareNewFile(req.Abs, s.Folders, !create); err != nil {
				return outcome{state: EditState{URI: req.URI, Status: StatusFailed, Error: err.Error()}, edit: we}, plan
			}
		}
		e.deps.Log.Debug("sending workspace/applyEdit",
			zap.String("uri", string(req.URI)), zap.Int("edits", len(plan.Edits)), zap.Bool("open", plan.Base.Open),
			zap.Bool("create", create), zap.Bool("retry", retried))
		var res protocol.ApplyWorkspaceEditResult
		err := e.deps.Peer.call(ctx, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we}, &res)
		if err != nil {
			if ctx.Err() != nil {
				return outcome{cancelled: true}, plan
			}
			msg := fmt.Sprintf("the editor did not answer workspace/applyEdit (%v); apply the edit again with assistant/apply", err)
			return outcome{state: EditState{URI: req.URI, Status: StatusFailed, Error: msg}, edit: we}, plan
		}
		if !res.Applied {
			if !retried && e.newerVersion(plan) {
				e.deps.Log.Debug("edit refused on a stale version; recomputing", zap.String("uri", string(req.URI)))
				next, err := e.plan(req, s)
				if err != nil {
					return outcome{state: EditState{URI: req.URI, Status: StatusFailed, Error: err.Error()}, edit: we}, plan
				}
				if next.inPlace() {
					return outcome{state: EditState{URI: req.URI, Status: StatusApplied}}, next
				}
				create = !next.Base.Exists && s.Caps.DocumentChanges && s.Caps.CreateFile
				nwe, err := buildEdit(next, s.Caps, create, annotate)
				if err != nil {
					return outcome{state: EditState{URI: req.URI, Status: StatusFailed, Error: err.Error()}, edit: we}, plan
				}
				plan, we = next, nwe
				continue
			}
			reason := "the editor did not apply the edit"
			if res.FailureReason != nil && *res.FailureReason != "" {
				reason = *res.FailureReason
			}
			return outcome{state: EditState{URI: req.URI, Status: StatusRejected, Error: reason}, edit: we}, plan
		}
		if plan.Base.Open {
			if !e.verify(ctx, req.URI, plan.Intended) {
				if ctx.Err() != nil {
					return outcome{cancelled: true}, plan
				}
				return outcome{state: EditState{URI: req.URI, Status: StatusFailed, Error: verifyFailure}, edit: we}, plan
			}
		} else {
			e.mu.Lock()
			before := plan.Base.Content
			if ov, ok := e.overlays[req.URI]; ok && ov.after == plan.Base.Content {
				// The edit was built on an earlier unsaved edit: the disk still holds what
				// was there before that one.
				before = ov.before
			}
			e.recordOverlayLocked(req.URI, before, plan.Intended, plan.Base.Opens)
			e.mu.Unlock()
		}
		return outcome{state: EditState{URI: req.URI, Status: StatusApplied}, edit: we}, plan
	}
}

// newerVersion reports whether the server has seen a version of plan's document other than the
// one the edit was built on (or the document was opened since it was read from disk).
func (e *editor) newerVersion(plan *plannedEdit) bool {
	version, ok := e.deps.Docs.Version(plan.Req.URI)
	if !ok {
		return false
	}
	return plan.Base.Version == nil || version != *plan.Base.Version
}

// verify waits up to verifyTimeout for the client's didChange to bring the document to
// intended. A document closed meanwhile cannot be checked and counts as applied. Line breaks
// are compared loosely, because clients may normalize the inserted text's line breaks to the
// document's (VS Code's normalizesLineEndings): an edit that arrived that way was applied.
func (e *editor) verify(ctx context.Context, u uri.URI, intended string) bool {
	vctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	loose := text.LFOnly(intended)
	return e.deps.Docs.WaitFor(vctx, u, func(d docs.Snapshot) bool {
		return !d.Open || d.Text.Equal(intended) || d.Text.EqualLF(loose)
	})
}

// outcomeMessage is the progress end message for st.
func outcomeMessage(st EditState) string {
	switch st.Status {
	case StatusApplied:
		return "Applied"
	case StatusReady:
		return "Ready to apply"
	case StatusApplying, StatusStreaming:
		return string(st.Status)
	default:
		return fmt.Sprintf("%s: %s", strings.ToUpper(string(st.Status[:1]))+string(st.Status[1:]), st.Error)
	}
}

// logOutcome logs the outcome of one edit once, at info.
func (e *editor) logOutcome(key editKey, req editRequest, st EditState) {
	fields := []zap.Field{
		zap.String("stream", key.stream), zap.Int("index", key.index),
		zap.String("tool", req.Tool), zap.String("uri", string(st.URI)), zap.String("status", string(st.Status)),
	}
	if st.Error != "" {
		fields = append(fields, zap.String("error", st.Error))
	}
	e.deps.Log.Info("edit", fields...)
}

// state returns the current EditState of a block, or nil when it has none.
func (e *editor) state(stream string, index int) *EditState {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.streams[stream]
	if st == nil {
		return nil
	}
	be := st.blocks[index]
	if be == nil {
		return nil
	}
	out := be.state
	out.MatchPositions = append([]protocol.Position(nil), be.state.MatchPositions...)
	return &out
}

// forget drops every edit of a stream that was closed or evicted, and cancels its pending work
// (queued edits, verification waits, previews). An applyEdit already sent stays with the client.
func (e *editor) forget(stream string) {
	e.mu.Lock()
	st := e.streams[stream]
	delete(e.streams, stream)
	e.mu.Unlock()
	if st != nil {
		st.cancel()
	}
}
