package provider

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/turn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fragmentPaths says, per shape, where an event carries a fragment of text or of a call's
// arguments that the provider may split anywhere: the path to the string, and when it applies.
var fragmentPaths = map[string][]struct {
	when func(ev map[string]any) bool
	path []any
}{
	"openai-chat": {
		{noFinish, []any{"choices", 0, "delta", "content"}},
		{func(ev map[string]any) bool {
			calls, _ := get(ev, "choices", 0, "delta", "tool_calls").([]any)
			_, hasID := get(ev, "choices", 0, "delta", "tool_calls", 0, "id").(string)
			return noFinish(ev) && len(calls) == 1 && !hasID
		}, []any{"choices", 0, "delta", "tool_calls", 0, "function", "arguments"}},
	},
	"openai-responses": {{func(ev map[string]any) bool { return strings.HasSuffix(ev["type"].(string), ".delta") }, []any{"delta"}}},
	"anthropic": {
		{isType("content_block_delta"), []any{"delta", "text"}},
		{isType("content_block_delta"), []any{"delta", "partial_json"}},
	},
	"gemini": {{func(ev map[string]any) bool {
		parts, _ := get(ev, "candidates", 0, "content", "parts").([]any)
		return len(parts) == 1 && get(ev, "candidates", 0, "finishReason") == nil && get(ev, "candidates", 0, "content", "parts", 0, "thought") == nil
	}, []any{"candidates", 0, "content", "parts", 0, "text"}}},
	"bedrock": {
		{always, []any{"contentBlockDelta", "delta", "text"}},
		{always, []any{"contentBlockDelta", "delta", "toolUse", "input"}},
	},
	"cohere": {
		{isType("content-delta"), []any{"delta", "message", "content", "text"}},
		{isType("tool-call-delta"), []any{"delta", "message", "tool_calls", "function", "arguments"}},
	},
}

func always(map[string]any) bool { return true }

func isType(typ string) func(map[string]any) bool {
	return func(ev map[string]any) bool { return ev["type"] == typ }
}

func noFinish(ev map[string]any) bool { return get(ev, "choices", 0, "finish_reason") == nil }

// get returns the value at path in a decoded JSON value, or nil.
func get(v any, path ...any) any {
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// set replaces the value at path, which exists.
func set(v any, s string, path ...any) {
	for _, k := range path[:len(path)-1] {
		v = get(v, k)
	}
	switch k := path[len(path)-1].(type) {
	case string:
		v.(map[string]any)[k] = s
	case int:
		v.([]any)[k] = s
	}
}

// splitRunes cuts s into pieces of 1 to 4 runes.
func splitRunes(rng *rand.Rand, s string) []string {
	var out []string
	for s != "" {
		n := 0
		for range 1 + rng.IntN(4) {
			if n < len(s) {
				_, size := utf8.DecodeRuneInString(s[n:])
				n += size
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// resplit returns the events of a stream with every fragment split again at random: one event
// per piece, the rest of the event repeated.
func resplit(t *testing.T, rng *rand.Rand, shape string, events [][]byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, raw := range events {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(raw, &ev))
		split := false
		for _, fp := range fragmentPaths[shape] {
			s, ok := get(ev, fp.path...).(string)
			if !ok || s == "" || !fp.when(ev) {
				continue
			}
			for _, piece := range splitRunes(rng, s) {
				var cp map[string]any
				require.NoError(t, json.Unmarshal(raw, &cp))
				set(cp, piece, fp.path...)
				b, err := json.Marshal(cp)
				require.NoError(t, err)
				out = append(out, b)
			}
			split = true
			break
		}
		if !split {
			out = append(out, raw)
		}
	}
	return out
}

// TestFragmentSplitting: however a provider splits its text and argument fragments, every
// recorded stream of every shape makes the same message.
func TestFragmentSplitting(t *testing.T) {
	t.Parallel()
	require.Len(t, fragmentPaths, len(shapes), "every shape says where its fragments are")
	for _, rs := range recordedStreams(t) {
		t.Run(rs.shape+"/"+rs.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(5) {
				rng := rand.New(rand.NewPCG(seed, 18))
				events := resplit(t, rng, rs.shape, rs.events)
				if seed == 0 && len(events) == len(rs.events) {
					continue // nothing in it streams in fragments
				}
				d, err := New(rs.shape)
				require.NoError(t, err)
				var deltas []turn.Delta
				for i, ev := range events {
					ds, err := d.Event(ev)
					require.NoError(t, err, "event %d", i)
					deltas = append(deltas, ds...)
				}
				text, calls := messageOf(t, deltas)
				assert.Equal(t, strings.TrimSpace(rs.want.Text), strings.TrimSpace(text), "seed %d", seed)
				assert.Equal(t, wantCalls(rs.want), calls, "seed %d", seed)
			}
		})
	}
}
