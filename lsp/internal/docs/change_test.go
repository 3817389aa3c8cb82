package docs

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// TestChangeUnmarshal checks that a content change event is a whole-document change only when
// its range is absent, and that every malformed range or text is refused.
func TestChangeUnmarshal(t *testing.T) {
	const r01 = `{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}`
	tests := []struct {
		name, json string
		want       Change
		bad        bool
	}{
		{"whole", `{"text":"x"}`, Change{Text: "x"}, false},
		{"range", `{"range":` + r01 + `,"text":"x"}`, Change{Range: &protocol.Range{End: protocol.Position{Character: 1}}, Text: "x"}, false},
		{"rangeLength ignored", `{"range":` + r01 + `,"rangeLength":7,"text":""}`, Change{Range: &protocol.Range{End: protocol.Position{Character: 1}}}, false},
		{"max uinteger", `{"range":{"start":{"line":2147483647,"character":0},"end":{"line":2147483647,"character":2147483647}},"text":""}`,
			Change{Range: &protocol.Range{Start: protocol.Position{Line: MaxUinteger}, End: protocol.Position{Line: MaxUinteger, Character: MaxUinteger}}}, false},
		{"2^31", `{"range":{"start":{"line":2147483648,"character":0},"end":{"line":2147483648,"character":0}},"text":""}`, Change{}, true},
		{"max uint32", `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":4294967295}},"text":""}`, Change{}, true},
		{"negative", `{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":1}},"text":"x"}`, Change{}, true},
		{"2^32", `{"range":{"start":{"line":4294967296,"character":0},"end":{"line":0,"character":1}},"text":"x"}`, Change{}, true},
		{"fraction", `{"range":{"start":{"line":0,"character":1.5},"end":{"line":0,"character":1}},"text":"x"}`, Change{}, true},
		{"string number", `{"range":{"start":{"line":"0","character":0},"end":{"line":0,"character":1}},"text":"x"}`, Change{}, true},
		{"null range", `{"range":null,"text":"x"}`, Change{}, true},
		{"null line", `{"range":{"start":{"line":null,"character":0},"end":{"line":0,"character":1}},"text":"x"}`, Change{}, true},
		{"empty range", `{"range":{},"text":"x"}`, Change{}, true},
		{"missing text", `{"range":` + r01 + `}`, Change{}, true},
		{"null text", `{"text":null}`, Change{}, true},
		{"number text", `{"text":1}`, Change{}, true},
		{"not an object", `"x"`, Change{}, true},
		{"null event", `null`, Change{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Change
			err := json.Unmarshal([]byte(tt.json), &got)
			if tt.bad {
				assert.ErrorIs(t, err, ErrBadChange)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestChangeParamsThroughProtocolDecoder checks that the server's decoder (go.lsp.dev/protocol's)
// uses Change's own decoding rather than its union rules.
func TestChangeParamsThroughProtocolDecoder(t *testing.T) {
	var p ChangeParams
	err := protocol.Unmarshal([]byte(`{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":"x"}]}`), &p)
	assert.ErrorIs(t, err, ErrBadChange)
	require.NoError(t, protocol.Unmarshal([]byte(`{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"text":"x"}]}`), &p))
	assert.Equal(t, int32(2), p.TextDocument.Version)
	assert.Equal(t, []Change{{Text: "x"}}, p.ContentChanges)
}
