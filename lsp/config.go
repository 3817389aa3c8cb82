package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/edittool"
	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/textformat"
	"github.com/bmatcuk/doublestar/v4"
)

// config is the server's configuration (protocol section 2). A config value is never
// modified once published; a change builds a new one.
type config struct {
	ToolNames             []string
	ParamNames            []string
	DiffVersion           apply.Version
	ContentFixes          string // "auto", "always" or "never"
	AutoApply             bool
	Confirm               bool
	Preview               bool
	AllowOutsideWorkspace bool
	AllowGitDir           bool
	RequireRead           bool // an edit of an existing file needs a read of it first in its stream
	EditTools             []edittool.Alias
	TextFormats           []string // of streams; response documents recognise all
	// tools is the edit tool registry of EditTools and DiffVersion, rebuilt whenever either
	// changes (see applySettings); never nil.
	tools             *edittool.Registry
	Review            bool // hold complete edits for review (section 7a)
	ResponseDocuments []string
}

// defaultConfig returns the documented defaults.
func defaultConfig() config {
	c := config{
		DiffVersion:       apply.V1,
		ContentFixes:      "auto",
		AutoApply:         true,
		Confirm:           true,
		ResponseDocuments: []string{"**/*.assistant.md"},
		TextFormats:       []string{formatCline},
	}
	c.tools = builtinTools(c.DiffVersion)
	return c
}

// builtinTools is the registry of the built-in edit tools alone, which cannot fail to build.
func builtinTools(v apply.Version) *edittool.Registry {
	r, err := edittool.New(edittool.Config{DiffVersion: v})
	if err != nil {
		panic("the built-in edit tools do not build: " + err.Error())
	}
	return r
}

// parseConfig returns the parse.Config the parser of new streams uses: the configured names,
// and the edit tools' names and params, so that each edit tool also works as an XML tool use.
// A message that uses none of these tags parses exactly as with Cline's names alone.
func (c config) parseConfig() parse.Config {
	tools := slices.Clone(c.ToolNames)
	params := slices.Clone(c.ParamNames)
	for _, name := range c.tools.Names() {
		t, _ := c.tools.Lookup(name)
		tools = append(tools, name)
		params = append(params, t.ParamKeys()...)
	}
	tools = append(tools, toolPatch)
	params = append(params, "input", "type")
	return parse.Config{ExtraToolNames: tools, ExtraParamNames: params}
}

// configWarning says which key had a bad value and why; the key keeps its previous value.
type configWarning struct {
	Key    string
	Reason string
}

// String formats the warning as the window/showMessage text.
func (w configWarning) String() string {
	return fmt.Sprintf("assistant-ls: setting %q ignored: %s; the previous value stays", w.Key, w.Reason)
}

// configKeys maps each setting name to the function that validates and stores its value. A
// setter returns a reason when the value is bad and leaves c untouched then.
var configKeys = map[string]func(c *config, raw json.RawMessage) string{
	"toolNames":  func(c *config, raw json.RawMessage) string { return setNames(&c.ToolNames, raw) },
	"paramNames": func(c *config, raw json.RawMessage) string { return setNames(&c.ParamNames, raw) },
	"diffVersion": func(c *config, raw json.RawMessage) string {
		return setEnum(raw, []string{string(apply.V1), string(apply.V2)}, func(v string) { c.DiffVersion = apply.Version(v) })
	},
	"contentFixes": func(c *config, raw json.RawMessage) string {
		return setEnum(raw, []string{"auto", "always", "never"}, func(v string) { c.ContentFixes = v })
	},
	"autoApply":             func(c *config, raw json.RawMessage) string { return setBool(&c.AutoApply, raw) },
	"confirm":               func(c *config, raw json.RawMessage) string { return setBool(&c.Confirm, raw) },
	"preview":               func(c *config, raw json.RawMessage) string { return setBool(&c.Preview, raw) },
	"allowOutsideWorkspace": func(c *config, raw json.RawMessage) string { return setBool(&c.AllowOutsideWorkspace, raw) },
	"allowGitDir":           func(c *config, raw json.RawMessage) string { return setBool(&c.AllowGitDir, raw) },
	"requireRead":           func(c *config, raw json.RawMessage) string { return setBool(&c.RequireRead, raw) },
	"textFormats": func(c *config, raw json.RawMessage) string {
		var formats []string
		allowed := []string{formatCline, string(textformat.Aider), string(textformat.V4A), string(textformat.UDiff)}
		if err := json.Unmarshal(raw, &formats); err != nil {
			return fmt.Sprintf("want an array of format names from %q", allowed)
		}
		for _, f := range formats {
			if !slices.Contains(allowed, f) {
				return fmt.Sprintf("%q is not a text format: use %q", f, allowed)
			}
		}
		c.TextFormats = slices.Compact(slices.Sorted(slices.Values(formats)))
		return ""
	},
	"editTools": func(c *config, raw json.RawMessage) string {
		aliases, err := edittool.DecodeAliases(raw)
		if err != nil {
			return err.Error()
		}
		tools, err := edittool.New(edittool.Config{Aliases: aliases, DiffVersion: c.DiffVersion})
		if err != nil {
			return err.Error()
		}
		c.EditTools, c.tools = aliases, tools
		return ""
	},
	"review": func(c *config, raw json.RawMessage) string { return setBool(&c.Review, raw) },
	"responseDocuments": func(c *config, raw json.RawMessage) string {
		var globs []string
		if err := json.Unmarshal(raw, &globs); err != nil {
			return "want an array of glob strings"
		}
		for _, g := range globs {
			if !doublestar.ValidatePattern(g) || g == "" {
				return fmt.Sprintf("%q is not a valid glob", g)
			}
		}
		c.ResponseDocuments = globs
		return ""
	},
}

