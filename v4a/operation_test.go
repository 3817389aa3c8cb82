package v4a

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOperations(t *testing.T) {
	p, err := ParseOperations(
		Operation{Type: CreateFileOp, Path: "new.ts", Diff: "+export const x = 1;\n+\n"},
		Operation{Type: UpdateFileOp, Path: "src/main.ts", Diff: "@@ function main() {\n+  console.log(\"hi\");\n }"},
		Operation{Type: DeleteFileOp, Path: "old.ts"},
	)
	require.NoError(t, err)
	plan, err := Apply(p, folder(map[string]string{
		"src/main.ts": "function main() {\n}\n",
		"old.ts":      "x\n",
	}))
	require.NoError(t, err)
	assert.Equal(t, []Change{
		{Path: "new.ts", Content: "export const x = 1;\n\n"},
		{Path: "src/main.ts", Existed: true, Before: "function main() {\n}\n", Content: "function main() {\n  console.log(\"hi\");\n}\n"},
		{Path: "old.ts", Existed: true, Before: "x\n", Deleted: true},
	}, plan.Changes)
}

func TestOperationErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   Operation
		msg  string
	}{
		{"unknown type", Operation{Type: "rename_file", Path: "a"}, "Invalid apply_patch operation: type \"rename_file\" is not create_file, update_file or delete_file"},
		{"path on two lines", Operation{Type: DeleteFileOp, Path: "a\n*** Delete File: b"}, "Invalid apply_patch operation: path \"a\\n*** Delete File: b\" must be a file path on one line, without surrounding white space"},
		{"delete with diff", Operation{Type: DeleteFileOp, Path: "a", Diff: "-x"}, "Invalid apply_patch operation: delete_file takes no diff"},
		{"create without '+'", Operation{Type: CreateFileOp, Path: "a", Diff: "+x\ny"}, "Invalid diff on line 2: every line of a create_file diff starts with '+', got: 'y'"},
		{"update with a bad line", Operation{Type: UpdateFileOp, Path: "a", Diff: "@@\n-x\n@@\nzz"}, "Invalid diff on line 4: Unexpected line found in update hunk: 'zz'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"},
		{"update smuggling a header", Operation{Type: UpdateFileOp, Path: "a", Diff: "@@\n-x\n*** Delete File: b"}, "Invalid apply_patch operation: the diff of update_file a holds a file header; send one file per operation"},
		{"update with a move", Operation{Type: UpdateFileOp, Path: "a", Diff: "*** Move to: b\n@@\n-x"}, "Invalid apply_patch operation: the diff of update_file a holds a file header; send one file per operation"},
		{"empty update", Operation{Type: UpdateFileOp, Path: "a"}, "Invalid diff: Update file hunk for path 'a' is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseOperations(Operation{Type: DeleteFileOp, Path: "ok"}, tc.op)
			assert.Nil(t, p)
			var e *Error
			require.True(t, errors.As(err, &e), "got %v", err)
			assert.Equal(t, tc.msg, e.Message)
			assert.Equal(t, 1, e.Op)
		})
	}
}
