package lsp

import "github.com/assistant-ls/assistant-ls/apply"

// config is the server's configuration (protocol section 2).
type config struct {
	ToolNames             []string
	ParamNames            []string
	DiffVersion           apply.Version
	ContentFixes          string // "auto", "always" or "never"
	AutoApply             bool
	Confirm               bool
	Preview               bool
	AllowOutsideWorkspace bool
	ResponseDocuments     []string
}

// defaultConfig returns the documented defaults.
func defaultConfig() config {
	return config{
		DiffVersion:       apply.V1,
		ContentFixes:      "auto",
		AutoApply:         true,
		Confirm:           true,
		ResponseDocuments: []string{"**/*.assistant.md"},
	}
}
