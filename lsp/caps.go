package lsp

import "go.lsp.dev/protocol"

// clientCaps is what the server adapts to, read once from the client's initialize params.
type clientCaps struct {
	ApplyEdit        bool                          // workspace.applyEdit
	DocumentChanges  bool                          // workspace.workspaceEdit.documentChanges
	CreateFile       bool                          // "create" in workspace.workspaceEdit.resourceOperations
	Annotations      bool                          // workspace.workspaceEdit.changeAnnotationSupport present
	WorkDoneProgress bool                          // window.workDoneProgress
	Encoding         protocol.PositionEncodingKind // negotiated position encoding
}
