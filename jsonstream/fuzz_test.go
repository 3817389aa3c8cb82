package jsonstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// feed appends text to a new Parser in pieces of the given sizes, the rest in one piece, then
// ends it.
func feed(text string, sizes []int) (*Parser, any, error) {
	var p Parser
	for _, n := range sizes {
		n = min(n, len(text))
		p.Append(text[:n])
		text = text[n:]
	}
	p.Append(text)
	v, err := p.End()
	return &p, v, err
}

// checkAgainstEncodingJSON requires the result of text, fed in pieces, to agree with
// encoding/json: the same value, or an error for the same reason at the same byte.
func checkAgainstEncodingJSON(t *testing.T, text string, sizes []int) {
	t.Helper()
	p, got, err := feed(text, sizes)
	var want any
	wantErr := json.Unmarshal([]byte(text), &want)
	var jsonSyntax *json.SyntaxError
	if errors.As(wantErr, &jsonSyntax) {
		var syn *SyntaxError
		if !errors.As(err, &syn) {
			t.Fatalf("%q: encoding/json says %v, got value %v, error %v", text, wantErr, got, err)
		}
		wantOff := jsonSyntax.Offset - 1 // encoding/json counts the offending byte as read
		// At the end encoding/json reports a missing end of input, or a space it feeds itself
		// to end a literal or number.
		if msg := jsonSyntax.Error(); jsonSyntax.Offset == int64(len(text)) && (strings.HasPrefix(msg, "unexpected end") ||
			strings.HasPrefix(msg, "invalid character ' '") && !strings.HasSuffix(text, " ")) {
			wantOff = int64(len(text))
		}
		if syn.Offset != wantOff {
			t.Fatalf("%q: error at byte %d (%v), encoding/json at %d (%v)", text, syn.Offset, syn, wantOff, wantErr)
		}
		return
	}
	if wantErr != nil {
		if err == nil {
			t.Fatalf("%q: encoding/json says %v, got %v", text, wantErr, got)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: unexpected error %v", text, err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%q: got %#v, want %#v", text, got, want)
	}
	checkFinalParams(t, text, want, p.Params())
}

// checkFinalParams requires the params of a complete object to be its string fields decoded and
// its other fields as compact JSON text.
func checkFinalParams(t *testing.T, text string, value any, params map[string]string) {
	t.Helper()
	obj, ok := value.(map[string]any)
	if !ok {
		if params != nil {
			t.Fatalf("%q: params %v for a value that is not an object", text, params)
		}
		return
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for k, v := range obj {
		if s, ok := v.(string); ok {
			want[k] = s
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw[k]); err != nil {
			t.Fatal(err)
		}
		want[k] = buf.String()
	}
	if len(want) == 0 && len(params) == 0 {
		return
	}
	if !reflect.DeepEqual(want, params) {
		t.Fatalf("%q: params %q, want %q", text, params, want)
	}
}

func FuzzParser(f *testing.F) {
	for _, s := range []string{
		`{"path":"a.go","content":"line\n\"q\" \u00e9 \ud83d\ude00 end"}`,
		`{"a":1,"b":[1,2,{"c":null}],"d":true,"e":-0.5e+3}`,
		`[1,"x",{}]`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud83d\ude00"`, `12`, `-`, `01`,
		`{"a":"\ud83d\ud83d\ude00"}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, ` {} `, `{}x`, "\"\xe2\x82\"",
		"{\"a\":\"\xf0\x9f\"}", `{"a":1e400}`, `{"a":"x","a":2}`, `nul`, `tru`, `{"a":"\x"}`,
	} {
		f.Add(s, uint64(0x0123456789abcdef))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		// Each 3 bits of the seed give the size of the next piece, 0 to 7 bytes.
		var sizes []int
		for s := seed; s != 0; s >>= 3 {
			sizes = append(sizes, int(s&7))
		}
		checkAgainstEncodingJSON(t, text, sizes)
	})
}
