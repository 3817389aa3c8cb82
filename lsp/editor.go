package lsp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/turn"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// This file is the edit pipeline's registry of blocks: the record of each file-editing tool use
// of each stream, and the entry points the streams call (update, state, forget, release). The
// pipeline's other jobs have files and types of their own: the edit seam (tools.go), requests
// and WorkspaceEdits (plan.go), the document queue (queue.go), unsaved content (overlays.go),
// previews (preview.go), sending and verifying (send.go), requests from the client
// (applyrequest.go) and goroutine supervision (supervise.go).
//
// Dependencies point one way: the streams call the pipeline, and the pipeline reports state
// changes through the Changed event, never by calling the streams.

// peer is the server's side of the connection to the client, for requests and notifications the
// server starts. Calls may block until the client answers; they never hold server locks.
type peer interface {
	Call(ctx context.Context, method string, params, result any) error
	Notify(ctx context.Context, method string, params any) error
}

// streamBlock is what the edit pipeline needs to know about one block of a stream.
type streamBlock struct {
	Block   turn.Block
	Tool    *editTool // the block's file-editing tool, nil for any other block
	Cwd     string    // file path the block's relative paths resolve against
	ModelID string
	// Refused, when set, says that the stream refused part of the block, which is then given
	// as complete: its edit fails with this error and is never made.
	Refused string
	// InStream says the block is a tool use of a stream, which requireRead applies to; Reads
	// are then the tool uses before it that may count as reads (readsBeforeLocked), set only
	// while requireRead is on.
	InStream bool
	Reads    readLog
}

// settings is a snapshot of what the edit pipeline adapts to.
type settings struct {
	Config    config
	Caps      clientCaps
	Workspace *paths.Workspace
}

// editorDeps is what the edit pipeline needs from the rest of the server.
type editorDeps struct {
	Peer     peer
	Docs     *docs.Store
	Settings func() settings
	// Changed is called, without locks held, when the EditState of a block changed, so the
	// server pushes it to the client.
	Changed func(stream string, index int)
	Log     *zap.Logger
	// Held, when set, takes the computed edit of a block that is held for review instead of
	// sent (section 7a); it runs without locks held and owns the block's state afterwards.
	Held func(key editKey, be *blockEdit, p *plannedEdit)
	// Located, when set, takes the edit of a block that the client applied, for the hints of
	// the sections a fallback tier located (tier_hints.go); it runs without locks held.
	Located func(key editKey, be *blockEdit, p *plannedEdit)
}

