package provider

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/parse"
	"github.com/assistant-ls/assistant-ls/turn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// recordedStream is one recorded stream of testdata/SHAPE.txtar and what it holds.
type recordedStream struct {
	shape, name string
	events      [][]byte
	want        recordedWant
}

// recordedWant is a stream's text and tool calls, as its source's own test expects them.
type recordedWant struct {
	Source string         `json:"source"`
	Text   string         `json:"text"`
	Calls  []recordedCall `json:"calls"`
}

type recordedCall struct {
	ID    string         `json:"id"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// recordedStreams reads every recorded stream of every shape.
func recordedStreams(t testing.TB) []recordedStream {
	t.Helper()
	var out []recordedStream
	for _, name := range Names() {
		a, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
		require.NoError(t, err, "every shape has recorded streams")
		files := map[string][]byte{}
		for _, f := range a.Files {
			files[f.Name] = f.Data
		}
		n := 0
		for _, f := range a.Files {
			stream, ok := strings.CutSuffix(f.Name, ".jsonl")
			if !ok {
				continue
			}
			rs := recordedStream{shape: name, name: stream}
			require.NoError(t, json.Unmarshal(files[stream+".want.json"], &rs.want), f.Name)
			require.NotEmpty(t, rs.want.Source, f.Name)
			for _, line := range bytes.Split(f.Data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 {
					rs.events = append(rs.events, line)
				}
			}
			out = append(out, rs)
			n++
		}
		require.GreaterOrEqual(t, n, 2, "%s has several recorded streams", name)
	}
	return out
}

// messageOf applies deltas to a new message, ends it, and returns its text and tool calls.
func messageOf(t testing.TB, deltas []turn.Delta) (string, []recordedCall) {
	t.Helper()
	s := turn.New(parse.New(parse.Config{}))
	for _, d := range deltas {
		require.NoError(t, s.Apply(d))
	}
	require.NoError(t, s.Apply(turn.Delta{Final: true}))
	var text strings.Builder
	calls := []recordedCall{}
	for _, b := range s.Blocks() {
		switch {
		case b.CallID != "":
			require.NoError(t, b.Err, b.CallID)
			calls = append(calls, recordedCall{ID: b.CallID, Name: b.Name, Input: b.Input})
		case b.Type == parse.Text:
			text.WriteString(b.Content)
		}
	}
	return text.String(), calls
}

// wantCalls is a stream's expected calls in the shape messageOf returns them.
func wantCalls(w recordedWant) []recordedCall {
	// Through JSON both sides hold the same types: numbers as float64.
	b, _ := json.Marshal(w.Calls)
	out := []recordedCall{}
	_ = json.Unmarshal(b, &out)
	return out
}

// TestRecordedStreams replays every recorded stream, both with its shape named and recognised,
// and checks the text and tool calls it makes against what its source expects.
func TestRecordedStreams(t *testing.T) {
	t.Parallel()
	for _, rs := range recordedStreams(t) {
		for _, named := range []bool{false, true} {
			name := rs.shape + "/" + rs.name
			if named {
				name += "/named"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				d := &Decoder{}
				if named {
					var err error
					d, err = New(rs.shape)
					require.NoError(t, err)
				}
				var deltas []turn.Delta
				for i, ev := range rs.events {
					ds, err := d.Event(ev)
					require.NoError(t, err, "event %d", i)
					deltas = append(deltas, ds...)
				}
				assert.Equal(t, rs.shape, d.Shape())
				text, calls := messageOf(t, deltas)
				// Text of a provider is whitespace-exact; parse trims a text block's edges as
				// Cline does, so compare what is left.
				assert.Equal(t, strings.TrimSpace(rs.want.Text), strings.TrimSpace(text), rs.want.Source)
				assert.Equal(t, wantCalls(rs.want), calls, rs.want.Source)
			})
		}
	}
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }
