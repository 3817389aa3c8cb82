package docs

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzChange decodes arbitrary content change events: decoding never panics, fails only with
// ErrBadChange, and what it accepts encodes back to an event that decodes the same.
func FuzzChange(f *testing.F) {
	for _, s := range []string{
		`{"text":"x"}`,
		`{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":2}},"rangeLength":3,"text":"y"}`,
		`{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":""}`,
		`{"range":null,"text":"x"}`, `null`, `[]`, `{"text":1.5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Change
		err := json.Unmarshal(data, &c)
		if err != nil {
			var syntax *json.SyntaxError
			require.True(t, errors.Is(err, ErrBadChange) || errors.As(err, &syntax), "%v", err)
			return
		}
		fields := map[string]any{"text": c.Text}
		if c.Range != nil {
			fields["range"] = c.Range
		}
		again, err := json.Marshal(fields)
		require.NoError(t, err)
		var back Change
		require.NoError(t, json.Unmarshal(again, &back))
		require.Equal(t, c, back)
	})
}
