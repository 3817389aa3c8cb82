// Package ext declares the assistant-ls extensions to LSP: every custom method, command and
// capability, with the Go type of its params and result, in one place. The server, the demo's
// editor and the tests all use these types, and docs/protocol.md is checked against the method
// and command lists here, so the three cannot drift apart.
//
// The JSON shapes are those of the contract (shared/spec/protocol.md); field comments give the
// rules a client can rely on.
package ext

import (
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Methods of the assistant-ls extension, client to server unless noted.
const (
	// MethodParse (notification or request; params ParseParams, result ParseResult) feeds a
	// stream.
	MethodParse = "assistant/parse"
	// MethodClose (notification; params CloseParams) drops a stream.
	MethodClose = "assistant/close"
	// MethodApply (request; params ApplyParams, result ApplyResult) computes an edit against the
	// current content and sends workspace/applyEdit.
	MethodApply = "assistant/apply"
	// MethodResolveEdit (request; params ApplyParams, result ApplyResult) computes an edit
	// without sending it.
	MethodResolveEdit = "assistant/resolveEdit"
	// MethodBlocks (server to client notification; params BlocksParams) reports changed blocks.
	MethodBlocks = "assistant/blocks"
	// MethodPreview (server to client notification; params PreviewParams) shows what a
	// streaming file edit would do so far; sent only with the preview setting.
	MethodPreview = "assistant/preview"
)

// Methods lists every method of the extension, for documentation checks.
var Methods = []string{MethodParse, MethodClose, MethodApply, MethodResolveEdit, MethodBlocks, MethodPreview}

// Commands served through workspace/executeCommand.
const (
	// CommandApply takes one ApplyParams argument ({stream, index} or {uri, index}) and returns
	// CommandResult.
	CommandApply = "assistant.apply"
	// CommandApplyAll takes one ApplyParams argument ({stream} or {uri}) and returns
	// ApplyAllResult.
	CommandApplyAll = "assistant.applyAll"
	// CommandAcceptHunk takes one HunkParams argument ({stream, index, hunk} or {uri, index,
	// hunk}) and sends the hunk of a held edit alone (section 7a); it returns CommandResult.
	CommandAcceptHunk = "assistant.acceptHunk"
	// CommandRejectHunk takes one HunkParams argument and drops the hunk; it returns
	// CommandResult.
	CommandRejectHunk = "assistant.rejectHunk"
	// CommandAcceptAll takes one HunkParams argument without hunk and sends every pending hunk
	// of the held edit in one workspace/applyEdit; it returns CommandResult.
	CommandAcceptAll = "assistant.acceptAll"
	// CommandRejectAll takes one HunkParams argument without hunk and drops every pending hunk;
	// it returns CommandResult.
	CommandRejectAll = "assistant.rejectAll"
)

// Commands lists every command the server executes, in the order it advertises them.
var Commands = []string{CommandApply, CommandApplyAll, CommandAcceptHunk, CommandRejectHunk, CommandAcceptAll, CommandRejectAll}

// Diagnostic codes and source of the review features (section 7). Every diagnostic the server
// publishes has DiagnosticSource as its source and one of these codes, so a client can tell
// them apart from a language's own diagnostics.
const (
	DiagnosticSource = "assistant-ls"
	// CodePending marks a hunk of an edit held for review (Information).
	CodePending = "assistant.pending"
	// CodeNoMatch marks a SEARCH section of a response document that matches nothing (Error).
	CodeNoMatch = "assistant.noMatch"
	// CodeFallback marks a section matched only through a fallback tier (Hint).
	CodeFallback = "assistant.fallback"
	// CodeRefused marks a path the edit may not touch, or a target that cannot be read (Error).
	CodeRefused = "assistant.refused"
	// CodeApplied marks an edit that is already in place (Information).
	CodeApplied = "assistant.applied"
)

// ExperimentalKey is the key of the server's experimental capability: clients detect
// assistant-ls by `experimental.assistant`, whose value is Capability.
const ExperimentalKey = "assistant"

// Capability is the value of the experimental capability.
type Capability struct {
	Version int `json:"version"`
}

// ProtocolVersion is the version announced in Capability.
const ProtocolVersion = 1

// ParseParams are the params of assistant/parse. Delta and Text are exclusive; a nil pointer
// means the field was absent. Event goes without Delta, Text and ToolCall (Final may come with
// it, applied after the event).
type ParseParams struct {
	Stream   string    `json:"stream"`
	Delta    *string   `json:"delta,omitzero"`
	Text     *string   `json:"text,omitzero"`
	Final    bool      `json:"final,omitzero"`
	ToolCall *ToolCall `json:"toolCall,omitzero"`
	// Event is one event of the provider's stream exactly as the provider sent it: the JSON of
	// one server-sent event's data line, as an object or as a string holding that JSON.
	Event json.RawMessage `json:"event,omitzero"`
	// Provider names the shape of the stream's events (openai-chat, openai-responses,
	// anthropic, gemini, bedrock, cohere); empty, it is recognised from the first event.
	Provider string `json:"provider,omitzero"`
	Cwd      string `json:"cwd,omitzero"`
	ModelID  string `json:"modelId,omitzero"`
}

// ToolCall is one delta of a native tool call (the provider's function calling). The first
// delta of an ID carries Name; Arguments are raw fragments of the call's JSON arguments.
type ToolCall struct {
	ID        string  `json:"id"`
	Name      string  `json:"name,omitzero"`
	Arguments *string `json:"arguments,omitzero"`
	Done      bool    `json:"done,omitzero"`
}

// CloseParams are the params of assistant/close.
type CloseParams struct {
	Stream string `json:"stream"`
}

// BlockType is the type of a Block.
type BlockType string

// Block types.
const (
	BlockText    BlockType = "text"
	BlockToolUse BlockType = "tool_use"
)

// Block is one block of a stream as the client sees it. ID is "<stream>#<index>" and stays the
// same across pushes. Content is set on text blocks (never nil there); Name and Params on tool
// uses; CallID and Input on native tool calls; Edit on file-editing tool uses.
type Block struct {
	Index   int               `json:"index"`
	ID      string            `json:"id"`
	Type    BlockType         `json:"type"`
	Partial bool              `json:"partial"`
	Content *string           `json:"content,omitzero"`
	Name    string            `json:"name,omitzero"`
	Params  map[string]string `json:"params,omitzero"`
	CallID  string            `json:"callId,omitzero"`
	Input   map[string]any    `json:"input,omitzero"`
	Edit    *EditState        `json:"edit,omitzero"`
}

// BlocksParams are the params of assistant/blocks: Blocks replace the client's blocks from
// index From on. Once Final is true, every later push of the stream carries it too.
type BlocksParams struct {
	Stream string  `json:"stream"`
	From   int     `json:"from"`
	Blocks []Block `json:"blocks"`
	Final  bool    `json:"final"`
}

// ParseResult is the result of assistant/parse sent as a request: every block of the stream.
type ParseResult struct {
	Stream string  `json:"stream"`
	Blocks []Block `json:"blocks"`
	Final  bool    `json:"final"`
}

// EditStatus is the lifecycle state of a file edit.
type EditStatus string

// Edit statuses (contract section 3).
const (
	// StatusStreaming: the tool use is still partial.
	StatusStreaming EditStatus = "streaming"
	// StatusReady: the final edit is computed and not sent (autoApply off, or held for review).
	StatusReady EditStatus = "ready"
	// StatusApplying: workspace/applyEdit was sent and its outcome is not known yet.
	StatusApplying EditStatus = "applying"
	// StatusApplied: the document holds the edit.
	StatusApplied EditStatus = "applied"
	// StatusRejected: the client or the user said no; Error holds the reason.
	StatusRejected EditStatus = "rejected"
	// StatusFailed: the edit could not be computed or did not land; Error says why.
	StatusFailed EditStatus = "failed"
	// StatusRefused: the path is not allowed (outside the workspace, in .git, …).
	StatusRefused EditStatus = "refused"
	// StatusPartial: some hunks of a held edit were decided, others not, or with a mix.
	StatusPartial EditStatus = "partial"
)

// Terminal reports whether s is an outcome no later step of the same edit changes by itself.
func (s EditStatus) Terminal() bool {
	switch s {
	case StatusApplied, StatusRejected, StatusFailed, StatusRefused:
		return true
	}
	return false
}

// EditState is the edit field of a file-editing block. URI is absent until the target path is
// complete. MatchPositions are the starts of the matched sections in the document as it was
// before the edit, in the negotiated encoding.
type EditState struct {
	URI            uri.URI             `json:"uri,omitzero"`
	Status         EditStatus          `json:"status"`
	Error          string              `json:"error,omitempty"`
	MatchPositions []protocol.Position `json:"matchPositions,omitempty"`
	// Files lists every file of an edit that touches several (a V4A patch); URI is then the
	// first one's.
	Files []FileState `json:"files,omitempty"`
	// Tiers says how each section or hunk was located, in order.
	Tiers []string `json:"tiers,omitempty"`
	// ToolResult is the text an agent sends back to the model as the tool call's result.
	ToolResult string `json:"toolResult,omitempty"`
	// Hunks are the hunks of an edit held for review.
	Hunks []HunkState `json:"hunks,omitempty"`
}

// FileState is the state of one file of a multi-file edit.
type FileState struct {
	URI    uri.URI    `json:"uri"`
	Status EditStatus `json:"status"`
}

// HunkStatus is the review state of one hunk of a held edit.
type HunkStatus string

// Hunk statuses (contract section 7a).
const (
	HunkPending  HunkStatus = "pending"
	HunkAccepted HunkStatus = "accepted"
	HunkRejected HunkStatus = "rejected"
	HunkStale    HunkStatus = "stale"
)

// HunkState is one hunk of a held edit, Range in the current document.
type HunkState struct {
	Range  protocol.Range `json:"range"`
	Status HunkStatus     `json:"status"`
}

// PreviewParams are the params of assistant/preview. Final is always false: the complete edit
// is reported by its EditState.
type PreviewParams struct {
	Stream         string              `json:"stream"`
	Index          int                 `json:"index"`
	URI            uri.URI             `json:"uri"`
	NewContent     string              `json:"newContent"`
	MatchPositions []protocol.Position `json:"matchPositions"`
	Final          bool                `json:"final"`
}

// ApplyParams are the params of assistant/apply and assistant/resolveEdit, and the argument of
// the assistant.apply and assistant.applyAll commands. The forms: {stream, index}, {uri, diff},
// {uri, content} (ModelID selects content fixes), {uri, index} and {uri} for response
// documents, {stream} for applyAll. A nil pointer means the field was absent.
type ApplyParams struct {
	Stream *string `json:"stream,omitempty"`
	Index  *int    `json:"index,omitempty"`
	// Section (1-based) with {uri, index} applies one SEARCH section of a response document's
	// block alone.
	Section *int    `json:"section,omitempty"`
	URI     *string `json:"uri,omitempty"`
	Diff    *string `json:"diff,omitempty"`
	Content *string `json:"content,omitempty"`
	ModelID string  `json:"modelId,omitempty"`
}

// HunkParams are the argument of the hunk commands: {stream, index} names a held edit of a
// stream, {uri, index} one of a response document ({uri, index, section}: of one of its
// sections); Hunk is the 0-based index of the hunk in
// EditState.Hunks (absent for acceptAll and rejectAll).
type HunkParams struct {
	Stream *string `json:"stream,omitzero"`
	URI    *string `json:"uri,omitzero"`
	Index  *int    `json:"index"`
	// Section names, with uri, the edit of one SEARCH section applied alone.
	Section *int `json:"section,omitzero"`
	Hunk    *int `json:"hunk,omitzero"`
}

// ApplyResult is the result of assistant/apply and assistant/resolveEdit: Edit is the
// WorkspaceEdit sent (or that would be sent).
type ApplyResult struct {
	Status EditStatus             `json:"status"`
	Error  string                 `json:"error,omitempty"`
	URI    uri.URI                `json:"uri"`
	Edit   protocol.WorkspaceEdit `json:"edit"`
}

// CommandResult is the result of the assistant.apply command.
type CommandResult struct {
	Status EditStatus `json:"status"`
	Error  string     `json:"error,omitempty"`
	URI    uri.URI    `json:"uri"`
}

// ApplyAllItem is one block's entry in ApplyAllResult.
type ApplyAllItem struct {
	Index  int        `json:"index"`
	Status EditStatus `json:"status"`
	Error  string     `json:"error,omitempty"`
	URI    uri.URI    `json:"uri"`
}

// ApplyAllResult is the result of assistant.applyAll. Failed counts every block that did not
// end applied.
type ApplyAllResult struct {
	Applied int            `json:"applied"`
	Failed  int            `json:"failed"`
	Results []ApplyAllItem `json:"results"`
}
