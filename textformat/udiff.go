package textformat

import (
	"strconv"
	"strings"
)

// FindUDiff returns the unified diffs in text, read as git apply reads them, with the latitude
// of contract section 4b for diffs a model wrote.
//
// A file's diff is either git's ("diff --git a/p b/p", its extended header lines, then "--- ",
// "+++ " and hunks, or no hunks for a pure rename, an empty new file or the deletion of an empty
// one), or the traditional "--- old", "+++ new" and one or more hunks, with "index" or mode lines
// above it allowed. "rename from"/"rename to" make the diff a rename (OldPath), a path of
// /dev/null or "new file mode"/"deleted file mode" a creation or deletion; a/ and b/ prefixes are
// dropped where present. A hunk is an "@@" line (with git's "-l,n +l,n" ranges, or without
// numbers as Aider writes it) and its lines starting with ' ', '-', '+' or '\'; each line keeps
// its own line break (see Section).
//
// A hunk ends where its header's counts end, as git reads it, when the lines after that are not
// more hunk lines; otherwise (no counts, or counts that do not fit the lines) it is recounted
// like "git apply --recount". An empty line inside a hunk is an empty context line as models
// write them. Without counts, empty lines end the hunk when what follows them is not a hunk
// line or is a prose bullet ("- " and a word); with counts, a prose bullet after empty lines
// makes the counts not fit. A prose bullet is thus never taken for a removed line. Empty lines
// at a hunk's end that only its counts claim are tried with and without (hunk.optional).
//
// Consecutive file diffs form one edit; Span also covers a code fence whose whole content the
// edit is.
func FindUDiff(text string) []Edit {
	// Every diff has "+++ " and "@@", or git's "diff --git " (looked for as "--git ": a first
	// byte as frequent in prose as "d" makes the search several times slower).
	if !(strings.Contains(text, "+++ ") && strings.Contains(text, "@@")) && !strings.Contains(text, "--git ") {
		return nil
	}
	p := udiffText{text: text, ls: splitLines(text)}
	var out []Edit
	for i := 0; i < len(p.ls); i++ {
		f, next, partial, ok := p.file(i)
		if !ok {
			continue
		}
		e := Edit{Format: UDiff, Files: []File{f}, Partial: partial}
		for next < len(p.ls) {
			g, n, part, ok := p.file(next)
			if !ok {
				break
			}
			e.Files = append(e.Files, g)
			e.Partial, next = part, n
		}
		e.Span = Span{p.ls[i].start, p.ls[next-1].end}
		if i > 0 && next < len(p.ls) {
			if open := fence(p.get(i - 1)); open != "" && closesFence(p.get(next), open) {
				e.Span = Span{p.ls[i-1].start, p.ls[next].end}
				next++
			}
		}
		out = append(out, e)
		i = next - 1
	}
	return out
}

// udiffText is a text being read for unified diffs, split into lines.
type udiffText struct {
	text string
	ls   []line
}

// get returns line k without its line break.
func (p *udiffText) get(k int) string { return p.text[p.ls[k].start:p.ls[k].end] }

// headerAt reports whether lines i, i+1 and i+2 are "--- ", "+++ " and "@@".
func (p *udiffText) headerAt(i int) bool {
	return i+2 < len(p.ls) && strings.HasPrefix(p.get(i), "--- ") && strings.HasPrefix(p.get(i+1), "+++ ") &&
		strings.HasPrefix(p.get(i+2), "@@")
}

// gitLines are the extended header lines of a git diff, between "diff --git" and "---".
var gitLines = [...]string{"index ", "new file mode ", "deleted file mode ", "old mode ", "new mode ",
	"similarity index ", "dissimilarity index ", "rename from ", "rename to ", "copy from ", "copy to "}

