package textformat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// FindAider returns the Aider SEARCH/REPLACE blocks in text, read as Aider's editblock coder
// reads them.
//
// A section is a line "<<<<<<< SEARCH" (5 to 9 '<', surrounding white space and a final '>'
// allowed), the lines to find, a line of 5 to 9 '=', the new lines, and a line ">>>>>>> REPLACE"
// (5 to 9 '>'); the new lines also end at a second '=' line, as Aider's do. A section's file
// name is looked for as Aider looks for it, on the lines above its SEARCH marker: the nearest
// line that is not a fence, then past fence lines, up to three lines; a fence line names a file
// by its info string ("```src/a.py") when that has a '.' or '/'. Of several names found, the
// first with a '.' wins. So the name stands on the line before the fence, in the fence's info
// string, or inside the fence before the marker. A section without a name of its own edits the
// file of the section before it, as in Aider, so several sections, with blank lines, "..." or
// prose between them, share one fence.
//
// Recognition is more conservative than Aider's, so that prose is never taken for an edit: a
// name is one word (see stripFilename), never a sentence; a section outside a code fence needs
// a name of its own, or must follow another section with only blank, fence and "..." lines
// between; and a section inside a fence reuses a name only from an earlier section of the same
// text. A section without a name is not an edit (Aider refuses the whole reply). As in Aider,
// the content of a shell fence (```bash, ```sh, …) is a command, not a place to look for
// sections, unless a marker follows within two lines.
//
// Each fence holding sections is one Edit, spanning from its name line (when that stands
// before the fence) to its closing fence; each unfenced run of sections is one too. The
// sections of consecutive blocks naming the same file are one File. Only complete sections are
// reported: while the last section of a fence is still streaming in, nothing of that fence is.
func FindAider(text string) []Edit {
	if !strings.Contains(text, "<<<<< SEARCH") {
		return nil
	}
	s := aiderScan{text: text, ls: splitLines(text), fence: -1}
	return s.run()
}

// aiderScan is the state of FindAider's one pass over the lines.
type aiderScan struct {
	text string
	ls   []line

	open     string // the backtick run of the open fence, "" outside a fence
	fence    int    // the line of the open fence
	fenceNo  int    // counts the fences opened, so that an Edit knows its own
	current  string // the file of the last section, as Aider's current_filename
	lastEnd  int    // the line after the last section's REPLACE marker
	lastFree bool   // whether the last section stood outside a fence

	out []Edit
	cur *aiderEdit
}

// aiderEdit is the Edit being built, with what FindAider needs to extend it.
type aiderEdit struct {
	Edit
	fenceNo int // the fence it is in, 0 when unfenced
}

func (s *aiderScan) get(i int) string { return s.text[s.ls[i].start:s.ls[i].end] }

func (s *aiderScan) run() []Edit {
	for i := 0; i < len(s.ls); i++ {
		l := s.get(i)
		if isHead(l) {
			next, ok := s.section(i)
			if !ok {
				// The rest of the text lies inside an unfinished section: what was built of
				// its fence is not complete either.
				if s.cur != nil && s.cur.fenceNo != 0 && s.cur.fenceNo == s.fenceNo && s.open != "" {
					s.cur = nil
				}
				break
			}
			i = next - 1
			continue
		}
		if s.open != "" {
			if closesFence(l, s.open) {
				if s.cur != nil && s.cur.fenceNo == s.fenceNo {
					s.cur.Span.End = s.ls[i].end
				}
				s.open = ""
			}
			continue
		}
		if f := fence(l); f != "" {
			if isShellFence(l) && !(i+1 < len(s.ls) && isHead(s.get(i+1)) || i+2 < len(s.ls) && isHead(s.get(i+2))) {
				// Aider runs a shell fence's content: no section is looked for there.
				for i++; i < len(s.ls) && !strings.HasPrefix(strings.TrimSpace(s.get(i)), "```"); i++ {
				}
				continue
			}
			s.open, s.fence = f, i
			s.fenceNo++
		}
	}
	s.flush()
	return s.out
}

// section reads the section whose SEARCH marker is line h and files it under its name; next is
// the line after it, ok false when it is not complete. A section without a name is skipped.
func (s *aiderScan) section(h int) (next int, ok bool) {
	sec, next, ok := aiderSection(s.text, s.ls, h)
	if !ok {
		return 0, false
	}
	path, pathLine := s.filename(h)
	fenced := s.open != ""
	if path == "" {
		continuing := s.current != "" && (fenced || s.blankBetween(s.lastEnd, h, true))
		if !continuing {
			return next, true
		}
		path = s.current
	}
	fenceNo := 0
	if fenced {
		fenceNo = s.fenceNo
	}
	if s.cur == nil || s.cur.fenceNo != fenceNo || fenceNo == 0 && !(pathLine < 0 && s.lastFree && s.blankBetween(s.lastEnd, h, false)) {
		s.flush()
		start := h
		if pathLine >= 0 {
			start = pathLine
		}
		if fenced && s.fence < start {
			start = s.fence
		}
		if n := len(s.out); n > 0 && s.ls[start].start < s.out[n-1].Span.End {
			start = h // the name line lies in the Edit before; this one starts at its marker
			pathLine = -1
		}
		s.cur = &aiderEdit{Edit: Edit{Format: Aider, Span: Span{s.ls[start].start, 0}}, fenceNo: fenceNo}
	}
	end := s.ls[next-1].end
	files := s.cur.Files
	if n := len(files); n > 0 && files[n-1].Path == path {
		files[n-1].Sections = append(files[n-1].Sections, sec)
		files[n-1].Span.End = end
	} else {
		fstart := h
		if pathLine >= 0 && s.ls[pathLine].start >= s.cur.Span.Start {
			fstart = pathLine
		}
		s.cur.Files = append(files, File{Format: Aider, Path: path, Op: OpModify,
			Span: Span{s.ls[fstart].start, end}, Sections: []Section{sec}})
	}
	s.cur.Span.End = end
	s.current, s.lastEnd, s.lastFree = path, next, !fenced
	return next, true
}

