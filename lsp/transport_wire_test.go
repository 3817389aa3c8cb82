package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
)

// TestAsyncMethodNameSurvivesNextFrame is issue 7, item 9, through the server: handle keeps the
// method name of a request it serves after releasing the reader (assistant/resolveEdit), and
// logs it once the request fails; the frames read meanwhile, as long as the first, must not
// change it.
func TestAsyncMethodNameSurvivesNextFrame(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, profileVSCode)
	pad := strings.Repeat("Z", 4096)
	c.notify("custom/grow", map[string]string{"pad": pad})
	c.rawRequest("slow-1", "assistant/resolveEdit", map[string]any{"stream": 5})
	c.notify("custom/ZZZZ", map[string]string{"pad": pad})
	c.waitFor("the answer", func() bool { _, ok := c.rawResponse("slow-1"); return ok })
	var res ext.ParseResult
	require.NoError(t, c.request("assistant/parse", map[string]any{"stream": "s", "text": "x"}, &res))

	failed := c.logs.FilterMessage("request failed").All()
	require.NotEmpty(t, failed)
	for _, e := range failed {
		assert.Equal(t, "assistant/resolveEdit", e.ContextMap()["method"])
	}
}

// TestMalformedBodyKeepsID checks that a body that is not valid JSON, or nests deeper than the
// decoder goes, is answered under its own id where the top level shows it (issue 7, item 13).
func TestMalformedBodyKeepsID(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 12000) + strings.Repeat("]", 12000)
	tests := []struct {
		name string
		id   string
		body string
		code jsonrpc2.Code
	}{
		{"not JSON", "bad-1", `{"jsonrpc":"2.0","id":"bad-1","method":"assistant/parse","params":{"stream":"s",,}}`, jsonrpc2.ParseError},
		{"nested past 10,000 levels", "deep-1", `{"jsonrpc":"2.0","id":"deep-1","method":"assistant/parse","params":{"stream":"s","delta":` + deep + `}}`, jsonrpc2.InvalidParams},
		{"nested past 10,000 levels, unknown method", "deep-2", `{"jsonrpc":"2.0","id":"deep-2","method":"x/y","params":` + deep + `}`, jsonrpc2.MethodNotFound},
	}
	c := newTestClient(t, profileHelix)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.writeRaw(frame([]byte(tt.body)))
			c.waitFor("the answer", func() bool { _, ok := c.rawResponse(tt.id); return ok })
			raw, _ := c.rawResponse(tt.id)
			var resp struct {
				Error *jsonrpc2.Error `json:"error"`
			}
			require.NoError(t, json.Unmarshal(raw, &resp))
			require.NotNil(t, resp.Error, "response: %s", raw)
			assert.Equal(t, tt.code, resp.Error.Code)
		})
	}
}