func isGitLine(l string) bool {
	for _, p := range gitLines {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// file reads the file diff that starts at line i, if one does: next is the line after it,
// partial whether its last hunk may still be growing.
func (p *udiffText) file(i int) (f File, next int, partial, ok bool) {
	f = File{Format: UDiff, Op: OpModify}
	j := i
	git := strings.HasPrefix(p.get(i), "diff --git ")
	if git {
		j++
	}
	var renameFrom, renameTo string
	var created, deleted bool
	for j < len(p.ls) && isGitLine(p.get(j)) {
		l := p.get(j)
		switch {
		case strings.HasPrefix(l, "rename from "):
			renameFrom = unquotePath(l[len("rename from "):])
		case strings.HasPrefix(l, "rename to "):
			renameTo = unquotePath(l[len("rename to "):])
		case strings.HasPrefix(l, "new file mode "):
			created = true
		case strings.HasPrefix(l, "deleted file mode "):
			deleted = true
		}
		j++
	}
	oldPath, newPath := "", ""
	switch {
	case p.headerAt(j):
		var oldNull, newNull bool
		oldPath, oldNull = diffPath(p.get(j)[4:], "a/")
		newPath, newNull = diffPath(p.get(j + 1)[4:], "b/")
		created, deleted = created || oldNull, deleted || newNull
		j += 2
	case !git:
		return File{}, 0, false, false
	case j < len(p.ls) && (strings.HasPrefix(p.get(j), "Binary files ") || p.get(j) == "GIT binary patch"):
		return File{}, 0, false, false // binary patches are not text edits
	case renameFrom != "" && renameTo != "" || created || deleted:
		oldPath, newPath = gitNames(p.get(i)[len("diff --git "):])
	default:
		return File{}, 0, false, false // a mode change alone: nothing an editor can do
	}
	switch {
	case renameFrom != "" && renameTo != "":
		f.OldPath, f.Path = renameFrom, renameTo
	case created:
		f.Op, f.Path = OpCreate, newPath
	case deleted:
		f.Op, f.Path = OpDelete, oldPath
	default:
		f.Path = newPath
	}
	if f.Path == "" {
		return File{}, 0, false, false
	}
	for j < len(p.ls) && strings.HasPrefix(p.get(j), "@@") {
		var sec Section
		sec, j, partial = p.hunk(j)
		f.Sections = append(f.Sections, sec)
	}
	f.Span = Span{p.ls[i].start, p.ls[j-1].end}
	return f, j, partial, true
}

// diffPath reads the path of a "---" or "+++" line: a tab and what follows (a timestamp) are
// dropped, a quoted path is unquoted, and prefix ("a/" or "b/") is removed. null reports
// /dev/null.
func diffPath(s, prefix string) (path string, null bool) {
	if t, _, ok := strings.Cut(s, "\t"); ok {
		s = t
	}
	s = unquotePath(s)
	if s == "/dev/null" {
		return "", true
	}
	return strings.TrimPrefix(s, prefix), false
}

// unquotePath trims s and undoes git's C-style quoting of a path with unusual characters.
func unquotePath(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// gitNames reads the two paths of a "diff --git" line (after "diff --git "), prefixes dropped.
// Unquoted paths may hold spaces: the split is where both halves name the same path, as git
// writes it for everything but renames, which carry their paths in "rename from/to" lines.
func gitNames(s string) (oldPath, newPath string) {
	if strings.HasPrefix(s, `"`) {
		if q, err := strconv.QuotedPrefix(s); err == nil {
			a, _ := strconv.Unquote(q)
			b := unquotePath(s[len(q):])
			return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
		}
	}
	last := ""
	for k := 0; ; {
		n := strings.Index(s[k:], " b/")
		if n < 0 {
			break
		}
		k += n + 1
		a, b := strings.TrimPrefix(s[:k-1], "a/"), unquotePath(s[k:])
		if a == strings.TrimPrefix(b, "b/") {
			return a, a
		}
		last = s[:k-1] + "\x00" + s[k:]
	}
	if a, b, ok := strings.Cut(last, "\x00"); ok {
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(unquotePath(b), "b/")
	}
	return "", ""
}

// isBody reports whether line k can be part of a hunk: empty, or starting with ' ', '-', '+' or
// '\', and not the next file's "---" header nor the "-- " that starts a mail signature (one
// followed by a line that cannot be part of a hunk, as git format-patch's version line).
func (p *udiffText) isBody(k int) bool {
	s := p.get(k)
	if s == "-- " && k+1 < len(p.ls) {
		return p.isBody(k + 1)
	}
	if s == "" {
		return true
	}
	switch s[0] {
	case ' ', '+', '\\':
		return true
	case '-':
		return !p.headerAt(k)
	}
	return false
}

// isBullet reports whether l reads as a Markdown bullet of prose, "- " then a word, rather
// than a removed line (which, indented, has white space after its "- ").
func isBullet(l string) bool {
	return len(l) > 2 && l[0] == '-' && l[1] == ' ' && l[2] != ' ' && l[2] != '\t'
}

// hunk reads the hunk whose @@ line is h; next is the line after it, partial whether it may
// still be growing: fewer lines than its header counts, or no counts, at the text's end.
func (p *udiffText) hunk(h int) (sec Section, next int, partial bool) {
	header := p.get(h)
	r := parseRanges(header)
	end := h + 1
	for end < len(p.ls) && p.isBody(end) {
		end++
	}
	k, optional, trusted := p.counted(h+1, end, r)
	if !trusted {
		partial = k == len(p.ls) && r.counted
		k, optional = p.recount(h+1, end), 0
		partial = partial || !r.counted && k == len(p.ls)
	}
	hk := &hunk{oldStart: r.oldStart, insertAfter: r.counted && r.oldCount == 0, optional: optional,
		lines: make([]hunkLine, 0, k-h-1)}
	oldLen, newLen := 0, 0
	for q := h + 1; q < k; q++ {
		s := p.get(q)
		op := byte(' ')
		body := p.text[p.ls[q].start:p.ls[q].next]
		if s != "" {
			op, body = s[0], body[1:]
		}
		if op == '\\' {
			continue
		}
		switch {
		case q+1 < k && strings.HasPrefix(p.get(q+1), "\\"):
			body = strings.TrimSuffix(body, "\n") // "\ No newline at end of file": git keeps a "\r"
		case p.ls[q].next == p.ls[q].end:
			body += "\n" // the text ends without a line break: the line still has one
		}
		hk.lines = append(hk.lines, hunkLine{op: op, text: body})
		if op != '+' {
			oldLen += len(body)
		}
		if op != '-' {
			newLen += len(body)
		}
	}
	var search, replace strings.Builder
	search.Grow(oldLen)
	replace.Grow(newLen)
	for _, l := range hk.lines {
		lf, crlf := strings.CutSuffix(l.text, "\r\n") // Search and Replace drop the "\r"
		if l.op != '+' {
			writeLF(&search, lf, crlf)
		}
		if l.op != '-' {
			writeLF(&replace, lf, crlf)
		}
	}
	return Section{
		Span:     Span{p.ls[h].start, p.ls[h].end},
		Search:   search.String(),
		Replace:  replace.String(),
		OldStart: r.oldStart,
		Header:   header,
		hunk:     hk,
	}, k, partial
}

// writeLF writes line text to b, then "\n" when crlf says its "\r\n" was cut.
func writeLF(b *strings.Builder, text string, crlf bool) {
	b.WriteString(text)
	if crlf {
		b.WriteByte('\n')
	}
}

// counted walks the body lines [from, end) as git does, as far as the header's counts reach.
// trusted reports that they fit: every count reached exactly, and the line after is not one
// more hunk line (which would say the counts are too small). An empty line is an empty context
// line, but empty lines followed by a prose bullet end the walk short. k is the line after the
// hunk (or where the walk stopped), optional the number of empty lines at its end that only
// the counts claimed.
func (p *udiffText) counted(from, end int, r ranges) (k, optional int, trusted bool) {
	if !r.counted {
		return from, 0, false
	}
	old, nw := r.oldCount, r.newCount
	k = from
	for old > 0 || nw > 0 {
		if k == end {
			return k, 0, false
		}
		s := p.get(k)
		switch {
		case s == "":
			old--
			nw--
			optional++
		case s[0] == ' ':
			old--
			nw--
			optional = 0
		case s[0] == '-':
			if k > from && p.get(k-1) == "" && isBullet(s) {
				return k, 0, false
			}
			old--
			optional = 0
		case s[0] == '+':
			nw--
			optional = 0
		}
		if old < 0 || nw < 0 {
			return k, 0, false
		}
		k++
	}
	if k < end && strings.HasPrefix(p.get(k), "\\") {
		k++
	}
	if k < end && p.get(k) != "" {
		return k, 0, false
	}
	return k, optional, true
}

// recount returns the line after a hunk whose counts are unknown or wrong: the body lines
// [from, end), up to empty lines that are followed by something else than a hunk line, or by a
// prose bullet.
func (p *udiffText) recount(from, end int) int {
	k := from
	for k < end {
		if p.get(k) != "" {
			k++
			continue
		}
		j := k
		for j < end && p.get(j) == "" {
			j++
		}
		if j == end || isBullet(p.get(j)) {
			return k
		}
		k = j
	}
	return k
}

// ranges are the numbers of a hunk's "@@ -l,n +l,n @@" line.
type ranges struct {
	oldStart           int // -1 when the header has no old range
	oldCount, newCount int
	counted            bool // both ranges were given
}

// parseRanges reads "@@ -l,n +l,n @@" (a missing count is 1). Without a readable old range,
// oldStart is -1; without both ranges, counted is false.
func parseRanges(h string) ranges {
	r := ranges{oldStart: -1}
	f := strings.Fields(strings.TrimPrefix(h, "@@"))
	if len(f) < 1 || !strings.HasPrefix(f[0], "-") {
		return r
	}
	start, oc, ok := parseRange(f[0][1:])
	if !ok {
		return r
	}
	r.oldStart = start
	if len(f) < 2 || !strings.HasPrefix(f[1], "+") {
		return r
	}
	if _, nc, ok := parseRange(f[1][1:]); ok {
		r.oldCount, r.newCount, r.counted = oc, nc, true
	}
	return r
}

func parseRange(s string) (start, count int, ok bool) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// hunk is a unified diff hunk as git applies it.
type hunk struct {
	lines []hunkLine
	// oldStart is the first old line the header names (-1: none); insertAfter says the header
	// counts no old lines ("-l,0"), so that the hunk goes after line oldStart.
	oldStart    int
	insertAfter bool
	// optional is how many empty context lines at the end were taken only because the header's
	// counts claimed them: a model may have counted wrong, so the hunk is also tried without.
	optional int
}

// hunkLine is one line of a hunk: op is ' ', '-' or '+', text the line after it with its line
// break as the diff gives it ("\r\n" or "\n"; none when "\ No newline at end of file" follows).
type hunkLine struct {
	op   byte
	text string
}
