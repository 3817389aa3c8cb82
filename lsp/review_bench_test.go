package lsp

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/uri"
)

// BenchmarkResponseDiagnosticsOnTargetChange measures, through the wire, the time from a
// didChange of one target to the publishDiagnostics of a response document with 20 edits
// against 20 open files of 2,000 lines, the debounce excluded (diagnosticsDelay < 0). Each edit
// matches only after trimming (a hint); each change makes one target's line match exactly or
// not, so that every change changes the diagnostics and is published.
func BenchmarkResponseDiagnosticsOnTargetChange(b *testing.B) {
	const files, lines = 20, 2000
	c := newTestClient(b, profileHelix, withServerOptions(Options{diagnosticsDelay: -1}))
	var msg strings.Builder
	targets := make([]uri.URI, files)
	for f := range files {
		var src strings.Builder
		for l := range lines {
			fmt.Fprintf(&src, "\tvalue_%d_%d := compute(%d, %d) // line %d of file %d\n", f, l, f, l, l, f)
		}
		name := fmt.Sprintf("pkg/f%02d.go", f)
		targets[f] = c.didOpen(name, src.String())
		l := lines/2 + f
		msg.WriteString(replaceUse(name, fmt.Sprintf("------- SEARCH\n  value_%d_%d := compute(%d, %d) // line %d of file %d\n=======\n\tchanged()\n+++++++ REPLACE\n", f, l, f, l, l, f)))
	}
	doc := c.didOpen("bench.assistant.md", msg.String())
	c.waitFor("the first diagnostics", func() bool { return len(c.diagnostics(doc)) == files })
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		n := c.publishCount(doc)
		f := i % files
		l := lines/2 + f
		line := fmt.Sprintf("value_%d_%d := compute(%d, %d) // line %d of file %d\n", f, l, f, l, l, f)
		text := c.buffer(targets[f])
		if next := strings.Replace(text, "\t"+line, "  "+line, 1); next != text {
			text = next
		} else {
			text = strings.Replace(text, "  "+line, "\t"+line, 1)
		}
		c.didChange(targets[f], text)
		c.waitFor("the publish", func() bool { return c.publishCount(doc) > n })
	}
}
