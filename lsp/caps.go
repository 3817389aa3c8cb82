package lsp

import (
	"slices"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// clientCaps is what the server adapts to, read once from the client's initialize params.
type clientCaps struct {
	ApplyEdit        bool                          // workspace.applyEdit
	DocumentChanges  bool                          // workspace.workspaceEdit.documentChanges
	CreateFile       bool                          // "create" in workspace.workspaceEdit.resourceOperations
	RenameFile       bool                          // "rename" in it
	DeleteFile       bool                          // "delete" in it
	Annotations      bool                          // workspace.workspaceEdit.changeAnnotationSupport present
	WorkDoneProgress bool                          // window.workDoneProgress
	Encoding         protocol.PositionEncodingKind // negotiated position encoding

	// ResolveCodeAction is set when textDocument.codeAction.resolveSupport is present, and
	// ResolveCodeActionEdit when its properties include "edit".
	ResolveCodeAction, ResolveCodeActionEdit bool
}

// readClientCaps extracts what the server adapts to. Absent capabilities are false, as the
// LSP specification says.
func readClientCaps(c protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if ws := c.Workspace; ws != nil {
		caps.ApplyEdit = ws.ApplyEdit != nil && *ws.ApplyEdit
		if we := ws.WorkspaceEdit; we != nil {
			caps.DocumentChanges = we.DocumentChanges != nil && *we.DocumentChanges
			caps.CreateFile = slices.Contains(we.ResourceOperations, protocol.ResourceOperationKindCreate)
			caps.RenameFile = slices.Contains(we.ResourceOperations, protocol.ResourceOperationKindRename)
			caps.DeleteFile = slices.Contains(we.ResourceOperations, protocol.ResourceOperationKindDelete)
			caps.Annotations = we.ChangeAnnotationSupport != nil
		}
	}
	if td := c.TextDocument; td != nil && td.CodeAction != nil && td.CodeAction.ResolveSupport.Properties != nil {
		caps.ResolveCodeAction = true
		caps.ResolveCodeActionEdit = slices.Contains(td.CodeAction.ResolveSupport.Properties, "edit")
	}
	if w := c.Window; w != nil {
		caps.WorkDoneProgress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
	}
	caps.Encoding = protocol.PositionEncodingKindUTF16
	if g := c.General; g != nil && slices.Contains(g.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		// utf-8 spares every conversion: offsets into the text are already utf-8 columns.
		caps.Encoding = protocol.PositionEncodingKindUTF8
	}
	return caps
}

// workspaceFolders returns the folders the client names, as it wrote them, for
// paths.NewWorkspace to validate: the URIs of workspaceFolders, else rootUri, else rootPath.
func workspaceFolders(p *protocol.InitializeParams) []string {
	//lint:ignore SA1019 clients such as Neovim 0.7 still name their folder with rootUri only
	rootURI := p.RootURI
	//lint:ignore SA1019 the oldest clients name their folder with rootPath only
	rootPath, hasRootPath := p.RootPath.Get()
	if folders, ok := p.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		out := make([]string, 0, len(folders))
		for _, f := range folders {
			out = append(out, string(f.URI))
		}
		return out
	}
	if rootURI != nil && *rootURI != "" {
		return []string{string(*rootURI)}
	}
	if hasRootPath && rootPath != "" {
		return []string{rootPath}
	}
	return nil
}

// serverCapabilities is the initialize answer for a client with caps. Code actions resolve
// where the client resolves them (their edit, for clients that preview it).
func serverCapabilities(caps clientCaps) protocol.ServerCapabilities {
	openClose := true
	change := protocol.TextDocumentSyncKindIncremental
	resolve := caps.ResolveCodeAction
	return protocol.ServerCapabilities{
		PositionEncoding: caps.Encoding,
		TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &openClose, Change: &change},
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{
			Commands: ext.Commands,
		},
		CodeActionProvider: &protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix},
			ResolveProvider: &resolve,
		},
		CodeLensProvider:       &protocol.CodeLensOptions{},
		DocumentSymbolProvider: protocol.Boolean(true),
		Experimental:           protocol.LSPAny(`{"assistant":{"version":1}}`),
	}
}

// errNotInitialized answers requests that arrive before initialize.
var errNotInitialized = jsonrpc2.NewError(jsonrpc2.ServerNotInitialized,
	"the server is not initialized: send initialize first")
