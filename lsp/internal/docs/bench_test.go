package docs

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// fiftyMiB is a 50 MiB document of 80-byte lines.
func fiftyMiB() string {
	line := strings.Repeat("x", 79) + "\n"
	return strings.Repeat(line, 50<<20/len(line))
}

// BenchmarkChangeOneChar50MiB measures a one-character didChange in a 50 MiB document, at lines
// spread over the whole document (issue 7, defect 12: under 1 ms).
func BenchmarkChangeOneChar50MiB(b *testing.B) {
	content := fiftyMiB()
	lines := uint32(strings.Count(content, "\n"))
	d := New()
	d.Open(docsTestURI, 1, content)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := protocol.Position{Line: uint32(i*7919) % lines, Character: 3}
		if _, err := d.Change(docsTestURI, int32(i+2), []Change{{Range: &protocol.Range{Start: p, End: p}, Text: "y"}}, utf16Enc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWaitForCheck50MiB measures one check of a waiter looking for an intended content
// while a 50 MiB document changes: the length differs, so no content is built or compared.
func BenchmarkWaitForCheck50MiB(b *testing.B) {
	content := fiftyMiB()
	d := New()
	d.Open(docsTestURI, 1, content)
	intended := content + "more"
	b.ReportAllocs()
	for b.Loop() {
		s := d.Snapshot(docsTestURI)
		if s.Text.Equal(intended) {
			b.Fatal("equal")
		}
	}
}

// BenchmarkChangeOneCharOneLine50MiB is a one-character change far along a 50 MiB document of
// one line (minified code), in utf-16: the walk along the line skips whole chunks.
func BenchmarkChangeOneCharOneLine50MiB(b *testing.B) {
	content := strings.Repeat("var a=1;日本😀", 50<<20/22)
	d := New()
	d.Open(docsTestURI, 1, content)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := protocol.Position{Line: 0, Character: uint32(40<<20 + i%1000)}
		if _, err := d.Change(docsTestURI, int32(i+2), []Change{{Range: &protocol.Range{Start: p, End: p}, Text: "y"}}, utf16Enc); err != nil {
			b.Fatal(err)
		}
	}
}
