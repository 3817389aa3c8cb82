package edittool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/assistant-ls/assistant-ls/apply"
)

// Alias is one entry of the editTools setting: a tool called Name that is the built-in tool Like
// under another name, or that has the semantics of the built-in tool Kind with its input keys
// renamed by Keys.
//
// Keys maps a key of the alias's input to the built-in tool's key. A key inside a list of
// objects is written as its path, "list.key", and maps to the built-in's key at that level:
// {"filepath": "file_path", "edits.oldText": "old_string", "edits.newText": "new_string"} makes a
// tool taking {filepath, edits: [{oldText, newText}]} a MultiEdit. Keys not listed keep their
// names.
type Alias struct {
	Name string            `json:"name"`
	Like string            `json:"like,omitempty"`
	Kind string            `json:"kind,omitempty"`
	Keys map[string]string `json:"keys,omitempty"`
}

// DecodeAliases reads the editTools setting from its JSON text: an array of Alias objects.
// Unknown fields are errors, so that a misspelt key is reported rather than ignored.
func DecodeAliases(data []byte) ([]Alias, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out []Alias
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("editTools: %w; expected an array of {name, like} or {name, kind, keys} objects", err)
	}
	return out, nil
}

// Config configures a Registry.
type Config struct {
	// Aliases are the editTools setting.
	Aliases []Alias
	// DiffVersion is the applier version for replace_in_file; empty means apply.V1.
	DiffVersion apply.Version
}

// Registry holds every edit tool by name: the built-in tools and the configured aliases. It is
// immutable once built and safe for concurrent use.
type Registry struct {
	tools map[string]*Tool
}

// Tool is one edit tool of a Registry.
type Tool struct {
	// Name is the tool's name; Kind its semantics.
	Name string
	Kind Kind

	spec        builtin
	keys        map[string]string // alias key path → built-in key, for a {name, kind, keys} alias
	diffVersion apply.Version
}

// SettingsError reports an invalid editTools entry: Index is its position in the array, Name
// its name as given.
type SettingsError struct {
	Index int
	Name  string
	Msg   string
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("editTools[%d] (%q): %s", e.Index, e.Name, e.Msg)
}

// New builds a Registry of the built-in tools and cfg's aliases. An invalid alias is a
// *SettingsError naming it, and no Registry is returned.
func New(cfg Config) (*Registry, error) {
	r := &Registry{tools: map[string]*Tool{}}
	if cfg.DiffVersion == "" {
		cfg.DiffVersion = apply.V1
	}
	specs := map[string]builtin{}
	for _, b := range builtins() {
		for _, n := range b.names {
			specs[n] = b
			r.tools[n] = &Tool{Name: n, Kind: b.kind, spec: b, diffVersion: cfg.DiffVersion}
		}
	}
	for i, a := range cfg.Aliases {
		t, err := newAlias(a, specs, r.tools)
		if err != nil {
			return nil, &SettingsError{Index: i, Name: a.Name, Msg: err.Error()}
		}
		t.diffVersion = cfg.DiffVersion
		r.tools[a.Name] = t
	}
	return r, nil
}

func newAlias(a Alias, specs map[string]builtin, tools map[string]*Tool) (*Tool, error) {
	switch {
	case strings.TrimSpace(a.Name) == "":
		return nil, fmt.Errorf("name is empty; give the tool's name as the model calls it")
	case tools[a.Name] != nil:
		if _, builtin := specs[a.Name]; builtin {
			return nil, fmt.Errorf("%q is a built-in edit tool already; aliases need a name of their own", a.Name)
		}
		return nil, fmt.Errorf("%q is defined twice", a.Name)
	case a.Like != "" && a.Kind != "":
		return nil, fmt.Errorf("give either like (same input as a built-in tool) or kind with keys (another input), not both")
	case a.Like == "" && a.Kind == "":
		return nil, fmt.Errorf("give like (a built-in tool whose input it shares) or kind and keys; built-in tools: %s", builtinNames(specs))
	case a.Like != "" && len(a.Keys) > 0:
		return nil, fmt.Errorf("keys apply only with kind; with like the input is the built-in tool's own")
	}
	base := a.Like + a.Kind
	spec, ok := specs[base]
	if !ok {
		return nil, fmt.Errorf("%q is not a built-in edit tool; use one of: %s", base, builtinNames(specs))
	}
	t := &Tool{Name: a.Name, Kind: spec.kind, spec: spec}
	if len(a.Keys) > 0 {
		if err := checkKeys(a.Keys, spec); err != nil {
			return nil, err
		}
		t.keys = a.Keys
	}
	return t, nil
}

