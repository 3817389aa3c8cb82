package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/assistant-ls/assistant-ls/lsp/internal/paths"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/textformat"
	"github.com/assistant-ls/assistant-ls/turn"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// This file runs edits without a session, for the command line (section 8: patch and tool): the
// input goes through the stream's own parser (turn) and tool set, each edit block through the
// pipeline's request, path rules and plan, and its tool result is worded as the server words
// it; only the contents come from the caller instead of the editor, and nothing is sent. The
// edits of one input apply in order, each to the result of the ones before it, as the document
// queue runs them.

// FileReader reads the file at rel, a "/"-separated path relative to the folder: its content, or
// exists false when there is no such file. An error is a file that exists but cannot be read.
type FileReader func(rel string) (content string, exists bool, err error)

// FileChange is what an edit does to one file. Before is the content it had (nil: it did not
// exist), After the content it gets (nil: it is deleted); MovedFrom names the file whose content
// moved here ("" for none). Path and MovedFrom are relative to the folder, "/"-separated.
type FileChange struct {
	Path      string
	Before    *string
	After     *string
	MovedFrom string
}

// Outcome is what an edit does to a folder. OK reports that every edit of the input applies;
// Changes are then the files whose content or existence changes, in the order the edits first
// named them (none when OK is false: an input applies whole or not at all). Format names what
// was recognised ("v4a", "udiff", "aider", "cline", or the tool called). ToolResult is the text
// the server would give the model (EditState.toolResult), one paragraph per edit; Error the
// reason when OK is false.
type Outcome struct {
	OK         bool
	Format     string
	Changes    []FileChange
	ToolResult string
	Error      string
}

// PatchFormats are the formats PatchFolder takes: "auto" recognises any of the others in the
// text; "cline" is Cline's XML tool uses.
var PatchFormats = []string{"auto", string(textformat.V4A), string(textformat.UDiff), string(textformat.Aider), formatCline}

// PatchFolder applies the edits in text, of format (one of PatchFormats), to the files of folder
// as the server applies them with the default settings. "v4a" takes text as apply_patch's input
// (unwrapped from a fence, heredoc or prose as apply_patch does); "udiff" and "aider" take it as
// one text block of that format; "cline" and "auto" read it as one final assistant message, its
// text blocks with every text format recognised under "auto". An error is bad usage (a format
// or folder that cannot be used); an edit that does not apply is an Outcome that is not OK.
func PatchFolder(folder, text, format string, read FileReader) (Outcome, error) {
	cfg := defaultConfig()
	var blocks []turn.Block
	switch format {
	case string(textformat.V4A):
		blocks = []turn.Block{{Block: parse.Block{Type: parse.ToolUse, Name: toolPatch, Params: map[string]string{"input": text}}}}
	case string(textformat.UDiff), string(textformat.Aider):
		cfg.TextFormats = []string{format}
		blocks = []turn.Block{{Block: parse.Block{Type: parse.Text, Content: text}}}
	case formatCline, "auto":
		if format == "auto" {
			cfg.TextFormats = append([]string{formatCline}, allTextFormats...)
		}
		ts := turn.New(parse.New(cfg.parseConfig()))
		if err := ts.Apply(turn.Delta{Text: text, Final: true}); err != nil {
			return Outcome{}, fmt.Errorf("read the input: %w", err)
		}
		blocks = ts.Blocks()
	default:
		return Outcome{}, fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(PatchFormats, ", "))
	}
	o, err := newOffline(folder, cfg, read)
	if err != nil {
		return Outcome{}, err
	}
	tools := newToolSet(cfg.tools, cfg.TextFormats)
	var edits []streamBlock
	for _, b := range blocks {
		if tool := tools.lookup(b.Block); tool != nil {
			edits = append(edits, editBlock(b, tool, o.folder, ""))
		}
	}
	if len(edits) == 0 {
		return Outcome{Format: format, Error: fmt.Sprintf("no edit found: the input holds no %s edit; check its markers, or give --format", formatWords(format))}, nil
	}
	return o.run(edits), nil
}

// formatWords names format for a message.
func formatWords(format string) string {
	switch format {
	case "auto":
		return "V4A, unified diff, Aider or Cline"
	case formatCline:
		return "Cline tool use (replace_in_file, write_to_file)"
	}
	return format
}

// ToolFolder runs one call of the edit tool name with input, a JSON object of its arguments, on
// the files of folder, as the server runs a native tool call of it: every tool of contract
// section 4b, and the editTools aliases of settings (a JSON settings object as
// initializationOptions gives it; nil for the defaults). An error is bad usage (an unknown tool,
// arguments that are not a JSON object, a bad setting); an edit that does not apply is an
// Outcome that is not OK.
func ToolFolder(folder, name, input string, settings []byte, read FileReader) (Outcome, error) {
	cfg := defaultConfig()
	if settings != nil {
		next, warnings, _ := applySettings(cfg, settings)
		if len(warnings) > 0 {
			msgs := make([]string, len(warnings))
			for i, w := range warnings {
				msgs[i] = fmt.Sprintf("setting %q: %s", w.Key, w.Reason)
			}
			return Outcome{}, errors.New("bad settings: " + strings.Join(msgs, "; "))
		}
		cfg = next
	}
	tools := newToolSet(cfg.tools, nil)
	tool := tools.byName[name]
	if tool == nil {
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range tools.byName {
				if !yield(n) {
					return
				}
			}
		})
		return Outcome{}, fmt.Errorf("%q is not an edit tool: use one of %s", name, strings.Join(names, ", "))
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(input), &obj); err != nil || obj == nil {
		return Outcome{}, fmt.Errorf("the input of %s must be a JSON object of its arguments: %v", name, errOr(err, "got null"))
	}
	ts := turn.New(parse.New(cfg.parseConfig()))
	if err := ts.Apply(turn.Delta{ToolCall: &turn.ToolCallDelta{ID: "cli", Name: name, Arguments: input, Done: true}, Final: true}); err != nil {
		return Outcome{}, err
	}
	o, err := newOffline(folder, cfg, read)
	if err != nil {
		return Outcome{}, err
	}
	out := o.run([]streamBlock{editBlock(ts.Blocks()[0], tool, o.folder, "")})
	out.Format = name
	return out, nil
}

