package jsonstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// stringPieces are the bits generated strings are made of, as JSON text: plain and multi-byte
// characters, every escape, surrogate pairs in both cases of hex, and unpaired surrogates.
var stringPieces = []string{
	"a", "Z", " ", "func main() {", "é", "日本", "😀", `\"`, `\\`, `\/`, "/", `\n`, `\t`, `\r`,
	`\b`, `\f`, `\u0041`, `\u00e9`, `\u65E5`, `\ud83d\ude00`, `\uD83D\uDE00`, `\ud800x`,
	`\udc00`, `\ud83d\ud83d\ude00`, `\ud800\n`, `\ud800`, `\u0000`, "\x7f",
}

// genString returns the JSON text of a random string.
func genString(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteByte('"')
	for range rng.IntN(n + 1) {
		b.WriteString(stringPieces[rng.IntN(len(stringPieces))])
	}
	b.WriteByte('"')
	return b.String()
}

// space returns random insignificant white space.
func space(rng *rand.Rand) string {
	return [...]string{"", "", "", " ", "\n  ", "\t", "\r\n"}[rng.IntN(7)]
}

// genValue returns the JSON text of a random value nested at most depth deep.
func genValue(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(10); {
	case k < 4:
		return genString(rng, 8)
	case k == 4:
		return [...]string{"0", "-1", "12.5", "1e3", "-0.25E-2", "42"}[rng.IntN(6)]
	case k == 5:
		return [...]string{"true", "false", "null"}[rng.IntN(3)]
	case k < 8 && depth > 0:
		var parts []string
		for range rng.IntN(4) {
			parts = append(parts, space(rng)+genString(rng, 3)+space(rng)+":"+space(rng)+genValue(rng, depth-1)+space(rng))
		}
		return "{" + strings.Join(parts, ",") + space(rng) + "}"
	case depth > 0:
		var parts []string
		for range rng.IntN(4) {
			parts = append(parts, space(rng)+genValue(rng, depth-1)+space(rng))
		}
		return "[" + strings.Join(parts, ",") + space(rng) + "]"
	}
	return genString(rng, 4)
}

// field is one top-level member of a generated object, with where its value lies in the text.
type field struct {
	key        string
	start, end int // the value's first byte and the byte after it
	isString   bool
	isNumber   bool
}

// genObject returns a random top-level object, the way tool arguments look, and its fields.
func genObject(rng *rand.Rand) (string, []field) {
	keys := []string{`"path"`, `"content"`, `"diff"`, `"c\u006fntent"`, `"n"`, `"é"`}
	var b strings.Builder
	var fields []field
	b.WriteString(space(rng) + "{")
	for i := range rng.IntN(5) {
		if i > 0 {
			b.WriteString(",")
		}
		key := keys[rng.IntN(len(keys))]
		b.WriteString(space(rng) + key + space(rng) + ":" + space(rng))
		var value string
		if rng.IntN(3) > 0 {
			value = genString(rng, 30)
		} else {
			value = genValue(rng, 2)
		}
		var k string
		if err := json.Unmarshal([]byte(key), &k); err != nil {
			panic(err)
		}
		f := field{key: k, start: b.Len(), isString: value[0] == '"', isNumber: value[0] == '-' || value[0] >= '0' && value[0] <= '9'}
		b.WriteString(value)
		f.end = b.Len()
		fields = append(fields, f)
		b.WriteString(space(rng))
	}
	b.WriteString("}" + space(rng))
	return b.String(), fields
}

// prefixParams is what Params must hold after the first n bytes of text: every string field
// whose opening quote has arrived, decoded up to the last whole character or escape (a high
// surrogate escape counts as whole only once what follows it shows it unpaired); every other
// field once complete, as compact text (a number is complete once the byte after it arrived).
func prefixParams(t *testing.T, text string, fields []field, n int) map[string]string {
	out := map[string]string{}
	for _, f := range fields {
		switch {
		case f.isString && n > f.start:
			body := text[f.start+1 : min(n, f.end-1)]
			if n >= f.end {
				body = text[f.start+1 : f.end-1]
			} else {
				body = body[:wholePrefix(body)]
			}
			var s string
			require.NoError(t, json.Unmarshal([]byte(`"`+body+`"`), &s), body)
			out[f.key] = s
		case !f.isString && (n > f.end || n == f.end && !f.isNumber):
			var c bytes.Buffer
			require.NoError(t, json.Compact(&c, []byte(text[f.start:f.end])))
			out[f.key] = c.String()
		}
	}
	return out
}

// wholePrefix returns the length of the longest prefix of a string's body that ends with a
// whole character or escape.
func wholePrefix(body string) int {
	cut := 0
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && i+1 >= len(body):
			return cut
		case c == '\\' && body[i+1] != 'u':
			i += 2
		case c == '\\':
			if i+6 > len(body) {
				return cut
			}
			var r rune
			fmt.Sscanf(body[i+2:i+6], "%x", &r)
			rest := body[i+6:]
			if r >= 0xD800 && r <= 0xDBFF && len(rest) < 6 && strings.HasPrefix(`\u`, rest[:min(2, len(rest))]) {
				return cut
			}
			i += 6
		case c >= utf8.RuneSelf && !utf8.FullRuneInString(body[i:]):
			return cut
		case c >= utf8.RuneSelf:
			_, size := utf8.DecodeRuneInString(body[i:])
			i += size
		default:
			i++
		}
		cut = i
	}
	return cut
}

// TestEveryChunking streams random tool-call-like objects in random pieces, splitting inside
// escapes, surrogate pairs and UTF-8 sequences, and checks Params after every piece against the
// decoded prefix, and the end against encoding/json.
func TestEveryChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 400 {
		text, fields := genObject(rng)
		var want any
		require.NoError(t, json.Unmarshal([]byte(text), &want), text)
		for _, maxPiece := range []int{1, 3, 7, 40} {
			var p Parser
			for at := 0; at < len(text); {
				n := min(len(text)-at, 1+rng.IntN(maxPiece))
				p.Append(text[at : at+n])
				at += n
				require.NoError(t, p.Err())
				want := prefixParams(t, text, fields, at)
				got := p.Params()
				if len(want) != 0 || len(got) != 0 {
					require.Equal(t, want, got, "after %d bytes of %q", at, text)
				}
			}
			got, err := p.End()
			require.NoError(t, err)
			require.Equal(t, want, got, text)
		}
	}
}
