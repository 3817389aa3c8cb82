package jsonstream_test

import (
	"fmt"

	"github.com/assistant-ls/assistant-ls/jsonstream"
)

// A provider's fragments, split inside an escape and between the halves of a surrogate pair.
func Example() {
	var p jsonstream.Parser
	for _, fragment := range []string{`{"path": "a.go", "content": "package a\`, `n// \ud83d`, `\ude80\n", "n": 2}`} {
		p.Append(fragment)
		fmt.Printf("%q\n", p.Params()["content"])
	}
	v, err := p.End()
	fmt.Println(v, err)
	// Output:
	// "package a"
	// "package a\n// "
	// "package a\n// 🚀\n"
	// map[content:package a
	// // 🚀
	//  n:2 path:a.go] <nil>
}