// checkKeys validates a key mapping against the built-in's fields: every target is a field at
// its level, a nested key's list maps to a list field, and no two keys map to one field.
func checkKeys(keys map[string]string, spec builtin) error {
	srcs := make([]string, 0, len(keys))
	for k := range keys {
		srcs = append(srcs, k)
	}
	sort.Strings(srcs)
	seen := map[string]string{}
	for _, src := range srcs {
		dst := keys[src]
		parts := strings.Split(src, ".")
		for _, p := range parts {
			if p == "" {
				return fmt.Errorf("keys: %q has an empty part; write nested keys as list.key", src)
			}
		}
		fields := spec.fields
		level := ""
		for _, p := range parts[:len(parts)-1] {
			name := p
			if m, ok := keys[level+p]; ok {
				name = m
			}
			f, ok := lookupField(fields, name)
			if !ok || f.typ != tList {
				return fmt.Errorf("keys: %q is nested in %q, which is not a list of objects in %s's input", src, level+p, spec.names[0])
			}
			fields, level = f.item, level+p+"."
		}
		if _, ok := lookupField(fields, dst); !ok {
			return fmt.Errorf("keys: %q maps to %q, which %s's input does not have at that level; its keys there: %s",
				src, dst, spec.names[0], fieldNames(fields))
		}
		if prev, dup := seen[level+dst]; dup {
			return fmt.Errorf("keys: %q and %q both map to %q", prev, src, dst)
		}
		seen[level+dst] = src
	}
	return nil
}

func builtinNames(specs map[string]builtin) string {
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func fieldNames(fields []field) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// Lookup returns the tool called name; ok is false when no edit tool has that name.
func (r *Registry) Lookup(name string) (t *Tool, ok bool) {
	t, ok = r.tools[name]
	return t, ok
}

// Names returns every tool name, sorted: the names to recognise as edit tools, in native tool
// calls and as XML tool uses.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.tools))
	for n := range r.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// PathKey returns the key of the tool's own input that holds the target path (for an alias with
// keys, the alias's key).
func (t *Tool) PathKey() string {
	for src, dst := range t.keys {
		if dst == t.spec.path && !strings.Contains(src, ".") {
			return src
		}
	}
	return t.spec.path
}

// ParamKeys returns every top-level key of the tool's own input, for recognising its
// parameters in XML tool uses.
func (t *Tool) ParamKeys() []string {
	inverse := map[string]string{}
	for src, dst := range t.keys {
		if !strings.Contains(src, ".") {
			inverse[dst] = src
		}
	}
	out := make([]string, 0, len(t.spec.fields))
	for _, f := range t.spec.fields {
		if src, ok := inverse[f.name]; ok {
			out = append(out, src)
		} else {
			out = append(out, f.name)
		}
	}
	return out
}

// rename returns obj with its keys (at path prefix) renamed to the built-in's.
func (t *Tool) rename(obj map[string]any, prefix string) map[string]any {
	if t.keys == nil {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		name := k
		if m, ok := t.keys[prefix+k]; ok {
			name = m
		}
		if list, ok := v.([]any); ok {
			items := make([]any, len(list))
			for i, it := range list {
				if m, ok := it.(map[string]any); ok {
					items[i] = t.rename(m, prefix+k+".")
				} else {
					items[i] = it
				}
			}
			v = items
		}
		out[name] = v
	}
	return out
}
