package lsp

import (
	"fmt"
	"path/filepath"

	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/parse"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// This file offers the analysis of response documents (section 7b) without a session, for the
// command line: the same diagnostics an editor gets, against the files on disk.

// Finding is one diagnostic of a response document. Line and Column are 1-based, the column
// counted in bytes, as compilers print them.
type Finding struct {
	Line, Column int
	// Severity is "error", "warning", "information" or "hint".
	Severity string
	Message  string
	// Notes point at related places, such as the nearest region of a target.
	Notes []Note
}

// Note is a place related to a Finding: a file path, a 1-based line and what it is.
type Note struct {
	Path    string
	Line    int
	Message string
}

// CheckResponse analyses text, the content of the response document at path, as one final
// assistant message whose relative paths resolve against folder, with the default settings, and
// returns its findings in document order. A finding of severity "error" is an edit that would
// not apply.
func CheckResponse(folder, path, text string) ([]Finding, error) {
	absFolder, err := filepath.Abs(folder)
	if err != nil {
		return nil, fmt.Errorf("resolve the folder %s: %w", folder, err)
	}
	absPath, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve the path %s: %w", path, err)
	}
	cfg := defaultConfig()
	ws, _ := paths.NewWorkspace([]string{absFolder})
	s := settings{Config: cfg, Caps: clientCaps{Encoding: protocol.PositionEncodingKindUTF8}, Workspace: ws}
	ed := newEditor(editorDeps{Docs: docs.New(), Settings: func() settings { return s }})
	defer ed.shutdown()
	pr := parseResponse(parse.New(cfg.parseConfig()), text)
	ds, _ := analyseResponse(ed, uri.File(absPath), pr, absFolder, s, protocol.PositionEncodingKindUTF8)
	out := make([]Finding, 0, len(ds))
	for _, d := range ds {
		msg, _ := d.Message.(protocol.String)
		f := Finding{Line: int(d.Range.Start.Line) + 1, Column: int(d.Range.Start.Character) + 1, Severity: severityName(d.Severity), Message: string(msg)}
		for _, r := range d.RelatedInformation {
			f.Notes = append(f.Notes, Note{Path: uriPath(r.Location.URI), Line: int(r.Location.Range.Start.Line) + 1, Message: r.Message})
		}
		out = append(out, f)
	}
	return out, nil
}

// severityName is the word compilers print for sev.
func severityName(sev protocol.DiagnosticSeverity) string {
	switch sev {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "information"
	default:
		return "hint"
	}
}
