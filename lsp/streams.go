package lsp

import (
	"container/list"
	"context"
	"hash/maphash"
	"maps"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/provider"
	"github.com/assistant-ls/assistant-ls/turn"

	"github.com/assistant-ls/assistant-ls/parse"
	"go.uber.org/zap"
)

// This file owns the streams of assistant/parse (protocol section 3): their text, their
// blocks, and what the client has been told of them.
//
// Concurrency: every mutation of a stream's text runs on the connection's reader, in wire
// order. The pusher goroutine builds and sends assistant/blocks; the edit pipeline reads
// blocks through block and reports edit changes through changed. All of them share
// streams.mu, which is never held while calling the edit pipeline or writing to the client.

// defaultPushInterval is the least time between two pushes of one stream while its last block
// is partial: at most 20 pushes a second, however many deltas arrive (a long block is further
// throttled by its bytes, see pushWaitLocked).
const defaultPushInterval = 50 * time.Millisecond

// defaultPushBandwidth is the bytes per second a stream's pushes of a growing partial block may
// cost when the block has not grown by half since its last push (see pushWaitLocked): a long
// block resent whole 20 times a second would cost traffic quadratic in its length.
const defaultPushBandwidth = 1 << 20

// stream is one assistant message. Its fields are guarded by streams.mu.
type stream struct {
	name string
	elem *list.Element // in streams.lru

	ps    *turn.Stream
	calls int      // native tool call deltas so far; a stream with calls cannot take a whole text
	tools *toolSet // the stream's file-editing tools, fixed when it starts
	// textTools caches the tool of each complete text block (nil: none), which never changes,
	// so that recognising text formats costs one scan of the block, not one per push.
	textTools map[int]*editTool
	// reads logs the tool uses of blocks before readsTo that may count as reads, for
	// requireRead; it grows with the stream and only appends (readsBeforeLocked).
	reads   []readUse
	readsTo int
	n       int          // length of the text so far
	held    int          // estimate of the bytes st holds: heldEstimate(n, blocks)
	sum     maphash.Hash // hash of the text so far, to recognise a `text` that extends it
	blocks  blockList
	final   bool
	// gap is why a delta of the stream was refused, once one was: the text then misses a part,
	// so the stream takes nothing more but a `text`, which starts it over (see gapError).
	gap     string
	cwd     string // file path; "" means the first workspace folder
	modelID string

	// events decodes the stream's provider events (the event param); nil until the first one.
	events *provider.Decoder

	// What the client was told: the blocks of the last push and whether it was final.
	pushed      blockList
	pushedFinal bool
	pushedAny   bool
	forceFrom   int  // lowest index whose edit state changed since the last push, or -1
	restarted   bool // the text started over: the next push starts at index 0
	lastPush    time.Time
	pushedN     int         // n at the last push
	timer       *time.Timer // trailing push at the end of the throttle window
	queued      bool        // waiting in streams.pending
	closed      bool
}

// streamLimits bound what clients can make the server hold.
type streamLimits struct {
	maxText      int           // bytes of text per stream
	maxTotal     int           // heldEstimate of all streams; least recently used evicted past it
	maxStreams   int           // live streams; the least recently used is evicted past it
	pushInterval time.Duration // throttle window of a stream whose last block is partial
	// pushBandwidth is the bytes a second that pushes of a partial block that grew by less than
	// half since its last push may cost; 0 means defaultPushBandwidth.
	pushBandwidth float64
}

// editUpdate is one call to editor.update, collected under the lock and made after it.
type editUpdate struct {
	index int
	sb    streamBlock
}

// streams is the set of live streams and the pusher that reports their blocks.
type streams struct {
	limits streamLimits
	log    *zap.Logger
	peer   peer
	ed     *editor // the edit pipeline; set once before the connection starts
	seed   maphash.Seed

	mu      sync.Mutex
	parser  *parse.Parser // parser for streams started from now on
	tools   *toolSet      // their file-editing tools
	byName  map[string]*stream
	lru     *list.List // of *stream, most recently used first
	pending []*stream  // streams with a push to build, in order
	total   int        // estimated bytes held by all live streams (the sum of their held)
	evicted *recentNames
	wake    chan struct{}
}

