// Package parse splits an assistant message into text and tool-use blocks exactly as Cline's
// parseAssistantMessageV2 does, both in one call (Parse) and incrementally over a stream (Stream).
package parse

// BlockType says what a Block holds.
type BlockType string

// The two kinds of block.
const (
	Text    BlockType = "text"
	ToolUse BlockType = "tool_use"
)

// Span is a half-open byte range [Start, End) of the message.
type Span struct{ Start, End int }

// Block is one piece of a parsed message.
type Block struct {
	Type       BlockType         `json:"type"`
	Content    string            `json:"content,omitempty"`
	Name       string            `json:"name,omitempty"`
	Params     map[string]string `json:"params,omitempty"`
	Partial    bool              `json:"partial,omitempty"`
	Span       Span              `json:"-"`
	ParamSpans map[string]Span   `json:"-"`
}

// Config adds names to the built-in tool and param sets.
type Config struct{ ExtraToolNames, ExtraParamNames []string }

// Parser parses messages with one fixed set of names.
type Parser struct{}

// New returns a Parser for cfg.
func New(cfg Config) *Parser { return &Parser{} }

// Parse returns the blocks of msg.
func (p *Parser) Parse(msg string) []Block { return nil }

// Stream parses one message incrementally.
type Stream struct{}

// NewStream starts a stream.
func (p *Parser) NewStream() *Stream { return &Stream{} }

// Append adds delta to the stream's text.
func (s *Stream) Append(delta string) {}

// Blocks returns Parse of everything appended so far.
func (s *Stream) Blocks() []Block { return nil }

// Parse returns the blocks of msg with the default Config.
func Parse(msg string) []Block { return New(Config{}).Parse(msg) }
