// Package parse splits an assistant message into text and tool-use blocks exactly as Cline's
// parseAssistantMessageV2 does, both in one call (Parse) and incrementally over a stream (Stream).
//
// The reference scans the message once, left to right, and at every index asks whether the text
// ending there is a tag it cares about. Every such tag ends in '>', so this package only stops at
// '>' bytes and looks back from there; all other bytes are skipped with strings.IndexByte.
package parse

import (
	"maps"
	"strings"

	"github.com/assistant-ls/assistant-ls/internal/ecma"
)

// BlockType says what a Block holds.
type BlockType string

// The two kinds of block.
const (
	Text    BlockType = "text"
	ToolUse BlockType = "tool_use"
)

// Span is a half-open byte range [Start, End) of the message. Start <= End always holds.
type Span struct{ Start, End int }

// Block is one piece of a parsed message.
//
// Span semantics, all byte offsets into the parsed message:
//   - text block: Span covers exactly Content, i.e. the text region after trimming, so
//     msg[Span.Start:Span.End] == Content;
//   - tool_use block: Span runs from the '<' of the opening tag to just after the '>' of the
//     closing tag, or to the end of the message when the block is partial;
//   - ParamSpans[name]: the raw, untrimmed value region between the param's opening and closing
//     tags (to the end of the message while the param is unclosed), so that
//     ecma.Trim(msg[ParamSpans[name].Start:ParamSpans[name].End]) == Params[name], where
//     ecma.Trim is ECMAScript's String.prototype.trim. For write_to_file's
//     re-read content it is the region after the first "<content>" and before the last
//     "</content>" of the tool use.
//
// Params and ParamSpans are nil for text blocks and for tool uses without params, and always
// have the same keys. Blocks returned by this package must be treated as read-only.
type Block struct {
	Type       BlockType         `json:"type"`
	Content    string            `json:"content,omitempty"`
	Name       string            `json:"name,omitempty"`
	Params     map[string]string `json:"params,omitempty"`
	Partial    bool              `json:"partial,omitempty"`
	Span       Span              `json:"-"`
	ParamSpans map[string]Span   `json:"-"`
}

// Config adds names to the built-in tool and param sets. Each name is trimmed as ECMAScript trims (ecma.Trim); names
// that trim to empty, and names already known, add nothing.
type Config struct{ ExtraToolNames, ExtraParamNames []string }

// builtinTools and builtinParams are the reference's name tables, in the reference's order:
// the order decides which tag wins when two names could both end at the same index.
var (
	builtinTools = [...]string{
		"ask_followup_question", "attempt_completion", "execute_command", "replace_in_file",
		"read_file", "write_to_file", "search_files", "list_files", "list_code_definition_names",
		"browser_action", "use_mcp_tool", "access_mcp_resource", "load_mcp_documentation",
		"new_task", "plan_mode_respond", "act_mode_respond", "focus_chain", "web_fetch",
		"web_search", "condense", "summarize_task", "report_bug", "new_rule", "apply_patch",
		"generate_explanation", "use_skill", "use_subagents",
	}
	builtinParams = [...]string{
		"command", "requires_approval", "path", "absolutePath", "content", "diff", "regex",
		"file_pattern", "recursive", "action", "url", "coordinate", "text", "query",
		"allowed_domains", "blocked_domains", "prompt", "server_name", "tool_name", "arguments",
		"uri", "question", "options", "response", "result", "context", "title", "what_happened",
		"steps_to_reproduce", "api_request_output", "additional_context",
		"needs_more_exploration", "task_progress", "timeout", "input", "from_ref", "to_ref",
		"skill_name", "prompt_1", "prompt_2", "prompt_3", "prompt_4", "prompt_5", "start_line",
		"end_line",
	}
)

// The write_to_file rule: the reference re-reads its content between these two tags.
const (
	writeToFile     = "write_to_file"
	contentOpenTag  = "<content>"
	contentCloseTag = "</content>"
)

// nameInfo describes one known name.
type nameInfo struct {
	name  string // canonical copy, so blocks never pin the message for their names
	order int    // position in the reference's table; lower wins
	close string // "</name>"
}

// nameSet finds the opening tag of a known name ending at a '>'.
type nameSet struct {
	// back is the longest closing tag ("</name>"), which is also longer than every opening tag:
	// how far before a '>' the scanner may look.
	back int
	// plain holds names without '<': for them the tag can only start at the last '<' before
	// the '>', so one map lookup decides.
	plain          map[string]*nameInfo
	minLen, maxLen int
	// first marks the first bytes of plain names: most '>' in a message close no known tag,
	// and this rejects them without hashing.
	first [256]bool
	// odd holds names containing '<', which need a suffix comparison each.
	odd []oddName
}

