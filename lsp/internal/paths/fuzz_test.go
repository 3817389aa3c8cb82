package paths

import (
	"errors"
	"path/filepath"
	"testing"
)

// FuzzResolve checks the invariants of the path rules for any folder and path param: a kept
// folder is absolute and not the file system's root, Resolve never panics, and a path it
// accepts under the default policy lies inside a folder with links followed and has no .git
// component.
func FuzzResolve(f *testing.F) {
	for _, seed := range [][2]string{
		{"/w", "a/b.txt"}, {"file:///w", "../x"}, {"", "/etc/passwd"}, {"file://", "x"},
		{".", "x"}, {"~", "~/x"}, {"file://localhost/w", "file://localhost/w/.git/config"},
		{"/w", ".GIT./hooks/pre-commit"}, {"/w/", "file:///w/a%2F..%2F..%2Fx"}, {"/w", "a\x00b"},
		{"file:///", "/x"}, {"/w", "C:\\x"}, {"/w", "file://host/w/x"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, folder, p string) {
		w, warnings := NewWorkspace([]string{folder})
		folders := w.Folders()
		if len(folders)+len(warnings) != 1 {
			t.Fatalf("folder %q: %d kept and %d warnings, want exactly one of them", folder, len(folders), len(warnings))
		}
		for _, f := range folders {
			if !filepath.IsAbs(f) || isVolumeRoot(f) || filepath.Clean(f) != f {
				t.Fatalf("folder %q kept as %q", folder, f)
			}
		}
		tg, err := w.Resolve(p, "", Policy{})
		if err != nil {
			var refused *RefusedError
			if errors.As(err, &refused) && refused.Reason == "" {
				t.Fatalf("refusal of %q without a reason", p)
			}
			return
		}
		real, err := followSymlinks(tg.Path)
		if err != nil {
			t.Fatalf("accepted %q, but its links do not resolve: %v", p, err)
		}
		if hasGitComponent(tg.Path) || hasGitComponent(real) {
			t.Fatalf("accepted %q inside a .git folder: %q", p, tg.Path)
		}
		realFolder, err := followSymlinks(folders[0])
		if err != nil || !within(realFolder, real) {
			t.Fatalf("accepted %q as %q, outside %q", p, real, folders[0])
		}
		if filepath.Join(tg.root, tg.rel) != real {
			t.Fatalf("accepted %q as %q, but creates at %q", p, real, filepath.Join(tg.root, tg.rel))
		}
	})
}
