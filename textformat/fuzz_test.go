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
	f.Add("diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1,2 +1,2 @@\n a\r\n-b\n+c\n@@ ... @@\n\n-d\n+e\n\n- prose\n")
	f.Add("diff --git \"a/x y\" \"b/x y\"\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/z b/z\ndeleted file mode 100644\n")
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
				checkAgrees(t, file, text, true)
				checkAgrees(t, file, "", false)
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
				checkAgrees(t, file, text, true)
				checkAgrees(t, file, "", false)
			}
		}
	})
}

// FuzzUDiffApply applies the unified diffs of a text to another text: Apply never panics, and
// on success every match offset lies within the content.
func FuzzUDiffApply(f *testing.F) {
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "a\nb\n")
	f.Add("--- x\n+++ x\n@@ ... @@\n  a\n-b\n+c\n\n- prose\n", "a\r\nb\r\nb\r\n")
	f.Add("diff --git a/x b/y\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -2 +2,0 @@\n-b\n", "a\nb")
	f.Add("--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n", "a")
	f.Fuzz(func(t *testing.T, text, content string) {
		for _, e := range FindUDiff(text) {
			for _, file := range e.Files {
				checkAgrees(t, file, content, true)
				res, err := file.Apply(content, true)
				if err != nil {
					continue
				}
				for _, m := range res.Matches {
					if m < 0 || m > len(content) {
						t.Fatalf("match offset %d outside the content (%d bytes)", m, len(content))
					}
				}
			}
		}
	})
}

// checkAgrees applies file to content with Apply and Check, which must not panic: every
// outcome lies within the content; where Apply succeeds, Check finds every section where Apply
// put it, by the same tier; where Apply fails, Check finds a section that fails.
func checkAgrees(t *testing.T, file File, content string, exists bool) {
	res, applyErr := file.Apply(content, exists)
	out, err := file.Check(content, exists)
	if err != nil {
		if applyErr == nil {
			t.Fatalf("Check fails (%v) where Apply succeeds", err)
		}
		return
	}
	failed := false
	for i, o := range out {
		failed = failed || o.Err != nil
		if o.Err == nil && (o.Start < 0 || o.Start > o.End || o.End > len(content)) {
			t.Fatalf("section %d: outcome [%d, %d) outside the content (%d bytes)", i+1, o.Start, o.End, len(content))
		}
		if applyErr != nil {
			continue
		}
		if o.Err != nil || o.Tier != res.Tiers[i] || (Span{o.Start, o.End}) != res.Spans[i] {
			t.Fatalf("section %d: Check says %+v, Apply %s at %v", i+1, o, res.Tiers[i], res.Spans[i])
		}
	}
	if applyErr != nil && !failed {
		t.Fatalf("Apply fails (%v) where Check finds every section", applyErr)
	}
}
