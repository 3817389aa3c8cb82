package lsp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestToolPreviewContentOnlyWithPreview checks that a streaming edit's step builds the file's
// new content only for the preview setting: progress alone needs the report, and building the
// content copied the whole content written so far on every step (issue 16, item 14).
func TestToolPreviewContentOnlyWithPreview(t *testing.T) {
	t.Parallel()
	base := snapshot{Content: "a\nb\nc\n", Exists: true}
	for _, tc := range []struct {
		tool, param, value, content, report string
	}{
		{toolWrite, "content", "new\ntext", "new\ntext\n", ""},
		{toolReplace, "diff", "------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n", "a\nB\n", "1 of 1 sections matched"},
	} {
		for _, preview := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/preview=%v", tc.tool, preview), func(t *testing.T) {
				t.Parallel()
				cfg := defaultConfig()
				cfg.Preview = preview
				req := editRequest{Tool: editTools[tc.tool], Targets: []target{{Abs: "/w/x.txt"}}, Params: map[string]string{tc.param: tc.value}}
				var state any
				p, ok := editTools[tc.tool].preview(req, base, cfg, &state)
				require.True(t, ok)
				assert.Equal(t, tc.report, p.report)
				want := ""
				if preview {
					want = tc.content
				}
				assert.Equal(t, want, p.newContent, "preview %v", preview)
			})
		}
	}
}