// Timing of the pipeline.
const (
	// verifyTimeout bounds the wait for the didChange that follows an applied edit (section 4:
	// Neovim 0.7 sends it about 150 ms after its answer).
	verifyTimeout = 2 * time.Second
	// previewInterval is the least time between two previews or progress reports of one
	// streaming tool use, so a long diff costs at most 10 recomputations a second.
	previewInterval = 100 * time.Millisecond
	// staleWait bounds the wait for the didChange of a client that refused an edit naming a
	// version before it reported the version (eglot sends it about 0.5 s later).
	staleWait = 2 * time.Second
	// lateVerifyWindow bounds how long an edit the client answered as applied, but did not
	// show within verifyTimeout, is watched for a didChange that shows it.
	lateVerifyWindow = 5 * time.Minute
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

// blockEdit is the pipeline's record of one file-editing tool use. Its fields are guarded by
// editor.mu; ctx, cancel, tool, prog and kick are set once at creation.
type blockEdit struct {
	ctx    context.Context // ends when the block is replaced, its stream restarted, or at shutdown
	cancel context.CancelFunc
	tool   *editTool
	prog   *progress
	kick   chan struct{} // wakes the streaming worker (capacity 1, so wake-ups coalesce)

	// previewMu is held from the last check that the block is still streaming until its preview
	// is sent; the edit's job takes it once before computing, so that the block's applyEdit
	// never overtakes a preview on its way.
	previewMu sync.Mutex

	sb       streamBlock // the latest version of the block
	complete bool        // the tool use is complete; its edit was scheduled once
	fp       fingerprint // of the complete tool use, for idempotent updates
	worker   bool        // the streaming worker runs
	targeted bool        // the target of the streaming tool use was looked up (see streamingTarget)
	// named holds each target's content when the tool use first named it, so that a whole
	// content write merges what the user typed since instead of overwriting it.
	named map[uri.URI]string
	state ext.EditState
	// previewState is the tool's own state for previews; only the stream worker uses it.
	previewState any
	// sent is the last edit of the block the client answered as applied, so that the block
	// counts as applied while its document holds that edit, whatever its status says.
	sent *plannedEdit
	// prior is the record of the same tool use in the text before its stream started over,
	// whose edit may already stand: the same edit is then not made twice.
	prior *blockEdit
	// done is set when the block's job has ended, so that a released block can let go of it.
	done bool
	// held is set when the block's edit was handed to review (editorDeps.Held): a released
	// block then lives on, since its hunks wait in the document for the user (section 7a).
	held bool
}

// editor runs the edit pipeline: it computes, sends, verifies and tracks the edits of
// file-editing tool uses (protocol sections 4 to 6). It is safe for concurrent use.
type editor struct {
	deps     editorDeps
	sup      *supervisor
	queue    *docQueue
	overlays *overlays

	mu      sync.Mutex
	streams map[string]map[int]*blockEdit // the records of each stream's blocks, by index
	// forgotten keeps the records of a stream's text before it started over, by index, so that
	// the restarted text's identical tool uses find the edits already made (see prior).
	forgotten map[string]map[int]*blockEdit
	tokens    int
	tables    map[uri.URI]*contentTables // the tables of each document's latest content

	// confirmSlot lets one edit that asks the user for confirmation be with the client at a
	// time, across documents: VS Code shows one refactor preview at a time and answers a second
	// one by discarding one of the two.
	confirmSlot chan struct{}

	// progressTimeout bounds window/workDoneProgress/create (createTimeout; tests shorten it
	// before the first update).
	progressTimeout time.Duration
	// verifyTimeout and staleWait are the constants of the same names (tests set them through
	// Options).
	verifyTimeout, staleWait time.Duration
}

// newEditor returns an edit pipeline. A nil Log means no logs.
func newEditor(deps editorDeps) *editor {
	if deps.Log == nil {
		deps.Log = zap.NewNop()
	}
	if deps.Changed == nil {
		deps.Changed = func(string, int) {}
	}
	return &editor{
		deps:            deps,
		sup:             newSupervisor(deps.Log),
		queue:           newDocQueue(),
		overlays:        newOverlays(),
		streams:         map[string]map[int]*blockEdit{},
		forgotten:       map[string]map[int]*blockEdit{},
		tables:          map[uri.URI]*contentTables{},
		confirmSlot:     make(chan struct{}, 1),
		progressTimeout: createTimeout,
		verifyTimeout:   verifyTimeout,
		staleWait:       staleWait,
	}
}

// goBlock runs f on a supervised goroutine for work on one block: after a panic the block is
// failed with an internal error and its progress ended, so that neither the model nor the
// editor waits for it forever.
func (e *editor) goBlock(name string, key editKey, be *blockEdit, f func()) {
	e.sup.goSafe(name, func() {
		e.mu.Lock()
		st := ext.EditState{URI: be.state.URI, Status: ext.StatusFailed, Error: internalFailure}
		e.mu.Unlock()
		be.prog.abort(e.sup.ctx, outcomeMessage(st))
		e.setState(key, be, st)
	}, f)
}

// shutdown cancels all pending work and waits for the pipeline's goroutines to end. Later
// updates are ignored.
func (e *editor) shutdown() { e.sup.stop() }

// fingerprint identifies what a complete tool use asks for, so that repeated updates of an
// unchanged block are recognised: its tool and everything the tool reads (the params; a native
// call's arguments are decoded into them). The stream's cwd and modelId are not part of it: a
// block keeps those it completed with, so that a later delta changing them neither restarts
// nor re-sends an edit already made. It is compared, not built, so it costs nothing per delta.
type fingerprint struct {
	tool    *editTool
	params  map[string]string
	callID  string
	failed  bool // a native call whose arguments did not parse
	refused bool // the stream refused part of the tool use
}

// fingerprintOf returns the fingerprint of sb, a block of tool t.
func fingerprintOf(t *editTool, sb streamBlock) fingerprint {
	return fingerprint{t, sb.Block.Params, sb.Block.CallID, sb.Block.Err != nil, sb.Refused != ""}
}

// equal reports whether two fingerprints are of the same tool use.
func (a fingerprint) equal(b fingerprint) bool {
	return a.tool == b.tool && a.callID == b.callID && a.failed == b.failed && a.refused == b.refused && maps.Equal(a.params, b.params)
}

// update is called each time a file-editing block of a stream was created or changed. It
// returns at once; slow work (applyEdit round trips) runs in the background. It keeps sb and
// reads it from other goroutines: sb must not change afterwards (the server hands over its own
// copies; see blockList).
func (e *editor) update(stream string, index int, sb streamBlock) {
	tool := sb.Tool
	if tool == nil {
		return
	}
	key := editKey{stream, index}
	fp := fingerprintOf(tool, sb)
	// A complete block is sent again unchanged, for instance when its stream turns final; the
	// check comes before the path resolution, which costs filesystem calls on the reader.
	if !sb.Block.Partial && e.unchanged(key, fp) {
		return
	}
	s := e.deps.Settings()
	var (
		req    editRequest
		reqErr error
	)
	if !sb.Block.Partial {
		req, reqErr = blockRequest(tool, sb, s)
	}
	named := editRequest{} // the targets the streaming tool use names for the first time

	e.mu.Lock()
	if e.sup.stopped() {
		e.mu.Unlock()
		return
	}
	blocks := e.streamLocked(stream)
	be := blocks[index]
	if sameCompleteLocked(be, fp) {
		e.mu.Unlock()
		return
	}
	changed := false
	if be != nil && (be.complete || be.tool != tool) {
		be.cancel()
		be = nil
	}
	if be == nil {
		be = e.newBlockLocked(tool, s)
		blocks[index] = be
		changed = true
		if old := e.forgotten[stream][index]; old != nil && old.complete && old.fp.equal(fp) {
			be.prior = old
		}
	}
	be.sb = sb
	if sb.Block.Partial {
		if !be.targeted {
			if req, ok := streamingTarget(tool, sb, s); ok {
				be.state.URI, changed = req.Targets[0].URI, true
				named = req
			}
			be.targeted = tool.pathsDone(sb.Block)
		}
		if (s.Config.Preview || be.prog != nil) && !be.worker {
			be.worker = true
			e.goBlock("stream worker", key, be, func() { e.streamWorker(key, be) })
		}
		wake(be.kick)
	} else {
		be.complete = true
		be.fp = fp
		wake(be.kick)
		if first := firstURI(req); be.state.URI != first {
			be.state.URI, changed = first, true
		}
		withNamedLocked(be, &req)
		if reqErr != nil {
			st := ext.EditState{URI: be.state.URI, Status: requestStatus(reqErr), Error: reqErr.Error()}
			st.ToolResult = toolResult(req, st, nil, nil)
			be.state = st
			changed = true
			e.goBlock("block outcome", key, be, func() {
				e.logOutcome(key, tool.name, st)
				be.prog.end(e.sup.ctx, "Editing "+strings.Join(tool.paths(sb.Block.Params), ", "), outcomeMessage(st))
			})
		} else {
			t := e.queue.enqueue(req.uris())
			e.goBlock("block edit", key, be, func() { e.runBlock(key, be, req, t) })
		}
	}
	e.mu.Unlock()
	if len(named.Targets) > 0 {
		e.rememberNamed(be, named)
	}
	if changed {
		e.deps.Changed(stream, index)
	}
}

// withNamedLocked gives req's targets the content be's tool use first named them with (e.mu
// held), for the three-way merge of a whole-content write.
func withNamedLocked(be *blockEdit, req *editRequest) {
	for i, t := range req.Targets {
		if c, ok := be.named[t.URI]; ok {
			req.Targets[i].Named = &c
		}
	}
}

// rememberNamed records the content of req's targets as the streaming tool use be first named
// them. It reads outside e.mu; the user can hardly type in between.
func (e *editor) rememberNamed(be *blockEdit, req editRequest) {
	contents := map[uri.URI]string{}
	for _, t := range req.Targets {
		if snap, err := e.snapshot(t); err == nil && snap.Exists {
			contents[t.URI] = snap.Content
		}
	}
	e.mu.Lock()
	if be.named == nil && !be.complete {
		be.named = contents
	}
	e.mu.Unlock()
}

// blockRequest turns a complete file-editing block into an edit request. A native tool call
// whose arguments did not parse gives no request: its edit fails with the parse error.
func blockRequest(tool *editTool, sb streamBlock, s settings) (editRequest, error) {
	if sb.Refused != "" {
		return editRequest{Tool: tool}, errors.New(sb.Refused)
	}
	if err := sb.Block.Err; err != nil {
		return editRequest{Tool: tool}, fmt.Errorf("the arguments of tool call %s (%s) are not a valid JSON object: %w; send the call again with valid JSON arguments", sb.Block.CallID, tool.name, err)
	}
	if sb.Block.Input != nil && tool.checkInput != nil {
		if err := tool.checkInput(sb.Block.Input); err != nil {
			return editRequest{Tool: tool}, err
		}
	}
	req, err := newRequest(tool, sb.Block.Params, sb.Cwd, sb.ModelID, s)
	req.Input = sb.Block.Input
	if s.Config.RequireRead && sb.InStream && !readsOnly(sb.Block) {
		req.read = readSetOf(sb, s)
	}
	return req, err
}

// firstURI is the URI of req's first target, or "" when it has none.
func firstURI(req editRequest) uri.URI {
	if len(req.Targets) == 0 {
		return ""
	}
	return req.Targets[0].URI
}

// unchanged reports whether key's record is of the complete tool use with fingerprint fp.
func (e *editor) unchanged(key editKey, fp fingerprint) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return sameCompleteLocked(e.streams[key.stream][key.index], fp)
}

