package lsp

import (
	"context"
	"encoding/json"

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
	URI            uri.URI             `json:"uri"`
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
	Final   bool   // the stream has ended (assistant/parse final)
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
	Docs     *documents
	Blocks   blockSource
	Settings func() settings
	// Changed is called, without locks held, when the EditState of a block changed, so the
	// server pushes it to the client.
	Changed func(stream string, index int)
	Log     *zap.Logger
}

// editor runs the edit pipeline: it computes, sends, verifies and tracks the edits of
// file-editing tool uses (protocol sections 4 to 6).
type editor struct{ deps editorDeps }

// newEditor returns an edit pipeline.
func newEditor(deps editorDeps) *editor { return &editor{deps: deps} }

// update is called each time a replace_in_file or write_to_file block of a stream was created or
// changed. It returns at once; slow work (applyEdit round trips) runs in the background.
func (e *editor) update(stream string, index int, sb streamBlock) {}

// state returns the current EditState of a block, or nil when it has none.
func (e *editor) state(stream string, index int) *EditState { return nil }

// forget drops every edit of a stream that was closed or evicted.
func (e *editor) forget(stream string) {}

// handleApply serves assistant/apply (send true) and assistant/resolveEdit (send false).
func (e *editor) handleApply(ctx context.Context, params json.RawMessage, send bool) (any, error) {
	return nil, nil
}

// executeCommand serves workspace/executeCommand for assistant.apply and assistant.applyAll.
func (e *editor) executeCommand(ctx context.Context, command string, args []json.RawMessage) (any, error) {
	return nil, nil
}
