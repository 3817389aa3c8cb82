package v4a

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// TestGolden runs testdata/*.txtar: Codex's quirks and this package's own choices, one case a
// file. Sections: "patch"; "before/PATH", a file before the patch; then either "after/PATH", every
// file after it (a file of before without an after section is deleted) with an optional
// "summary", or "error", Codex's message for the failure. txtar ends every section with a line
// break, which is not part of the value: a value that ends in one has an empty last line.
func TestGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, name := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			require.NoError(t, err)
			before, want := map[string]string{}, map[string]*string{}
			sec := map[string]string{}
			for _, f := range ar.Files {
				v := strings.TrimSuffix(string(f.Data), "\n")
				if p, ok := strings.CutPrefix(f.Name, "before/"); ok {
					before[p] = v
				} else if p, ok := strings.CutPrefix(f.Name, "after/"); ok {
					want[p] = &v
				} else {
					sec[f.Name] = v
				}
			}
			require.Contains(t, sec, "patch")
			plan, err := ApplyText(sec["patch"], folder(before))
			if msg, ok := sec["error"]; ok {
				var e *Error
				require.True(t, errors.As(err, &e), "got %v", err)
				assert.Equal(t, msg, e.Message)
				assert.Nil(t, plan)
				return
			}
			require.NoError(t, err)
			for p := range before {
				if _, ok := want[p]; !ok {
					want[p] = nil
				}
			}
			assert.Equal(t, want, after(before, plan))
			if s, ok := sec["summary"]; ok {
				assert.Equal(t, s+"\n", plan.Summary)
			}
		})
	}
}
