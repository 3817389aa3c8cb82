package ext_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/assistant-ls/assistant-ls/lsp/ext"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// jsonPieces are the pieces random strings are made of: every class of byte the quoting treats
// differently.
var jsonPieces = []string{
	"a", "plain text ", "<tag>", "&", `"`, `\`, "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f",
	"\x7f", "é", "日本", "😀", "\u2028", "\u2029", "\ufffd", "\xff", "\x80", "\xe2\x82", "\xf0\x9f\x98",
}

func randString(r *rand.Rand) string {
	var sb strings.Builder
	for range r.IntN(8) {
		sb.WriteString(jsonPieces[r.IntN(len(jsonPieces))])
	}
	return sb.String()
}

// randValue is a value as decoding a tool call's arguments gives, nested at most depth deep.
func randValue(r *rand.Rand, depth int, maxKeys int) any {
	switch k := r.IntN(7); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return []float64{0, 1, -2.5, 1e21, 3.14159, 1e-7}[r.IntN(6)]
	case k == 3 && depth > 0:
		var a []any
		for range r.IntN(3) {
			a = append(a, randValue(r, depth-1, maxKeys))
		}
		return a
	case k == 4 && depth > 0:
		return randAnyMap(r, depth-1, maxKeys)
	default:
		return randString(r)
	}
}

// randKey is a random map key; keys of maps with several are valid UTF-8, since two keys that
// differ only in invalid bytes would be one key on the wire.
func randKey(r *rand.Rand, maxKeys int) string {
	if maxKeys > 1 {
		return strings.ToValidUTF8(randString(r), "")
	}
	return randString(r)
}

func randAnyMap(r *rand.Rand, depth, maxKeys int) map[string]any {
	m := map[string]any{}
	for range r.IntN(maxKeys + 1) {
		m[randKey(r, maxKeys)] = randValue(r, depth, maxKeys)
	}
	return m
}

// randBlocks returns a push whose maps have at most maxKeys keys each.
func randBlocks(r *rand.Rand, maxKeys int) ext.BlocksParams {
	p := ext.BlocksParams{Stream: randString(r), From: r.IntN(1000) - 1, Final: r.IntN(2) == 0}
	if r.IntN(8) > 0 {
		p.Blocks = []ext.Block{}
	}
	for i := range r.IntN(4) {
		b := ext.Block{Index: i, ID: randString(r), Partial: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			b.Type = ext.BlockText
			c := randString(r)
			b.Content = &c
		} else {
			b.Type, b.Name = ext.BlockToolUse, randString(r)
			if r.IntN(4) > 0 {
				b.Params = map[string]string{}
				for range r.IntN(maxKeys + 1) {
					b.Params[randKey(r, maxKeys)] = randString(r)
				}
			}
			if r.IntN(2) == 0 {
				b.CallID, b.Input = randString(r), randAnyMap(r, 2, maxKeys)
			}
		}
		if r.IntN(2) == 0 {
			b.Edit = &ext.EditState{URI: "file:///a%20b.go", Status: ext.StatusFailed, Error: randString(r),
				MatchPositions: []protocol.Position{{Line: 1, Character: 2}}, Tiers: []string{randString(r)}}
		}
		p.Blocks = append(p.Blocks, b)
	}
	return p
}

// appendExact checks that AppendJSON sizes its buffer exactly: given room for exactly its
// result, it writes in place.
func appendExact(t *testing.T, want []byte, appendJSON func([]byte) ([]byte, error)) []byte {
	t.Helper()
	dst := make([]byte, 0, len(want))
	got, err := appendJSON(dst)
	require.NoError(t, err)
	require.Equal(t, unsafe.SliceData(dst), unsafe.SliceData(got), "AppendJSON grew a buffer that had room")
	return got
}

// TestBlocksJSONIsTheCodecs checks, on random pushes and parse results, that the push encoder
// writes the bytes the protocol package's codec writes for them (issue 16, item 14: the wire
// does not change), in a buffer of exactly their size. The codec writes a map's keys in any
// order, so the bytes are compared where maps have at most one key, and the values elsewhere.
func TestBlocksJSONIsTheCodecs(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(16, 14))
	for i := range 3000 {
		maxKeys := 1
		if i%2 == 1 {
			maxKeys = 3
		}
		p := randBlocks(r, maxKeys)
		want, err := protocol.Marshal(p)
		require.NoError(t, err)
		got := appendExact(t, want, p.AppendJSON)
		res := ext.ParseResult{Stream: p.Stream, Blocks: p.Blocks, Final: p.Final}
		wantRes, err := protocol.Marshal(res)
		require.NoError(t, err)
		gotRes := appendExact(t, wantRes, res.AppendJSON)
		if maxKeys == 1 {
			require.Equal(t, string(want), string(got))
			require.Equal(t, string(wantRes), string(gotRes))
			continue
		}
		var a, b any
		require.NoError(t, json.Unmarshal(want, &a))
		require.NoError(t, json.Unmarshal(got, &b))
		require.Equal(t, a, b, "%s", got)
	}
}

// FuzzBlocksJSON checks that any string is quoted as the protocol codec quotes it.
func FuzzBlocksJSON(f *testing.F) {
	for _, s := range jsonPieces {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := ext.BlocksParams{Stream: s, Blocks: []ext.Block{
			{ID: s, Type: ext.BlockText, Content: &s},
			{ID: s, Type: ext.BlockToolUse, Name: s, Params: map[string]string{s: s}, CallID: s, Input: map[string]any{s: []any{s}}},
		}}
		want, err := protocol.Marshal(p)
		require.NoError(t, err)
		got := appendExact(t, want, p.AppendJSON)
		require.Equal(t, string(want), string(got))
	})
}
