package v4a

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vector is one line of testdata/conformance/v4a.jsonl: Codex's apply_patch run on a patch in a
// folder holding Files.
type vector struct {
	ID         string             `json:"id"`
	Category   string             `json:"category"`
	Files      map[string]string  `json:"files"`
	Patch      string             `json:"patch"`
	OK         bool               `json:"ok"`
	FilesAfter map[string]*string `json:"files_after"`
	Error      string             `json:"error"`
	Stdout     string             `json:"stdout"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "conformance", "v4a.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var out []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var v vector
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v))
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

// folder serves files as a Files function: a path that is a prefix folder of some file is a
// directory, anything else absent does not exist.
func folder(files map[string]string) Files {
	return func(p string) (string, error) {
		if c, ok := files[p]; ok {
			return c, nil
		}
		for k := range files {
			if strings.HasPrefix(k, p+"/") {
				return "", ErrNotFile
			}
		}
		return "", fs.ErrNotExist
	}
}

// after is the folder once plan is carried out, in the vectors' form: every file, nil for one
// that was there before and is gone.
func after(files map[string]string, plan *Plan) map[string]*string {
	out := map[string]*string{}
	for k, c := range files {
		out[k] = &c
	}
	for _, c := range plan.Changes {
		switch _, was := files[c.Path]; {
		case c.Deleted && was:
			out[c.Path] = nil
		case c.Deleted:
			delete(out, c.Path)
		default:
			content := c.Content
			out[c.Path] = &content
		}
	}
	return out
}

// departures are the vectors where we depart from Codex on purpose (docs/protocol.md section
// 4b), each with the patch whose result, as Codex leaves the files, is ours.
var departures = map[string]func(patch string) string{
	// A move onto the file itself: Codex deletes the file; we update it in place, as if the
	// patch had no Move to line.
	"move_file/010": func(patch string) string {
		var kept []string
		for _, l := range strings.SplitAfter(patch, "\n") {
			if !strings.HasPrefix(l, "*** Move to: ") {
				kept = append(kept, l)
			}
		}
		return strings.Join(kept, "")
	},
}

func TestConformance(t *testing.T) {
	vectors := loadVectors(t)
	require.Len(t, vectors, 282)
	var ok, refused, sameWording, unwrapped, departed int
	for _, v := range vectors {
		t.Run(v.ID, func(t *testing.T) {
			plan, err := ApplyText(v.Patch, folder(v.Files))
			if same, ok := departures[v.ID]; ok {
				require.NoError(t, err)
				want, err := ApplyText(same(v.Patch), folder(v.Files))
				require.NoError(t, err)
				assert.NotEqual(t, v.FilesAfter, after(v.Files, plan), "no longer a departure")
				assert.Equal(t, after(v.Files, want), after(v.Files, plan))
				assert.Equal(t, v.Stdout, plan.Summary)
				departed++
				return
			}
			if v.OK {
				require.NoError(t, err)
				assert.Equal(t, v.FilesAfter, after(v.Files, plan))
				assert.Equal(t, v.Stdout, plan.Summary)
				ok++
				return
			}
			if err == nil && v.Category == "envelope" {
				unwrapped++
				return
			}
			require.Error(t, err, "the reference refused this patch: %s", v.Error)
			refused++
			var e *Error
			require.True(t, errors.As(err, &e))
			if e.Message == v.Error {
				sameWording++
			} else {
				t.Logf("wording differs:\n ours: %q\n Codex: %q", e.Message, v.Error)
			}
		})
	}
	t.Logf("%d vectors: %d applied as the reference, %d refused (%d worded exactly as the reference), %d envelopes unwrapped and applied, %d intended departures",
		len(vectors), ok, refused, sameWording, unwrapped, departed)
	assert.Equal(t, len(departures), departed, "every intended departure is a vector")
}
