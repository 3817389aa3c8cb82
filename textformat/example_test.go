package textformat_test

import (
	"fmt"

	"github.com/assistant-ls/assistant-ls/textformat"
)

// An Aider block recognised in a response and applied to its file.
func Example() {
	text := "Rename it:\n\ngreet.py\n```python\n<<<<<<< SEARCH\ndef hello():\n=======\ndef greet():\n>>>>>>> REPLACE\n```\n"
	for _, e := range textformat.Find(text, textformat.Aider, textformat.UDiff) {
		f := e.Files[0]
		res, err := f.Apply("def hello():\n    pass\n", true)
		fmt.Printf("%s %s %q %v %q %v\n", e.Format, f.Path, text[f.Sections[0].Span.Start:f.Sections[0].Span.End], res.Tiers, res.Content, err)
	}
	// Output:
	// aider greet.py "<<<<<<< SEARCH\ndef hello():\n=======" [exact] "def greet():\n    pass\n" <nil>
}
