package jsonstream

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParamsGrowAsFragmentsArrive(t *testing.T) {
	var p Parser
	steps := []struct {
		fragment string
		changed  bool
		params   map[string]string
	}{
		{`{"pa`, false, nil},
		{`th": "a.go", "content": "`, true, map[string]string{"path": "a.go", "content": ""}},
		{`x\`, true, map[string]string{"path": "a.go", "content": "x"}},
		{`ny\u00`, true, map[string]string{"path": "a.go", "content": "x\ny"}},
		{`e9 \ud83d`, true, map[string]string{"path": "a.go", "content": "x\nyé "}},
		{`\ude00`, true, map[string]string{"path": "a.go", "content": "x\nyé 😀"}},
		{"\xe6\x97", false, map[string]string{"path": "a.go", "content": "x\nyé 😀"}},
		{"\xa5\", \"n\": 1", true, map[string]string{"path": "a.go", "content": "x\nyé 😀日"}},
		{"2 ", true, map[string]string{"path": "a.go", "content": "x\nyé 😀日", "n": "12"}},
		{`, "o": {"k": [1, 2]}`, true, map[string]string{"path": "a.go", "content": "x\nyé 😀日", "n": "12", "o": `{"k":[1,2]}`}},
		{` , "path": "b`, true, map[string]string{"path": "b", "content": "x\nyé 😀日", "n": "12", "o": `{"k":[1,2]}`}},
		{`"}  `, false, map[string]string{"path": "b", "content": "x\nyé 😀日", "n": "12", "o": `{"k":[1,2]}`}},
	}
	for i, s := range steps {
		assert.Equal(t, s.changed, p.Append(s.fragment), "step %d", i)
		assert.Equal(t, s.params, p.Params(), "step %d", i)
	}
	v, err := p.End()
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"path": "b", "content": "x\nyé 😀日", "n": 12.0, "o": map[string]any{"k": []any{1.0, 2.0}}}, v)
	assert.False(t, p.Append(`x`), "Append after End does nothing")
	v2, err2 := p.End()
	assert.Equal(t, v, v2)
	assert.NoError(t, err2)
}

func TestValuesThatAreNotObjects(t *testing.T) {
	for _, text := range []string{`[1, "a", {"b": null}]`, `"\ud83d\ude00"`, ` 12 `, `-0.5e3`, `true`, `null`} {
		var p Parser
		p.Append(text)
		assert.Nil(t, p.Params(), text)
		got, err := p.End()
		require.NoError(t, err, text)
		var want any
		require.NoError(t, json.Unmarshal([]byte(text), &want))
		assert.Equal(t, want, got, text)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		text   string
		offset int64
		msg    string
	}{
		{``, 0, "unexpected end of JSON input"},
		{`{"a": "b"`, 9, "unexpected end of JSON input"},
		{`{"a": "b\`, 9, "unexpected end of JSON input"},
		{`{"a" "b"}`, 5, `invalid character '"' after object key (expecting ':')`},
		{`{"a": "b",}`, 10, "invalid character '}' looking for the beginning of an object key string"},
		{`{"a": "b\x"}`, 9, `invalid escape 'x' in string literal`},
		{`{"a": "\u12G4"}`, 11, `invalid character 'G' in \u escape`},
		{"{\"a\": \"line\nbreak\"}", 11, `invalid control character '\n' in string literal`},
		{`{"a": tru}`, 9, `invalid character '}' in literal true (expecting 'e')`},
		{`{"a": 1.}`, 8, "after decimal point in numeric literal"},
		{`{"a": -}`, 7, "in numeric literal (expecting a digit after '-')"},
		{`[1 2]`, 3, "invalid character '2' after array element (expecting ',' or ']')"},
		{`{} {}`, 3, "invalid character '{' after the top-level value"},
		{strings.Repeat("[", maxDepth+1), maxDepth, "exceeded max depth"},
	} {
		var p Parser
		for i := range len(tc.text) {
			p.Append(tc.text[i : i+1])
		}
		_, err := p.End()
		var syn *SyntaxError
		require.True(t, errors.As(err, &syn), "%q: %v", tc.text, err)
		assert.Equal(t, tc.offset, syn.Offset, tc.text)
		assert.Contains(t, syn.Msg, tc.msg, tc.text)
		assert.Equal(t, err, p.Err(), tc.text)
		assert.Equal(t, json.Valid([]byte(tc.text)), false, tc.text)
	}
}

func TestDepthLimitMatchesEncodingJSON(t *testing.T) {
	text := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	var p Parser
	p.Append(text)
	_, err := p.End()
	assert.NoError(t, err)
	assert.True(t, json.Valid([]byte(text)))
}

func TestErrorStopsParamsAndKeepsWhatWasRead(t *testing.T) {
	var p Parser
	p.Append(`{"path": "a.go", "content": "abc`)
	p.Append("\x01def\"}")
	assert.Error(t, p.Err())
	assert.Equal(t, map[string]string{"path": "a.go", "content": "abc"}, p.Params())
	assert.False(t, p.Append(`more`))
}

func TestNumberOutOfRange(t *testing.T) {
	var p Parser
	p.Append(`{"a": 1e400}`)
	_, err := p.End()
	require.Error(t, err)
	var syn *SyntaxError
	assert.False(t, errors.As(err, &syn), "valid JSON, but no float64 holds it")
	assert.Contains(t, err.Error(), `field "a"`)
}

func TestNewEmptyFieldIsAChange(t *testing.T) {
	var p Parser
	assert.False(t, p.Append(`{"a": `))
	assert.True(t, p.Append(`"`))
	assert.Equal(t, map[string]string{"a": ""}, p.Params())
	assert.False(t, p.Append(`"`))
	assert.True(t, p.Append(`, "b": ""`))
}

// TestOpen checks which top-level string field is still arriving as an object streams in.
func TestOpen(t *testing.T) {
	tests := []struct {
		text string
		key  string
		ok   bool
	}{
		{``, "", false},
		{`{"pa`, "", false},
		{`{"path"`, "", false},
		{`{"path":`, "", false},
		{`{"path":"`, "path", true},
		{`{"path":"a.g`, "path", true},
		{`{"path":"a.go\`, "path", true},
		{`{"path":"a.go"`, "", false},
		{`{"path":"a.go","n":12`, "", false},
		{`{"path":"a.go","o":{"x":"y`, "", false},
		{`{"path":"a.go","":"v`, "", true},
		{`{"path":"a.go"}`, "", false},
		{`"top`, "", false},
	}
	for _, tt := range tests {
		var p Parser
		p.Append(tt.text)
		key, ok := p.Open()
		assert.Equal(t, tt.ok, ok, "%s", tt.text)
		assert.Equal(t, tt.key, key, "%s", tt.text)
	}
}