// errOr is err's message, or msg when err is nil.
func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// offline is one run of edits against a folder's files, kept in memory.
type offline struct {
	folder string
	s      settings
	read   FileReader
	files  map[uri.URI]*offlineFile
	order  []uri.URI
}

// offlineFile is a file the edits named: its content on disk and as the edits so far leave it.
type offlineFile struct {
	rel       string
	orig, cur snapshot
	movedFrom string
}

// newOffline returns a run against folder under cfg, with the path rules of section 5 (the
// folder is the one workspace folder and the working directory).
func newOffline(folder string, cfg config, read FileReader) (*offline, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return nil, fmt.Errorf("resolve the folder %s: %w", folder, err)
	}
	ws, warnings := paths.NewWorkspace([]string{abs})
	if len(warnings) > 0 {
		return nil, errors.New(warnings[0].String())
	}
	s := settings{Config: cfg, Caps: clientCaps{Encoding: protocol.PositionEncodingKindUTF8, DocumentChanges: true, CreateFile: true, RenameFile: true, DeleteFile: true}, Workspace: ws}
	return &offline{folder: abs, s: s, read: read, files: map[uri.URI]*offlineFile{}}, nil
}

// run computes each edit in order and returns the outcome of them all.
func (o *offline) run(edits []streamBlock) Outcome {
	var results, formats []string
	for _, sb := range edits {
		if f := formatOf(sb.Tool); !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
		result, err := o.edit(sb)
		results = append(results, result)
		if err != nil {
			return Outcome{Format: strings.Join(formats, ","), ToolResult: strings.Join(results, "\n\n"), Error: err.Error()}
		}
	}
	return Outcome{OK: true, Format: strings.Join(formats, ","), Changes: o.changes(), ToolResult: strings.Join(results, "\n\n")}
}

// formatOf names the format of an edit tool's blocks.
func formatOf(t *editTool) string {
	switch t.name {
	case toolReplace, toolWrite:
		return formatCline
	case toolPatch:
		return string(textformat.V4A)
	}
	return t.name
}

// edit computes one edit block against the files as the edits before it left them, records its
// changes, and returns its tool result; the error says why it does not apply.
func (o *offline) edit(sb streamBlock) (string, error) {
	req, err := blockRequest(sb.Tool, sb, o.s)
	if err != nil {
		return toolResult(req, ext.EditState{Status: requestStatus(err), Error: err.Error()}, nil, nil), err
	}
	bases := make([]snapshot, len(req.Targets))
	for i, t := range req.Targets {
		f, err := o.file(t)
		if err != nil {
			return toolResult(req, ext.EditState{Status: ext.StatusFailed, Error: err.Error()}, nil, nil), err
		}
		bases[i] = f.cur
	}
	files, err := req.Tool.plan(req, bases, o.s.Config)
	if err != nil {
		return toolResult(req, ext.EditState{Status: ext.StatusFailed, Error: err.Error()}, nil, nil), err
	}
	p := &plannedEdit{Req: req, Files: files}
	applied := ext.EditState{Status: ext.StatusApplied}
	if p.inPlace() {
		return toolResult(req, applied, nil, nil), nil
	}
	for _, f := range files {
		src := o.files[f.Target.URI]
		switch {
		case f.Delete:
			src.cur = snapshot{}
		case f.MoveTo != nil:
			dest, err := o.file(*f.MoveTo)
			if err != nil {
				return toolResult(req, ext.EditState{Status: ext.StatusFailed, Error: err.Error()}, nil, nil), err
			}
			src.cur = snapshot{}
			dest.cur, dest.movedFrom = snapshot{Content: f.Intended, Exists: true}, src.rel
		default:
			src.cur = snapshot{Content: f.Intended, Exists: true}
		}
	}
	now := func(t target) (string, bool) {
		f := o.files[t.URI]
		return f.cur.Content, f.cur.Exists
	}
	return toolResult(req, applied, p, now), nil
}

// file returns the record of t, reading it on first use.
func (o *offline) file(t target) (*offlineFile, error) {
	if f := o.files[t.URI]; f != nil {
		return f, nil
	}
	content, exists, err := o.read(t.Rel)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w; check that it is a readable file", t.Rel, err)
	}
	snap := snapshot{Content: content, Exists: exists}
	if !exists {
		snap = snapshot{}
	}
	f := &offlineFile{rel: t.Rel, orig: snap, cur: snap}
	o.files[t.URI] = f
	o.order = append(o.order, t.URI)
	return f, nil
}

// changes lists the files whose content or existence the edits changed, in the order first named.
func (o *offline) changes() []FileChange {
	var out []FileChange
	for _, u := range o.order {
		f := o.files[u]
		if f.orig.Exists == f.cur.Exists && f.orig.Content == f.cur.Content {
			continue
		}
		c := FileChange{Path: f.rel, MovedFrom: f.movedFrom}
		if f.orig.Exists {
			c.Before = &f.orig.Content
		}
		if f.cur.Exists {
			c.After = &f.cur.Content
		}
		out = append(out, c)
	}
	return out
}