// newStreams returns an empty set of streams parsing with cfg's names and tools.
func newStreams(limits streamLimits, cfg config, p peer, log *zap.Logger) *streams {
	return &streams{
		limits:  limits,
		log:     log,
		peer:    p,
		seed:    maphash.MakeSeed(),
		parser:  parse.New(cfg.parseConfig()),
		tools:   newToolSet(cfg.tools, cfg.TextFormats),
		byName:  map[string]*stream{},
		lru:     list.New(),
		evicted: newRecentNames(evictedMemory * max(limits.maxStreams, 1)),
		wake:    make(chan struct{}, 1),
	}
}

// configure makes streams started from now on (and restarted ones) parse with cfg's names and
// edit with its tools; running streams keep those they started with, so their blocks never
// change meaning mid-message.
func (ss *streams) configure(cfg config) {
	parser, tools := parse.New(cfg.parseConfig()), newToolSet(cfg.tools, cfg.TextFormats)
	ss.mu.Lock()
	ss.parser, ss.tools = parser, tools
	ss.mu.Unlock()
}

// streamError is an assistant/parse failure the client caused; it becomes InvalidParams.
type streamError struct{ msg string }

// Error returns the message, which says what to send instead.
func (e *streamError) Error() string { return e.msg }

// handleParse applies one assistant/parse. It returns every block when withResult is set
// (the request form). Pushes and edit updates follow from the change either way.
func (ss *streams) handleParse(p ext.ParseParams, withResult bool) (*ext.ParseResult, error) {
	if p.Stream == "" {
		return nil, &streamError{msg: `"stream" must be a non-empty string naming the message`}
	}
	if p.Delta != nil && p.Text != nil {
		return nil, &streamError{msg: `give either "delta" or "text", not both`}
	}
	var call *turn.ToolCallDelta
	if tc := p.ToolCall; tc != nil {
		if p.Text != nil {
			return nil, &streamError{msg: `"toolCall" goes with "delta", not "text": send the text before the call as deltas`}
		}
		call = &turn.ToolCallDelta{ID: tc.ID, Name: tc.Name, Done: tc.Done}
		if tc.Arguments != nil {
			call.Arguments = *tc.Arguments
		}
	}
	var (
		updates            []editUpdate
		restarted, evicted []string
		result             *ext.ParseResult
	)
	ss.mu.Lock()
	st := ss.byName[p.Stream]
	suffix, restart := "", false
	switch {
	case st != nil && st.gap != "" && p.Text != nil:
		// Whatever it extends, a whole text fills the gap only by starting over.
		suffix, restart = *p.Text, true
	case st != nil && st.gap != "":
		ss.mu.Unlock()
		return nil, st.gapError()
	case p.Delta != nil:
		suffix = *p.Delta
	case p.Text != nil && (st == nil || ss.extends(st, *p.Text)):
		suffix = *p.Text
		if st != nil {
			suffix = suffix[st.n:]
		}
	case p.Text != nil:
		suffix, restart = *p.Text, true
	}
	size := len(suffix)
	if call != nil {
		size += len(call.Arguments)
	}
	blocksNow := 0 // the blocks the stream keeps holding, which the total bound counts too
	if st != nil && !restart {
		size += st.n
		blocksNow = st.blocks.len()
	}
	var err error
	switch {
	case size > ss.limits.maxText:
		err = &streamError{msg: "stream " + strconv.Quote(p.Stream) + " would exceed the limit of " +
			strconv.Itoa(ss.limits.maxText) + " bytes of text (Options.MaxStreamBytes); start a new stream"}
	case p.Text != nil && st != nil && st.calls > 0 && st.gap == "":
		// Only a stream that refused a delta may start over from a whole text (above); any
		// other would silently drop the calls it holds.
		err = &streamError{msg: "stream " + strconv.Quote(p.Stream) +
			" has native tool calls, so it cannot take a whole \"text\": send deltas"}
	case st == nil && p.Text == nil && ss.evicted.has(p.Stream):
		err = &streamError{msg: "stream " + strconv.Quote(p.Stream) + " was evicted before this delta (more streams were open, or held more text, than the server keeps: Options.MaxStreams, MaxTotalStreamBytes), so the text it would continue is gone: send the whole message as \"text\" to start the stream over, or send it again under a new stream name"}
	case st == nil && call != nil && call.Name == "":
		err = &streamError{msg: "toolCall " + strconv.Quote(call.ID) + " is new: its first delta must carry its name"}
	case ss.limits.maxTotal > 0 && heldEstimate(size, blocksNow) > ss.limits.maxTotal:
		err = &streamError{msg: "stream " + strconv.Quote(p.Stream) + " would hold more than the " +
			strconv.Itoa(ss.limits.maxTotal) + " bytes all streams may hold together (Options.MaxTotalStreamBytes); start a new stream"}
	case st != nil && st.final && (restart || len(suffix) > 0 || call != nil):
		// Every push after final carries final: true, so an ended message cannot change.
		err = &streamError{msg: "stream " + strconv.Quote(p.Stream) +
			" already ended with final: true and cannot change; send the next message under a new stream name"}
	}
	if err != nil {
		return nil, ss.refuseLocked(st, err)
	}

	created := st == nil
	if created {
		st, evicted = ss.createLocked(p.Stream)
		ss.log.Info("stream started", zap.String("stream", p.Stream), zap.String("modelId", p.ModelID))
	} else {
		ss.lru.MoveToFront(st.elem)
	}
	if restart {
		ss.log.Debug("stream restarted: the text does not extend the previous one", zap.String("stream", p.Stream))
		ss.resetLocked(st)
		restarted = append(restarted, st.name)
	}
	if p.Cwd != "" {
		// A cwd that is not a file URI is ignored, as documented: "" means the first folder.
		st.cwd, _ = paths.FromURI(p.Cwd)
	}
	if p.ModelID != "" {
		st.modelID = p.ModelID
	}
	evicted = append(evicted, ss.evictForLocked(st, 2*len(suffix))...)
	prev := st.blocks
	if len(suffix) > 0 || call != nil || (p.Final && !st.final) {
		if err := ss.applyLocked(st, turn.Delta{Text: suffix, ToolCall: call, Final: p.Final}, prev); err != nil {
			if created {
				// A refused first delta leaves no stream, as when it is refused before.
				ss.dropLocked(st)
				st = nil
			}
			ss.forgetEdits(restarted, evicted)
			return nil, ss.refuseLocked(st, err)
		}
		st.n += len(suffix)
		_, _ = st.sum.WriteString(suffix)
		if call != nil {
			st.n += len(call.Arguments)
			st.calls++
		}
		st.blocks = keepBlocks(st.ps.Blocks())
		held := heldEstimate(st.n, st.blocks.len())
		ss.total += held - st.held
		st.held = held
		// The blocks the delta completed count only now.
		evicted = append(evicted, ss.evictForLocked(st, 0)...)
	}
	turnedFinal := p.Final && !st.final
	if turnedFinal {
		st.final = true
		ss.log.Info("stream ended", zap.String("stream", p.Stream), zap.Int("bytes", st.n), zap.Int("blocks", st.blocks.len()))
	}
	if st.final {
		st.blocks = st.blocks.final()
	}
	updates = ss.editUpdatesLocked(st, prev)
	ss.schedulePushLocked(st, ss.urgent(st, prev, restart || turnedFinal))
	if withResult {
		result = &ext.ParseResult{Stream: st.name, Blocks: st.wire(0), Final: st.final}
	}
	// Forgotten before the lock is released: a push built in between would otherwise show the
	// old blocks' edit states on the new blocks. The pipeline's forget takes only its own lock.
	ss.forgetEdits(restarted, evicted)
	ss.mu.Unlock()

	if ss.ed != nil {
		for _, u := range updates {
			ss.ed.update(p.Stream, u.index, u.sb)
		}
	}
	if result != nil {
		ss.fillEdits(result.Blocks, st.name)
	}
	return result, nil
}