type oddName struct {
	info *nameInfo
	open string
}

func newNameSet(builtin []string, extra []string) nameSet {
	ns := nameSet{plain: make(map[string]*nameInfo, len(builtin)+len(extra))}
	seen := make(map[string]bool, len(builtin)+len(extra))
	add := func(name string) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		info := &nameInfo{name: name, order: len(seen), close: "</" + name + ">"}
		ns.back = max(ns.back, len(info.close))
		if strings.IndexByte(name, '<') >= 0 {
			ns.odd = append(ns.odd, oddName{info: info, open: "<" + name + ">"})
			return
		}
		if len(ns.plain) == 0 || len(name) < ns.minLen {
			ns.minLen = len(name)
		}
		ns.plain[name] = info
		ns.maxLen = max(ns.maxLen, len(name))
		ns.first[name[0]] = true
	}
	for _, n := range builtin {
		add(n)
	}
	for _, n := range extra {
		add(ecma.Trim(n))
	}
	return ns
}

// openAt returns the name whose opening tag ends at msg[i] (a '>') and where that tag starts.
func (ns *nameSet) openAt(msg string, i int) (*nameInfo, int) {
	var best *nameInfo
	start := 0
	lo := max(0, i-ns.maxLen-1)
	if k := strings.LastIndexByte(msg[lo:i], '<'); k >= 0 {
		k += lo
		if name := msg[k+1 : i]; len(name) > 0 && len(name) >= ns.minLen && ns.first[name[0]] {
			if info, ok := ns.plain[name]; ok {
				best, start = info, k
			}
		}
	}
	for _, o := range ns.odd {
		if (best == nil || o.info.order < best.order) && strings.HasSuffix(msg[:i+1], o.open) {
			best, start = o.info, i+1-len(o.open)
		}
	}
	return best, start
}

// Parser parses messages with one fixed set of names. It is immutable after New, so one Parser
// may be used from many goroutines at once.
type Parser struct {
	tools, params nameSet
}

// New returns a Parser that knows the built-in names plus those of cfg.
func New(cfg Config) *Parser {
	return &Parser{
		tools:  newNameSet(builtinTools[:], cfg.ExtraToolNames),
		params: newNameSet(builtinParams[:], cfg.ExtraParamNames),
	}
}

// defaultParser serves the package-level Parse; it is never modified after initialisation.
var defaultParser = New(Config{})

// Parse returns the blocks of msg with the default Config. See Parser.Parse.
func Parse(msg string) []Block { return defaultParser.Parse(msg) }

// Parse returns the blocks of msg, equal to what parseAssistantMessageV2 returns for it. Only the
// last block can be partial. Text and values are slices of msg, not copies.
func (p *Parser) Parse(msg string) []Block {
	sc := scanner{p: p}
	sc.scan(msg)
	if b, ok := sc.open(msg); ok {
		sc.done = append(sc.done, b)
	}
	return sc.done
}

// Stream parses one message incrementally. It is not safe for concurrent use.
//
// A Stream holds little more than the text of its blocks once: complete blocks own copies of
// their text and values, and only the text from the start of the open block on is kept for
// scanning (with room to grow), so neither earlier text nor earlier generations of the buffer
// stay in memory.
type Stream struct {
	buf  strings.Builder // the message from sc.base on
	sc   scanner
	slot slotKey // what the last Blocks wrote after the complete blocks
}

// NewStream starts an empty stream for one assistant message.
func (p *Parser) NewStream() *Stream { return &Stream{sc: scanner{p: p, own: true}} }

// Append adds delta to the stream's text. Its cost is proportional to len(delta), plus, once per
// region, a walk of the region that just ended: the text before a tool use that opens, a param
// value that closes (both to trim them) and a tool use that closes. So a whole stream costs time
// linear in the message; complete blocks are never scanned again. A tag may be split across
// deltas, and so may a UTF-8 sequence.
func (s *Stream) Append(delta string) {
	if s.buf.Cap()-s.buf.Len() < len(delta) {
		s.regrow(len(delta))
	}
	s.buf.WriteString(delta)
	s.sc.scan(s.buf.String())
}

// minBuffer is the least capacity a Stream's buffer is given, so that a stream of short blocks
// and small deltas does not move its buffer every few deltas.
const minBuffer = 4 << 10

