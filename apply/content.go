package apply

import (
	"strings"

	"github.com/assistant-ls/assistant-ls/internal/ecma"
)

// FixModelContent applies the reference's clean-up of file content written by non-Claude models.
//
// When modelID contains "claude" the text is returned unchanged; in the reference that check
// returns before anything else, so U+FFFD is then kept too. Otherwise, unless path ends in ".xml"
// (in any case), where entities are valid syntax, the entities &gt; &lt; &quot; &amp; &apos; are
// replaced in that order, each replacement over the result of the previous one; and U+FFFD is
// removed, for XML files as well. An empty modelID is not Claude.
func FixModelContent(text, modelID, path string) string {
	if strings.Contains(modelID, "claude") {
		return text
	}
	if !hasXMLSuffix(path) {
		// The order matters: "&amp;lt;" becomes "&lt;", not "<", because "&amp;" is replaced
		// after "&lt;".
		fixes := [...][2]string{{"&gt;", ">"}, {"&lt;", "<"}, {"&quot;", `"`}, {"&amp;", "&"}, {"&apos;", "'"}}
		for _, f := range fixes {
			text = strings.ReplaceAll(text, f[0], f[1])
		}
	}
	return strings.ReplaceAll(text, "\uFFFD", "")
}

// hasXMLSuffix reports whether path ends in ".xml" ignoring ASCII case; no other character
// lower-cases to one of these letters, so this equals the reference's toLowerCase test.
func hasXMLSuffix(path string) bool {
	return len(path) >= 4 && strings.EqualFold(path[len(path)-4:], ".xml")
}

// CleanWriteContent applies the reference's clean-up of write_to_file content, for models that
// wrap a file in a code fence: content starting with "```" loses its first line and is then
// trimmed; content (then) ending with "```" loses its last line and is then trimmed. Trimming is
// ECMAScript's (ecma.Trim). A fence line is removed whole, language tag included.
func CleanWriteContent(content string) string {
	if strings.HasPrefix(content, "```") {
		if i := strings.IndexByte(content, '\n'); i >= 0 {
			content = ecma.Trim(content[i+1:])
		} else {
			content = ""
		}
	}
	if strings.HasSuffix(content, "```") {
		if i := strings.LastIndexByte(content, '\n'); i >= 0 {
			content = ecma.Trim(content[:i])
		} else {
			content = ""
		}
	}
	return content
}