// applyPiece is the most text or arguments applied to a stream between two checks of the
// total bound: what one delta can add is known only once it is parsed (a short delta may hold
// many tiny tool uses), so a long delta is parsed in pieces and the bound checked after each.
const applyPiece = 64 << 10

// applyLocked applies d to st, whose blocks were prev. It returns a *streamError, with st
// showing prev and taking nothing of d, when d is refused, or when parsing it shows that st
// alone would hold more than maxTotal: st then drops what it parsed of d (its parser goes;
// only a text that starts it over gives it another).
func (ss *streams) applyLocked(st *stream, d turn.Delta, prev blockList) error {
	if err := st.ps.Check(d); err != nil {
		return &streamError{msg: err.Error()}
	}
	over := func(parsed int) bool {
		return ss.limits.maxTotal > 0 && heldEstimate(st.n+parsed, len(st.ps.Blocks())) > ss.limits.maxTotal
	}
	parsed := 0
	for _, piece := range pieces(d) {
		// A piece of a checked delta is valid: text first, then the call, as Apply does.
		_ = st.ps.Apply(piece)
		parsed += len(piece.Text)
		if piece.ToolCall != nil {
			parsed += len(piece.ToolCall.Arguments)
		}
		if over(parsed) {
			// The blocks parsed past prev share prev's array: cleared, they hold nothing.
			if all := st.ps.Blocks(); len(all) > len(prev.done) {
				clear(all[len(prev.done):])
			}
			st.ps = turn.New(ss.parser)
			return &streamError{msg: "stream " + strconv.Quote(st.name) + " would hold more than the " +
				strconv.Itoa(ss.limits.maxTotal) + " bytes all streams may hold together (Options.MaxTotalStreamBytes), counting " +
				strconv.Itoa(blockHeldBytes) + " bytes per block; start a new stream"}
		}
	}
	return nil
}

