package paths

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkResolve measures the path rules for a new file four folders deep, the cost each edit
// pays once its path is complete.
func BenchmarkResolve(b *testing.B) {
	ws := b.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "a", "b", "c"), 0o755); err != nil {
		b.Fatal(err)
	}
	w, _ := NewWorkspace([]string{ws})
	for b.Loop() {
		if _, err := w.Resolve("a/b/c/d/new.go", ws, Policy{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateEmptyUndo measures creating a folder and an empty file through os.Root, and
// removing them again.
func BenchmarkCreateEmptyUndo(b *testing.B) {
	ws := b.TempDir()
	w, _ := NewWorkspace([]string{ws})
	tg, err := w.Resolve("a/new.go", ws, Policy{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, err := tg.CreateEmpty()
		if err != nil || c.File == "" {
			b.Fatal(c, err)
		}
		if err := c.Undo(); err != nil {
			b.Fatal(err)
		}
	}
}
