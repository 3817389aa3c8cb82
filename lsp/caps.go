package lsp

import (
	"path/filepath"
	"slices"

	"github.com/assistant-ls/assistant-ls/lsp/ext"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// clientCaps is what the server adapts to, read once from the client's initialize params.
type clientCaps struct {
	ApplyEdit        bool                          // workspace.applyEdit
	DocumentChanges  bool                          // workspace.workspaceEdit.documentChanges
	CreateFile       bool                          // "create" in workspace.workspaceEdit.resourceOperations
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

// workspaceFolders returns the folder paths of the session: workspaceFolders, else rootUri,
// else rootPath, cleaned but with symbolic links kept as the client wrote them. Paths under a
// folder are built from these, so they name documents as the editor has them open; the
// containment check of resolvePath follows the links itself.
func workspaceFolders(p *protocol.InitializeParams) []string {
	//lint:ignore SA1019 clients such as Neovim 0.7 still name their folder with rootUri only
	rootURI := p.RootURI
	//lint:ignore SA1019 the oldest clients name their folder with rootPath only
	rootPath, hasRootPath := p.RootPath.Get()
	var paths []string
	if folders, ok := p.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		for _, f := range folders {
			paths = append(paths, uriPath(f.URI))
		}
	} else if rootURI != nil && *rootURI != "" {
		paths = append(paths, uriPath(*rootURI))
	} else if hasRootPath && rootPath != "" {
		paths = append(paths, rootPath)
	}
	out := paths[:0]
	for _, f := range paths {
		if f == "" {
			continue
		}
		out = append(out, filepath.Clean(f))
	}
	return out
}

// uriPath returns the file path of a file URI, or "" for other schemes.
func uriPath(u uri.URI) string {
	if u.Scheme() != "file" {
		return ""
	}
	return u.FsPath()
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