// pieces splits d into deltas of at most about applyPiece bytes of text or arguments each, cut
// at rune boundaries, which applied in order are d.
func pieces(d turn.Delta) []turn.Delta {
	n := len(d.Text)
	if d.ToolCall != nil {
		n += len(d.ToolCall.Arguments)
	}
	if n <= applyPiece {
		return []turn.Delta{d}
	}
	var out []turn.Delta
	for _, t := range cut(d.Text) {
		out = append(out, turn.Delta{Text: t})
	}
	if tc := d.ToolCall; tc != nil {
		args := cut(tc.Arguments)
		if len(args) == 0 {
			args = []string{""}
		}
		for i, a := range args {
			c := &turn.ToolCallDelta{ID: tc.ID, Name: tc.Name, Arguments: a}
			c.Done = tc.Done && i == len(args)-1
			out = append(out, turn.Delta{ToolCall: c})
		}
	}
	out[len(out)-1].Final = d.Final
	return out
}

// cut splits s into pieces of at most about applyPiece bytes, at rune boundaries.
func cut(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(applyPiece, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// refuseLocked refuses a delta of st (nil for a stream the delta would have started) with err,
// and returns err; it releases ss.mu. Once a part of a running stream is refused, whatever
// arrives after it would be spliced onto the part before, so the stream takes no more deltas,
// and the edit its partial last block was building fails rather than ever applying: a write
// of the two ends with the middle missing must not be reported applied. A refused first delta
// leaves no stream, so no later delta can continue what it began; an ended stream has nothing
// left to build.
func (ss *streams) refuseLocked(st *stream, err error) error {
	if st == nil || st.final || st.gap != "" {
		ss.mu.Unlock()
		return err
	}
	st.gap = err.Error()
	ss.log.Info("stream refused a delta: it takes no more", zap.String("stream", st.name), zap.Error(err))
	var updates []editUpdate
	if n := st.blocks.len(); n > 0 && st.blocks.at(n-1).Partial && st.toolOf(n-1, st.blocks.at(n-1)) != nil {
		sb := ss.streamBlockLocked(st, n-1)
		sb.Block.Partial = false
		sb.Refused = "part of this tool use was refused (" + st.gap + "), so the tool use is incomplete and nothing of it is applied; send it again in a new message"
		updates = append(updates, editUpdate{index: n - 1, sb: sb})
	}
	ss.mu.Unlock()
	if ss.ed != nil {
		for _, u := range updates {
			ss.ed.update(st.name, u.index, u.sb)
		}
	}
	return err
}

// gapError is the refusal of a delta to a stream that refused one before. A stream with native
// tool calls cannot be given again as a whole text without dropping its calls, so only a new
// stream is offered to it.
func (st *stream) gapError() error {
	again := "Send the whole message as \"text\" to start the stream over, or send it again under a new stream name"
	if st.calls > 0 {
		again = "Send the message again under a new stream name"
	}
	return &streamError{msg: "stream " + strconv.Quote(st.name) + " refused an earlier delta (" + st.gap +
		"), so its text misses a part: it takes no more deltas, and its unfinished edit failed. " + again}
}

// createLocked adds a stream, most recently used, and evicts the least recently used ones
// past the bound; it returns the new stream and the names of the evicted ones.
func (ss *streams) createLocked(name string) (st *stream, evicted []string) {
	st = &stream{name: name, forceFrom: -1}
	ss.evicted.remove(name) // a whole text starts an evicted stream over
	ss.resetLocked(st)
	st.elem = ss.lru.PushFront(st)
	ss.byName[name] = st
	for ss.lru.Len() > ss.limits.maxStreams {
		old := ss.lru.Back().Value.(*stream)
		ss.log.Info("stream evicted: too many streams", zap.String("stream", old.name), zap.Int("limit", ss.limits.maxStreams))
		ss.evictLocked(old)
		evicted = append(evicted, old.name)
	}
	return st, evicted
}

// blockHeldBytes is what a block costs a stream besides its text: its header and its two maps
// (measured: about 900 bytes for a tool use with one param, the native-call fields included,
// under the race detector as without). Counting it makes the total bound a bound on memory for
// messages of many tiny blocks too, which hold far more than 3 bytes per byte of text (about 23
// for tool uses of 40 bytes).
const blockHeldBytes = 960

// heldEstimate is the memory a stream with n bytes of text and the given number of blocks holds,
// as the total bound counts it: twice its text (measured: 1.1 to 1.5 times; the parser's buffer
// and the blocks' copies) and blockHeldBytes per block.
func heldEstimate(n, blocks int) int { return 2*n + blocks*blockHeldBytes }

// evictForLocked drops the least recently used streams other than st while what all streams
// hold (heldEstimate) and extra more bytes would pass maxTotal, and returns their names. Like
// eviction past maxStreams it goes through dropLocked and the caller's forget, so the edit
// pipeline decides what of their edits to keep.
func (ss *streams) evictForLocked(st *stream, extra int) (evicted []string) {
	for ss.limits.maxTotal > 0 && ss.total+extra > ss.limits.maxTotal {
		old := ss.lru.Back().Value.(*stream)
		if old == st {
			break
		}
		ss.log.Info("stream evicted: too much stream text", zap.String("stream", old.name),
			zap.Int("bytes", old.n), zap.Int("limit", ss.limits.maxTotal))
		ss.evictLocked(old)
		evicted = append(evicted, old.name)
	}
	return evicted
}

// resetLocked starts st's text over with the current parser.
func (ss *streams) resetLocked(st *stream) {
	st.ps = turn.New(ss.parser)
	st.events = nil
	st.tools = ss.tools
	st.textTools = nil
	st.reads, st.readsTo = nil, 0
	st.calls = 0
	ss.total -= st.held
	st.n, st.held, st.pushedN = 0, 0, 0
	st.sum.SetSeed(ss.seed)
	st.blocks = blockList{}
	st.final = false
	st.gap = ""
	st.restarted = true
}

// evictLocked drops st to keep within the bounds, and remembers its name: a later delta of it
// is refused, not taken for the start of a message.
func (ss *streams) evictLocked(st *stream) {
	ss.dropLocked(st)
	ss.evicted.add(st.name)
}

// dropLocked removes st; a push already queued for it is skipped.
func (ss *streams) dropLocked(st *stream) {
	st.closed = true
	ss.total -= st.held
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
	ss.lru.Remove(st.elem)
	delete(ss.byName, st.name)
}

// extends reports whether text starts with st's current text. Comparing hashes instead of
// keeping a second copy of every message halves the memory of a stream; a `text` request costs
// time linear in the text anyway.
func (ss *streams) extends(st *stream, text string) bool {
	if st.n == 0 {
		return true
	}
	if len(text) < st.n {
		return false
	}
	return maphash.String(ss.seed, text[:st.n]) == st.sum.Sum64()
}

// blockList is a stream's blocks in a form that outlives the parser's next call, at a cost
// that does not grow with the number of blocks: the complete blocks are shared with the parser,
// which never changes them, and only the partial last block, which the parser overwrites in
// place, is the stream's own copy. So keeping the previous version of a stream to compare with,
// and handing blocks to the edit pipeline, costs no copy of the message's blocks per delta.
type blockList struct {
	done    []turn.Block // complete blocks, capacity cut so that nothing appends into them
	last    turn.Block   // the last block, when hasLast: partial, or forced final by final()
	hasLast bool
}

// keepBlocks holds a result of turn.Stream.Blocks.
func keepBlocks(blocks []turn.Block) blockList {
	n := len(blocks)
	if n == 0 || !blocks[n-1].Partial {
		return blockList{done: blocks[:n:n]}
	}
	last := blocks[n-1]
	last.Params, last.ParamSpans = maps.Clone(last.Params), maps.Clone(last.ParamSpans)
	return blockList{done: blocks[: n-1 : n-1], last: last, hasLast: true}
}

// len returns the number of blocks.
func (l blockList) len() int {
	if l.hasLast {
		return len(l.done) + 1
	}
	return len(l.done)
}

// at returns block i, 0 <= i < l.len().
func (l blockList) at(i int) turn.Block {
	if i == len(l.done) {
		return l.last
	}
	return l.done[i]
}

// final returns l with every block complete, as Cline treats them once its stream ended.
func (l blockList) final() blockList {
	l.last.Partial = false
	return l
}

// urgent reports whether st's change must be pushed without waiting for the throttle: a block
// completed or appeared, the text restarted, or the stream ended.
func (ss *streams) urgent(st *stream, prev blockList, forced bool) bool {
	n := st.blocks.len()
	if forced || prev.len() != n {
		return true
	}
	return n > 0 && !st.blocks.at(n-1).Partial
}

// editUpdatesLocked lists the edit blocks that are new or changed between prev and st.blocks
// (final turning the last block complete included). Blocks before prev's last one are complete
// and never change, so only the tail is compared.
func (ss *streams) editUpdatesLocked(st *stream, prev blockList) []editUpdate {
	var out []editUpdate
	for i := max(0, prev.len()-1); i < st.blocks.len(); i++ {
		b := st.blocks.at(i)
		if st.toolOf(i, b) != nil && (i >= prev.len() || !sameBlock(prev.at(i), b)) {
			out = append(out, editUpdate{index: i, sb: ss.streamBlockLocked(st, i)})
		}
	}
	return out
}

// streamBlockLocked describes block i of st for the edit pipeline.
func (ss *streams) streamBlockLocked(st *stream, i int) streamBlock {
	// An empty cwd stands for the first workspace folder, which path resolution looks up when
	// the path is resolved, so that a folder change applies.
	b := st.blocks.at(i)
	tool := st.toolOf(i, b)
	sb := editBlock(b, tool, st.cwd, st.modelID)
	if tool != nil && b.Type == parse.ToolUse && !b.Partial {
		sb.InStream, sb.Reads = true, st.readsBeforeLocked(i)
	}
	return sb
}

// editBlock describes b, a block whose edit tool is tool (nil: none), for the edit pipeline.
func editBlock(b turn.Block, tool *editTool, cwd, modelID string) streamBlock {
	if tool != nil && b.Type == parse.Text {
		// A text block's edit is read from its content, as a format tool's param.
		b.Params = map[string]string{textParam: b.Content}
	}
	return streamBlock{Block: b, Tool: tool, Cwd: cwd, ModelID: modelID}
}

// sameBlock reports whether two versions of a block at the same index are equal. A native tool
// call's Input is set only when it turns complete, which Partial already tells.
func sameBlock(a, b turn.Block) bool {
	return a.Type == b.Type && a.Partial == b.Partial && a.Span == b.Span && a.Name == b.Name &&
		a.Content == b.Content && maps.Equal(a.Params, b.Params) &&
		a.CallID == b.CallID && (a.Err == nil) == (b.Err == nil)
}

// block implements blockSource.
func (ss *streams) block(name string, index int) (streamBlock, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st, ok := ss.byName[name]
	if !ok || index < 0 || index >= st.blocks.len() {
		return streamBlock{}, false
	}
	return ss.streamBlockLocked(st, index), true
}

// fileBlocks returns the blocks of the named stream as the edit pipeline sees them; ok is false
// for a stream that is unknown or has no blocks.
func (ss *streams) fileBlocks(name string) (blocks []streamBlock, ok bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st, ok := ss.byName[name]
	if !ok || st.blocks.len() == 0 {
		return nil, false
	}
	blocks = make([]streamBlock, st.blocks.len())
	for i := range blocks {
		blocks[i] = ss.streamBlockLocked(st, i)
	}
	return blocks, true
}

// changed records that the edit state of block index of the named stream changed, so that it
// is pushed at once.
func (ss *streams) changed(name string, index int) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st, ok := ss.byName[name]
	if !ok || index < 0 {
		return
	}
	if st.forceFrom < 0 || index < st.forceFrom {
		st.forceFrom = index
	}
	ss.schedulePushLocked(st, true)
}

// close drops a stream at the client's request.
func (ss *streams) close(name string) {
	ss.mu.Lock()
	st, ok := ss.byName[name]
	if ok {
		ss.log.Info("stream closed", zap.String("stream", name), zap.Int("bytes", st.n))
		ss.dropLocked(st)
	}
	ss.evicted.remove(name)
	ss.mu.Unlock()
	if ok {
		ss.forgetEdits(nil, []string{name})
	}
}

// forgetEdits tells the edit pipeline that streams started over (restarted) or are gone. It
// may run with streams.mu held: the pipeline takes only its own lock and calls nothing back.
func (ss *streams) forgetEdits(restarted, gone []string) {
	if ss.ed == nil {
		return
	}
	for _, n := range restarted {
		ss.ed.forget(n)
	}
	for _, n := range gone {
		ss.ed.release(n)
	}
}

// schedulePushLocked queues a push of st now when urgent or when the throttle window has
// passed, and otherwise arms one trailing push at the window's end, so the client always
// converges on the latest blocks.
func (ss *streams) schedulePushLocked(st *stream, urgent bool) {
	if st.queued || st.closed {
		return
	}
	wait := ss.pushWaitLocked(st)
	if urgent || wait <= 0 {
		ss.enqueueLocked(st)
		return
	}
	if st.timer == nil {
		st.timer = time.AfterFunc(wait, func() {
			ss.mu.Lock()
			defer ss.mu.Unlock()
			st.timer = nil
			if !st.queued && !st.closed {
				ss.enqueueLocked(st)
			}
		})
	}
}

// pushWaitLocked returns how long a push of st's growing partial block must still wait. Each
// push resends the block whole, so besides the window the wait is in bytes: the block is pushed
// again once the stream grew by half the block's size since the last push, so that the pushes
// of one block add up to at most about three times its length (sizes 1, 1.5, 2.25, …), or,
// for a slow stream, once the time the block's size takes at pushBandwidth has passed.
func (ss *streams) pushWaitLocked(st *stream) time.Duration {
	since := time.Since(st.lastPush)
	wait := ss.limits.pushInterval - since
	n := st.blocks.len()
	if n == 0 {
		return wait
	}
	size := blockBytes(st.blocks.at(n - 1))
	if 2*(st.n-st.pushedN) >= size {
		return wait
	}
	bw := ss.limits.pushBandwidth
	if bw <= 0 {
		bw = defaultPushBandwidth
	}
	return max(wait, time.Duration(float64(size)/bw*float64(time.Second))-since)
}

// blockBytes is about the bytes a push of b carries: its content or its params' values.
func blockBytes(b turn.Block) int {
	n := len(b.Content)
	for _, v := range b.Params {
		n += len(v)
	}
	return n
}

// enqueueLocked hands st to the pusher.
func (ss *streams) enqueueLocked(st *stream) {
	st.queued = true
	ss.pending = append(ss.pending, st)
	ss.signal()
}

// signal wakes the pusher; wake-ups coalesce.
func (ss *streams) signal() {
	select {
	case ss.wake <- struct{}{}:
	default:
	}
}

// run is the pusher: it builds and sends pushes until ctx ends. Building a push when it is
// sent, not when the delta arrives, is what coalesces deltas that arrive faster than the
// client reads.
func (ss *streams) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ss.wake:
		}
		for {
			ss.mu.Lock()
			pending := ss.pending
			ss.pending = nil
			ss.mu.Unlock()
			if len(pending) == 0 {
				break
			}
			for _, st := range pending {
				ss.push(ctx, st)
			}
		}
	}
}