// applySettings returns cur with the keys of the JSON object raw applied. Keys that are
// absent keep their value, a key set to null returns to its default, and a key with a bad
// value keeps its value and yields a warning. Unknown keys are returned separately: they are
// not errors, since a newer plugin may send settings an older server does not know.
func applySettings(cur config, raw json.RawMessage) (next config, warnings []configWarning, unknown []string) {
	next = cur
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return cur, []configWarning{{Key: "assistant", Reason: "the settings must be a JSON object"}}, nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	defaults := defaultConfig()
	for _, k := range keys {
		set, ok := configKeys[k]
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		v := obj[k]
		if string(v) == "null" {
			// Resetting from the defaults' own JSON keeps one code path for every key.
			reset, _ := json.Marshal(defaultValue(defaults, k))
			v = reset
		}
		if reason := set(&next, v); reason != "" {
			warnings = append(warnings, configWarning{Key: k, Reason: reason})
		}
	}
	if next.DiffVersion != cur.DiffVersion {
		// The aliases were valid under the old version and stay valid: only the applier changes.
		if tools, err := edittool.New(edittool.Config{Aliases: next.EditTools, DiffVersion: next.DiffVersion}); err == nil {
			next.tools = tools
		}
	}
	return next, warnings, unknown
}

// defaultValue returns the default of key k as a JSON-encodable value.
func defaultValue(d config, k string) any {
	switch k {
	case "toolNames":
		return []string{}
	case "paramNames":
		return []string{}
	case "diffVersion":
		return d.DiffVersion
	case "contentFixes":
		return d.ContentFixes
	case "autoApply":
		return d.AutoApply
	case "confirm":
		return d.Confirm
	case "preview":
		return d.Preview
	case "allowOutsideWorkspace":
		return d.AllowOutsideWorkspace
	case "allowGitDir":
		return d.AllowGitDir
	case "requireRead":
		return d.RequireRead
	case "editTools":
		return []edittool.Alias{}
	case "textFormats":
		return d.TextFormats
	case "review":
		return d.Review
	default:
		return d.ResponseDocuments
	}
}

// setNames validates a list of extra tool or param names. A name becomes an XML-like tag, so
// it must be non-empty and free of whitespace, angle brackets and slashes.
func setNames(dst *[]string, raw json.RawMessage) string {
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return "want an array of strings"
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "<>/ \t\r\n") {
			return fmt.Sprintf("%q cannot be a tag name: use letters, digits, '_' or '-'", n)
		}
	}
	*dst = slices.Clip(names)
	return ""
}

// setEnum accepts one of the allowed strings.
func setEnum(raw json.RawMessage, allowed []string, set func(string)) string {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil || !slices.Contains(allowed, v) {
		return fmt.Sprintf("want one of %q", allowed)
	}
	set(v)
	return ""
}

// setBool accepts true or false.
func setBool(dst *bool, raw json.RawMessage) string {
	var v bool
	if err := json.Unmarshal(raw, &v); err != nil {
		return "want true or false"
	}
	*dst = v
	return ""
}
