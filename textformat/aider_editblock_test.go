package textformat

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/assistant-ls/assistant-ls/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAiderVectors runs testdata/aider/*.txtar: Aider's own test cases (each file's comment names
// the test of tests/basic/test_editblock.py it transcribes) and further cases whose expected
// results are Aider's. Section "text" is an assistant reply ("options" holding no-final-newline
// drops its last line break). "path N", "search N" and "replace N" are the N-th section FindAider
// recognises, all of them; "aider error" is the error Aider raises while reading the reply, where
// FindAider then recognises nothing. For each path, "file P" is its content (absent: it does not
// exist), "want P" its content after every block naming it is applied in turn, or "error P" the
// error kind, "message P" the whole message, and "tiers P" the tiers. A case that differs from
// Aider has a "differs" section saying how; docs/protocol.md names each difference.
func TestAiderVectors(t *testing.T) {
	var differs atomic.Int32
	golden.Run(t, "testdata/aider/*.txtar", func(t *testing.T, c golden.Case) {
		t.Parallel()
		sec := c.Raw
		if d, ok := c.Sections["differs"]; ok {
			differs.Add(1)
			doc, err := protocolDoc()
			require.NoError(t, err)
			assert.Contains(t, doc, "- **"+d+"**", "docs/protocol.md names the difference")
		}
		text := sec["text"]
		if strings.Contains(sec["options"], "no-final-newline") {
			text = strings.TrimSuffix(text, "\n")
		}
		edits := Find(text, Aider, UDiff, V4A)
		var got, want strings.Builder
		n := 0
		for _, e := range edits {
			require.Equal(t, Aider, e.Format)
			checkSpans(t, text, e)
			for _, f := range e.Files {
				for _, s := range f.Sections {
					n++
					fmt.Fprintf(&got, "-- path %d --\n%s\n-- search %d --\n%s-- replace %d --\n%s", n, f.Path, n, s.Search, n, s.Replace)
				}
			}
		}
		for k := 1; ; k++ {
			p, ok := sec[fmt.Sprintf("path %d", k)]
			if !ok {
				break
			}
			fmt.Fprintf(&want, "-- path %d --\n%s-- search %d --\n%s-- replace %d --\n%s", k, p, k, sec[fmt.Sprintf("search %d", k)], k, sec[fmt.Sprintf("replace %d", k)])
		}
		assert.Equal(t, want.String(), got.String())
		if _, ok := sec["aider error"]; ok {
			assert.Empty(t, edits, "Aider refuses the reply; we recognise nothing in it")
		}
		for _, name := range c.Names {
			p, ok := strings.CutPrefix(name, "want ")
			if !ok {
				if p, ok = strings.CutPrefix(name, "error "); !ok {
					continue
				}
			}
			res, err := applyAll(edits, p, sec)
			if kind, isErr := sec["error "+p]; isErr {
				var fe *Error
				require.ErrorAs(t, err, &fe, p)
				assert.Equal(t, strings.TrimSpace(kind), string(fe.Kind), p)
				if msg, ok := sec["message "+p]; ok {
					assert.Equal(t, msg, err.Error(), p)
				}
				continue
			}
			require.NoError(t, err, p)
			assert.Equal(t, sec["want "+p], res.Content, p)
			if tiers, ok := sec["tiers "+p]; ok {
				var names []string
				for _, tier := range res.Tiers {
					names = append(names, string(tier))
				}
				assert.Equal(t, strings.TrimSpace(tiers), strings.Join(names, " "), p)
			}
		}
	})
	t.Cleanup(func() { t.Logf("%d vectors differ from Aider where docs/protocol.md says", differs.Load()) })
}

// protocolDoc is docs/protocol.md, which names every difference from Aider.
var protocolDoc = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("../docs/protocol.md")
	return string(b), err
})

// applyAll applies, in turn, every file of edits whose path is p to the content "file p" gives,
// as the server does with the blocks of one reply; the tiers are all of them.
func applyAll(edits []Edit, p string, sec map[string]string) (Result, error) {
	content, exists := sec["file "+p]
	var out Result
	for _, e := range edits {
		for _, f := range e.Files {
			if f.Path != p {
				continue
			}
			res, err := f.Apply(content, exists)
			if err != nil {
				return Result{}, err
			}
			content, exists = res.Content, true
			out.Content, out.Create = res.Content, out.Create || res.Create
			out.Tiers = append(out.Tiers, res.Tiers...)
		}
	}
	return out, nil
}

// TestAiderFindFilename ports test_find_filename of Aider's tests/basic/test_editblock.py: the
// lines before a SEARCH marker, and the file name Aider finds in them. Aider matches names against
// the files in the chat (valid_fnames: file1.py, file2.py, dir/file3.py, \windows\__init__.py),
// by base name and by similarity; we have no such list and take the name as written
// (docs/protocol.md, "Differences from Aider").
func TestAiderFindFilename(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		aider string // what Aider's test asserts
		want  string // ours, where it differs
	}{
		{name: "filename on a single line", lines: []string{"file1.py", "```"}, aider: "file1.py"},
		{name: "filename in fence", lines: []string{"```python", "file3.py", "```"}, aider: "dir/file3.py", want: "file3.py"},
		{name: "no valid filename", lines: []string{"```", "invalid_file.py", "```"}, aider: "invalid_file.py"},
		{name: "multiple fences", lines: []string{"```python", "file1.py", "```", "```", "file2.py", "```"}, aider: "file2.py"},
		{name: "filename having extra characters", lines: []string{"# file1.py", "```"}, aider: "file1.py"},
		{name: "fuzzy matching", lines: []string{"file1_py", "```"}, aider: "file1.py", want: "file1_py"},
		{name: "fuzzy matching of a Windows path", lines: []string{`\windows__init__.py`, "```"}, aider: `\windows\__init__.py`, want: `\windows__init__.py`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Join(tt.lines, "\n") + "\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
			var paths []string
			for _, e := range FindAider(text) {
				for _, f := range e.Files {
					paths = append(paths, f.Path)
				}
			}
			want := tt.want
			if want == "" {
				want = tt.aider
			}
			assert.Equal(t, []string{want}, paths)
		})
	}
}

// TestAiderUnwrap ports the test_strip_quoted_wrapping cases of Aider's
// tests/basic/test_editblock.py: a SEARCH or REPLACE text loses a first line naming its file and a
// fence around it.
func TestAiderUnwrap(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, text, file, want string }{
		{"test_strip_quoted_wrapping", "filename.ext\n```\nWe just want this content\nNot the filename and triple quotes\n```",
			"filename.ext", "We just want this content\nNot the filename and triple quotes\n"},
		{"test_strip_quoted_wrapping_no_filename", "```\nWe just want this content\nNot the triple quotes\n```",
			"f.txt", "We just want this content\nNot the triple quotes\n"},
		{"test_strip_quoted_wrapping_no_wrapping", "We just want this content\nNot the triple quotes\n",
			"f.txt", "We just want this content\nNot the triple quotes\n"},
		{"one trailing blank line is dropped, as Aider's splitlines and join do", "a\n\n", "f.txt", "a\n"},
		{"a path naming the file", "src/f.txt\nx\n", "src/f.txt", "x\n"},
		{"ours: a first line that only ends with the file's name stays", "load f.txt\nx\n", "f.txt", "load f.txt\nx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, unwrapAider(tt.text, tt.file))
		})
	}
}
