package lspclient

import (
	"os"
	"path/filepath"

	"go.lsp.dev/uri"
)

// Profile names an editor whose capabilities and habits the client copies. The zero Profile
// has no habits; its initialize params are the caller's.
type Profile string

// The editors the client plays.
const (
	// VSCode offers utf-16 only, documentChanges with the create/rename/delete resource
	// operations, change annotations, workspace/configuration and work-done progress.
	VSCode Profile = "vscode"
	// Helix offers utf-8 first, documentChanges and resource operations, no annotations.
	Helix Profile = "helix"
	// Neovim07 offers utf-16 only and applyEdit without documentChanges, names its folder by
	// rootUri and rootPath, and answers workspace/applyEdit before it sends the didChange.
	Neovim07 Profile = "neovim-0.7"
)

// Profiles lists the editor profiles, for table tests.
var Profiles = []Profile{VSCode, Helix, Neovim07}

// InitializeParams returns the initialize params the profile's editor sends for the workspace
// folder root; initOptions, when not nil, is their initializationOptions. The zero Profile gets
// no capabilities.
func (p Profile) InitializeParams(root string, initOptions any) map[string]any {
	rootURI := string(uri.File(root))
	folders := []map[string]any{{"uri": rootURI, "name": filepath.Base(root)}}
	params := map[string]any{"processId": os.Getpid(), "rootUri": rootURI}
	if initOptions != nil {
		params["initializationOptions"] = initOptions
	}
	switch p {
	case VSCode:
		params["clientInfo"] = map[string]any{"name": "Visual Studio Code", "version": "1.95.0"}
		params["workspaceFolders"] = folders
		params["capabilities"] = map[string]any{
			"workspace": map[string]any{
				"applyEdit": true,
				"workspaceEdit": map[string]any{
					"documentChanges":         true,
					"resourceOperations":      []string{"create", "rename", "delete"},
					"failureHandling":         "textOnlyTransactional",
					"normalizesLineEndings":   true,
					"changeAnnotationSupport": map[string]any{"groupsOnLabel": true},
				},
				"configuration":    true,
				"workspaceFolders": true,
			},
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"textDocument": map[string]any{
				"codeAction": map[string]any{
					"dataSupport": true, "isPreferredSupport": true, "disabledSupport": true, "honorsChangeAnnotations": true,
					"resolveSupport": map[string]any{"properties": []string{"edit"}},
				},
				"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": false},
			},
		}
	case Helix:
		params["clientInfo"] = map[string]any{"name": "helix", "version": "24.7"}
		params["workspaceFolders"] = folders
		params["capabilities"] = map[string]any{
			"workspace": map[string]any{
				"applyEdit": true,
				"workspaceEdit": map[string]any{
					"documentChanges":    true,
					"resourceOperations": []string{"create", "rename", "delete"},
					"failureHandling":    "abort",
				},
				"workspaceFolders": true,
			},
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-32", "utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"textDocument": map[string]any{
				"codeAction": map[string]any{
					"dataSupport": true, "isPreferredSupport": true, "disabledSupport": true,
					"resolveSupport": map[string]any{"properties": []string{"edit", "command"}},
				},
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
		}
	case Neovim07:
		params["clientInfo"] = map[string]any{"name": "Neovim", "version": "0.7.2"}
		params["rootPath"] = root
		params["workspaceFolders"] = nil
		params["capabilities"] = map[string]any{
			"workspace": map[string]any{
				"applyEdit":     true,
				"workspaceEdit": map[string]any{"resourceOperations": []string{"rename", "create", "delete"}},
				"configuration": true,
			},
			"window": map[string]any{"workDoneProgress": true},
			"textDocument": map[string]any{
				"codeAction": map[string]any{"dataSupport": true, "resolveSupport": map[string]any{"properties": []string{"edit"}}},
			},
		}
	default:
		params["capabilities"] = map[string]any{}
	}
	return params
}

// answersBeforeChange reports whether the editor answers workspace/applyEdit first and sends
// its didChange on a timer, as Neovim 0.7 does. Such an editor loads a file it has not open
// before it edits it, and the buffer's didOpen, with the file's old text, goes out before the
// answer.
func (p Profile) answersBeforeChange() bool { return p == Neovim07 }
