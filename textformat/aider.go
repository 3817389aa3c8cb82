package textformat

import (
	"strings"
	"unicode"
)

// FindAider returns the Aider SEARCH/REPLACE blocks in text.
//
// As in Aider, a section is a line "<<<<<<< SEARCH" (5 to 9 '<', surrounding white space
// allowed), the lines to find, a line of 5 to 9 '=', the new lines, and a line ">>>>>>> REPLACE"
// (5 to 9 '>'); the new lines also end at a second '=' line, as Aider's do. The path is found as
// Aider finds it: the nearest of the three lines above the SEARCH marker that is not a fence
// line, with surrounding white space, trailing ':', leading '#', and enclosing '`' and '*'
// removed (see stripFilename). Beyond Aider, a block is recognised only inside a code fence (three or more
// backticks), with the path on the line before the fence or as the fence's first line, and the
// path must be one word (no white space, not starting with '<'): prose and Cline's XML, where
// SEARCH markers also occur, are never read as a block. A fence whose first line is a SEARCH
// marker edits the path of the previous block, as in Aider. Sections that follow one another in
// the same fence (blank lines between allowed) belong to one block.
func FindAider(text string) []Edit {
	if !strings.Contains(text, "<<<<< SEARCH") {
		return nil
	}
	ls := splitLines(text)
	get := func(i int) string { return text[ls[i].start:ls[i].end] }
	var out []Edit
	prevPath := ""
	for i := 0; i < len(ls); i++ {
		if !isHead(get(i)) {
			continue
		}
		path, start, open, ok := aiderHeader(get, i, prevPath)
		if !ok {
			continue
		}
		f := File{Format: Aider, Path: path, Op: OpModify}
		j, complete := i, true
		for {
			sec, next, ok := aiderSection(text, ls, j)
			if !ok {
				complete = false
				break
			}
			f.Sections = append(f.Sections, sec)
			j = next
			k := skipBlank(get, j, len(ls))
			if k < len(ls) && isHead(get(k)) {
				j = k
				continue
			}
			break
		}
		if !complete {
			break // the rest of the text lies inside an unfinished section
		}
		end := ls[j-1].end
		if k := skipBlank(get, j, len(ls)); k < len(ls) && closesFence(get(k), open) {
			end, j = ls[k].end, k+1
		}
		f.Span = Span{ls[start].start, end}
		out = append(out, Edit{Format: Aider, Span: f.Span, Files: []File{f}})
		prevPath = path
		i = j - 1
	}
	return out
}

// aiderHeader finds the path and fence of a block whose SEARCH marker is line i: the path line,
// the fence and the marker (Aider's own layout, with up to two fence lines between path and
// marker, as some models write), or the fence, the path and the marker. start is the first line
// of the block, open its fence.
func aiderHeader(get func(int) string, i int, prevPath string) (path string, start int, open string, ok bool) {
	if i >= 1 && fence(get(i-1)) != "" {
		open = fence(get(i - 1))
		q := i - 1
		for q >= 0 && i-q <= 3 && fence(get(q)) != "" {
			q--
		}
		if q >= 0 && i-q <= 3 {
			if p := stripFilename(get(q)); p != "" {
				return p, q, open, true
			}
		}
		if prevPath != "" {
			return prevPath, i - 1, open, true
		}
		return "", 0, "", false
	}
	if i >= 2 && fence(get(i-2)) != "" {
		if p := stripFilename(get(i - 1)); p != "" {
			return p, i - 2, fence(get(i - 2)), true
		}
	}
	return "", 0, "", false
}

// aiderSection reads the section whose SEARCH marker is line h. next is the line after its
// REPLACE marker; ok is false when the section is not complete.
func aiderSection(text string, ls []line, h int) (sec Section, next int, ok bool) {
	get := func(i int) string { return text[ls[i].start:ls[i].end] }
	div := h + 1
	for div < len(ls) && !isDivider(get(div)) {
		div++
	}
	if div >= len(ls) {
		return Section{}, 0, false
	}
	upd := div + 1
	for upd < len(ls) && !isUpdated(get(upd)) && !isDivider(get(upd)) {
		upd++
	}
	if upd >= len(ls) {
		return Section{}, 0, false
	}
	return Section{
		Span:    Span{ls[h].start, ls[div].end},
		Search:  joinLines(text, ls[h+1:div]),
		Replace: joinLines(text, ls[div+1:upd]),
	}, upd + 1, true
}

// joinLines returns the lines, each followed by "\n": a slice of text when they already are.
func joinLines(text string, ls []line) string {
	if len(ls) == 0 {
		return ""
	}
	if whole := text[ls[0].start:ls[len(ls)-1].next]; ls[len(ls)-1].end < ls[len(ls)-1].next && !strings.Contains(whole, "\r") {
		return whole
	}
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(text[l.start:l.end])
		b.WriteByte('\n')
	}
	return b.String()
}

func skipBlank(get func(int) string, i, n int) int {
	for i < n && strings.TrimSpace(get(i)) == "" {
		i++
	}
	return i
}

// isHead reports whether l is a SEARCH marker: 5 to 9 '<', " SEARCH", an optional '>'.
func isHead(l string) bool {
	rest, ok := markerRun(strings.TrimSpace(l), '<')
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, " SEARCH")
	return ok && (rest == "" || rest == ">")
}

// isDivider reports whether l is 5 to 9 '='.
func isDivider(l string) bool {
	rest, ok := markerRun(strings.TrimSpace(l), '=')
	return ok && rest == ""
}

// isUpdated reports whether l is a REPLACE marker: 5 to 9 '>' and " REPLACE".
func isUpdated(l string) bool {
	rest, ok := markerRun(strings.TrimSpace(l), '>')
	return ok && rest == " REPLACE"
}

// markerRun strips a run of 5 to 9 c from the start of s.
func markerRun(s string, c byte) (rest string, ok bool) {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return s[n:], n >= 5 && n <= 9
}

// stripFilename cleans a path line as Aider does, and returns "" for a line that cannot be a
// path: a fence, "...", a marker, or (beyond Aider) anything with white space inside or that
// starts with '<', which is prose or markup, and a word with neither '.' nor '/' followed by ':'
// ("then:"), which is a label. Backticks and asterisks are stripped until none enclose the path,
// so "**`a.go`**" is a.go (Aider strips each once).
func stripFilename(l string) string {
	s := strings.TrimSpace(l)
	if s == "..." || strings.HasPrefix(s, "```") {
		return ""
	}
	label := strings.HasSuffix(s, ":")
	s = strings.TrimRight(s, ":")
	s = strings.TrimLeft(s, "#")
	s = strings.TrimSpace(s)
	for t := ""; t != s; {
		t = s
		s = strings.Trim(strings.Trim(s, "`"), "*")
	}
	if s == "" || strings.HasPrefix(s, "<") || isHead(s) || isDivider(s) || isUpdated(s) ||
		strings.IndexFunc(s, unicode.IsSpace) >= 0 || label && !strings.ContainsAny(s, "./") {
		return ""
	}
	return s
}
