package parse

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the blocks.json sections of testdata/golden/*.txtar")

// goldenBlock is Block with its spans made visible, for review in the golden files.
type goldenBlock struct {
	Type       BlockType         `json:"type"`
	Content    string            `json:"content,omitempty"`
	Name       string            `json:"name,omitempty"`
	Params     map[string]string `json:"params,omitempty"`
	Partial    bool              `json:"partial"`
	Span       string            `json:"span"`
	ParamSpans map[string]string `json:"paramSpans,omitempty"`
}

func showSpan(s Span) string { return fmt.Sprintf("[%d,%d)", s.Start, s.End) }

func renderGolden(t *testing.T, blocks []Block) []byte {
	t.Helper()
	out := make([]goldenBlock, len(blocks))
	for i, b := range blocks {
		g := goldenBlock{
			Type: b.Type, Content: b.Content, Name: b.Name, Params: b.Params, Partial: b.Partial,
			Span: showSpan(b.Span),
		}
		for k, s := range b.ParamSpans {
			if g.ParamSpans == nil {
				g.ParamSpans = make(map[string]string)
			}
			g.ParamSpans[k] = showSpan(s)
		}
		out[i] = g
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(out))
	return buf.Bytes()
}

// TestGolden parses the "input" section of each archive (with the tool names listed one per line
// in the optional "extra" section) and compares the blocks, spans included, with "blocks.json".
// Streaming the input line by line must give the same result.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			sections := map[string]int{}
			for i, f := range ar.Files {
				sections[f.Name] = i
			}
			in, ok := sections["input"]
			require.True(t, ok, "no input section")
			msg := string(ar.Files[in].Data)
			var cfg Config
			if i, ok := sections["extra"]; ok {
				cfg.ExtraToolNames = strings.Split(strings.TrimSuffix(string(ar.Files[i].Data), "\n"), "\n")
			}
			p := New(cfg)
			blocks := p.Parse(msg)
			checkSpans(t, msg, blocks)
			got := renderGolden(t, blocks)

			s := p.NewStream()
			for _, line := range strings.SplitAfter(msg, "\n") {
				s.Append(line)
			}
			assert.Equal(t, blocks, s.Blocks(), "stream")

			i, ok := sections["blocks.json"]
			if *update {
				if !ok {
					ar.Files = append(ar.Files, txtar.File{Name: "blocks.json"})
					i = len(ar.Files) - 1
				}
				ar.Files[i].Data = got
				require.NoError(t, os.WriteFile(file, txtar.Format(ar), 0o644))
				return
			}
			require.True(t, ok, "no blocks.json section; run with -update")
			assert.Equal(t, string(ar.Files[i].Data), string(got))
		})
	}
}
