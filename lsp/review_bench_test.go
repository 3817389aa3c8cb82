package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-ls/assistant-ls/lsp/internal/docs"
	"github.com/assistant-ls/assistant-ls/parse"
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

// BenchmarkResponseAnalysisOnTargetChange is the server's own part of the benchmark above,
// without the wire: a target's change applied to the documents store, then the response
// document's diagnostics computed.
func BenchmarkResponseAnalysisOnTargetChange(b *testing.B) {
	const files, lines = 20, 2000
	dir := b.TempDir()
	store := docs.New()
	s := settings{Config: defaultConfig(), Caps: clientCaps{Encoding: "utf-16"}, Workspace: mustWorkspace(b, dir)}
	ed := newEditor(editorDeps{Docs: store, Settings: func() settings { return s }})
	defer ed.shutdown()
	var msg strings.Builder
	targets := make([]uri.URI, files)
	texts := make([][2]string, files)
	for f := range files {
		var src strings.Builder
		for l := range lines {
			fmt.Fprintf(&src, "\tvalue_%d_%d := compute(%d, %d) // line %d of file %d\n", f, l, f, l, l, f)
		}
		name := fmt.Sprintf("pkg/f%02d.go", f)
		targets[f] = uri.File(dir + "/" + name)
		l := lines/2 + f
		line := fmt.Sprintf("value_%d_%d := compute(%d, %d) // line %d of file %d\n", f, l, f, l, l, f)
		texts[f] = [2]string{src.String(), strings.Replace(src.String(), "\t"+line, "  "+line, 1)}
		store.Open(targets[f], 1, texts[f][0])
		msg.WriteString(replaceUse(name, "------- SEARCH\n  "+line+"=======\n\tchanged()\n+++++++ REPLACE\n"))
	}
	pr := parseResponse(parse.New(s.Config.parseConfig()), msg.String())
	docURI := uri.File(dir + "/bench.assistant.md")
	if ds, _ := analyseResponse(ed, docURI, pr, dir, s, "utf-16"); len(ds) != files {
		b.Fatalf("%d diagnostics, want %d", len(ds), files)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		f := i % files
		change := []docs.Change{{Text: texts[f][(i/files+1)%2]}}
		if _, err := store.Change(targets[f], int32(i+2), change, "utf-16"); err != nil {
			b.Fatal(err)
		}
		analyseResponse(ed, docURI, pr, dir, s, "utf-16")
	}
}
