package textformat

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

func addSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	aider, _ := filepath.Glob("testdata/aider/*.txtar")
	files = append(files, aider...)
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range ar.Files {
			f.Add(string(s.Data))
		}
	}
	f.Add(aiderBlock)
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n")
	if b, err := os.ReadFile("../testdata/perf/msg_100kb.txt"); err == nil {
		f.Add(string(b[:4096]))
	}
}

// FuzzAider checks that FindAider never panics, that its spans lie within the text and in order,
// and that applying a recognised block to any content never panics.
func FuzzAider(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, e := range FindAider(text) {
			checkSpans(t, text, e)
			for _, file := range e.Files {
				_, _ = file.Apply(text, true)
				_, _ = file.Apply("", false)
			}
		}
	})
}

// FuzzUDiff is FuzzAider for unified diffs.
func FuzzUDiff(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, e := range FindUDiff(text) {
			checkSpans(t, text, e)
			for _, file := range e.Files {
				_, _ = file.Apply(text, true)
				_, _ = file.Apply("", false)
			}
		}
	})
}