// push builds and sends st's push, if it has one. A panic is logged and costs only this push:
// the pusher serves every stream, and a crash would end the session.
func (ss *streams) push(ctx context.Context, st *stream) {
	defer func() {
		if r := recover(); r != nil {
			ss.log.Error("building a push panicked", zap.String("stream", st.name), zap.Any("panic", r),
				zap.ByteString("stack", debug.Stack()))
		}
	}()
	if push, ok := ss.buildPush(st); ok {
		ss.fillEdits(push.Blocks, push.Stream)
		// A pointer, so that the codec finds its own encoder (ext.BlocksParams.AppendJSON).
		ss.send(ctx, "assistant/blocks", &push)
	}
}

// send writes one notification; a failure means the connection is gone, which the server
// notices on its reader, so it is only logged.
func (ss *streams) send(ctx context.Context, method string, params any) {
	if err := ss.peer.Notify(ctx, method, params); err != nil {
		ss.log.Debug("could not notify the client", zap.String("method", method), zap.Error(err))
	}
}

// buildPush computes what changed in st since its last push and records it as pushed.
func (ss *streams) buildPush(st *stream) (ext.BlocksParams, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st.queued = false
	if st.closed {
		return ext.BlocksParams{}, false
	}
	from := -1
	if st.restarted {
		from = 0
	} else {
		from = firstChange(st.pushed, st.blocks)
	}
	if st.forceFrom >= 0 && (from < 0 || st.forceFrom < from) {
		from = st.forceFrom
	}
	if from < 0 && (st.final != st.pushedFinal || !st.pushedAny) {
		from = st.blocks.len()
	}
	if from < 0 {
		return ext.BlocksParams{}, false
	}
	from = min(from, st.blocks.len())
	push := ext.BlocksParams{Stream: st.name, From: from, Blocks: st.wire(from), Final: st.final}
	st.pushed, st.pushedFinal, st.pushedAny = st.blocks, st.final, true
	st.restarted, st.forceFrom = false, -1
	st.lastPush, st.pushedN = time.Now(), st.n
	return push, true
}

