package text

import "strings"

// LineEnding returns the line break the server writes into a document: the document's first
// line break ("\r\n", "\r" or "\n"), and "\n" for content without line breaks. The first break
// decides because editors that detect a file's style (VS Code, Vim's fileformat) do the same, and
// it costs one scan.
func LineEnding(content string) string {
	i := strings.IndexAny(content, "\r\n")
	switch {
	case i < 0 || content[i] == '\n':
		return "\n"
	case strings.HasPrefix(content[i:], "\r\n"):
		return "\r\n"
	default:
		return "\r"
	}
}

// WithLineEnding returns text with its line breaks adapted to a document whose LineEnding is
// eol, so that inserted text matches the document: for "\r\n" every lone \n becomes \r\n
// (existing \r\n stay); for "\r" every \n and \r\n becomes \r. For "\n" text is returned
// unchanged: the server never turns \r\n into \n.
func WithLineEnding(text, eol string) string {
	switch {
	case eol == "\r" && strings.Contains(text, "\n"):
		return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\r"), "\n", "\r")
	case eol != "\r\n" || !strings.Contains(text, "\n"):
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

// LoneCRToLF returns s with every lone \r (one not followed by \n) turned into \n. Each byte
// stays where it was, so an offset into the result is the same offset into s: code that splits
// lines at \n only (the SEARCH/REPLACE applier, the line diff) can work on the result and its
// offsets be used on s. s is returned as is when it has no lone \r.
func LoneCRToLF(s string) string {
	i := strings.IndexByte(s, '\r')
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			b[i] = '\n'
		}
	}
	return string(b)
}

// LFOnly returns s with every \r\n and lone \r turned into \n: the text as an editor that
// normalizes line breaks would hold it.
func LFOnly(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