// regrow moves the text the scanner still reads into a new buffer with room for need more bytes
// and twice the kept text (doubling, so the text is copied a bounded number of times), dropping
// the text before it: complete blocks own their strings, so the old buffer is freed.
func (s *Stream) regrow(need int) {
	msg := s.buf.String()
	k := s.sc.keepFrom()
	keep := msg[k:]
	s.buf.Reset()
	s.buf.Grow(max(2*len(keep)+need, minBuffer))
	s.buf.WriteString(keep)
	s.sc.shift(k)
}

// Blocks returns Parse of everything appended so far, without copying: its cost grows with
// neither the length of the text nor the number of blocks.
//
// The result shares memory with the Stream. Its complete blocks never change and stay valid
// forever. A partial last block, including its Params and ParamSpans maps, stays valid only until
// the next call to Append or Blocks, which may overwrite it in place; copy it to keep it longer.
// The caller must not modify the result.
func (s *Stream) Blocks() []Block {
	msg := s.buf.String()
	n := len(s.sc.done)
	b, ok := s.sc.open(msg)
	if !ok {
		if n == 0 {
			return nil // as Parse returns for a message without blocks
		}
		return s.sc.done[:n:n]
	}
	// The partial block goes into the spare slot after the complete ones, where the next
	// complete block will go too; keeping the grown array avoids copying on every call. While
	// the same block stays open only its text and span change, and writing just those spares
	// copying the whole block, with a write barrier for each of its pointers, on every call.
	key := slotKey{n: n, start: b.Span.Start, text: b.Type == Text, maps: b.Params != nil}
	if s.slot == key && cap(s.sc.done) > n {
		d := s.sc.done[: n+1 : n+1]
		d[n].Span = b.Span
		if key.text {
			d[n].Content = b.Content
		}
		return d
	}
	s.slot = key
	s.sc.done = append(s.sc.done, b)[:n]
	return s.sc.done[: n+1 : n+1]
}

// slotKey names the partial block last written into the slot after the complete blocks: which
// slot, and the open block's start, kind and maps, the fields that never change while it stays
// open.
type slotKey struct {
	n, start   int
	text, maps bool
}

// Snapshot returns what Blocks returns, in a form that stays valid after later calls, for callers
// that keep results to compare them with later ones or hand them to other goroutines. When the
// last block is partial it costs a copy of the block headers and of that block's maps, never of
// the text; otherwise it costs nothing more than Blocks.
func (s *Stream) Snapshot() []Block {
	blocks := s.Blocks()
	n := len(blocks)
	if n == 0 || !blocks[n-1].Partial {
		return blocks
	}
	out := append([]Block(nil), blocks...)
	out[n-1].Params, out[n-1].ParamSpans = maps.Clone(out[n-1].Params), maps.Clone(out[n-1].ParamSpans)
	return out
}

type mode uint8

const (
	inText mode = iota
	inTool
	inParam
)

// scanner is the reference's state machine, resumable at any byte.
type scanner struct {
	p *Parser
	// msg[0] is byte base of the message: a Stream drops the text no scan reads again. Offsets
	// in the scanner are into msg; Spans add base.
	base int
	own  bool // complete blocks get copies of their strings, not slices of msg
	pos  int  // every '>' before pos has been handled
	mode mode
	done []Block // complete blocks, in order

	textStart int // where the current text region starts

	tool       *nameInfo
	toolStart  int // '<' of the opening tag
	innerStart int // just after the opening tag
	params     map[string]string
	spans      map[string]Span

	param      *nameInfo
	valueStart int

	tail tailTrim // trim state of the open text or param value
}

// keepFrom returns the offset in msg before which no later scan, open or close reads: the start
// of the open region less the longest tag, which the scanner may look back over.
func (sc *scanner) keepFrom() int {
	start := sc.textStart
	if sc.mode != inText {
		start = sc.toolStart
	}
	return max(0, min(start, sc.pos)-max(sc.p.tools.back, sc.p.params.back))
}

// shift records that the first k bytes of msg were dropped.
func (sc *scanner) shift(k int) {
	sc.base += k
	sc.pos -= k
	sc.textStart -= k
	sc.toolStart -= k
	sc.innerStart -= k
	sc.valueStart -= k
	sc.tail.start -= k
	sc.tail.lead -= k
	sc.tail.end -= k
	sc.tail.trimEnd -= k
}

// keep returns s as a complete block keeps it: a copy when the scanner owns its strings.
func (sc *scanner) keep(s string) string {
	if sc.own {
		return strings.Clone(s)
	}
	return s
}

// span returns the message Span of msg[start:end].
func (sc *scanner) span(start, end int) Span { return Span{sc.base + start, sc.base + end} }

