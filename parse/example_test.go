package parse_test

import (
	"fmt"

	"github.com/assistant-ls/assistant-ls/parse"
)

func ExampleParse() {
	msg := "Reading it.\n<read_file>\n<path> main.go </path>\n</read_file>"
	for _, b := range parse.Parse(msg) {
		fmt.Printf("%s %q %q %v partial=%v span=%v\n", b.Type, b.Content, b.Name, b.Params, b.Partial, b.Span)
	}
	// Output:
	// text "Reading it." "" map[] partial=false span={0 11}
	// tool_use "" "read_file" map[path:main.go] partial=false span={12 59}
}

func ExampleStream() {
	s := parse.New(parse.Config{ExtraToolNames: []string{"my_tool"}}).NewStream()
	for _, delta := range []string{"<my_to", "ol><path>a", ".go</path></my_tool> done"} {
		s.Append(delta)
		blocks := s.Blocks()
		last := blocks[len(blocks)-1]
		fmt.Printf("%d blocks, last: %s %q %q %v partial=%v\n",
			len(blocks), last.Type, last.Content, last.Name, last.Params, last.Partial)
	}
	// Output:
	// 1 blocks, last: text "<my_to" "" map[] partial=true
	// 1 blocks, last: tool_use "" "my_tool" map[path:a] partial=true
	// 2 blocks, last: text "done" "" map[] partial=true
}
