package edittool

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FromJSON reads a native tool call's arguments (a decoded JSON object) into a Call. Keys are
// renamed as the tool's alias says; numbers and booleans may also be given as strings, a list as
// its JSON text, and a JSON null stands for an absent field. Unknown keys are ignored. A missing
// required field or a value of the wrong type is an *Error with code ErrBadInput.
func (t *Tool) FromJSON(args map[string]any) (*Call, error) {
	in, err := coerce(t.rename(args, ""), t.spec.fields, "")
	if err != nil {
		return nil, &Error{Code: ErrBadInput, Tool: t.Name, msg: fmt.Sprintf("%s; the %s tool takes %s", err, t.Name, strings.Join(t.ParamKeys(), ", "))}
	}
	c := &Call{Tool: t.Name, Kind: t.Kind, Path: in.str("path") + in.str("file_path"), in: in, diffVersion: t.diffVersion}
	return c, nil
}

// FromParams reads an XML tool use's parameters, every value a string, into a Call: numbers
// and booleans are parsed, and a list (MultiEdit's edits) is read from its JSON text. Otherwise
// it is FromJSON.
func (t *Tool) FromParams(params map[string]string) (*Call, error) {
	obj := make(map[string]any, len(params))
	for k, v := range params {
		name := k
		if m, ok := t.keys[k]; ok {
			name = m
		}
		if f, ok := lookupField(t.spec.fields, name); ok && f.typ == tList {
			var list []any
			if err := json.Unmarshal([]byte(v), &list); err == nil {
				obj[k] = list
				continue
			}
		}
		obj[k] = v
	}
	return t.FromJSON(obj)
}

// StringFields checks a native tool call's decoded arguments for a tool whose fields are all
// strings (Cline's replace_in_file and write_to_file, apply_patch): each of names present in args
// must hold a JSON string. A number, boolean, null, array or object there is an *Error with code
// ErrBadInput naming the field, worded as FromJSON's, rather than its JSON text taken for a path
// or a content.
func StringFields(tool string, args map[string]any, names ...string) error {
	for _, name := range names {
		v, ok := args[name]
		if _, isStr := v.(string); !ok || isStr {
			continue
		}
		return &Error{Code: ErrBadInput, Tool: tool, msg: fmt.Sprintf("parameter `%s` must be a string, not %s; the %s tool takes %s",
			name, describe(v), tool, strings.Join(names, ", "))}
	}
	return nil
}

// input is a call's arguments under the built-in's key names, each present value of its field's
// type: string, int, bool, or []input.
type input map[string]any

func (in input) str(name string) string { s, _ := in[name].(string); return s }

func (in input) has(name string) bool { _, ok := in[name]; return ok }

func (in input) integer(name string) (int, bool) { n, ok := in[name].(int); return n, ok }

func (in input) boolean(name string) bool { b, _ := in[name].(bool); return b }

func (in input) list(name string) []input { l, _ := in[name].([]input); return l }

// coerce checks obj against fields and converts its values; where names the level in errors.
func coerce(obj map[string]any, fields []field, where string) (input, error) {
	in := input{}
	for _, f := range fields {
		v, ok := obj[f.name]
		if !ok || v == nil {
			if f.required {
				return nil, fmt.Errorf("missing required parameter `%s%s`", where, f.name)
			}
			continue
		}
		c, err := convert(v, f, where)
		if err != nil {
			return nil, err
		}
		in[f.name] = c
	}
	return in, nil
}

func convert(v any, f field, where string) (any, error) {
	bad := func(want string) error {
		return fmt.Errorf("parameter `%s%s` must be %s, not %s", where, f.name, want, describe(v))
	}
	switch f.typ {
	case tString:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, bad("a string")
	case tInt:
		switch n := v.(type) {
		case float64:
			if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
				return int(n), nil
			}
		case json.Number:
			if i, err := strconv.Atoi(n.String()); err == nil {
				return i, nil
			}
		case int:
			return n, nil
		case string:
			if i, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
				return i, nil
			}
		}
		return nil, bad("an integer")
	case tBool:
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			if p, err := strconv.ParseBool(strings.TrimSpace(b)); err == nil {
				return p, nil
			}
		}
		return nil, bad("true or false")
	}
	list, ok := v.([]any)
	if s, isStr := v.(string); isStr && json.Unmarshal([]byte(s), &list) == nil {
		ok = true
	}
	if !ok {
		return nil, bad("an array of objects")
	}
	out := make([]input, len(list))
	for i, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("parameter `%s%s[%d]` must be an object, not %s", where, f.name, i, describe(it))
		}
		in, err := coerce(m, f.item, fmt.Sprintf("%s%s[%d].", where, f.name, i))
		if err != nil {
			return nil, err
		}
		out[i] = in
	}
	return out, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(truncate(v, 40))
	case float64, json.Number, int:
		return fmt.Sprint(v)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
