package apply

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInvertAndCount(t *testing.T) {
	tests := []struct {
		name     string
		diff     string
		sections int
		inverse  string
		ok       bool
	}{
		{
			name:     "two sections, legacy markers, text around",
			diff:     "intro\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n------- SEARCH>\nc\n=======\nd\ne\n+++++++ REPLACE\nbye",
			sections: 2,
			inverse:  "------- SEARCH\nb\n=======\na\n+++++++ REPLACE\n------- SEARCH\nd\ne\n=======\nc\n+++++++ REPLACE\n",
			ok:       true,
		},
		{
			// The applier does not take "=======>" as a separator, so neither does Invert:
			// the section never reaches its REPLACE text and is incomplete.
			name:     "separator with a trailing > is not a separator",
			diff:     "------- SEARCH\na\n=======>\nb\n+++++++ REPLACE\n",
			sections: 1,
			ok:       false,
		},
		{name: "deletion", diff: "------- SEARCH\na\n=======\n+++++++ REPLACE\n", sections: 1, ok: false},
		{name: "unfinished", diff: "------- SEARCH\na\n=======\nb\n", sections: 1, ok: false},
		{name: "no sections", diff: "just text\n", sections: 0, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.sections, CountSections(tt.diff))
			inverse, ok := Invert(tt.diff)
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.inverse, inverse)
			}
		})
	}
}

// TestInvertUndoesConstruct checks the property the server relies on: once a diff is applied,
// its inverse applies to the result and gives the original back.
func TestInvertUndoesConstruct(t *testing.T) {
	original := "one\ntwo\nthree\nfour\n"
	diff := "------- SEARCH\ntwo\n=======\nTWO\n2\n+++++++ REPLACE\n------- SEARCH\nfour\n=======\nIV\n+++++++ REPLACE\n"
	for _, v := range []Version{V1, V2} {
		res, err := Construct(diff, original, true, v)
		require.NoError(t, err)
		inverse, ok := Invert(diff)
		require.True(t, ok)
		back, err := Construct(inverse, res.NewContent, true, v)
		require.NoError(t, err, "version %s", v)
		assert.Equal(t, original, back.NewContent, "version %s", v)
	}
}

// TestEditNoSections: Edit refuses a diff without a single marker, which Construct applies as
// the reference does (the file unchanged, no error); a diff with markers is Construct's to judge.
func TestEditNoSections(t *testing.T) {
	t.Parallel()
	const original = "a\n"
	for _, tt := range []struct {
		name, diff, msg string
	}{
		{"section", "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n", ""},
		{"legacy markers", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", ""},
		{"separator only", "=======\nb\n+++++++ REPLACE\n", ""}, // Construct's to judge
		{"empty", "", "the diff is empty, so it changes nothing; " +
			"a diff is one or more SEARCH/REPLACE blocks, each:\n------- SEARCH\n[the exact lines of the file to change]\n=======\n[the lines to put in their place]\n+++++++ REPLACE"},
		{"blank lines", "\n\n", "the diff is empty, so it changes nothing; " +
			"a diff is one or more SEARCH/REPLACE blocks, each:\n------- SEARCH\n[the exact lines of the file to change]\n=======\n[the lines to put in their place]\n+++++++ REPLACE"},
		{"prose", "make x 2\n", "the diff holds no SEARCH/REPLACE block, so it changes nothing; " +
			"a diff is one or more SEARCH/REPLACE blocks, each:\n------- SEARCH\n[the exact lines of the file to change]\n=======\n[the lines to put in their place]\n+++++++ REPLACE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := Construct(tt.diff, original, true, V1)
			got, err := Edit(tt.diff, original, V1)
			if tt.msg == "" {
				assert.Equal(t, want, got)
				assert.Equal(t, wantErr, err)
				return
			}
			require.NoError(t, wantErr, "Construct keeps the reference's answer")
			assert.Equal(t, original, want.NewContent)
			assert.ErrorIs(t, err, ErrNoSections)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
}
