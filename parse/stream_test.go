package parse

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chunk splits msg into pieces of 1..maxRunes runes (or bytes, when runes is false), chosen by rng.
func chunk(rng *rand.Rand, msg string, maxLen int, runes bool) []string {
	var out []string
	for len(msg) > 0 {
		n := 1 + rng.IntN(maxLen)
		end := 0
		for k := 0; k < n && end < len(msg); k++ {
			if runes {
				_, size := utf8.DecodeRuneInString(msg[end:])
				end += size
			} else {
				end++
			}
		}
		out = append(out, msg[:end])
		msg = msg[end:]
	}
	return out
}

// requireStreamMatches appends pieces one by one and, after each, requires Blocks to equal Parse
// of the text so far, spans included.
func requireStreamMatches(t *testing.T, p *Parser, pieces []string) {
	t.Helper()
	s := p.NewStream()
	msg := ""
	for i, piece := range pieces {
		s.Append(piece)
		msg += piece
		got, want := s.Blocks(), p.Parse(msg)
		if !reflect.DeepEqual(want, got) {
			require.Equal(t, want, got, "after piece %d of %d, text so far %q", i+1, len(pieces), msg)
		}
	}
}

// TestStreamEqualsParse streams every conformance input in random rune-aligned chunks and checks
// every intermediate result, including spans. Long inputs get proportionally larger chunks to
// keep the quadratic re-parse of the check affordable.
func TestStreamEqualsParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range loadVectors(t) {
		p := New(Config{ExtraToolNames: v.ExtraToolNames})
		maxLen := max(8, len(v.Input)/40)
		requireStreamMatches(t, p, chunk(rng, v.Input, maxLen, true))
		if t.Failed() {
			t.Fatalf("vector %s", v.ID)
		}
	}
}

// TestStreamByteChunks splits inside UTF-8 sequences and tags, which the rune-aligned test cannot.
func TestStreamByteChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, v := range loadVectors(t) {
		if len(v.Input) > 4000 || v.Category == "streaming_prefix" {
			continue
		}
		requireStreamMatches(t, New(Config{ExtraToolNames: v.ExtraToolNames}), chunk(rng, v.Input, 5, false))
	}
}

// TestStreamResultsKept keeps every result of a stream and checks, once the whole message has been
// appended, what each still holds: the complete blocks of a Blocks result (a partial last block
// is only valid until the next call), and the whole of a Snapshot.
func TestStreamResultsKept(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep func(*Stream) []Block // called after each Append; what it returns must last
		want func([]Block) []Block // what of the parse of the prefix it must equal
	}{
		{"Blocks", func(s *Stream) []Block { return completeBlocks(s.Blocks()) }, completeBlocks},
		{"Snapshot", (*Stream).Snapshot, func(b []Block) []Block { return b }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			for i, v := range loadVectors(t) {
				if i%7 != 0 || len(v.Input) > 20000 {
					continue
				}
				p := New(Config{ExtraToolNames: v.ExtraToolNames})
				s := p.NewStream()
				var prefixes []string
				var results [][]Block
				msg := ""
				for _, piece := range chunk(rng, v.Input, 12, true) {
					s.Append(piece)
					msg += piece
					prefixes = append(prefixes, msg)
					results = append(results, tc.keep(s))
				}
				for k, r := range results {
					if want := tc.want(p.Parse(prefixes[k])); !reflect.DeepEqual(want, r) {
						require.Equal(t, want, r, "vector %s: result %d changed after later appends", v.ID, k)
					}
				}
			}
		})
	}
}

// completeBlocks returns blocks without a partial last block: the part of a Stream result that
// stays valid after the next call. Call it when the result is returned.
func completeBlocks(blocks []Block) []Block {
	if n := len(blocks); n > 0 && blocks[n-1].Partial {
		return blocks[:n-1]
	}
	return blocks
}

func TestStreamSharesCompleteBlocks(t *testing.T) {
	s := New(Config{}).NewStream()
	s.Append("intro <read_file><path>a</path></read_file> tail")
	first := s.Blocks()
	require.Len(t, first, 3)
	s.Append(" more <execute_command><command>ls</command>")
	second := s.Blocks()
	require.Len(t, second, 4)
	assert.Equal(t, first[:2], second[:2], "complete blocks never change")
	assert.Equal(t, "tail more", second[2].Content)
	assert.False(t, second[2].Partial)
	assert.True(t, second[3].Partial)
	assert.Equal(t, map[string]string{"command": "ls"}, second[3].Params)
}

func TestStreamEmpty(t *testing.T) {
	s := New(Config{}).NewStream()
	assert.Empty(t, s.Blocks())
	s.Append("")
	s.Append(" \n")
	assert.Empty(t, s.Blocks())
	s.Append("<read_")
	assert.Equal(t, []Block{{Type: Text, Content: "<read_", Partial: true, Span: Span{2, 8}}}, s.Blocks())
	s.Append("file>")
	assert.Equal(t, []Block{{Type: ToolUse, Name: "read_file", Partial: true, Span: Span{2, 13}}}, s.Blocks())
}

// TestStreamLongMessageDropsText streams long messages of many blocks, with names that hold '<'
// (looked for by suffix) and long names, in random byte chunks: the blocks must equal Parse of
// the text so far at every checkpoint, spans included, while the Stream keeps only the text
// from the open block on.
func TestStreamLongMessageDropsText(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	long := strings.Repeat("n", 40)
	p := New(Config{ExtraToolNames: []string{"a<b", long}, ExtraParamNames: []string{"p<q", long + "_p"}})
	pieces := []string{
		"Some text with a > and a < in it.\n",
		"<read_file>\n<path>src/a.go</path>\n</read_file>\n",
		"<a<b><p<q>value</p<q></a<b>",
		"<" + long + "><" + long + "_p> v </" + long + "_p></" + long + ">",
		"<write_to_file><path>x</path><content>\nline\n</content></write_to_file>",
		"<execute_command><command>" + strings.Repeat("echo; ", 200) + "</command></execute_command>",
		"   \n\t  ",
		"日本語 😀 ",
		"  \n " + strings.Repeat("long prose ", 900) + " \n ", // a text region across buffer moves
		"prose, then white space" + strings.Repeat(" \n", 3000),
		"<write_to_file><path>y</path><content>\n" + strings.Repeat("content line\n", 500) + "</content> inside\n</content></write_to_file>",
	}
	for round := range 4 {
		var b strings.Builder
		for b.Len() < 200<<10 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		msg := b.String()
		s := p.NewStream()
		for at, next := 0, 0; at < len(msg); {
			end := min(len(msg), at+1+rng.IntN(300))
			s.Append(msg[at:end])
			at = end
			if at >= next || at == len(msg) {
				next = at + 1 + rng.IntN(3<<10)
				got, want := s.Blocks(), p.Parse(msg[:at])
				if !reflect.DeepEqual(want, got) {
					require.Equal(t, want, got, "round %d after %d bytes", round, at)
				}
				// The buffer is at most twice the longest region (a block and the text before
				// it) plus the look-back of the longest tag, a delta and the least buffer, with
				// the allocator's rounding: it does not grow with the message.
				region, prevEnd := 0, 0
				for _, blk := range want {
					region, prevEnd = max(region, blk.Span.End-prevEnd), blk.Span.End
				}
				region = max(region, at-prevEnd)
				require.LessOrEqual(t, s.buf.Cap(), 2*(region+len(long)+4+300)*9/8+minBuffer+8<<10, "round %d: the stream keeps text it no longer reads", round)
			}
		}
	}
}
