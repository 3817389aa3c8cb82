// Package golden runs the golden cases of a package's tests: one txtar file a case, its sections
// by name. It is for tests only.
package golden

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Case is one golden case: the file's comment and its sections. txtar ends every section with a
// line break, which is not part of the value, so each is given without it (a value that ends in
// one has an empty last line in the file).
type Case struct {
	Comment  string
	Sections map[string]string
	Raw      map[string]string // the sections as the file holds them, final line break included
	Names    []string          // the section names, in file order
}

// Run runs f as a subtest, named after the file, for every file matching pattern, failing the
// test when none does or one does not parse.
func Run(t *testing.T, pattern string, f func(t *testing.T, c Case)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases match %s (%v)", pattern, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			c := Case{Comment: string(ar.Comment), Sections: map[string]string{}, Raw: map[string]string{}}
			for _, s := range ar.Files {
				c.Raw[s.Name] = string(s.Data)
				c.Sections[s.Name] = strings.TrimSuffix(string(s.Data), "\n")
				c.Names = append(c.Names, s.Name)
			}
			f(t, c)
		})
	}
}
