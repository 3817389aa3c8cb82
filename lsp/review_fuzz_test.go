package lsp

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckResponse: the analysis of any response document against any target never fails or
// panics, and every finding lies inside the document.
func FuzzCheckResponse(f *testing.F) {
	f.Add(reviewAnswer, reviewTarget)
	f.Add(replaceUse("src/a.go", "------- SEARCH\n\n=======\nx\n+++++++ REPLACE\n"), "")
	f.Add(writeUse("src/a.go", reviewTarget), reviewTarget)
	f.Add("<replace_in_file><path>src/a.go</path><diff>------- SEARCH\r\n\treturn 1\r\n=======\r\n+++++++ REPLACE</diff></replace_in_file>", "x\r\n\treturn 1\r\n")
	dir := f.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, answer, target string) {
		if err := os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte(target), 0o644); err != nil {
			t.Fatal(err)
		}
		findings, err := CheckResponse(dir, filepath.Join(dir, "x.assistant.md"), answer)
		if err != nil {
			t.Fatal(err)
		}
		lines := 1
		for i := range len(answer) {
			if answer[i] == '\n' {
				lines++
			}
		}
		for _, fd := range findings {
			if fd.Line < 1 || fd.Line > lines+1 || fd.Column < 1 || fd.Message == "" {
				t.Fatalf("finding %+v outside a document of %d lines", fd, lines)
			}
		}
	})
}