// scan handles every '>' of msg from sc.pos on.
func (sc *scanner) scan(msg string) {
	for sc.pos < len(msg) {
		j := strings.IndexByte(msg[sc.pos:], '>')
		if j < 0 {
			sc.pos = len(msg)
			return
		}
		i := sc.pos + j
		sc.pos = i + 1
		sc.step(msg, i)
	}
}

// step runs the reference's checks for index i, where msg[i] is '>'.
func (sc *scanner) step(msg string, i int) {
	if sc.mode == inParam {
		start, ok := endsWith(msg, i, sc.param.close)
		if !ok {
			return
		}
		sc.setParam(sc.param.name, sc.valueStart, start, msg)
		sc.mode = inTool
		// The reference goes on with the tool-level checks at this same index.
	}
	if sc.mode == inTool {
		if info, _ := sc.p.params.openAt(msg, i); info != nil {
			sc.mode, sc.param, sc.valueStart = inParam, info, i+1
			return
		}
		if start, ok := endsWith(msg, i, sc.tool.close); ok {
			sc.closeTool(msg, start, i+1)
		}
		return
	}
	info, start := sc.p.tools.openAt(msg, i)
	if info == nil {
		return
	}
	if b, ok := sc.textBlock(msg, sc.textStart, start); ok {
		sc.done = append(sc.done, b)
	}
	sc.mode, sc.tool, sc.toolStart, sc.innerStart = inTool, info, start, i+1
}

// setParam records the value of a param that ends at end (a start past end, possible only with
// names holding '>', gives an empty value, as the reference's slice does).
func (sc *scanner) setParam(name string, start, end int, msg string) {
	end = max(start, end)
	sc.setValue(name, sc.keep(ecma.Trim(msg[start:end])), sc.span(start, end))
}

func (sc *scanner) setValue(name, value string, span Span) {
	if sc.params == nil {
		sc.params, sc.spans = make(map[string]string), make(map[string]Span)
	}
	sc.params[name] = value
	sc.spans[name] = span
}

// closeTool completes the tool use whose closing tag is msg[start:end].
func (sc *scanner) closeTool(msg string, start, end int) {
	if sc.tool.name == writeToFile && start > sc.innerStart {
		inner := msg[sc.innerStart:start]
		if cs := strings.Index(inner, contentOpenTag); cs >= 0 {
			if ce := strings.LastIndex(inner, contentCloseTag); ce > cs {
				sc.setParam("content", sc.innerStart+cs+len(contentOpenTag), sc.innerStart+ce, msg)
			}
		}
	}
	sc.done = append(sc.done, Block{
		Type: ToolUse, Name: sc.tool.name, Params: sc.params, ParamSpans: sc.spans,
		Span: sc.span(sc.toolStart, end),
	})
	sc.mode, sc.tool, sc.params, sc.spans, sc.textStart = inText, nil, nil, nil, end
}

// open returns the block still open at the end of msg, if any. An open param's value goes into
// the scanner's own maps: it is overwritten when the param closes, and if it never closes it is
// what the reference reports, so the maps can be handed out without copying.
func (sc *scanner) open(msg string) (Block, bool) {
	if sc.mode == inText {
		a, z := sc.tail.bounds(msg, sc.textStart)
		if a == z {
			return Block{}, false
		}
		return Block{Type: Text, Content: msg[a:z], Partial: true, Span: sc.span(a, z)}, true
	}
	if sc.mode == inParam {
		a, z := sc.tail.bounds(msg, sc.valueStart)
		sc.setValue(sc.param.name, msg[a:z], sc.span(sc.valueStart, len(msg)))
	}
	return Block{
		Type: ToolUse, Name: sc.tool.name, Params: sc.params, ParamSpans: sc.spans, Partial: true,
		Span: sc.span(sc.toolStart, len(msg)),
	}, true
}

// textBlock returns the complete text block for msg[start:end], or false when it trims to empty.
// A start past end yields nothing, as the reference's slice does.
func (sc *scanner) textBlock(msg string, start, end int) (Block, bool) {
	if start >= end {
		return Block{}, false
	}
	a, z := ecma.TrimBounds(msg[start:end])
	if a == z {
		return Block{}, false
	}
	return Block{Type: Text, Content: sc.keep(msg[start+a : start+z]), Span: sc.span(start+a, start+z)}, true
}

// endsWith reports whether tag ends at msg[i] and, if so, where it starts.
func endsWith(msg string, i int, tag string) (int, bool) {
	start := i + 1 - len(tag)
	return start, start >= 0 && msg[start:i+1] == tag
}
