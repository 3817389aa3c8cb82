package edittool

import (
	"encoding/json"
	"testing"
)

// FuzzCall reads arbitrary JSON arguments for every tool and applies them to arbitrary
// content: it must never panic, and reported match offsets lie within the original content.
func FuzzCall(f *testing.F) {
	f.Add(uint8(0), `{"file_path": "f", "old_string": "a", "new_string": "b"}`, "a\r\nb\n")
	f.Add(uint8(3), `{"path": "f", "new_text": "x", "insert_line": 2}`, "one\ntwo\n")
	f.Add(uint8(6), `{"command": "insert", "path": "f", "insert_line": "1", "new_str": "x"}`, "a\n")
	f.Add(uint8(1), `{"file_path": "f", "edits": [{"old_string": "‘a’", "new_string": ""}]}`, "‘a’\n")
	f.Add(uint8(4), `{"path": "f", "diff": "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n"}`, "a\n")
	r, err := New(Config{Aliases: []Alias{{Name: "plugin", Kind: "MultiEdit", Keys: map[string]string{"edits.oldText": "old_string", "edits.newText": "new_string"}}}})
	if err != nil {
		f.Fatal(err)
	}
	names := r.Names()
	f.Fuzz(func(t *testing.T, which uint8, args, content string) {
		tool, _ := r.Lookup(names[int(which)%len(names)])
		var obj map[string]any
		if json.Unmarshal([]byte(args), &obj) != nil {
			obj = map[string]any{"path": args, "file_path": args, "content": content}
		}
		call, err := tool.FromJSON(obj)
		if err != nil {
			return
		}
		for _, exists := range []bool{true, false} {
			res, err := call.Apply(content, exists)
			if err != nil {
				continue
			}
			limit := len(content)
			if !exists {
				limit = 0
			}
			for _, m := range res.Matches {
				if m < 0 || m > limit {
					t.Fatalf("match offset %d outside content of %d bytes", m, limit)
				}
			}
		}
	})
}
