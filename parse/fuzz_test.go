package parse

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// fuzzSeeds are small messages that reach every state and tricky index coincidence.
var fuzzSeeds = []string{
	"",
	"plain text",
	"Let me read it.\n<read_file>\n<path>src/main.go</path>\n</read_file>\nDone.",
	"<read_file><path>a</pa",
	"<write_to_file><path>x</path><content>a</content>b</content></write_to_file>",
	"<write_to_file><content></write_to_file>",
	"<new_rule><path>r</path><content>a</content>b</content></new_rule>",
	"<execute_command><command></command><requires_approval>true</requires_approval></execute_command>",
	"<path>outside</path><read_file></path></read_file>",
	"<read_file><read_file><path>a</path></read_file></read_file>",
	"<attempt_completion><result>a <ask_followup_question> b</result></attempt_completion>",
	"\u00a0\ufeff text \u0085<list_files><path>\u3000d\u2028</path>",
	"<replace_in_file><path>f</path><diff>\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n</diff></replace_in_file>",
	"\xff<read_file>\xe3\x80<path>\x80</path>",
}

// fuzzVectorSample adds every 64th conformance input, so the fuzzer starts from realistic text.
func fuzzVectorSample(f *testing.F) []vector {
	var out []vector
	for i, v := range loadVectors(f) {
		if i%64 == 0 && len(v.Input) < 4000 {
			out = append(out, v)
		}
	}
	return out
}

// FuzzParse checks the invariants that hold for every message: no panic, spans that point at what
// they describe, only the last block partial, and complete blocks that survive appended text.
func FuzzParse(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, uint16(i*7), "")
	}
	f.Add("<path><path>x</path>", uint16(12), "path")
	f.Add("<a<b>x</a<b>", uint16(3), "a<b")
	for _, v := range fuzzVectorSample(f) {
		extra := ""
		if len(v.ExtraToolNames) > 0 {
			extra = v.ExtraToolNames[0]
		}
		f.Add(v.Input, uint16(len(v.Input)/2), extra)
	}
	f.Fuzz(func(t *testing.T, msg string, cut uint16, extra string) {
		p := New(Config{ExtraToolNames: []string{extra}, ExtraParamNames: []string{extra}})
		whole := p.Parse(msg)
		checkSpans(t, msg, whole)
		for i, b := range whole {
			require.False(t, b.Partial && i != len(whole)-1, "block %d of %d is partial", i, len(whole))
		}
		prefix := p.Parse(msg[:int(cut)%(len(msg)+1)])
		for i, b := range prefix {
			if b.Partial {
				break
			}
			require.Less(t, i, len(whole))
			if !reflect.DeepEqual(b, whole[i]) {
				require.Equal(t, b, whole[i], "complete block %d of the prefix changed", i)
			}
		}
	})
}

// FuzzStream checks that streaming equals parsing for fuzz-chosen chunk boundaries, and that the
// complete blocks of a result never change after it was returned. Each byte
// of sizes gives one chunk length (low 4 bits, plus one); its high bit skips the Blocks call after
// that chunk, so that state carried across several Appends is exercised too.
func FuzzStream(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, []byte{1, 2, 3, 0x85, 7}, "")
	}
	f.Add("<path><path>x</path>", []byte{2}, "path")
	for _, v := range fuzzVectorSample(f) {
		extra := ""
		if len(v.ExtraToolNames) > 0 {
			extra = v.ExtraToolNames[0]
		}
		f.Add(v.Input, []byte{15, 3, 0x8f, 9, 1}, extra)
	}
	f.Fuzz(func(t *testing.T, msg string, sizes []byte, extra string) {
		if len(sizes) == 0 {
			sizes = []byte{0}
		}
		p := New(Config{ExtraToolNames: []string{extra}, ExtraParamNames: []string{extra}})
		s := p.NewStream()
		var ends []int
		var results [][]Block
		for i, at := 0, 0; at < len(msg); i++ {
			size := sizes[i%len(sizes)]
			end := min(len(msg), at+int(size&0x0f)+1)
			s.Append(msg[at:end])
			at = end
			if size&0x80 != 0 && at < len(msg) {
				continue
			}
			got := s.Blocks()
			if want := p.Parse(msg[:at]); !reflect.DeepEqual(want, got) {
				require.Equal(t, want, got, "after %d bytes", at)
			}
			ends, results = append(ends, at), append(results, completeBlocks(got))
		}
		for k, r := range results {
			if want := completeBlocks(p.Parse(msg[:ends[k]])); !reflect.DeepEqual(want, r) {
				require.Equal(t, want, r, "the complete blocks after %d bytes changed later", ends[k])
			}
		}
	})
}
