package edittool_test

import (
	"fmt"

	"github.com/assistant-ls/assistant-ls/edittool"
)

// A native Edit call read from its JSON arguments and applied to the target's content.
func Example() {
	reg, err := edittool.New(edittool.Config{Aliases: []edittool.Alias{{Name: "edit_file", Like: "Edit"}}})
	if err != nil {
		panic(err)
	}
	tool, _ := reg.Lookup("edit_file")
	call, err := tool.FromJSON(map[string]any{"file_path": "/w/a.go", "old_string": "x := 1", "new_string": "x := 2"})
	if err != nil {
		panic(err)
	}
	res, err := call.Apply("package a\n\nvar x := 1\n", true)
	fmt.Printf("%q %v %v\n%s\n", res.Content, res.Tiers, res.Matches, res.Message)
	_, err = call.Apply("package a\n", true)
	fmt.Println(err)
	// Output:
	// "package a\n\nvar x := 2\n" [exact] [15]
	// The file /w/a.go has been updated successfully.
	// String to replace not found in file.
	// String: x := 1
	// No similar text was found; read the file again before editing it.
}