// firstChange returns the first index where cur differs from old, or -1. Complete blocks never
// change (the parser's contract, tested there), so only old's last block on is compared.
func firstChange(old, cur blockList) int {
	for i := max(0, old.len()-1); i < max(old.len(), cur.len()); i++ {
		if i >= old.len() || i >= cur.len() || !sameBlock(old.at(i), cur.at(i)) {
			return i
		}
	}
	return -1
}

// toolOf returns the file-editing tool of block i, b (st.mu held).
func (st *stream) toolOf(i int, b turn.Block) *editTool {
	if b.Type != parse.Text || b.Partial || len(st.tools.enabled) == 0 {
		return st.tools.lookup(b.Block)
	}
	if t, ok := st.textTools[i]; ok {
		return t
	}
	t := st.tools.lookup(b.Block)
	if st.textTools == nil {
		st.textTools = map[int]*editTool{}
	}
	st.textTools[i] = t
	return t
}

// wire converts st's blocks from index from on to their wire form, a file-editing block with
// the placeholder edit state streaming, which fillEdits replaces by the pipeline's (a block the
// pipeline has not seen yet is about to be). st.mu is held.
func (st *stream) wire(from int) []ext.Block {
	out := toWire(st.name, st.blocks, from)
	for i := range out {
		if st.toolOf(from+i, st.blocks.at(from+i)) != nil {
			out[i].Edit = &ext.EditState{Status: ext.StatusStreaming}
		}
	}
	return out
}

