package v4a

import (
	"regexp"
	"strings"
)

// wrapped is a patch found inside a larger text: the patch text, its byte offset in the larger
// text and the number of lines before it there.
type wrapped struct {
	text   string
	offset int
	line   int
}

// cdPrefix matches a shell line that changes directory before running apply_patch, which would
// make the patch's paths relative to another folder.
var cdPrefix = regexp.MustCompile(`(^|[;&|(]\s*)cd\s+[^\s;&|]+\s*(&&|;)`)

// unwrap finds the patch in a text that Codex refuses for its envelope: a Markdown fence, a
// heredoc Codex does not accept (apply_patch <<'PATCH', %%bash), or prose around the patch. The
// patch runs from the first "*** Begin Patch" line to the last "*** End Patch" line before any
// further patch. It returns nil when there is nothing to unwrap (no such pair, or nothing
// around it, or a patch marker outside it), and an error when the text holds several patches or
// changes directory first.
func unwrap(text string) (*wrapped, *Error) {
	type raw struct {
		text   string
		offset int
	}
	var lines []raw
	for off := 0; off <= len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			lines = append(lines, raw{text[off:], off})
			break
		}
		lines = append(lines, raw{text[off : off+end], off})
		off += end + 1
	}
	begin, end := -1, -1
	for i, l := range lines {
		switch trimSpace(l.text) {
		case beginMarker:
			if begin < 0 {
				begin = i
			} else if end >= 0 {
				return nil, invalidPatch("the text holds more than one patch; send one patch per apply_patch call")
			}
		case endMarker:
			if begin >= 0 {
				end = i
			}
		}
	}
	if begin < 0 || end < 0 {
		return nil, nil
	}
	outside := false
	for i, l := range lines {
		if i >= begin && i <= end {
			continue
		}
		t := trimSpace(l.text)
		if strings.HasPrefix(t, "*** ") || strings.HasPrefix(t, "@@") {
			// A patch line outside the envelope (a file section or hunk after the end, a body
			// before the beginning) is a malformed patch, not prose: Codex's refusal stands.
			return nil, nil
		}
		if t != "" {
			outside = true
		}
		if i < begin && cdPrefix.MatchString(l.text) {
			return nil, invalidPatch("the patch is run after a cd command; give the paths relative to the workspace and send the patch alone")
		}
	}
	if !outside {
		return nil, nil
	}
	b, e := lines[begin], lines[end]
	return &wrapped{text: text[b.offset : e.offset+len(e.text)], offset: b.offset, line: begin}, nil
}