// sameCompleteLocked reports whether be (possibly nil) is the record of the complete tool use
// with fingerprint fp (e.mu held): updating it again must not schedule the edit again.
func sameCompleteLocked(be *blockEdit, fp fingerprint) bool {
	return be != nil && be.complete && be.fp.equal(fp)
}

// streamLocked returns the records of stream, creating them on first use (e.mu held).
func (e *editor) streamLocked(stream string) map[int]*blockEdit {
	blocks := e.streams[stream]
	if blocks == nil {
		blocks = map[int]*blockEdit{}
		e.streams[stream] = blocks
	}
	return blocks
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

// newBlockLocked creates the record of a new tool use of tool (e.mu held).
func (e *editor) newBlockLocked(tool *editTool, s settings) *blockEdit {
	ctx, cancel := context.WithCancel(e.sup.ctx)
	return &blockEdit{
		ctx:    ctx,
		cancel: cancel,
		tool:   tool,
		prog:   e.newProgressLocked(s.Caps.WorkDoneProgress),
		kick:   make(chan struct{}, 1),
		state:  ext.EditState{Status: ext.StatusStreaming},
	}
}

// wake signals ch without blocking; a pending signal already covers this one.
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// streamingTarget resolves the files a streaming tool use edits, once its paths are complete
// (see editTool.pathsDone). It reports false while the paths are unknown, and for a path that is not
// allowed, which the complete tool use reports.
func streamingTarget(t *editTool, sb streamBlock, s settings) (editRequest, bool) {
	if !t.pathsDone(sb.Block) {
		return editRequest{}, false
	}
	req, err := newRequest(t, sb.Block.Params, sb.Cwd, sb.ModelID, s)
	return req, err == nil
}

// isCurrentLocked reports whether be is still the record of key (e.mu held): a forgotten stream
// or a restarted block must not have its state overwritten by late results.
func (e *editor) isCurrentLocked(key editKey, be *blockEdit) bool {
	return e.streams[key.stream][key.index] == be
}

// setState records st as the block's state if be is still current, then tells the server.
func (e *editor) setState(key editKey, be *blockEdit, st ext.EditState) {
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

// outcomeMessage is the progress end message for st.
func outcomeMessage(st ext.EditState) string {
	switch st.Status {
	case ext.StatusApplied:
		return "Applied"
	case ext.StatusReady:
		return "Ready to apply"
	case ext.StatusApplying, ext.StatusStreaming:
		return string(st.Status)
	default:
		return fmt.Sprintf("%s: %s", strings.ToUpper(string(st.Status[:1]))+string(st.Status[1:]), st.Error)
	}
}

// logOutcome logs the outcome of one edit once, at info.
func (e *editor) logOutcome(key editKey, tool string, st ext.EditState) {
	fields := []zap.Field{
		zap.String("stream", key.stream), zap.Int("index", key.index),
		zap.String("tool", tool), zap.String("uri", string(st.URI)), zap.String("status", string(st.Status)),
	}
	if st.Error != "" {
		fields = append(fields, zap.String("error", st.Error))
	}
	e.deps.Log.Info("edit", fields...)
}

// state returns the current EditState of a block, or nil when it has none.
func (e *editor) state(stream string, index int) *ext.EditState {
	e.mu.Lock()
	defer e.mu.Unlock()
	be := e.streams[stream][index]
	if be == nil {
		return nil
	}
	out := be.state
	out.MatchPositions = append([]protocol.Position(nil), be.state.MatchPositions...)
	return &out
}

// forget drops every edit of a stream that started over, and cancels its pending work (queued
// edits, verification waits, previews): the new text's blocks take their place. An applyEdit
// already sent stays with the client.
func (e *editor) forget(stream string) {
	blocks := e.detach(stream)
	e.mu.Lock()
	if len(blocks) > 0 {
		e.forgotten[stream] = blocks
	}
	e.mu.Unlock()
	for _, be := range blocks {
		be.cancel()
	}
}

// release drops a stream that was closed or evicted. Its streaming tool uses are cancelled,
// but the edits of its complete tool uses still run to their outcome, and an edit held for
// review stays held: dropping a stream's text must never lose an edit the model finished.
// Nobody is told of their states any more.
func (e *editor) release(stream string) {
	blocks := e.detach(stream)
	e.mu.Lock()
	delete(e.forgotten, stream)
	e.mu.Unlock()
	for _, be := range blocks {
		e.mu.Lock()
		keep := be.complete && (!be.done || be.held)
		e.mu.Unlock()
		if !keep {
			be.cancel()
		}
	}
}

// detach removes a stream's edit records and returns them.
func (e *editor) detach(stream string) map[int]*blockEdit {
	e.mu.Lock()
	defer e.mu.Unlock()
	blocks := e.streams[stream]
	delete(e.streams, stream)
	return blocks
}
