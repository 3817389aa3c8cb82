package v4a

import (
	"fmt"
	"strings"
)

// Operation is the operation of a Responses API apply_patch_call: create_file with Diff holding
// the new file as V4A "+" lines, update_file with Diff holding the V4A hunks of an Update File
// section (no "***" header lines), delete_file without a diff.
type Operation struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Diff string `json:"diff,omitempty"`
}

// Operation types.
const (
	CreateFileOp = "create_file"
	UpdateFileOp = "update_file"
	DeleteFileOp = "delete_file"
)

// ParseOperations turns Responses API operations into one patch, parsed by the same code as a
// V4A patch (an operation is the matching Add, Update or Delete File section), so that the
// operations of one response can be applied together, all or nothing. An error names the
// operation (0-based Op) and, for a diff that breaks the grammar, the diff's own line.
func ParseOperations(ops ...Operation) (*Patch, error) {
	p := &Patch{}
	for i, o := range ops {
		op, err := parseOperation(o)
		if err != nil {
			err.Op = i
			return nil, err
		}
		p.Ops = append(p.Ops, op)
	}
	return p, nil
}

func parseOperation(o Operation) (Op, *Error) {
	bad := func(format string, args ...any) (Op, *Error) {
		return Op{}, &Error{Kind: ErrInvalidPatch, Op: -1, Hunk: -1, Path: o.Path,
			Message: "Invalid apply_patch operation: " + fmt.Sprintf(format, args...)}
	}
	if o.Path == "" || strings.ContainsAny(o.Path, "\r\n") || trimSpace(o.Path) != o.Path {
		return bad("path %q must be a file path on one line, without surrounding white space", o.Path)
	}
	var header string
	var kind OpKind
	switch o.Type {
	case CreateFileOp:
		header, kind = addMarker, AddFile
	case UpdateFileOp:
		header, kind = updateMarker, UpdateFile
	case DeleteFileOp:
		if o.Diff != "" {
			return bad("delete_file takes no diff")
		}
		header, kind = deleteMarker, DeleteFile
	default:
		return bad("type %q is not create_file, update_file or delete_file", o.Type)
	}
	body := strings.TrimSuffix(strings.TrimSuffix(o.Diff, "\n"), "\r")
	if kind == AddFile && body != "" {
		off := 0
		for i, l := range strings.Split(body, "\n") {
			if !strings.HasPrefix(l, "+") {
				return Op{}, &Error{Kind: ErrInvalidHunk, Op: -1, Hunk: -1, Path: o.Path, Line: i + 1, PatchLine: i + 1, Offset: off,
					Message: fmt.Sprintf("Invalid diff on line %d: every line of a create_file diff starts with '+', got: '%s'", i+1, l)}
			}
			off += len(l) + 1
		}
	}
	prefix := beginMarker + "\n" + header + o.Path + "\n"
	text := prefix + body + "\n" + endMarker + "\n"
	if body == "" {
		text = prefix + endMarker + "\n"
	}
	ops, err := parseCodex(text, -len(prefix), -2)
	if err != nil {
		if err.Kind == ErrInvalidHunk {
			err.Line -= 2
			_, msg, _ := strings.Cut(err.Message, ": ")
			if err.Line < 1 {
				err.Line, err.Message = 0, "Invalid diff: "+msg
			} else {
				err.Message = fmt.Sprintf("Invalid diff on line %d: %s", err.Line, msg)
			}
		}
		err.Path = o.Path
		return Op{}, err
	}
	if len(ops) != 1 || ops[0].Kind != kind || ops[0].Path != o.Path || ops[0].MoveTo != "" {
		return bad("the diff of %s %s holds a file header; send one file per operation", o.Type, o.Path)
	}
	return ops[0], nil
}
