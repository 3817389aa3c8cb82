package text

import "strings"

// LineEnding returns the line break the server writes into a document: "\r\n" if content's first
// line break is a \r\n, else "\n" (also for content without line breaks and for the rare lone-\r
// documents, where "\n" is the break every editor reads). The first break decides because editors
// that detect a file's style (VS Code, Vim's fileformat) do the same, and it costs one scan.
func LineEnding(content string) string {
	i := strings.IndexAny(content, "\r\n")
	if i >= 0 && strings.HasPrefix(content[i:], "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// WithLineEnding returns text with every lone \n turned into eol when eol is "\r\n", so that text
// inserted into a \r\n document matches it; existing \r\n stay as they are. For any other eol
// text is returned unchanged: the server never turns \r\n into \n.
func WithLineEnding(text, eol string) string {
	if eol != "\r\n" || !strings.Contains(text, "\n") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + strings.Count(text, "\n"))
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && (i == 0 || text[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// LFOnly returns s with every \r\n and lone \r turned into \n: the text as an editor that
// normalizes line breaks would hold it.
func LFOnly(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