// flush ends the Edit being built.
func (s *aiderScan) flush() {
	if s.cur != nil {
		s.out = append(s.out, s.cur.Edit)
		s.cur = nil
	}
}

// blankBetween reports whether lines [from, to) are all blank, or (with gaps) blank, fence or
// "..." lines, the lines Aider's blocks are separated by.
func (s *aiderScan) blankBetween(from, to int, gaps bool) bool {
	for i := from; i < to; i++ {
		if t := strings.TrimSpace(s.get(i)); t != "" && !(gaps && (strings.HasPrefix(t, "```") || t == "...")) {
			return false
		}
	}
	return true
}

// filename looks for the name of the section whose marker is line h as Aider's find_filename
// does (without its list of the chat's files to match against): back from the marker, the
// nearest line, and past it only while the lines are fences, at most three lines. pathLine is
// the line the name stands on, -1 when none was found.
func (s *aiderScan) filename(h int) (path string, pathLine int) {
	type found struct {
		name string
		line int
	}
	var names []found
	for k := h - 1; k >= 0 && k >= h-3; k-- {
		l := s.get(k)
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") {
			if name := infoFilename(t); name != "" {
				names = append(names, found{name, k})
			}
			continue
		}
		if name := stripFilename(l); name != "" {
			names = append(names, found{name, k})
		}
		break
	}
	for _, n := range names {
		if strings.Contains(n.name, ".") {
			return n.name, n.line
		}
	}
	if len(names) > 0 {
		return names[0].name, names[0].line
	}
	return "", -1
}

// infoFilename is the file a fence line names by its info string, as Aider reads it: what
// follows the backticks when it has a '.' or '/' (and, beyond Aider, is one word).
func infoFilename(t string) string {
	c := strings.TrimSpace(strings.TrimLeft(t, "`"))
	if !strings.ContainsAny(c, "./") || strings.IndexFunc(c, unicode.IsSpace) >= 0 || strings.Contains(c, "`") {
		return ""
	}
	return c
}

// shellFences are the info strings of the fences Aider runs as shell commands.
var shellFences = []string{"```bash", "```sh", "```shell", "```cmd", "```batch", "```powershell",
	"```ps1", "```zsh", "```fish", "```ksh", "```csh", "```tcsh"}

func isShellFence(l string) bool {
	t := strings.TrimSpace(l)
	for _, p := range shellFences {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
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

// startsWith reports whether the first byte of l after ASCII white space is c, or may be once
// other white space is trimmed (a byte past ASCII): a cheap test that rules out most lines
// before a marker is looked for.
func startsWith(l string, c byte) bool {
	for i := 0; i < len(l); i++ {
		switch b := l[i]; {
		case b == ' ' || b == '\t' || b == '\r' || b == '\v' || b == '\f':
		default:
			return b == c || b >= utf8.RuneSelf
		}
	}
	return false
}

// isHead reports whether l is a SEARCH marker: 5 to 9 '<', " SEARCH", an optional '>'.
func isHead(l string) bool {
	if !startsWith(l, '<') {
		return false
	}
	rest, ok := markerRun(strings.TrimSpace(l), '<')
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, " SEARCH")
	return ok && (rest == "" || rest == ">")
}

// isDivider reports whether l is 5 to 9 '='.
func isDivider(l string) bool {
	if !startsWith(l, '=') {
		return false
	}
	rest, ok := markerRun(strings.TrimSpace(l), '=')
	return ok && rest == ""
}

// isUpdated reports whether l is a REPLACE marker: 5 to 9 '>' and " REPLACE".
func isUpdated(l string) bool {
	if !startsWith(l, '>') {
		return false
	}
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

// stripFilename cleans a name line as Aider's strip_filename does (surrounding white space,
// trailing ':', leading '#', enclosing '`' and '*' removed), and returns "" for a line that
// cannot be a name: a fence, "...", a marker, or (beyond Aider) prose and markup: anything with
// white space inside, that starts with '<', that has no letter or digit, or a word with
// neither '.' nor '/' followed by ':' ("then:"), which is a label. Backticks and asterisks are
// stripped until none enclose the name, so "**`a.go`**:" is a.go (Aider strips each once).
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
		strings.IndexFunc(s, unicode.IsSpace) >= 0 || label && !strings.ContainsAny(s, "./") ||
		strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	return s
}