// toWire converts the blocks of the named stream from index from on to their wire form,
// without edit states.
func toWire(name string, blocks blockList, from int) []ext.Block {
	out := make([]ext.Block, 0, blocks.len()-from)
	for i := from; i < blocks.len(); i++ {
		b := blocks.at(i)
		w := ext.Block{Index: i, ID: name + "#" + strconv.Itoa(i), Type: ext.BlockType(b.Type), Partial: b.Partial}
		if b.Type == parse.Text {
			content := b.Content
			w.Content = &content
		} else {
			w.Name = b.Name
			w.Params = b.Params
			if w.Params == nil {
				w.Params = map[string]string{}
			}
			w.CallID, w.Input = b.CallID, b.Input
		}
		out = append(out, w)
	}
	return out
}

// fillEdits sets the edit field of the file-editing blocks from the edit pipeline. It runs
// without streams.mu, since the pipeline calls back into streams under its own lock.
func (ss *streams) fillEdits(blocks []ext.Block, name string) {
	if ss.ed == nil {
		return
	}
	for i := range blocks {
		if blocks[i].Edit == nil {
			continue
		}
		if st := ss.ed.state(name, blocks[i].Index); st != nil {
			blocks[i].Edit = st
		}
	}
}

// stop cancels every trailing-push timer; the pusher itself ends with its context.
func (ss *streams) stop() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, st := range ss.byName {
		if st.timer != nil {
			st.timer.Stop()
			st.timer = nil
		}
	}
}
